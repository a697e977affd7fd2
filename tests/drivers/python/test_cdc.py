"""Change data capture through the official driver, as Neo4j's CDC documentation shows it:
`db.cdc.earliest()`, `db.cdc.current()` and `db.cdc.query($from, $selectors)`, polled by a
reader that keeps the last change identifier it processed, with selectors and transaction
metadata, across a server restart, and the errors for an unknown identifier and for a
database that captures nothing."""

import threading

import neo4j
import pytest
from neo4j import GraphDatabase, Query

from conftest import PASSWORD, USER, Quiver

WRITERS = 4
EACH = 25


@pytest.fixture
def capturing(tmp_path):
    server = Quiver("--cdc", "full", "--durability", "group", data_dir=tmp_path / "data")
    yield server
    server.stop()


def changes(driver, cursor, selectors=()):
    records, _, _ = driver.execute_query(
        "CALL db.cdc.query($from, $selectors)",
        {"from": cursor, "selectors": list(selectors)},
    )
    return records


def test_a_reader_polling_from_earliest_sees_every_committed_change_once_in_order(capturing):
    server = capturing
    with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
        cursor = driver.execute_query("CALL db.cdc.earliest()").records[0]["id"]

        def write(t):
            with driver.session() as session:
                for n in range(EACH):
                    session.run("CREATE (:Person {t: $t, n: $n})", t=t, n=n).consume()
                    if n % 5 == 0:
                        with session.begin_transaction() as tx:
                            tx.run("CREATE (:RolledBack)").consume()
                            tx.rollback()

        threads = [threading.Thread(target=write, args=(t,)) for t in range(WRITERS)]
        for thread in threads:
            thread.start()
        seen = []
        # Poll while the writers write, resuming each time from the last identifier seen. A
        # poll that began after every writer had returned (so after every write was
        # acknowledged, hence durable) and found nothing new is the last.
        while True:
            writers_done = not any(thread.is_alive() for thread in threads)
            batch = changes(driver, cursor)
            for record in batch:
                seen.append(record)
                cursor = record["id"]
            if not batch and writers_done:
                break
        for thread in threads:
            thread.join()

    assert len(seen) == WRITERS * EACH
    keys = [(r["txId"], r["seq"]) for r in seen]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    created = {
        (r["event"]["state"]["after"]["properties"]["t"], r["event"]["state"]["after"]["properties"]["n"])
        for r in seen
    }
    assert created == {(t, n) for t in range(WRITERS) for n in range(EACH)}
    for r in seen:
        assert r["event"]["eventType"] == "n"
        assert r["event"]["operation"] == "c"
        assert r["event"]["labels"] == ["Person"]
        assert r["event"]["state"]["before"] is None
        assert r["metadata"]["executingUser"] == USER
        assert r["metadata"]["captureMode"] == "FULL"
        assert r["metadata"]["connectionType"] == "bolt"
        assert isinstance(r["metadata"]["txCommitTime"], neo4j.time.DateTime)


def test_selectors_and_transaction_metadata_as_the_documentation_shows_them(capturing):
    server = capturing
    with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
        current = driver.execute_query("CALL db.cdc.current()").records[0]["id"]
        driver.execute_query("CREATE (:Person {name: 'Ann', age: 30})-[:KNOWS]->(:Person {name: 'Bob'})")
        with driver.session() as session:
            session.run(
                Query("MATCH (p:Person {name: 'Ann'}) SET p.age = 31", metadata={"app": "hr"})
            ).consume()
        driver.execute_query("MATCH (p:Person {name: 'Bob'}) DETACH DELETE p")

        everything = changes(driver, current)
        assert [(r["event"]["eventType"], r["event"]["operation"]) for r in everything] == [
            ("n", "c"),
            ("n", "c"),
            ("r", "c"),
            ("n", "u"),
            ("r", "d"),
            ("n", "d"),
        ]
        updates = changes(driver, current, [{"select": "n", "changesTo": ["age"], "operation": "u"}])
        assert len(updates) == 1
        state = updates[0]["event"]["state"]
        assert state["before"]["properties"]["age"] == 30
        assert state["after"]["properties"]["age"] == 31
        assert updates[0]["metadata"]["txMetadata"] == {"app": "hr"}
        by_metadata = changes(driver, current, [{"select": "e", "txMetadata": {"app": "hr"}}])
        assert [r["id"] for r in by_metadata] == [r["id"] for r in updates]
        relationships = changes(driver, current, [{"select": "r", "type": "KNOWS"}])
        assert [r["event"]["operation"] for r in relationships] == ["c", "d"]
        start = relationships[0]["event"]["start"]
        assert start["labels"] == ["Person"] and start["elementId"].startswith("4:")


def test_a_cursor_survives_a_restart(tmp_path):
    def serve():
        return Quiver("--cdc", "full", "--durability", "group", data_dir=tmp_path / "data")

    server = serve()
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            cursor = driver.execute_query("CALL db.cdc.current()").records[0]["id"]
            driver.execute_query("CREATE (:Kept)")
            before = [r["id"] for r in changes(driver, cursor)]
    finally:
        server.stop()
    server = serve()
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            after = [r["id"] for r in changes(driver, cursor)]
    finally:
        server.stop()
    assert after == before and len(after) == 1


def test_an_unknown_identifier_and_a_database_that_captures_nothing_are_refused(capturing, quiver):
    server = capturing
    with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
        with pytest.raises(neo4j.exceptions.ClientError) as error:
            driver.execute_query("CALL db.cdc.query('no-such-change', [])")
        assert error.value.code == "Neo.ClientError.ChangeDataCapture.InvalidIdentifier"
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with pytest.raises(neo4j.exceptions.DatabaseError) as error:
            driver.execute_query("CALL db.cdc.current()")
        assert error.value.code == "Neo.DatabaseError.ChangeDataCapture.Disabled"
