"""Many databases on one server through the official driver, as Neo4j 5 manages them:
`CREATE`, `STOP`, `START`, `ALTER` and `DROP DATABASE`, aliases, `SHOW DATABASES`, the
database a session names (or `USE`, or the user's home) deciding where a query runs, data
that never crosses from one database to another, privileges that count only where they are
granted, and a restart that brings every database back as it was."""

import neo4j
import pytest
from neo4j import GraphDatabase

from conftest import PASSWORD, USER, Quiver


def run(driver, query, database=None, **params):
    records, _, _ = driver.execute_query(query, params, database_=database)
    return [record.data() for record in records]


def code_of(driver, query, database=None):
    # An auto-commit query: the driver retries a transient error of a managed transaction.
    with driver.session(database=database) as session:
        with pytest.raises(neo4j.exceptions.Neo4jError) as failed:
            session.run(query).consume()
    return failed.value.code


def names(driver):
    return [row["name"] for row in run(driver, "SHOW DATABASES YIELD name")]


@pytest.fixture
def driver(quiver):
    # neo4j:// so that routing tables are asked for per database, as applications do.
    with GraphDatabase.driver(quiver.uri("neo4j"), auth=(USER, PASSWORD)) as driver:
        yield driver


def test_a_created_database_is_listed_used_and_dropped(driver):
    assert names(driver) == ["neo4j", "system"]
    run(driver, "CREATE DATABASE movies")
    assert names(driver) == ["movies", "neo4j", "system"]
    run(driver, "CREATE (:Movie {title: 'Heat'})", database="movies")
    assert run(driver, "MATCH (m:Movie) RETURN m.title AS t", database="movies") == [{"t": "Heat"}]
    run(driver, "DROP DATABASE movies")
    assert names(driver) == ["neo4j", "system"]
    assert code_of(driver, "RETURN 1", database="movies") == "Neo.ClientError.Database.DatabaseNotFound"


def test_data_written_to_one_database_is_never_seen_from_another(driver):
    run(driver, "CREATE DATABASE alpha")
    run(driver, "CREATE DATABASE beta")
    run(driver, "UNWIND range(1, 5) AS i CREATE (:Item {i: i})", database="alpha")
    run(driver, "CREATE (:Other)", database="beta")
    count = "MATCH (n) RETURN count(n) AS c"
    assert run(driver, count, database="alpha") == [{"c": 5}]
    assert run(driver, count, database="beta") == [{"c": 1}]
    assert run(driver, count) == [{"c": 0}]
    # Labels and indexes are each database's own.
    run(driver, "CREATE INDEX item_i FOR (n:Item) ON (n.i)", database="alpha")
    assert run(driver, "SHOW INDEXES YIELD name WHERE name = 'item_i'", database="beta") == []
    assert run(driver, "CALL db.labels() YIELD label RETURN collect(label) AS l", database="beta") == [
        {"l": ["Other"]}
    ]


def test_use_and_the_drivers_database_choice_agree(driver):
    run(driver, "CREATE DATABASE shop")
    run(driver, "CREATE (:Product {sku: 1})", database="shop")
    chosen = run(driver, "MATCH (p:Product) RETURN p.sku AS sku", database="shop")
    used = run(driver, "USE shop MATCH (p:Product) RETURN p.sku AS sku")
    assert chosen == used == [{"sku": 1}]
    # In an explicit transaction too, when USE is its first query.
    with driver.session() as session:
        with session.begin_transaction() as tx:
            assert tx.run("USE shop MATCH (p:Product) RETURN count(p) AS c").single()["c"] == 1
    # A later query of that transaction cannot switch to another database.
    with driver.session(database="shop") as session:
        tx = session.begin_transaction()
        tx.run("RETURN 1").consume()
        with pytest.raises(neo4j.exceptions.ClientError):
            tx.run("USE neo4j RETURN 1").consume()
        tx.close()


