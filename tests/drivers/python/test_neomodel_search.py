"""neomodel's full-text and vector index features against Quiver, through neomodel's own API:
properties declared with `FulltextIndex` and `VectorIndex`, `db.install_all_labels()` (which
sends `CREATE FULLTEXT INDEX` and `CREATE VECTOR INDEX` with their options), then `NodeSet`
filters: `VectorFilter` (neomodel builds `db.index.vector.queryNodes` from it) and
`FulltextFilter` (`db.index.fulltext.queryNodes`). Relationship properties get their indexes
from `install_all_labels` too; neomodel has no filter for them, so they are queried with
`db.cypher_query`, as its documentation does.

neomodel pins its own driver version, so tests/drivers/run.sh installs it (pinned) in a venv of
its own when QUIVER_NEOMODEL=1; in the driver venvs these tests are skipped.
"""

import pytest

neomodel = pytest.importorskip("neomodel")

from neomodel import (  # noqa: E402
    ArrayProperty,
    FloatProperty,
    FulltextIndex,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    VectorIndex,
    db,
)
from neomodel.semantic_filters import FulltextFilter, VectorFilter  # noqa: E402


class Cites(StructuredRel):
    note = StringProperty(fulltext_index=FulltextIndex())
    stance = ArrayProperty(
        FloatProperty(),
        vector_index=VectorIndex(dimensions=2, similarity_function="euclidean"),
    )


class Article(StructuredNode):
    title = StringProperty(required=True)
    body = StringProperty(fulltext_index=FulltextIndex(analyzer="english"))
    embedding = ArrayProperty(
        FloatProperty(), vector_index=VectorIndex(dimensions=3, similarity_function="cosine")
    )
    cites = RelationshipTo("Article", "CITES", model=Cites)


def index_rows():
    rows, columns = db.cypher_query("SHOW INDEXES")
    return [dict(zip(columns, row)) for row in rows]


def test_install_all_labels_creates_the_search_indexes(connected):
    db.install_all_labels()
    indexes = {i["name"]: i for i in index_rows()}
    body = indexes["fulltext_index_Article_body"]
    assert body["type"] == "FULLTEXT"
    assert body["entityType"] == "NODE"
    assert body["labelsOrTypes"] == ["Article"] and body["properties"] == ["body"]
    embedding = indexes["vector_index_Article_embedding"]
    assert embedding["type"] == "VECTOR"
    assert embedding["labelsOrTypes"] == ["Article"]
    assert embedding["properties"] == ["embedding"]
    note = indexes["fulltext_index_CITES_note"]
    assert note["type"] == "FULLTEXT" and note["entityType"] == "RELATIONSHIP"
    stance = indexes["vector_index_CITES_stance"]
    assert stance["type"] == "VECTOR" and stance["entityType"] == "RELATIONSHIP"
    options, _ = db.cypher_query(
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'vector_index_Article_embedding' "
        "RETURN options.indexConfig AS config"
    )
    config = options[0][0]
    assert config["vector.dimensions"] == 3
    assert config["vector.similarity_function"].lower() == "cosine"
    options, _ = db.cypher_query(
        "SHOW FULLTEXT INDEXES YIELD name, options WHERE name = 'fulltext_index_Article_body' "
        "RETURN options.indexConfig AS config"
    )
    assert options[0][0]["fulltext.analyzer"] == "english"
    # A second install finds the indexes there and leaves them.
    db.install_all_labels()
    assert len(index_rows()) == len(indexes)


def seed():
    a = Article(
        title="graphs", body="Graph databases store relationships", embedding=[1.0, 0.0, 0.0]
    ).save()
    b = Article(
        title="vectors", body="Vector search finds similar embeddings", embedding=[0.0, 1.0, 0.0]
    ).save()
    c = Article(
        title="both", body="Graphs meet vector search", embedding=[0.7, 0.7, 0.0]
    ).save()
    a.cites.connect(b, {"note": "builds on the vector work", "stance": [1.0, 0.0]})
    c.cites.connect(a, {"note": "extends the graph model", "stance": [0.0, 1.0]})
    return a, b, c


def test_vector_filter_finds_the_nearest_articles(connected):
    db.install_all_labels()
    seed()
    found = Article.nodes.filter(
        vector_filter=VectorFilter(
            topk=2, vector_attribute_name="embedding", candidate_vector=[1.0, 0.1, 0.0]
        )
    ).all()
    # neomodel returns (node, score) pairs.
    found.sort(key=lambda pair: -pair[1])
    assert [node.title for node, _ in found] == ["graphs", "both"]
    assert 0.99 < found[0][1] <= 1.0

    close = Article.nodes.filter(
        vector_filter=VectorFilter(
            topk=3,
            vector_attribute_name="embedding",
            candidate_vector=[0.0, 1.0, 0.0],
            threshold=0.9,
        )
    ).all()
    assert [node.title for node, _ in close] == ["vectors"]


def test_vector_filter_combines_with_property_filters(connected):
    db.install_all_labels()
    seed()
    found = Article.nodes.filter(
        vector_filter=VectorFilter(
            topk=3, vector_attribute_name="embedding", candidate_vector=[1.0, 0.0, 0.0]
        ),
        title__startswith="b",
    ).all()
    assert [node.title for node, _ in found] == ["both"]


def test_fulltext_filter_finds_articles_by_their_words(connected):
    db.install_all_labels()
    seed()
    found = Article.nodes.filter(
        fulltext_filter=FulltextFilter(
            query_string="vector", fulltext_attribute_name="body", topk=5
        )
    ).all()
    assert sorted(node.title for node, _ in found) == ["both", "vectors"]
    assert all(score > 0 for _, score in found)
    # The english analyzer stems: "graph" finds "Graphs" and "Graph".
    stemmed = Article.nodes.filter(
        fulltext_filter=FulltextFilter(
            query_string="graph", fulltext_attribute_name="body", topk=1
        )
    ).all()
    assert len(stemmed) == 1 and stemmed[0][0].title in ("graphs", "both")


def test_unindexed_property_is_refused_by_neomodel(connected):
    with pytest.raises(AttributeError, match="not declared with a vector index"):
        Article.nodes.filter(
            vector_filter=VectorFilter(
                topk=1, vector_attribute_name="title", candidate_vector=[1.0, 0.0, 0.0]
            )
        ).all()


def test_relationship_indexes_answer_their_procedures(connected):
    db.install_all_labels()
    seed()
    rows, _ = db.cypher_query(
        "CALL db.index.fulltext.queryRelationships('fulltext_index_CITES_note', 'graph') "
        "YIELD relationship, score RETURN relationship.note AS note"
    )
    assert [r[0] for r in rows] == ["extends the graph model"]
    rows, _ = db.cypher_query(
        "CALL db.index.vector.queryRelationships('vector_index_CITES_stance', 1, [1.0, 0.0]) "
        "YIELD relationship, score RETURN relationship.note AS note, score"
    )
    assert rows[0][0] == "builds on the vector work"
    assert rows[0][1] == pytest.approx(1.0)
