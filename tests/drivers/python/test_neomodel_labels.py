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

from conftest import neomodel_url

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


VECTOR_OPTIONS = (
    "OPTIONS{indexConfig:{`vector.similarity_function`:'cosine', `vector.dimensions`:1536}}"
)


class Api:
    """neomodel's sync or async model classes, and how its conflict tests on each name their
    models' labels and relationship types apart (neomodel registers every model declared)."""

    def __init__(self, node, rel, relationship_to, label_prefix, type_prefix, rel_vector_index):
        self.node, self.rel, self.relationship_to = node, rel, relationship_to
        self.label_prefix, self.type_prefix = label_prefix, type_prefix
        # The vector index the relationship conflict declares: the sync and async tests differ.
        self.rel_vector_index = rel_vector_index

    def node_model(self, label, **properties):
        """A node model labelled `label` (after the prefix), with `properties`."""
        name = self.label_prefix + label
        return type(name, (self.node,), {"__module__": __name__, **properties})

    def looped_model(self, model, rel_type, **properties):
        """A node model called `model` whose `has_rel` relationships, of `rel_type`, lead back to
        it and carry `properties`, as neomodel's tests declare a relationship property's index;
        returns it and the relationship type (both after their prefixes)."""
        name, rel_type = self.label_prefix + model, self.type_prefix + rel_type
        rel = type(name.removesuffix("Node"), (self.rel,), {"__module__": __name__, **properties})
        has_rel = self.relationship_to(name, rel_type, model=rel)
        return type(name, (self.node,), {"__module__": __name__, "has_rel": has_rel}), rel_type


SYNC = Api(
    StructuredNode, StructuredRel, RelationshipTo, "", "",
    lambda: VectorIndex(dimensions=4, similarity_function="euclidean"),
)
ASYNC = Api(
    AsyncStructuredNode, AsyncStructuredRel, AsyncRelationshipTo, "Async", "ASYNC_", VectorIndex
)


# The conflicts neomodel's own `install_labels` tests set up, each for one API: the statement
# that makes an index beforehand under another name over the same label or type and property,
# with other options, and the model whose installation meets it.


def fulltext_conflict(api):
    model = api.node_model(
        "FullTextIndexNodeConflict", name=StringProperty(fulltext_index=FulltextIndex())
    )
    return f"CREATE FULLTEXT INDEX FOR (n:{model.__name__}) ON EACH [n.name]", model


def rel_fulltext_conflict(api):
    model, rel_type = api.looped_model(
        "FullTextIndexRelConflictNode",
        "FULLTEXT_INDEX_REL_CONFLICT",
        name=StringProperty(fulltext_index=FulltextIndex(eventually_consistent=True)),
    )
    return f"CREATE FULLTEXT INDEX FOR ()-[r:{rel_type}]-() ON EACH [r.name]", model


def vector_conflict(api):
    model = api.node_model(
        "VectorIndexNodeConflict",
        embedding=ArrayProperty(FloatProperty(), vector_index=VectorIndex()),
    )
    return f"CREATE VECTOR INDEX FOR (n:{model.__name__}) ON n.embedding {VECTOR_OPTIONS}", model


def rel_vector_conflict(api):
    model, rel_type = api.looped_model(
        "VectorIndexRelConflictNode",
        "VECTOR_INDEX_REL_CONFLICT",
        embedding=ArrayProperty(FloatProperty(), vector_index=api.rel_vector_index()),
    )
    return f"CREATE VECTOR INDEX FOR ()-[r:{rel_type}]-() ON r.embedding {VECTOR_OPTIONS}", model


CONFLICTS = [
    pytest.param(fulltext_conflict, "fulltext", id="fulltext"),
    pytest.param(rel_fulltext_conflict, "fulltext", id="rel_fulltext"),
    pytest.param(vector_conflict, "vector", id="vector"),
    pytest.param(rel_vector_conflict, "vector", id="rel_vector"),
]


@pytest.mark.parametrize("conflict, what", CONFLICTS)
def test_index_conflict(connected, conflict, what):
    statement, model = conflict(SYNC)
    db.cypher_query(statement)
    before = index_names()
    assert_refused_and_passed_over(install_printing(model), what)
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
        await adb.set_connection(url=neomodel_url(quiver))
        try:
            await scenario()
        finally:
            await adb.close_connection()

    asyncio.run(connected_scenario())


@pytest.mark.parametrize("conflict, what", CONFLICTS)
def test_async_index_conflict(quiver, conflict, what):
    statement, model = conflict(ASYNC)

    async def scenario():
        await adb.cypher_query(statement)
        before = await async_index_names()
        output = await async_install_printing(model)
        assert_refused_and_passed_over(output, what)
        assert await async_index_names() == before

    run_async(quiver, scenario)
