"""The official Python driver running queries against Quiver: transactions, retries, streaming,
every value type, errors, bookmarks, routing and the procedures tools call on connect."""

import datetime
import threading
import time

import neo4j
import pytest
import pytz
from neo4j import GraphDatabase, RoutingControl
from neo4j.exceptions import ClientError, CypherSyntaxError, Neo4jError, TransientError
from neo4j.graph import Node, Path, Relationship
from neo4j.spatial import CartesianPoint, WGS84Point
from neo4j.time import Date, DateTime, Duration, Time

from conftest import PASSWORD, USER, Quiver, metric, wait_until


def test_auto_commit_and_explicit_transactions(driver):
    with driver.session() as session:
        assert session.run("RETURN 1 AS one").single()["one"] == 1
        summary = session.run("CREATE (:Person {name: 'Ann'}), (:Person {name: 'Bob'})").consume()
        assert summary.counters.nodes_created == 2
        assert summary.query_type == "w"
        with session.begin_transaction() as tx:
            tx.run("CREATE (:Person {name: 'Cy'})").consume()
            first = tx.run("MATCH (p:Person) RETURN p.name AS name ORDER BY name")
            second = tx.run("RETURN 42 AS answer")
            assert second.single()["answer"] == 42
            assert [r["name"] for r in first] == ["Ann", "Bob", "Cy"]
            tx.commit()
        with session.begin_transaction() as tx:
            tx.run("CREATE (:Person {name: 'Never'})").consume()
            tx.rollback()
        count = session.run("MATCH (p:Person) RETURN count(p) AS c").single()["c"]
        assert count == 3


def test_execute_query_and_managed_reads(driver):
    records, summary, keys = driver.execute_query(
        "UNWIND $xs AS x RETURN x * 2 AS y", xs=[1, 2, 3], database_="neo4j"
    )
    assert keys == ["y"]
    assert [r["y"] for r in records] == [2, 4, 6]
    assert summary.database == "neo4j"
    records, _, _ = driver.execute_query(
        "RETURN 'read' AS mode", routing_=RoutingControl.READ
    )
    assert records[0]["mode"] == "read"


@pytest.fixture
def no_wait_driver():
    """A server whose writers never wait for each other (`--lock-wait-ms 0`): a conflict fails
    the attempt at once, so the driver's own retry is what is tested."""
    server = Quiver("--lock-wait-ms", "0")
    with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
        yield driver
    server.stop()


def test_managed_transaction_is_retried_after_a_write_conflict(no_wait_driver):
    driver = no_wait_driver
    driver.execute_query("CREATE (:Account {id: 1, balance: 0})")
    blocker_session = driver.session()
    blocker = blocker_session.begin_transaction()
    blocker.run("MATCH (a:Account {id: 1}) SET a.balance = 100").consume()
    attempts = []

    def transfer(tx):
        attempts.append(1)
        if len(attempts) == 1:
            # The first attempt collides with the open transaction; let it finish so that the
            # retry can succeed.
            threading.Timer(0.2, blocker.commit).start()
        tx.run("MATCH (a:Account {id: 1}) SET a.balance = a.balance + 1").consume()

    with driver.session() as session:
        session.execute_write(transfer)
    blocker_session.close()
    assert len(attempts) >= 2
    balance = driver.execute_query("MATCH (a:Account {id: 1}) RETURN a.balance AS b").records
    assert balance[0]["b"] == 101


def test_write_conflict_surfaces_as_a_transient_error(driver):
    driver.execute_query("CREATE (:Lock {id: 7})")
    with driver.session() as holder_session, driver.session() as other:
        holder = holder_session.begin_transaction()
        holder.run("MATCH (l:Lock {id: 7}) SET l.v = 1").consume()
        with pytest.raises(TransientError) as raised:
            other.run("MATCH (l:Lock {id: 7}) SET l.v = 2").consume()
        assert raised.value.code.startswith("Neo.TransientError.Transaction.")
        assert raised.value.is_retryable()
        holder.rollback()


