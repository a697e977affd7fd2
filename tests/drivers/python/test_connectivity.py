"""The official Python driver against Quiver: handshake, authentication, routing, refusal."""

import neo4j
import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, TransientError

from conftest import PASSWORD, USER, metric, wait_until

BOLT_ACTIVE = "quiver_bolt_connections_active"


@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_verify_connectivity(quiver, scheme):
    with GraphDatabase.driver(quiver.uri(scheme), auth=(USER, PASSWORD)) as driver:
        driver.verify_connectivity()
        info = driver.get_server_info()
        assert info.agent.startswith("Neo4j/")
        assert info.protocol_version >= (5, 0)


def test_wrong_password_is_an_auth_error(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, "wrong")) as driver:
        with pytest.raises(AuthError) as raised:
            driver.verify_connectivity()
    assert raised.value.code == "Neo.ClientError.Security.Unauthorized"


def test_unknown_user_is_an_auth_error(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=("nobody", PASSWORD)) as driver:
        with pytest.raises(AuthError):
            driver.verify_connectivity()


def test_refusal_past_max_connections_is_a_transient_error(small_quiver):
    holders = small_quiver.hold(2)
    try:
        # Both raw sockets hold their slots before the driver asks, however late the server's
        # accept loop runs.
        assert wait_until(lambda: metric(small_quiver, BOLT_ACTIVE) == 2)
        with GraphDatabase.driver(
            small_quiver.uri(), auth=(USER, PASSWORD), connection_acquisition_timeout=10
        ) as driver:
            with pytest.raises(TransientError) as raised:
                driver.verify_connectivity()
        assert raised.value.code == "Neo.TransientError.General.ServiceUnavailable"
        assert "limit of 2" in raised.value.message
    finally:
        for holder in holders:
            holder.close()
    # Once the server has seen the sockets close and freed their slots, the same driver
    # configuration gets in.
    assert wait_until(lambda: metric(small_quiver, BOLT_ACTIVE) == 0)
    with GraphDatabase.driver(small_quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.verify_connectivity()


def test_driver_version_is_the_one_under_test():
    expected = __import__("os").environ.get("QUIVER_EXPECT_NEO4J")
    if expected:
        assert neo4j.__version__.startswith(expected)
