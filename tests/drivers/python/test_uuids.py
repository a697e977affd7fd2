"""Bolt 6.1's UUID type with the official Python driver: a 6.x driver negotiates Bolt 6.1 and
sends and receives `uuid.UUID`; a 5.x driver stays on Bolt 5, where a UUID cannot be sent and
the query fails naming Bolt 6.1 while the connection goes on."""

import uuid

import pytest
from neo4j.exceptions import ClientError

from conftest import driver_5x, needs_6x, negotiated, refused_on_bolt_5

bolt61 = needs_6x("UUID")


@bolt61
def test_a_6x_driver_negotiates_bolt_6_1(driver):
    assert negotiated(driver) >= (6, 1)


@bolt61
def test_a_uuid_parameter_is_stored_and_read_back_as_a_uuid(driver):
    sent = [uuid.uuid4() for _ in range(5)] + [
        uuid.UUID(int=0),
        uuid.UUID(int=2**128 - 1),
        uuid.UUID("550e8400-e29b-41d4-a716-446655440000"),
    ]
    for n, value in enumerate(sent):
        driver.execute_query("CREATE (:Thing {n: $n, id: $id})", n=n, id=value)
    records = driver.execute_query(
        "MATCH (t:Thing) RETURN t.n AS n, t.id AS id, valueType(t.id) AS type, "
        "toString(t.id) AS text ORDER BY n"
    ).records
    assert len(records) == len(sent)
    for record, value in zip(records, sent):
        assert isinstance(record["id"], uuid.UUID)
        assert record["id"] == value
        assert record["type"] == "UUID NOT NULL"
        assert record["text"] == str(value)
    # A UUID parameter finds its node; its text does not.
    wanted = sent[2]
    found = driver.execute_query(
        "MATCH (t:Thing) WHERE t.id = $id RETURN t.n AS n", id=wanted
    ).records
    assert [r["n"] for r in found] == [2]
    by_text = driver.execute_query(
        "MATCH (t:Thing) WHERE t.id = $id RETURN t.n AS n", id=str(wanted)
    ).records
    assert by_text == []


@bolt61
def test_uuids_built_in_cypher_arrive_as_uuids(driver):
    record = driver.execute_query(
        "RETURN uuid('550e8400-e29b-41d4-a716-446655440000') AS parsed, uuid(42, 42) AS halves, "
        "uuid() AS random, randomUUID() AS text, [uuid(1, 2)] AS listed"
    ).records[0]
    assert record["parsed"] == uuid.UUID("550e8400-e29b-41d4-a716-446655440000")
    assert record["halves"] == uuid.UUID("00000000-0000-002a-0000-00000000002a")
    assert isinstance(record["random"], uuid.UUID)
    assert record["random"].version == 4
    assert isinstance(record["text"], str)
    assert record["listed"] == [uuid.UUID(int=(1 << 64) | 2)]


@bolt61
def test_a_malformed_uuid_text_fails_the_query_not_the_connection(driver):
    with driver.session() as session:
        with pytest.raises(ClientError):
            session.run("RETURN uuid('not-a-uuid') AS u").single()
        assert session.run("RETURN uuid(0, 1) AS u").single()["u"] == uuid.UUID(int=1)


@driver_5x
def test_a_5x_driver_stays_on_bolt_5_and_a_uuid_fails_clearly(driver):
    with refused_on_bolt_5(driver, "RETURN uuid(42, 42) AS u", "6.1") as session:
        # The connection goes on, and UUID text is untouched.
        text = "550e8400-e29b-41d4-a716-446655440000"
        assert session.run("RETURN toString(uuid($t)) AS t", t=text).single()["t"] == text
