"""APOC's core through the official Python driver: what a graph-document loader (LangChain's
`Neo4jGraph.add_graph_documents`) sends, apoc.merge.node and apoc.merge.relationship with
parameters over UNWIND batches, and a bad argument's error as the driver sees it."""

from conftest import refused

# One graph document per source text: nodes with a type and properties, relationships
# between them, and the source the entities were found in.
DOCUMENTS = [
    {
        "source": {"id": "doc-1", "text": "Ann founded Acme in Oslo."},
        "nodes": [
            {"id": "Ann", "type": "Person", "properties": {"born": 1980}},
            {"id": "Acme", "type": "Company", "properties": {}},
            {"id": "Oslo", "type": "City", "properties": {"country": "Norway"}},
        ],
        "relationships": [
            {"source": "Ann", "source_label": "Person", "target": "Acme",
             "target_label": "Company", "type": "FOUNDED", "properties": {"year": 2010}},
            {"source": "Acme", "source_label": "Company", "target": "Oslo",
             "target_label": "City", "type": "LOCATED_IN", "properties": {}},
        ],
    },
    {
        "source": {"id": "doc-2", "text": "Bob works at Acme, which Ann founded."},
        "nodes": [
            {"id": "Bob", "type": "Person", "properties": {}},
            {"id": "Acme", "type": "Company", "properties": {"sector": "tools"}},
            {"id": "Ann", "type": "Person", "properties": {}},
        ],
        "relationships": [
            {"source": "Bob", "source_label": "Person", "target": "Acme",
             "target_label": "Company", "type": "WORKS_AT", "properties": {}},
            {"source": "Ann", "source_label": "Person", "target": "Acme",
             "target_label": "Company", "type": "FOUNDED", "properties": {"year": 2010}},
        ],
    },
]

# Entities carry a shared base label as well as their type, and each is linked to the document
# it was found in.
NODE_IMPORT = """
MERGE (d:Document {id: $document.id})
SET d.text = $document.text
WITH d
UNWIND $data AS row
MERGE (e:__Entity__ {id: row.id})
SET e += row.properties
WITH d, e, row
CALL apoc.create.addLabels(e, [row.type]) YIELD node
MERGE (d)-[:MENTIONS]->(node)
RETURN count(DISTINCT node) AS entities
"""

RELATIONSHIP_IMPORT = """
UNWIND $data AS row
CALL apoc.merge.node(['__Entity__', row.source_label], {id: row.source}, {}, {}) YIELD node AS source
CALL apoc.merge.node(['__Entity__', row.target_label], {id: row.target}, {}, {}) YIELD node AS target
CALL apoc.merge.relationship(source, row.type, {}, row.properties, target) YIELD rel
RETURN count(rel) AS relationships
"""

# The same without the base label: apoc.merge.node for every entity.
PLAIN_NODE_IMPORT = """
UNWIND $data AS row
CALL apoc.merge.node([row.type], {id: row.id}, row.properties, {}) YIELD node
RETURN count(node) AS entities
"""

PLAIN_RELATIONSHIP_IMPORT = """
UNWIND $data AS row
CALL apoc.merge.node([row.source_label], {id: row.source}, {}, {}) YIELD node AS source
CALL apoc.merge.node([row.target_label], {id: row.target}, {}, {}) YIELD node AS target
CALL apoc.merge.relationship(source, row.type, {}, row.properties, target) YIELD rel
RETURN count(rel) AS relationships
"""


def batches(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def test_add_graph_documents_with_base_label_and_sources(driver):
    with driver.session() as session:
        for document in DOCUMENTS:
            for batch in batches(document["nodes"], 2):
                session.execute_write(
                    lambda tx, b=batch: tx.run(NODE_IMPORT, document=document["source"], data=b).consume()
                )
            for batch in batches(document["relationships"], 1):
                session.execute_write(
                    lambda tx, b=batch: tx.run(RELATIONSHIP_IMPORT, data=b).consume()
                )

        entities = session.run(
            "MATCH (e:__Entity__) RETURN e.id AS id, [l IN labels(e) WHERE l <> '__Entity__'] AS labels "
            "ORDER BY id"
        ).data()
        assert entities == [
            {"id": "Acme", "labels": ["Company"]},
            {"id": "Ann", "labels": ["Person"]},
            {"id": "Bob", "labels": ["Person"]},
            {"id": "Oslo", "labels": ["City"]},
        ]
        acme = session.run("MATCH (c:Company {id: 'Acme'}) RETURN c").single()["c"]
        assert acme["sector"] == "tools"
        rels = session.run(
            "MATCH (a)-[r]->(b) WHERE NOT a:Document RETURN a.id AS a, type(r) AS t, b.id AS b, "
            "r.year AS year ORDER BY a, t"
        ).data()
        assert rels == [
            {"a": "Acme", "t": "LOCATED_IN", "b": "Oslo", "year": None},
            {"a": "Ann", "t": "FOUNDED", "b": "Acme", "year": 2010},
            {"a": "Bob", "t": "WORKS_AT", "b": "Acme", "year": None},
        ]
        mentions = session.run(
            "MATCH (d:Document)-[:MENTIONS]->(e) RETURN d.id AS d, count(e) AS n ORDER BY d"
        ).data()
        assert mentions == [{"d": "doc-1", "n": 3}, {"d": "doc-2", "n": 3}]


def test_add_graph_documents_plain_counts_and_is_idempotent(driver):
    with driver.session() as session:
        for _ in range(2):
            for document in DOCUMENTS:
                summary = session.run(PLAIN_NODE_IMPORT, data=document["nodes"]).consume()
                assert summary.counters.nodes_created <= 3
                session.run(PLAIN_RELATIONSHIP_IMPORT, data=document["relationships"]).consume()
        counts = session.run(
            "MATCH (n) WITH count(n) AS nodes MATCH ()-[r]->() RETURN nodes, count(r) AS rels"
        ).single()
        # Four entities; a second load merges onto the same nodes and relationships.
        assert (counts["nodes"], counts["rels"]) == (4, 3)
        summary = session.run(
            "CALL apoc.merge.node(['Person'], {id: $id}, {fresh: true}) YIELD node RETURN node",
            id="Cy",
        ).consume()
        assert summary.counters.nodes_created == 1
        assert summary.counters.labels_added == 1


def test_bad_argument_is_a_procedure_error_naming_it(driver):
    with driver.session() as session:
        failure = refused(session, "CALL apoc.merge.node(['Person'], {}) YIELD node RETURN node")
        assert failure.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
        assert "identProps" in failure.message
        assert session.run("RETURN apoc.version() AS v").single()["v"].startswith("2026.")