@pytest.mark.parametrize("fetch_size", [1, 7, 1000])
def test_large_results_with_small_fetch_sizes(driver, fetch_size):
    total = 20000 if fetch_size > 1 else 2000
    with driver.session(fetch_size=fetch_size) as session:
        result = session.run("UNWIND range(1, $n) AS i RETURN i, toString(i) AS s", n=total)
        seen = 0
        for record in result:
            seen += 1
            assert record["i"] == seen
            assert record["s"] == str(seen)
        assert seen == total


def test_explicit_transaction_streams_interleave_with_small_fetches(driver):
    with driver.session(fetch_size=3) as session:
        with session.begin_transaction() as tx:
            a = tx.run("UNWIND range(1, 10) AS i RETURN i")
            b = tx.run("UNWIND range(11, 20) AS i RETURN i")
            assert [r["i"] for r in b] == list(range(11, 21))
            assert [r["i"] for r in a] == list(range(1, 11))
            tx.commit()


class FixedOffset(datetime.tzinfo):
    """A fixed UTC offset the drivers can ask of a time of day (`datetime.timezone` only
    answers for date-times, which the drivers' Time encoder trips over)."""

    def __init__(self, minutes):
        self.minutes = minutes

    def utcoffset(self, _):
        return datetime.timedelta(minutes=self.minutes)

    def dst(self, _):
        return None

    def tzname(self, _):
        return f"UTC{self.minutes:+d}m"


def zone_name(tzinfo):
    """The IANA name of a zone, from zoneinfo (`key`) or pytz (`zone`), as the driver returns."""
    return getattr(tzinfo, "key", None) or getattr(tzinfo, "zone", None)


# Named zones are sent as pytz zones (a dependency of the driver): the driver's encoder hands its
# own DateTime to a zoneinfo zone's utcoffset, which only accepts the standard datetime.
ZONED = pytz.timezone("Europe/Paris").localize(datetime.datetime(2024, 7, 1, 12, 30, 15, 123456))

SCALARS = [
    None,
    True,
    False,
    0,
    -1,
    2**62,
    -(2**63),
    3.25,
    float("inf"),
    "",
    "text with ünïcödé and 😀",
    b"\x00\x01\xfe\xff",
    [1, "two", [3.0, None]],
    {"a": 1, "b": [True, {"c": "d"}]},
    Date(2024, 2, 29),
    Time(23, 59, 59, 999999999),
    Time(8, 0, 0, 0, tzinfo=FixedOffset(120)),
    Time(17, 45, 30, 5, tzinfo=FixedOffset(-330)),
    DateTime(2001, 9, 9, 1, 46, 40, 123456789),
    datetime.datetime(2020, 1, 1, 0, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))),
    datetime.datetime(1969, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc),
    Duration(months=14, days=3, seconds=4000, nanoseconds=5),
    CartesianPoint((1.5, -2.0)),
    CartesianPoint((1.0, 2.0, 3.0)),
    WGS84Point((13.4, 52.5)),
    WGS84Point((13.4, 52.5, 34.0)),
]


@pytest.mark.parametrize("value", SCALARS, ids=lambda v: type(v).__name__)
def test_every_value_type_round_trips(driver, value):
    records, _, _ = driver.execute_query("RETURN $v AS v", v=value)
    got = records[0]["v"]
    if isinstance(value, float) and value != value:
        assert got != got
    else:
        assert got == value, f"{got!r} != {value!r}"
        assert type(got) is type(value) or isinstance(value, (datetime.datetime, bytes))


def test_named_zone_date_times_keep_their_zone(driver):
    records, _, _ = driver.execute_query(
        "RETURN $v AS v, $v.epochSeconds AS e, "
        "datetime({year: 2024, month: 1, day: 15, hour: 9, timezone: 'America/New_York'}) AS w",
        v=ZONED,
    )
    assert records[0]["e"] == int(ZONED.timestamp())
    got = records[0]["v"]
    assert got.to_native() == ZONED
    assert zone_name(got.tzinfo) == "Europe/Paris"
    assert got.utcoffset() == datetime.timedelta(hours=2)
    made = records[0]["w"]
    assert zone_name(made.tzinfo) == "America/New_York"
    assert made.utcoffset() == datetime.timedelta(hours=-5)