def test_an_alias_names_its_database_everywhere(driver):
    run(driver, "CREATE DATABASE movies")
    run(driver, "CREATE ALIAS films FOR DATABASE movies")
    run(driver, "CREATE (:Movie)", database="films")
    assert run(driver, "MATCH (n) RETURN count(n) AS c", database="movies") == [{"c": 1}]
    assert run(driver, "USE films MATCH (n) RETURN count(n) AS c") == [{"c": 1}]
    assert run(driver, "SHOW ALIASES FOR DATABASES YIELD name, database") == [
        {"name": "films", "database": "movies"}
    ]
    assert run(driver, "SHOW DATABASE films YIELD name, aliases") == [{"name": "movies", "aliases": ["films"]}]
    assert code_of(driver, "CREATE DATABASE films") == "Neo.ClientError.Database.ExistingAliasFound"
    run(driver, "DROP ALIAS films FOR DATABASE")
    assert code_of(driver, "RETURN 1", database="films") == "Neo.ClientError.Database.DatabaseNotFound"


def test_a_stopped_database_refuses_work_until_started_and_a_read_only_one_refuses_writes(driver):
    run(driver, "CREATE DATABASE store")
    run(driver, "CREATE (:Kept)", database="store")
    run(driver, "STOP DATABASE store")
    [status] = run(driver, "SHOW DATABASE store YIELD requestedStatus, currentStatus")
    assert status == {"requestedStatus": "offline", "currentStatus": "offline"}
    assert code_of(driver, "MATCH (n) RETURN n", database="store") == "Neo.TransientError.General.DatabaseUnavailable"
    run(driver, "START DATABASE store")
    assert run(driver, "MATCH (n:Kept) RETURN count(n) AS c", database="store") == [{"c": 1}]
    run(driver, "ALTER DATABASE store SET ACCESS READ ONLY")
    assert run(driver, "SHOW DATABASE store YIELD access") == [{"access": "read-only"}]
    assert (
        code_of(driver, "CREATE (:Refused)", database="store")
        == "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase"
    )
    assert run(driver, "MATCH (n) RETURN count(n) AS c", database="store") == [{"c": 1}]
    run(driver, "ALTER DATABASE store SET ACCESS READ WRITE")
    run(driver, "CREATE (:Accepted)", database="store")


@pytest.mark.parametrize(
    "query, code",
    [
        ("CREATE DATABASE `bad_name`", "Neo.ClientError.Statement.ArgumentError"),
        ("CREATE DATABASE ab", "Neo.ClientError.Statement.ArgumentError"),
        ("CREATE DATABASE systemx", "Neo.ClientError.Statement.ArgumentError"),
        ("CREATE DATABASE neo4j", "Neo.ClientError.Database.ExistingDatabaseFound"),
        ("DROP DATABASE nowhere", "Neo.ClientError.Database.DatabaseNotFound"),
        ("START DATABASE nowhere", "Neo.ClientError.Database.DatabaseNotFound"),
        ("STOP DATABASE nowhere", "Neo.ClientError.Database.DatabaseNotFound"),
        ("ALTER DATABASE nowhere SET ACCESS READ ONLY", "Neo.ClientError.Database.DatabaseNotFound"),
        ("DROP DATABASE system", "Neo.ClientError.Statement.NotSystemDatabaseError"),
        ("STOP DATABASE system", "Neo.ClientError.Statement.NotSystemDatabaseError"),
        ("DROP DATABASE neo4j", "Neo.ClientError.Statement.NotSystemDatabaseError"),
        ("CREATE ALIAS nick FOR DATABASE nowhere", "Neo.ClientError.Database.DatabaseNotFound"),
        ("DROP ALIAS nick FOR DATABASE", "Neo.ClientError.Database.DatabaseNotFound"),
    ],
)
def test_management_errors_carry_neo4js_status_codes(driver, query, code):
    assert code_of(driver, query) == code


def test_if_exists_and_if_not_exists_make_commands_idempotent(driver):
    run(driver, "CREATE DATABASE twice IF NOT EXISTS")
    run(driver, "CREATE DATABASE twice IF NOT EXISTS")
    run(driver, "DROP DATABASE gone IF EXISTS")
    run(driver, "CREATE (:Old)", database="twice")
    run(driver, "CREATE OR REPLACE DATABASE twice")
    assert run(driver, "MATCH (n) RETURN count(n) AS c", database="twice") == [{"c": 0}]


