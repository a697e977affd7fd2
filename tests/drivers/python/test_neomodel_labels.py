"""neomodel's label installation against Quiver when the schema it asks for is partly there,
as neomodel 7's own `install_labels` conflict tests run it, sync and async: a full-text or
vector index (on nodes or relationships) made beforehand under another name over the same
label or type and property, with other options. neomodel sends its `CREATE FULLTEXT INDEX` /
`CREATE VECTOR INDEX` with its own name and options, and expects Neo4j's refusal
`Neo.ClientError.Schema.IndexAlreadyExists` ("There already exists an index ..."), which it
prints and passes over; any other error it raises. Installing a model twice meets
`EquivalentSchemaRuleAlreadyExists`, and a uniqueness constraint made beforehand under another
name `ConstraintAlreadyExists`, both passed over the same way.

neomodel pins its own driver version, so tests/drivers/run.sh installs it (pinned) in a venv of
its own when QUIVER_NEOMODEL=1; in the driver venvs these tests are skipped.
"""

import asyncio
import io
from unittest.mock import patch

import pytest

from conftest import PASSWORD, USER

neomodel = pytest.importorskip("neomodel")

from neomodel import (  # noqa: E402
    ArrayProperty,
    AsyncRelationshipTo,
    AsyncStructuredNode,
    AsyncStructuredRel,
    FloatProperty,
    FulltextIndex,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    VectorIndex,
    adb,
    db,
)

# neomodel prints the driver's text of the error, which names the code (as `{code: ...}` or,
# in the driver neomodel pins, `{neo4j_code: ...}`).
INDEX_ALREADY_EXISTS = "Neo.ClientError.Schema.IndexAlreadyExists}"


def url(quiver):
    host, port = quiver.bolt
    return f"bolt://{USER}:{PASSWORD}@{host}:{port}"


@pytest.fixture
def connected(quiver):
    db.set_connection(url=url(quiver))
    try:
        yield db
    finally:
        db.close_connection()


def index_names():
    rows, _ = db.cypher_query("SHOW INDEXES YIELD name RETURN name")
    return sorted(row[0] for row in rows)


def install_printing(cls):
    """`db.install_labels(cls, quiet=False)` with stdout captured, as neomodel's tests do."""
    stream = io.StringIO()
    with patch("sys.stdout", new=stream):
        db.install_labels(cls, quiet=False)
    return stream.getvalue()


def assert_refused_and_passed_over(output, what):
    assert f"Creating {what} index" in output, output
    assert "There already exists an index" in output, output
    assert INDEX_ALREADY_EXISTS in output, output


def test_fulltext_index_conflict(connected):
    db.cypher_query("CREATE FULLTEXT INDEX FOR (n:FullTextIndexNodeConflict) ON EACH [n.name]")
    before = index_names()

    class FullTextIndexNodeConflict(StructuredNode):
        name = StringProperty(fulltext_index=FulltextIndex())

    assert_refused_and_passed_over(install_printing(FullTextIndexNodeConflict), "fulltext")
    assert index_names() == before


def test_rel_fulltext_index_conflict(connected):
    db.cypher_query(
        "CREATE FULLTEXT INDEX FOR ()-[r:FULLTEXT_INDEX_REL_CONFLICT]-() ON EACH [r.name]"
    )
    before = index_names()

    class FullTextIndexRelConflict(StructuredRel):
        name = StringProperty(fulltext_index=FulltextIndex(eventually_consistent=True))

    class FullTextIndexRelConflictNode(StructuredNode):
        has_rel = RelationshipTo(
            "FullTextIndexRelConflictNode",
            "FULLTEXT_INDEX_REL_CONFLICT",
            model=FullTextIndexRelConflict,
        )

    assert_refused_and_passed_over(install_printing(FullTextIndexRelConflictNode), "fulltext")
    assert index_names() == before


def test_vector_index_conflict(connected):
    db.cypher_query(
        "CREATE VECTOR INDEX FOR (n:VectorIndexNodeConflict) ON n.embedding "
        "OPTIONS{indexConfig:{`vector.similarity_function`:'cosine', `vector.dimensions`:1536}}"
    )
    before = index_names()

    class VectorIndexNodeConflict(StructuredNode):
        embedding = ArrayProperty(FloatProperty(), vector_index=VectorIndex())

    assert_refused_and_passed_over(install_printing(VectorIndexNodeConflict), "vector")
    assert index_names() == before


def test_rel_vector_index_conflict(connected):
    db.cypher_query(
        "CREATE VECTOR INDEX FOR ()-[r:VECTOR_INDEX_REL_CONFLICT]-() ON r.embedding "
        "OPTIONS{indexConfig:{`vector.similarity_function`:'cosine', `vector.dimensions`:1536}}"
    )
    before = index_names()

    class VectorIndexRelConflict(StructuredRel):
        embedding = ArrayProperty(
            FloatProperty(), vector_index=VectorIndex(dimensions=4, similarity_function="euclidean")
        )

    class VectorIndexRelConflictNode(StructuredNode):
        has_rel = RelationshipTo(
            "VectorIndexRelConflictNode",
            "VECTOR_INDEX_REL_CONFLICT",
            model=VectorIndexRelConflict,
        )

    assert_refused_and_passed_over(install_printing(VectorIndexRelConflictNode), "vector")
    assert index_names() == before


