"""LangChain's `Neo4jGraph` and `Neo4jVector` against Quiver: the graph's construction reads
the schema through `apoc.meta.data` and `apoc.schema.nodes`, and `refresh_schema()` reads it
again; `add_graph_documents` writes extracted nodes and relationships with their source
document; the vector store creates its indexes (named and configured by parameters) and
searches them, by vector and hybrid.

tests/drivers/run.sh installs LangChain (pinned) in a venv of its own and runs these tests
there (QUIVER_EXPECT_LIBRARIES=1, where a missing package fails); the driver venvs skip them.
"""

import os

import pytest

from conftest import PASSWORD, USER

if os.environ.get("QUIVER_EXPECT_LIBRARIES") == "1":
    import langchain_neo4j
else:
    langchain_neo4j = pytest.importorskip("langchain_neo4j")


def graph(quiver, **options):
    return langchain_neo4j.Neo4jGraph(
        url=quiver.uri(), username=USER, password=PASSWORD, **options
    )


def test_neo4j_graph_reads_the_schema(quiver):
    empty = graph(quiver)
    assert "Person" not in empty.get_schema
    empty.query(
        "CREATE (:Person {name: 'Ann', born: 1980})-[:ACTED_IN {roles: ['Eve']}]->"
        "(:Movie {title: 'Heat', released: 1995})"
    )
    empty.query("CREATE INDEX movie_title FOR (m:Movie) ON (m.title)")
    empty.refresh_schema()
    schema = empty.get_schema
    person = next(line for line in schema.splitlines() if line.startswith("Person {"))
    assert "name: STRING" in person and "born: INTEGER" in person, schema
    movie = next(line for line in schema.splitlines() if line.startswith("Movie {"))
    assert "title: STRING" in movie and "released: INTEGER" in movie, schema
    assert "ACTED_IN {roles: LIST}" in schema, schema
    assert "(:Person)-[:ACTED_IN]->(:Movie)" in schema, schema
    structured = empty.get_structured_schema
    assert [i["label"] for i in structured["metadata"]["index"]] == ["Movie"]
    empty.close()

    constructed = graph(quiver)
    assert "(:Person)-[:ACTED_IN]->(:Movie)" in constructed.get_schema
    constructed.close()


def test_add_graph_documents_writes_entities_relationships_and_sources(quiver):
    """What an LLM graph transformer hands `add_graph_documents`, built by hand (no model):
    with `baseEntityLabel=True` every entity is merged on the `__Entity__` label (behind the
    uniqueness constraint the call creates) and gets its own type as a label set at run time
    (`SET n:$(row.type)`); with `include_source=True` the source document is merged by its id
    and linked to each entity by MENTIONS. A second call with the same document changes
    nothing: everything is merged."""
    from langchain_core.documents import Document
    from langchain_neo4j.graphs.graph_document import GraphDocument, Node, Relationship

    ann = Node(id="Ann", type="Person", properties={"born": 1980})
    heat = Node(id="Heat", type="Movie", properties={"released": 1995})
    bob = Node(id="Bob", type="Person")
    source = Document(
        page_content="Ann acted in Heat, which Bob directed.", metadata={"id": "doc-1"}
    )
    document = GraphDocument(
        nodes=[ann, heat, bob],
        relationships=[
            Relationship(source=ann, target=heat, type="acted in", properties={"role": "Eve"}),
            Relationship(source=bob, target=heat, type="DIRECTED"),
        ],
        source=source,
    )
    g = graph(quiver)
    for _ in range(2):
        g.add_graph_documents([document], include_source=True, baseEntityLabel=True)

    entities = g.query(
        "MATCH (n:__Entity__) RETURN n.id AS id, labels(n) AS labels, n.born AS born, "
        "n.released AS released ORDER BY id"
    )
    assert [(e["id"], sorted(e["labels"])) for e in entities] == [
        ("Ann", ["Person", "__Entity__"]),
        ("Bob", ["Person", "__Entity__"]),
        ("Heat", ["Movie", "__Entity__"]),
    ]
    assert entities[0]["born"] == 1980 and entities[2]["released"] == 1995
    relationships = g.query(
        "MATCH (a:__Entity__)-[r]->(b:__Entity__) "
        "RETURN a.id AS a, type(r) AS type, r.role AS role, b.id AS b ORDER BY a"
    )
    assert relationships == [
        {"a": "Ann", "type": "ACTED_IN", "role": "Eve", "b": "Heat"},
        {"a": "Bob", "type": "DIRECTED", "role": None, "b": "Heat"},
    ]
    documents = g.query("MATCH (d:Document) RETURN d.id AS id, d.text AS text")
    assert documents == [{"id": "doc-1", "text": source.page_content}]
    mentions = g.query(
        "MATCH (:Document {id: 'doc-1'})-[:MENTIONS]->(n:__Entity__) "
        "RETURN n.id AS id ORDER BY id"
    )
    assert [m["id"] for m in mentions] == ["Ann", "Bob", "Heat"]
    constraints = g.query(
        "SHOW CONSTRAINTS YIELD type, labelsOrTypes, properties "
        "WHERE labelsOrTypes = ['__Entity__'] RETURN type, properties"
    )
    assert constraints == [{"type": "UNIQUENESS", "properties": ["id"]}]
    # The schema LangChain reads back names what was written.
    g.refresh_schema()
    schema = g.get_schema
    assert "(:Person)-[:ACTED_IN]->(:Movie)" in schema, schema
    assert "(:Document)-[:MENTIONS]->(:Person)" in schema, schema
    g.close()