def test_a_bookmark_of_one_database_does_not_hold_up_another(driver):
    # execute_query shares one bookmark manager across databases.
    run(driver, "CREATE DATABASE busy")
    for _ in range(3):
        run(driver, "CREATE (:Write)", database="busy")
    assert run(driver, "MATCH (n) RETURN count(n) AS c") == [{"c": 0}]
    assert run(driver, "MATCH (n) RETURN count(n) AS c", database="busy") == [{"c": 3}]


def test_privileges_count_on_the_database_they_name_and_home_decides_the_default(driver, quiver):
    run(driver, "CREATE DATABASE open")
    run(driver, "CREATE DATABASE closed")
    run(driver, "CREATE (:Visible)", database="open")
    run(driver, "CREATE (:Secret)", database="closed")
    run(driver, "CREATE ROLE opener")
    run(driver, "GRANT ACCESS ON DATABASE open TO opener")
    run(driver, "GRANT MATCH {*} ON GRAPH open NODES * TO opener")
    run(
        driver,
        "CREATE USER ann SET PASSWORD 'ann-password' CHANGE NOT REQUIRED SET HOME DATABASE open",
    )
    run(driver, "GRANT ROLE opener TO ann")
    with GraphDatabase.driver(quiver.uri("neo4j"), auth=("ann", "ann-password")) as ann:
        # No database named: ann's home.
        assert run(ann, "MATCH (n) RETURN labels(n) AS l") == [{"l": ["Visible"]}]
        # Only the databases ann may use are listed (PUBLIC's access is to the default).
        assert names(ann) == ["neo4j", "open", "system"]
        with pytest.raises(neo4j.exceptions.ClientError) as denied:
            ann.execute_query("MATCH (n) RETURN n", database_="closed")
        assert denied.value.code == "Neo.ClientError.Security.Forbidden"
        # User management is the system database's: refused on another database.
    assert (
        code_of(driver, "CREATE USER bob SET PASSWORD 'bob-password'", database="open")
        == "Neo.ClientError.Statement.NotSystemDatabaseError"
    )


def test_a_restart_brings_every_database_back_as_it_was(tmp_path):
    data = tmp_path / "data"
    server = Quiver("--durability", "group", data_dir=data)
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            for name in ("one", "two", "three"):
                run(driver, f"CREATE DATABASE {name}")
                run(driver, "CREATE (:In {db: $name})", database=name, name=name)
            run(driver, "STOP DATABASE two")
            run(driver, "ALTER DATABASE three SET ACCESS READ ONLY")
            run(driver, "CREATE ALIAS uno FOR DATABASE one")
            before = run(driver, "SHOW DATABASES YIELD name, databaseID, currentStatus, access")
    finally:
        server.stop()
    server = Quiver("--durability", "group", data_dir=data)
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            after = run(driver, "SHOW DATABASES YIELD name, databaseID, currentStatus, access")
            assert after == before
            assert run(driver, "MATCH (n) RETURN n.db AS db", database="uno") == [{"db": "one"}]
            run(driver, "START DATABASE two")
            assert run(driver, "MATCH (n) RETURN n.db AS db", database="two") == [{"db": "two"}]
    finally:
        server.stop()


def test_the_default_database_is_configurable_and_created_at_start(tmp_path):
    server = Quiver("--default-database", "main", data_dir=tmp_path / "data")
    try:
        with GraphDatabase.driver(server.uri("neo4j"), auth=(USER, PASSWORD)) as driver:
            run(driver, "CREATE (:Here)")
            assert run(driver, "MATCH (n) RETURN count(n) AS c", database="main") == [{"c": 1}]
            assert run(driver, "SHOW DEFAULT DATABASE YIELD name") == [{"name": "main"}]
            assert run(driver, "MATCH (n) RETURN count(n) AS c", database="neo4j") == [{"c": 0}]
    finally:
        server.stop()


