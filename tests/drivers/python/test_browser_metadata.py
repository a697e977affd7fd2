"""What Neo4j Browser 5 and NeoDash send at connect, for `:sysinfo`, `:server status`/`:cluster`
and their schema views, through the official driver: each must succeed with the columns the tool
reads.

Browser asks `dbms.components()` for the version, the `system` database for `SHOW DATABASES`,
`dbms.clientConfig()`, `SHOW CURRENT USER` (Neo4j 5) or `dbms.showCurrentUser()` (its 4.x path),
reads labels, types, keys and counts in one UNION ALL query, and for `:sysinfo` sends one UNION ALL
of `dbms.queryJmx` calls over Neo4j 5's metric beans (`neo4j.metrics:name=neo4j.database.<db>.*`),
reading each bean's `Count` or `Value` attribute. NeoDash checks APOC with `apoc.help('apoc')`.
"""

from neo4j import GraphDatabase

from conftest import PASSWORD, USER, wait_until
from test_cluster import Member, three_members

BROWSER_META_QUERY = """
CALL db.labels() YIELD label
RETURN {name:'labels', data:COLLECT(label)[..1000]} AS result
UNION ALL
CALL db.relationshipTypes() YIELD relationshipType
RETURN {name:'relationshipTypes', data:COLLECT(relationshipType)[..1000]} AS result
UNION ALL
CALL db.propertyKeys() YIELD propertyKey
RETURN {name:'propertyKeys', data:COLLECT(propertyKey)[..1000]} AS result
UNION ALL
MATCH () RETURN { name:'nodes', data:count(*) } AS result
UNION ALL
MATCH ()-[]->() RETURN { name:'relationships', data: count(*)} AS result
"""

# Browser's :sysinfo groups and metric names for a Neo4j 5 server (namespaces on, prefix neo4j).
SYSINFO_METRICS = [
    ("Store Size", "database", ["store.size.total", "store.size.database"]),
    ("Page Cache", "dbms", ["page_cache.hits", "page_cache.hit_ratio",
                            "page_cache.usage_ratio", "page_cache.page_faults"]),
    ("Primitive Count", "database", ["ids_in_use.node", "ids_in_use.property",
                                     "ids_in_use.relationship", "ids_in_use.relationship_type"]),
    ("Transactions", "database", ["transaction.last_committed_tx_id",
                                  "transaction.peak_concurrent", "transaction.active_read",
                                  "transaction.active_write", "transaction.committed_read",
                                  "transaction.committed_write"]),
]


def sysinfo_query(database):
    parts = []
    for group, kind, metrics in SYSINFO_METRICS:
        for metric in metrics:
            scope = f"database.{database}" if kind == "database" else "dbms"
            name = f"neo4j.{scope}.{metric}"
            parts.append(
                f'CALL dbms.queryJmx("neo4j.metrics:name={name}") YIELD name, attributes '
                f'RETURN "{group}" AS group, name, attributes'
            )
    return " UNION ALL\n".join(parts) + ";"