def test_neo4j_vector_similarity_and_hybrid_search(quiver):
    """`Neo4jVector` as its documentation uses it, with a deterministic fake embedding (no
    model): `from_texts` creates the vector index and the chunks, `similarity_search` asks the
    index, and `search_type="hybrid"` adds a full-text index whose hits are merged with the
    vector hits, each normalized by its best score."""
    from langchain_core.embeddings import DeterministicFakeEmbedding

    embedding = DeterministicFakeEmbedding(size=32)
    texts = [
        "quivers hold arrows",
        "graphs hold relationships",
        "vector indexes find near neighbours",
    ]
    connection = dict(url=quiver.uri(), username=USER, password=PASSWORD)
    store = langchain_neo4j.Neo4jVector.from_texts(
        texts, embedding, metadatas=[{"i": i} for i in range(3)], **connection
    )
    # The fake embedding gives a text its own vector, so a text is nearest itself.
    found = store.similarity_search("graphs hold relationships", k=1)
    assert [d.page_content for d in found] == ["graphs hold relationships"]
    assert found[0].metadata["i"] == 1
    scored = store.similarity_search_with_score("quivers hold arrows", k=3)
    assert scored[0][0].page_content == "quivers hold arrows"
    assert scored[0][1] == pytest.approx(1.0)
    assert [s for _, s in scored] == sorted((s for _, s in scored), reverse=True)

    existing = langchain_neo4j.Neo4jVector.from_existing_index(
        embedding, index_name="vector", **connection
    )
    assert existing.similarity_search("quivers hold arrows", k=1)[0].metadata["i"] == 0

    hybrid = langchain_neo4j.Neo4jVector.from_texts(
        texts,
        embedding,
        search_type="hybrid",
        index_name="hybrid_vector",
        keyword_index_name="hybrid_keyword",
        node_label="HybridChunk",
        **connection,
    )
    top = hybrid.similarity_search_with_score("graphs hold relationships", k=2)
    assert top[0][0].page_content == "graphs hold relationships"
    # Both halves normalize their best hit to 1, so the text found by both scores 1.
    assert top[0][1] == pytest.approx(1.0)
    # A word only the full-text half can match still brings its chunk back.
    keyword = hybrid.similarity_search("neighbours", k=3)
    assert "vector indexes find near neighbours" in [d.page_content for d in keyword]
    indexes = hybrid.query("SHOW INDEXES YIELD name, type RETURN name, type ORDER BY name")
    names = {row["name"]: row["type"] for row in indexes}
    assert names["hybrid_keyword"] == "FULLTEXT" and names["hybrid_vector"] == "VECTOR"
    store._driver.close()
    existing._driver.close()
    hybrid._driver.close()