def test_nodes_relationships_and_paths(driver):
    records, _, _ = driver.execute_query(
        "CREATE p = (a:Person:Author {name: 'Ann', born: 1970})-[r:KNOWS {since: 2020}]->(b:Person {name: 'Bob'}) "
        "RETURN a, r, b, p"
    )
    record = records[0]
    a, r, b, p = record["a"], record["r"], record["b"], record["p"]
    assert isinstance(a, Node) and set(a.labels) == {"Person", "Author"}
    assert dict(a) == {"name": "Ann", "born": 1970}
    assert a.element_id
    assert isinstance(r, Relationship) and r.type == "KNOWS" and r["since"] == 2020
    assert r.start_node.element_id == a.element_id
    assert r.end_node.element_id == b.element_id
    assert isinstance(p, Path) and len(p) == 1
    assert p.start_node == a and p.end_node == b
    assert [rel.type for rel in p.relationships] == ["KNOWS"]


def test_syntax_errors_are_cypher_syntax_errors_with_their_code(driver):
    with pytest.raises(CypherSyntaxError) as raised:
        driver.execute_query("RETURN 1 +")
    assert raised.value.code == "Neo.ClientError.Statement.SyntaxError"
    with pytest.raises(ClientError) as raised:
        driver.execute_query("RETURN $missing")
    assert raised.value.code == "Neo.ClientError.Statement.ParameterMissing"
    with pytest.raises(Neo4jError) as raised:
        driver.execute_query("RETURN 1 / 0")
    assert raised.value.code.startswith("Neo.ClientError.")


def test_a_session_recovers_after_a_failure(driver):
    with driver.session() as session:
        with pytest.raises(CypherSyntaxError):
            session.run("RETURN (").consume()
        assert session.run("RETURN 2 AS two").single()["two"] == 2
        with pytest.raises(Neo4jError):
            with session.begin_transaction() as tx:
                tx.run("CREATE (:Doomed)").consume()
                tx.run("RETURN 1 / 0").consume()
        assert session.run("MATCH (d:Doomed) RETURN count(d) AS c").single()["c"] == 0


def test_read_sessions_refuse_writes(driver):
    with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
        with pytest.raises(ClientError) as raised:
            session.execute_read(lambda tx: tx.run("CREATE (:Nope)").consume())
        assert raised.value.code == "Neo.ClientError.Statement.AccessMode"


def test_bookmarks_give_causal_consistency(driver):
    with driver.session() as writer:
        writer.run("CREATE (:Event {n: 1})").consume()
        bookmarks = writer.last_bookmarks()
    assert bookmarks
    with driver.session(bookmarks=bookmarks, default_access_mode=neo4j.READ_ACCESS) as reader:
        assert reader.run("MATCH (e:Event) RETURN count(e) AS c").single()["c"] == 1
    manager = GraphDatabase.bookmark_manager()
    driver.execute_query("CREATE (:Event {n: 2})", bookmark_manager_=manager)
    records, _, _ = driver.execute_query(
        "MATCH (e:Event) RETURN count(e) AS c", bookmark_manager_=manager
    )
    assert records[0]["c"] == 2


def test_transaction_metadata_and_timeout(driver):
    with driver.session() as session, driver.session() as observer:
        with session.begin_transaction(metadata={"app": "reports"}, timeout=30) as tx:
            rows = observer.run(
                "SHOW TRANSACTIONS YIELD metaData RETURN metaData"
            ).data()
            assert any(row["metaData"].get("app") == "reports" for row in rows), rows
            tx.rollback()
        query = neo4j.Query(
            "UNWIND range(1, 5000) AS a UNWIND range(1, 5000) AS b "
            "WITH a, b WHERE a + b < 0 RETURN count(*)",
            timeout=0.2,
        )
        started = time.monotonic()
        with pytest.raises(ClientError) as raised:
            session.run(query).consume()
        assert raised.value.code == (
            "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"
        )
        assert time.monotonic() - started < 5


def test_neo4j_scheme_routes_reads_and_writes(quiver):
    with GraphDatabase.driver(quiver.uri("neo4j"), auth=(USER, PASSWORD)) as driver:
        driver.execute_query("CREATE (:Routed)")
        records, _, _ = driver.execute_query(
            "MATCH (r:Routed) RETURN count(r) AS c", routing_=RoutingControl.READ
        )
        assert records[0]["c"] == 1
        with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
            assert session.execute_read(lambda tx: tx.run("RETURN 1 AS x").single()["x"]) == 1


