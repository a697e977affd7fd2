"""Transactions the server ends by itself: one whose client went silent while holding a write
(the idle-transaction timeout) and one past the server's default transaction timeout. Both
end with Neo4j's TransactionTimedOut and are counted in /metrics; a writer waiting on the idle
one's node then succeeds."""

import base64
import json
import time
import urllib.error
import urllib.request

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

from conftest import PASSWORD, USER, Quiver, metric, wait_until

TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"


@pytest.fixture
def impatient_quiver():
    """Idle transactions end after 1 s; the lock wait is shorter, so a waiting writer fails
    back to its driver's retry at least once before the holder is ended."""
    server = Quiver("--idle-transaction-timeout-ms", "1000", "--lock-wait-ms", "200")
    yield server
    server.stop()


def test_an_idle_writer_is_ended_and_the_waiting_writer_then_succeeds(impatient_quiver):
    with GraphDatabase.driver(impatient_quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.execute_query("CREATE (:Held {id: 1, v: 0})")
        with driver.session() as idle_session, driver.session() as waiting_session:
            idle = idle_session.begin_transaction()
            idle.run("MATCH (h:Held {id: 1}) SET h.v = 100").consume()
            started = time.monotonic()
            # The holder now sends nothing; the managed write retries until it is ended.
            waiting_session.execute_write(
                lambda tx: tx.run("MATCH (h:Held {id: 1}) SET h.v = h.v + 1").consume()
            )
            waited = time.monotonic() - started
            assert 0.8 <= waited < 30, waited
            with pytest.raises(ClientError) as raised:
                idle.commit()
            assert raised.value.code == TIMED_OUT, raised.value
            assert "idle transaction timeout" in raised.value.message
        records, _, _ = driver.execute_query("MATCH (h:Held {id: 1}) RETURN h.v AS v")
        assert records[0]["v"] == 1, "the idle writer's change was rolled back"
    assert metric(impatient_quiver, "quiver_transactions_idle_timed_out_total") >= 1
    assert wait_until(lambda: metric(impatient_quiver, "quiver_transactions_active") == 0)


def http(server, method, path, body=None):
    host, port = server.http
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(
        f"http://{host}:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json", "Authorization": f"Basic {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_an_idle_http_transaction_is_ended_with_a_timeout_error(impatient_quiver):
    status, opened = http(
        impatient_quiver,
        "POST",
        "/db/neo4j/tx",
        {"statements": [{"statement": "CREATE (:HttpHeld {id: 1})"}]},
    )
    assert status in (200, 201), opened
    tx_path = opened["commit"].rsplit("/commit", 1)[0].split("//", 1)[1].split("/", 1)[1]
    assert wait_until(
        lambda: metric(impatient_quiver, "quiver_transactions_idle_timed_out_total") >= 1,
        timeout=10,
    )
    status, answer = http(impatient_quiver, "POST", f"/{tx_path}", {"statements": []})
    assert [e["code"] for e in answer["errors"]] == [TIMED_OUT], answer


def test_the_servers_default_transaction_timeout_ends_a_long_transaction():
    server = Quiver("--transaction-timeout-ms", "500")
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            with driver.session() as session:
                tx = session.begin_transaction()
                tx.run("CREATE (:Slow)").consume()
                time.sleep(1.0)
                with pytest.raises(ClientError) as raised:
                    tx.commit()
                assert raised.value.code == TIMED_OUT, raised.value
                assert "transaction timeout" in raised.value.message
            records, _, _ = driver.execute_query("MATCH (s:Slow) RETURN count(s) AS c")
            assert records[0]["c"] == 0
        assert metric(server, "quiver_transactions_timed_out_total") >= 1
    finally:
        server.stop()
