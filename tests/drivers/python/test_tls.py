"""TLS with the official Python driver: bolt+s, neo4j+s, bolt+ssc, a custom CA, wrong
certificates, plain Bolt refused where TLS is required, and mutual TLS.

The CA, certificates and keys are made for the run by tests/drivers/run.sh (with rcgen, through
`cargo run -p quiver-server --example test_certs`) in $QUIVER_TEST_CERTS.
"""

import contextlib
import os

import pytest
from neo4j import GraphDatabase, TrustCustomCAs
from neo4j.auth_management import ClientCertificate
from neo4j.exceptions import ServiceUnavailable

from conftest import PASSWORD, USER, Quiver

AUTH = (USER, PASSWORD)


def certs(name):
    directory = os.environ.get("QUIVER_TEST_CERTS")
    assert directory, "QUIVER_TEST_CERTS names the test certificates (tests/drivers/run.sh)"
    return os.path.join(directory, name)


@contextlib.contextmanager
def tls_server(*extra, cert="server"):
    """A server with the test certificate `cert` (its .pem and .key), stopped when left."""
    server = Quiver(
        "--tls-cert", certs(f"{cert}.pem"), "--tls-key", certs(f"{cert}.key"), *extra
    )
    try:
        yield server
    finally:
        server.stop()


def answer(driver):
    records, _, _ = driver.execute_query("RETURN 1 AS one")
    return records[0]["one"]


def trusting(server, ca, **config):
    """A driver over bolt:// with encryption on, trusting the test CA file `ca` alone."""
    return GraphDatabase.driver(
        server.uri("bolt"),
        auth=AUTH,
        encrypted=True,
        trusted_certificates=TrustCustomCAs(certs(ca)),
        **config,
    )


def assert_cannot_connect(driver):
    """The driver, not yet opened, fails to connect with ServiceUnavailable; it is closed after."""
    with driver:
        with pytest.raises(ServiceUnavailable):
            driver.verify_connectivity()


@pytest.fixture
def required():
    """Bolt requires TLS; HTTP takes both."""
    with tls_server("--bolt-tls", "required") as server:
        yield server


def test_a_custom_ca_over_bolt_with_encryption(required):
    with trusting(required, "ca.pem") as driver:
        assert answer(driver) == 1


@pytest.mark.parametrize("scheme", ["bolt+s", "neo4j+s"])
def test_bolt_s_and_neo4j_s_trust_the_system_store(required, scheme, monkeypatch):
    # The +s schemes trust the system's CAs; OpenSSL reads SSL_CERT_FILE for them.
    monkeypatch.setenv("SSL_CERT_FILE", certs("ca.pem"))
    with GraphDatabase.driver(required.uri(scheme), auth=AUTH) as driver:
        assert answer(driver) == 1


def test_bolt_ssc_takes_a_certificate_it_cannot_check(required):
    with GraphDatabase.driver(required.uri("bolt+ssc"), auth=AUTH) as driver:
        assert answer(driver) == 1


def test_a_certificate_from_an_unknown_ca_is_refused(required):
    assert_cannot_connect(trusting(required, "other-ca.pem"))


def test_a_certificate_for_another_host_is_refused():
    with tls_server("--bolt-tls", "required", cert="wrong-host") as server:
        assert_cannot_connect(trusting(server, "ca.pem"))


def test_plain_bolt_is_refused_where_tls_is_required_and_the_server_stays_up(required):
    assert_cannot_connect(GraphDatabase.driver(required.uri("bolt"), auth=AUTH))
    with GraphDatabase.driver(required.uri("bolt+ssc"), auth=AUTH) as driver:
        assert answer(driver) == 1


def test_plain_and_tls_share_an_optional_listener():
    with tls_server() as server:
        for uri in (server.uri("bolt"), server.uri("bolt+ssc")):
            with GraphDatabase.driver(uri, auth=AUTH) as driver:
                assert answer(driver) == 1


def test_mutual_tls_wants_a_certificate_from_the_client_ca():
    with tls_server("--bolt-tls", "required", "--tls-client-ca", certs("ca.pem")) as server:
        assert_cannot_connect(trusting(server, "ca.pem"))
        client = ClientCertificate(certs("client.pem"), certs("client.key"))
        with trusting(server, "ca.pem", client_certificate=client) as driver:
            assert answer(driver) == 1