def test_installing_labels_twice_meets_equivalent_rules(connected):
    class TwiceInstalled(StructuredNode):
        name = StringProperty(index=True)
        code = StringProperty(unique_index=True)
        body = StringProperty(fulltext_index=FulltextIndex())
        embedding = ArrayProperty(FloatProperty(), vector_index=VectorIndex(dimensions=2))

    db.install_labels(TwiceInstalled)
    before = index_names()
    output = install_printing(TwiceInstalled)
    # One refusal for each of the four rules, each passed over.
    assert output.count("Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists}") == 4, output
    assert index_names() == before


def test_a_uniqueness_constraint_under_another_name_is_there_already(connected):
    db.cypher_query("CREATE CONSTRAINT taken FOR (n:UniqueElsewhere) REQUIRE n.code IS UNIQUE")

    class UniqueElsewhere(StructuredNode):
        code = StringProperty(unique_index=True)

    output = install_printing(UniqueElsewhere)
    assert "Neo.ClientError.Schema.ConstraintAlreadyExists}" in output, output
    assert "Constraint already exists" in output, output
    rows, _ = db.cypher_query("SHOW CONSTRAINTS YIELD name RETURN name")
    assert [row[0] for row in rows] == ["taken"]


async def async_install_printing(cls):
    stream = io.StringIO()
    with patch("sys.stdout", new=stream):
        await adb.install_labels(cls, quiet=False)
    return stream.getvalue()


async def async_index_names():
    rows, _ = await adb.cypher_query("SHOW INDEXES YIELD name RETURN name")
    return sorted(row[0] for row in rows)


def run_async(quiver, scenario):
    """Runs `scenario` on neomodel's async API, connected to `quiver`, in an event loop of its
    own (the async tests need no plugin)."""

    async def connected_scenario():
        await adb.set_connection(url=url(quiver))
        try:
            await scenario()
        finally:
            await adb.close_connection()

    asyncio.run(connected_scenario())


def test_async_fulltext_index_conflict(quiver):
    async def scenario():
        await adb.cypher_query(
            "CREATE FULLTEXT INDEX FOR (n:AsyncFullTextIndexNodeConflict) ON EACH [n.name]"
        )
        before = await async_index_names()

        class AsyncFullTextIndexNodeConflict(AsyncStructuredNode):
            name = StringProperty(fulltext_index=FulltextIndex())

        output = await async_install_printing(AsyncFullTextIndexNodeConflict)
        assert_refused_and_passed_over(output, "fulltext")
        assert await async_index_names() == before

    run_async(quiver, scenario)


def test_async_rel_fulltext_index_conflict(quiver):
    async def scenario():
        await adb.cypher_query(
            "CREATE FULLTEXT INDEX FOR ()-[r:ASYNC_FULLTEXT_INDEX_REL_CONFLICT]-() "
            "ON EACH [r.name]"
        )
        before = await async_index_names()

        class AsyncFullTextIndexRelConflict(AsyncStructuredRel):
            name = StringProperty(fulltext_index=FulltextIndex(eventually_consistent=True))

        class AsyncFullTextIndexRelConflictNode(AsyncStructuredNode):
            has_rel = AsyncRelationshipTo(
                "AsyncFullTextIndexRelConflictNode",
                "ASYNC_FULLTEXT_INDEX_REL_CONFLICT",
                model=AsyncFullTextIndexRelConflict,
            )

        output = await async_install_printing(AsyncFullTextIndexRelConflictNode)
        assert_refused_and_passed_over(output, "fulltext")
        assert await async_index_names() == before

    run_async(quiver, scenario)


def test_async_vector_index_conflict(quiver):
    async def scenario():
        await adb.cypher_query(
            "CREATE VECTOR INDEX FOR (n:AsyncVectorIndexNodeConflict) ON n.embedding "
            "OPTIONS{indexConfig:{`vector.similarity_function`:'cosine', "
            "`vector.dimensions`:1536}}"
        )
        before = await async_index_names()

        class AsyncVectorIndexNodeConflict(AsyncStructuredNode):
            embedding = ArrayProperty(FloatProperty(), vector_index=VectorIndex())

        output = await async_install_printing(AsyncVectorIndexNodeConflict)
        assert_refused_and_passed_over(output, "vector")
        assert await async_index_names() == before

    run_async(quiver, scenario)


def test_async_rel_vector_index_conflict(quiver):
    async def scenario():
        await adb.cypher_query(
            "CREATE VECTOR INDEX FOR ()-[r:ASYNC_VECTOR_INDEX_REL_CONFLICT]-() ON r.embedding "
            "OPTIONS{indexConfig:{`vector.similarity_function`:'cosine', "
            "`vector.dimensions`:1536}}"
        )
        before = await async_index_names()

        class AsyncVectorIndexRelConflict(AsyncStructuredRel):
            embedding = ArrayProperty(FloatProperty(), vector_index=VectorIndex())

        class AsyncVectorIndexRelConflictNode(AsyncStructuredNode):
            has_rel = AsyncRelationshipTo(
                "AsyncVectorIndexRelConflictNode",
                "ASYNC_VECTOR_INDEX_REL_CONFLICT",
                model=AsyncVectorIndexRelConflict,
            )

        output = await async_install_printing(AsyncVectorIndexRelConflictNode)
        assert_refused_and_passed_over(output, "vector")
        assert await async_index_names() == before

    run_async(quiver, scenario)
