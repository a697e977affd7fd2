"""What tools send on connect: SHOW commands and metadata procedures, through the official driver.

Neo4j Browser asks the `system` database for `SHOW DATABASES` and reads name, currentStatus,
default and home; it reads `dbms.clientConfig()` and `SHOW CURRENT USER`; schema views call
`db.schema.visualization()`; LangChain's `Neo4jGraph` calls `apoc.meta.data()` and
`apoc.schema.nodes()`.
"""

from neo4j import GraphDatabase

from conftest import PASSWORD, USER


def test_browser_connect_queries(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session(database="system") as session:
            databases = session.run("SHOW DATABASES").data()
            # As Neo4j lists them: the databases and `system`, where administration goes.
            assert [d["name"] for d in databases] == ["neo4j", "system"]
            db = databases[0]
            assert db["currentStatus"] == "online"
            assert db["default"] is True and db["home"] is True
            assert "databaseID" not in db

            every = session.run("SHOW DATABASES YIELD *").single()
            assert every["databaseID"]
            assert every["address"] == f"{quiver.bolt[0]}:{quiver.bolt[1]}"

            user = session.run("SHOW CURRENT USER").single()
            assert user["user"] == USER

        with driver.session() as session:
            config = {r["name"]: r["value"] for r in session.run("CALL dbms.clientConfig()")}
            assert config["dbms.security.auth_enabled"] == "true"
            assert "browser.post_connect_cmd" in config

            procedures = session.run("SHOW PROCEDURES").data()
            names = [p["name"] for p in procedures]
            assert "db.schema.visualization" in names and "apoc.meta.data" in names
            assert set(procedures[0]) == {"name", "description", "mode", "worksOnSystem"}

            functions = session.run(
                "SHOW FUNCTIONS YIELD name, signature, isBuiltIn WHERE name = 'toUpper' "
                "RETURN signature, isBuiltIn"
            ).single()
            assert functions["signature"].startswith("toUpper(")
            assert functions["isBuiltIn"] is True

            setting = session.run(
                "SHOW SETTINGS 'dbms.security.auth_enabled' YIELD name, value"
            ).single()
            assert setting["value"] == "true"

            info = session.run("CALL db.info()").single()
            assert info["name"] == "neo4j"


def test_schema_visualization_has_virtual_nodes_per_label(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.execute_query(
            "CREATE (:Person {name: 'Ann'})-[:KNOWS]->(:Person {name: 'Bob'}), "
            "(:Person {name: 'Cy'})-[:LIVES_IN]->(:City {name: 'Oslo'})"
        )
        record = driver.execute_query("CALL db.schema.visualization()").records[0]
        nodes = {n["name"]: n for n in record["nodes"]}
        assert set(nodes) == {"Person", "City"}
        assert len({n.element_id for n in record["nodes"]}) == 2
        edges = {
            (r.start_node["name"], r.type, r.end_node["name"]) for r in record["relationships"]
        }
        assert edges == {("Person", "KNOWS", "Person"), ("Person", "LIVES_IN", "City")}

        props = driver.execute_query(
            "CALL db.schema.nodeTypeProperties() YIELD nodeType, propertyName, propertyTypes "
            "RETURN nodeType, propertyName, propertyTypes ORDER BY nodeType"
        ).records
        assert [(r["nodeType"], r["propertyName"], r["propertyTypes"]) for r in props] == [
            (":`City`", "name", ["String"]),
            (":`Person`", "name", ["String"]),
        ]


def test_list_connections_names_this_driver(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        rows = driver.execute_query("CALL dbms.listConnections()").records
        assert rows, "this connection is listed"
        mine = [r for r in rows if r["username"] == USER]
        assert mine and all(r["connector"] == "bolt" for r in mine)
        assert any("neo4j-python" in (r["userAgent"] or "") for r in mine)
        assert all(r["connectionId"].startswith("bolt-") for r in rows)


def test_tx_set_metadata_shows_in_show_transactions(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            with session.begin_transaction(metadata={"app": "before"}) as tx:
                tx.run("CALL tx.setMetaData({app: 'after', step: 2})").consume()
                shown = tx.run(
                    "SHOW TRANSACTIONS YIELD transactionId, metaData, currentQuery "
                    "WHERE currentQuery STARTS WITH 'SHOW' RETURN metaData"
                ).single()
                assert shown["metaData"] == {"app": "after", "step": 2}
                tx.rollback()


def test_apoc_metadata_as_langchain_calls_it(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.execute_query(
            "CREATE (:Movie {title: 'Heat', released: 1995})<-[:ACTED_IN {roles: ['Neil']}]-"
            "(:Person {name: 'Al'})"
        )
        driver.execute_query("CREATE INDEX movie_title FOR (m:Movie) ON (m.title)")
        nodes = driver.execute_query(
            "CALL apoc.meta.data() YIELD label, other, elementType, type, property "
            "WHERE NOT type = 'RELATIONSHIP' AND elementType = 'node' "
            "WITH label AS nodeLabels, collect({property: property, type: type}) AS properties "
            "RETURN {labels: nodeLabels, properties: properties} AS output"
        ).records
        by_label = {r["output"]["labels"]: r["output"]["properties"] for r in nodes}
        assert {"property": "released", "type": "INTEGER"} in by_label["Movie"]
        assert {"property": "name", "type": "STRING"} in by_label["Person"]
        rels = driver.execute_query(
            "CALL apoc.meta.data() YIELD label, other, elementType, type, property "
            "WHERE type = 'RELATIONSHIP' AND elementType = 'node' "
            "UNWIND other AS other_node "
            "RETURN {start: label, type: property, end: toString(other_node)} AS output"
        ).records
        assert [r["output"] for r in rels] == [
            {"start": "Person", "type": "ACTED_IN", "end": "Movie"}
        ]
        indexes = driver.execute_query(
            "CALL apoc.schema.nodes() YIELD label, properties, type, size, valuesSelectivity "
            "WHERE type = 'RANGE' RETURN *, size * valuesSelectivity as distinctValues"
        ).records
        assert [(r["label"], r["properties"]) for r in indexes] == [("Movie", ["title"])]
        version = driver.execute_query("RETURN apoc.version() AS v").records[0]["v"]
        assert version.split(".")[0] == "2026"
        # A calendar version passes the version-tuple checks the libraries make.
        assert tuple(map(int, version.split("-")[0].split("."))) >= (5, 11, 0)