def http_post(server, path, document):
    import base64
    import json
    import urllib.error
    import urllib.request

    host, port = server.http
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(
        f"http://{host}:{port}{path}",
        data=json.dumps(document).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Authorization": f"Basic {token}",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_http_apis_serve_each_database_under_its_name(driver, quiver):
    run(driver, "CREATE DATABASE web")
    status, _ = http_post(quiver, "/db/web/query/v2", {"statement": "CREATE (:Page)"})
    assert status == 202
    status, body = http_post(
        quiver,
        "/db/web/tx/commit",
        {"statements": [{"statement": "MATCH (p:Page) RETURN count(p) AS c"}]},
    )
    assert status == 200 and body["errors"] == []
    assert body["results"][0]["data"][0]["row"] == [1]
    status, body = http_post(quiver, "/db/neo4j/query/v2", {"statement": "MATCH (p:Page) RETURN count(p) AS c"})
    assert body["data"]["values"] == [[0]]
    status, body = http_post(quiver, "/db/nowhere/query/v2", {"statement": "RETURN 1"})
    assert status == 404
    assert body["errors"][0]["code"] == "Neo.ClientError.Database.DatabaseNotFound"


def test_a_database_names_itself_in_db_info_and_show_transactions(driver):
    run(driver, "CREATE DATABASE named")
    [info] = run(driver, "CALL db.info() YIELD id, name", database="named")
    assert info["name"] == "named"
    [listed] = run(driver, "SHOW DATABASE named YIELD databaseID")
    assert listed["databaseID"] == info["id"]
    with driver.session(database="named") as session:
        tx = session.begin_transaction()
        tx.run("MATCH (n) RETURN count(n)").consume()
        # Listed from any database, with its database's name in its id, and ended from there.
        listed = run(
            driver,
            "SHOW TRANSACTIONS YIELD transactionId, database WHERE database = 'named' "
            "RETURN transactionId",
        )
        ids = [row["transactionId"] for row in listed]
        assert ids and all(i.startswith("named-transaction-") for i in ids)
        ended = run(driver, "TERMINATE TRANSACTIONS $ids YIELD message", ids=ids)
        assert {row["message"] for row in ended} == {"Transaction terminated."}
        with pytest.raises(neo4j.exceptions.Neo4jError):
            tx.run("RETURN 1").consume()
        tx.close()


def test_a_created_database_is_backed_up_restored_and_captured_on_its_own(tmp_path):
    import os
    import subprocess

    binary = os.environ.get("QUIVER_BIN", "target/debug/quiver")
    server = Quiver("--durability", "group", "--cdc", "full", data_dir=tmp_path / "data")
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            run(driver, "CREATE DATABASE sales")
            run(driver, "UNWIND range(1, 3) AS i CREATE (:Sale {i: i})", database="sales")
            run(driver, "CREATE (:NotASale)")
            # Change capture reads the database's own log.
            [first] = run(driver, "CALL db.cdc.earliest() YIELD id", database="sales")
            changes = run(driver, "CALL db.cdc.query($from) YIELD event", database="sales", **{"from": first["id"]})
            assert [c["event"]["labels"] for c in changes] == [["Sale"]] * 3
            host, port = server.http
            env = dict(os.environ, QUIVER_BACKUP_PASSWORD=PASSWORD)
            subprocess.run(
                [binary, "backup", "--from", f"{host}:{port}", "--database", "sales",
                 "--to-path", str(tmp_path / "backups")],
                check=True, env=env, capture_output=True,
            )
    finally:
        server.stop()
    subprocess.run(
        [binary, "restore", "--from-path", str(tmp_path / "backups"), "--data-dir", str(tmp_path / "restored")],
        check=True, capture_output=True,
    )
    restored = Quiver(data_dir=tmp_path / "restored")
    try:
        with GraphDatabase.driver(restored.uri(), auth=(USER, PASSWORD)) as driver:
            assert run(driver, "MATCH (n) RETURN labels(n) AS l, n.i AS i ORDER BY i") == [
                {"l": ["Sale"], "i": i} for i in (1, 2, 3)
            ]
    finally:
        restored.stop()
    # Restored into a database's own directory of a running server, CREATE DATABASE mounts it.
    server = Quiver(data_dir=tmp_path / "data")
    try:
        subprocess.run(
            [binary, "restore", "--from-path", str(tmp_path / "backups"),
             "--data-dir", str(tmp_path / "data" / "databases" / "sales-copy")],
            check=True, capture_output=True,
        )
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            run(driver, "CREATE DATABASE `sales-copy`")
            assert run(driver, "MATCH (n:Sale) RETURN count(n) AS c", database="sales-copy") == [{"c": 3}]
    finally:
        server.stop()


def test_a_command_that_waits_says_how_the_change_went(driver):
    [row] = run(driver, "CREATE DATABASE waited WAIT")
    assert row["state"] == "CaughtUp" and row["success"] is True
    assert run(driver, "STOP DATABASE waited NOWAIT") == []
    [row] = run(driver, "START DATABASE waited WAIT 5 SECONDS")
    assert set(row) == {"address", "state", "message", "success"}


def test_the_metrics_are_labelled_by_database(driver, quiver):
    import urllib.request

    run(driver, "CREATE DATABASE measured")
    run(driver, "CREATE (:M)", database="measured")
    run(driver, "CREATE DATABASE resting")
    run(driver, "STOP DATABASE resting")
    host, port = quiver.http
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30) as response:
        text = response.read().decode()
    assert 'quiver_database_online{database="measured"} 1' in text
    assert 'quiver_database_online{database="resting"} 0' in text
    assert 'quiver_database_last_committed{database="measured"} 1' in text
    run(driver, "DROP DATABASE resting")
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30) as response:
        assert 'database="resting"' not in response.read().decode()