def test_browser_connect_and_schema_sidebar_queries(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.execute_query(
            "CREATE (:Person {name: 'Ann'})-[:KNOWS]->(:Person {name: 'Bob'})"
        )
        with driver.session() as session:
            kernel = session.run("CALL dbms.components() YIELD name, versions, edition").single()
            assert kernel["name"] == "Neo4j Kernel" and kernel["versions"]

            meta = {r["result"]["name"]: r["result"]["data"]
                    for r in session.run(BROWSER_META_QUERY)}
            assert meta["labels"] == ["Person"]
            assert meta["relationshipTypes"] == ["KNOWS"]
            assert "name" in meta["propertyKeys"]
            assert meta["nodes"] == 2 and meta["relationships"] == 1

            user = session.run("CALL dbms.showCurrentUser()")
            assert user.keys() == ["username", "roles", "flags"]
            row = user.single()
            assert row["username"] == USER and "admin" in row["roles"]

            # Browser's :schema frame.
            indexes = session.run("SHOW INDEXES")
            assert "options" not in indexes.keys() and "createStatement" not in indexes.keys()
            assert indexes.keys()[:3] == ["id", "name", "state"]
            every = session.run("SHOW INDEXES YIELD *")
            assert {"options", "createStatement"} <= set(every.keys())
            constraints = session.run("SHOW CONSTRAINTS")
            assert "options" not in constraints.keys()

        with driver.session(database="system") as session:
            user = session.run("SHOW CURRENT USER").single()
            assert user["user"] == USER



def test_browser_sysinfo_reads_the_metric_beans(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.execute_query("UNWIND range(1, 3) AS i CREATE (:N {i: i})-[:R]->(:M)")
        with driver.session() as session:
            records = list(session.run(sysinfo_query("neo4j")))
        figures = {}
        for record in records:
            assert record.keys() == ["group", "name", "attributes"]
            attribute = record["attributes"].get("Count") or record["attributes"].get("Value")
            figures[record["name"].split(".")[-1]] = attribute["value"]
        assert figures["node"] == 6
        assert figures["relationship"] == 3
        assert figures["relationship_type"] == 1
        assert figures["last_committed_tx_id"] >= 1
        # No page cache, no bean: Browser shows those figures as missing.
        assert "hits" not in figures

        with driver.session() as session:
            legacy = session.run("CALL dbms.queryJmx('org.neo4j:*')")
            assert legacy.keys() == ["name", "description", "attributes"]
            assert list(legacy) == []


def test_show_servers_lists_this_server_at_its_bolt_and_http_addresses(quiver):
    bolt = f"{quiver.bolt[0]}:{quiver.bolt[1]}"
    http = f"{quiver.http[0]}:{quiver.http[1]}"
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session(database="system") as session:
            servers = session.run("SHOW SERVERS")
            assert servers.keys() == ["name", "address", "state", "health", "hosting"]
            [server] = servers.data()
            assert server["address"] == bolt
            assert server["state"] == "Enabled" and server["health"] == "Available"
            assert server["hosting"] == ["neo4j", "system"]

            every = session.run(
                "SHOW SERVERS YIELD * WHERE address = $bolt RETURN *", bolt=bolt
            ).single()
            assert every["httpAddress"] == http
            assert every["serverId"] == every["name"]
            assert every["version"]


def test_show_servers_on_a_cluster_lists_every_member_at_its_addresses():
    with three_members("quiver-servers-", leave=Member.stop) as cluster:
        expected = {
            str(m.node_id): (f"127.0.0.1:{m.bolt}", f"127.0.0.1:{m.http}") for m in cluster
        }

        def servers(member):
            uri = f"bolt://127.0.0.1:{member.bolt}"
            with GraphDatabase.driver(uri, auth=(USER, PASSWORD)) as driver:
                records, _, _ = driver.execute_query(
                    "SHOW SERVERS YIELD name, address, httpAddress, health, state "
                    "RETURN name, address, httpAddress, health, state ORDER BY name",
                    database_="system",
                )
                return [r.data() for r in records]

        # Members announce their Bolt and HTTP addresses once they have joined.
        for member in cluster:
            assert wait_until(
                lambda: {r["name"]: (r["address"], r["httpAddress"]) for r in servers(member)}
                == expected,
                timeout=30,
            ), servers(member)
            rows = servers(member)
            assert all(r["state"] == "Enabled" for r in rows)
            own = next(r for r in rows if r["name"] == str(member.node_id))
            assert own["health"] == "Available"


def test_neodash_checks_apoc_with_apoc_help(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            help = session.run('CALL apoc.help("apoc")')
            assert help.keys() == [
                "type", "name", "text", "signature", "roles", "writes", "core", "isDeprecated",
            ]
            rows = help.data()
            names = {r["name"] for r in rows}
            assert "apoc.meta.data" in names and "apoc.version" in names
            assert {r["type"] for r in rows} == {"procedure", "function"}

        with driver.session(database="system") as session:
            online = session.run(
                "SHOW DATABASES YIELD name, currentStatus WHERE currentStatus = 'online' "
                "RETURN DISTINCT name"
            ).value()
            assert online == ["neo4j", "system"]