def test_procedures_tools_call_on_connect(driver):
    records, _, _ = driver.execute_query("CALL db.ping()")
    assert records[0]["success"] is True
    records, _, _ = driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
    )
    assert records[0]["name"] == "Neo4j Kernel"
    assert records[0]["versions"]


def test_many_concurrent_sessions(driver):
    errors = []

    def work(i):
        try:
            with driver.session() as session:
                for j in range(20):
                    value = session.run("RETURN $i * 100 + $j AS v", i=i, j=j).single()["v"]
                    assert value == i * 100 + j
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_counters_follow_the_drivers_work(quiver, driver):
    with driver.session() as session:
        session.run("CREATE (:Counted)").consume()
        with session.begin_transaction() as tx:
            tx.run("CREATE (:Counted)").consume()
            tx.rollback()
        with pytest.raises(ClientError):
            session.run("RETURN 1 / 0").consume()
    assert metric(quiver, "quiver_bolt_connections_accepted_total") >= 1
    assert metric(quiver, "quiver_bolt_messages_total") > 0
    assert metric(quiver, "quiver_transactions_committed_total") >= 1
    assert metric(quiver, "quiver_transactions_rolled_back_total") >= 2
    assert metric(quiver, "quiver_transactions_opened_total") >= 3
    assert wait_until(lambda: metric(quiver, "quiver_transactions_active") == 0)


def test_cypher_5_prefix_label_expressions_and_use(driver):
    """@neo4j/graphql sends `CYPHER 5` before every query; label expressions, type predicates
    and `USE neo4j` reach the server through the driver as written."""
    driver.execute_query("CREATE (:Dialect:A {n: 1}), (:Dialect:B {n: 2}), (:Dialect:C {n: 3})")
    records, _, _ = driver.execute_query(
        "CYPHER 5 MATCH (x:Dialect&(A|B)) RETURN x.n AS n ORDER BY n"
    )
    assert [r["n"] for r in records] == [1, 2]
    records, _, _ = driver.execute_query(
        "CYPHER runtime=slotted USE neo4j MATCH (x:Dialect) WHERE x:!A RETURN "
        "x.n AS n, x.n IS :: INTEGER NOT NULL AS typed, valueType(x.n) AS t ORDER BY n"
    )
    assert [(r["n"], r["typed"], r["t"]) for r in records] == [
        (2, True, "INTEGER NOT NULL"),
        (3, True, "INTEGER NOT NULL"),
    ]
    with pytest.raises(ClientError) as failure:
        driver.execute_query("CYPHER runtime=turbo RETURN 1")
    assert failure.value.code == "Neo.ClientError.Statement.ArgumentError"
    assert "turbo" in failure.value.message
    with pytest.raises(ClientError) as failure:
        driver.execute_query("USE elsewhere RETURN 1")
    assert failure.value.code == "Neo.ClientError.Database.DatabaseNotFound"


def test_explain_and_profile_plans_in_the_summary(driver):
    with driver.session() as session:
        session.run("UNWIND range(1, 5) AS i CREATE (:PyPlanned {i: i})").consume()
        query = "MATCH (p:PyPlanned) WHERE p.i > 2 RETURN p.i AS i"
        explained = session.run(f"EXPLAIN {query}")
        assert list(explained) == []
        summary = explained.consume()
        assert summary.profile is None
        plan = summary.plan
        assert plan["operatorType"] == "ProduceResults"
        assert "i" in plan["identifiers"]
        assert plan["args"]["planner"] == "COST"
        assert plan["children"]

        profiled = session.run(f"PROFILE {query}")
        assert len(list(profiled)) == 3
        root = profiled.consume().profile
        assert root["operatorType"] == "ProduceResults"
        assert root["rows"] == 3
        scan = root
        while scan["operatorType"] != "NodeByLabelScan":
            scan = scan["children"][0]
        assert scan["rows"] == 5
        assert scan["dbHits"] == 5
        assert scan["args"]["Details"] == ":PyPlanned"