def test_bolt_4_drivers_routing_procedure_knows_every_database(driver):
    run(driver, "CREATE DATABASE routed")
    [table] = run(driver, "CALL dbms.routing.getRoutingTable({}, 'routed') YIELD ttl, servers")
    assert table["ttl"] > 0 and {s["role"] for s in table["servers"]} == {"WRITE", "READ", "ROUTE"}
    assert (
        code_of(driver, "CALL dbms.routing.getRoutingTable({}, 'nowhere')")
        == "Neo.ClientError.Database.DatabaseNotFound"
    )


def test_a_database_that_cannot_open_is_dirty_and_the_others_serve(tmp_path):
    import shutil

    data = tmp_path / "data"
    server = Quiver(data_dir=data)
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            run(driver, "CREATE DATABASE broken")
            run(driver, "CREATE DATABASE whole")
            run(driver, "CREATE (:Kept)", database="whole")
    finally:
        server.stop()
    # The broken database's directory is no directory any more.
    shutil.rmtree(data / "databases" / "broken")
    (data / "databases" / "broken").write_text("not a store")
    server = Quiver(data_dir=data)
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            [row] = run(driver, "SHOW DATABASE broken YIELD currentStatus, statusMessage")
            assert row["currentStatus"] == "dirty" and "broken" in row["statusMessage"]
            assert (
                code_of(driver, "RETURN 1", database="broken")
                == "Neo.TransientError.General.DatabaseUnavailable"
            )
            assert run(driver, "MATCH (n:Kept) RETURN count(n) AS c", database="whole") == [{"c": 1}]
            run(driver, "DROP DATABASE broken")
            assert "broken" not in names(driver)
    finally:
        server.stop()


def test_use_of_system_or_an_alias_names_the_database_that_serves_it(driver):
    run(driver, "CREATE DATABASE served")
    run(driver, "CREATE ALIAS nickname FOR DATABASE served")
    # `system` is served by the first database: a query that begins with USE system runs.
    assert run(driver, "USE system RETURN 1 AS x") == [{"x": 1}]
    # An alias as the first query of an explicit transaction on its database is that database.
    with driver.session(database="served") as session:
        with session.begin_transaction() as tx:
            tx.run("RETURN 1").consume()
            assert tx.run("USE nickname RETURN 2 AS x").single()["x"] == 2


def test_use_before_a_command_names_the_database_it_runs_on(driver):
    run(driver, "CREATE DATABASE shop")
    run(driver, "CREATE INDEX shop_sku FOR (p:Product) ON (p.sku)", database="shop")
    # From the default database, `USE` sends a SHOW command to the database it names.
    shown = run(driver, "USE shop SHOW INDEXES YIELD name WHERE name = 'shop_sku' RETURN name")
    assert shown == [{"name": "shop_sku"}]
    assert run(driver, "USE neo4j SHOW INDEXES YIELD name WHERE name = 'shop_sku' RETURN name") == []
    # Administration commands take `USE system`, as in Neo4j.
    users = run(driver, "USE system SHOW USERS YIELD user RETURN user")
    assert {"user": USER} in users
    run(driver, "USE system CREATE DATABASE depot")
    assert "depot" in names(driver)
    assert code_of(driver, "USE nowhere SHOW INDEXES") == "Neo.ClientError.Database.DatabaseNotFound"
