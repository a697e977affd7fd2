"""Relationship and composite indexes and constraints through the official Python driver: the
statements neomodel's `install_all_labels` sends for a model with relationship properties
(neomodel is not installed by run.sh, so its DDL is sent as it writes it), the SHOW INDEXES
and SHOW CONSTRAINTS rows it reads back, and a violation failing the statement, not the
commit, in an explicit transaction."""

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

from conftest import PASSWORD, USER

# What neomodel 5 sends for a node with a unique and an indexed property, and a relationship
# model with an indexed and a unique property.
NEOMODEL_DDL = [
    "CREATE CONSTRAINT constraint_unique_Person_uid IF NOT EXISTS "
    "FOR (n:Person) REQUIRE n.uid IS UNIQUE",
    "CREATE INDEX index_Person_name IF NOT EXISTS FOR (n:Person) ON (n.name)",
    "CREATE INDEX index_KNOWS_since IF NOT EXISTS FOR ()-[r:KNOWS]-() ON (r.since)",
    "CREATE CONSTRAINT constraint_unique_KNOWS_ref IF NOT EXISTS "
    "FOR ()-[r:KNOWS]-() REQUIRE r.ref IS UNIQUE",
]


def test_install_all_labels_ddl_with_a_relationship_property_index(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            for statement in NEOMODEL_DDL + NEOMODEL_DDL:
                session.run(statement).consume()
            indexes = {
                r["name"]: r
                for r in session.run(
                    "SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, "
                    "owningConstraint"
                )
            }
            assert indexes["index_KNOWS_since"]["entityType"] == "RELATIONSHIP"
            assert indexes["index_KNOWS_since"]["labelsOrTypes"] == ["KNOWS"]
            assert indexes["index_KNOWS_since"]["properties"] == ["since"]
            assert indexes["constraint_unique_KNOWS_ref"]["owningConstraint"] == (
                "constraint_unique_KNOWS_ref"
            )
            constraints = {
                r["name"]: r["type"]
                for r in session.run("SHOW CONSTRAINTS YIELD name, type")
            }
            assert constraints == {
                "constraint_unique_Person_uid": "UNIQUENESS",
                "constraint_unique_KNOWS_ref": "RELATIONSHIP_UNIQUENESS",
            }
            session.run(
                "UNWIND range(1, 50) AS i "
                "CREATE (:Person {uid: i})-[:KNOWS {since: 2000 + i % 5, ref: i}]->(:Person {uid: 100 + i})"
            ).consume()
            count = session.run(
                "MATCH (a)-[r:KNOWS]->(b) WHERE r.since = 2003 RETURN count(r) AS n"
            ).single()["n"]
            assert count == 10
            plan = session.run(
                "EXPLAIN MATCH (a)-[r:KNOWS {since: 2003}]->(b) RETURN b"
            ).consume().plan

            def operators(p):
                yield p["operatorType"]
                for child in p.get("children", []):
                    yield from operators(child)

            assert any(
                op.startswith("DirectedRelationshipIndexSeek") for op in operators(plan)
            ), plan


def test_a_violation_fails_the_statement_in_an_explicit_transaction(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            session.run(
                "CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY"
            ).consume()
            tx = session.begin_transaction()
            try:
                tx.run("CREATE ()-[:ORDERED {id: 1}]->()").consume()
                with pytest.raises(ClientError) as failed:
                    tx.run("CREATE ()-[:ORDERED {id: 1}]->()").consume()
            finally:
                try:
                    tx.close()
                except Exception:  # the failed transaction is gone already
                    pass
            assert failed.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"
            assert "already exists with type `ORDERED`" in failed.value.message
            with pytest.raises(ClientError) as failed:
                session.run("CREATE ()-[:ORDERED]->()").consume()
            assert "must have the property `id`" in failed.value.message
