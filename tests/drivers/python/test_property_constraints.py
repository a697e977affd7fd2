"""Property existence and type constraints through the official Python driver: the error code
and message a violating statement gets, and, as in Neo4j, an explicit transaction checked when
it commits (a later statement may still set the property; a commit that leaves an entity in
violation fails with the constraint error and writes nothing)."""

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

from conftest import PASSWORD, USER, refused

VALIDATION = "Neo.ClientError.Schema.ConstraintValidationFailed"


def constrain(session):
    session.run(
        "CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL"
    ).consume()
    session.run(
        "CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER"
    ).consume()


def test_an_auto_commit_statement_fails_with_the_constraint_error(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            constrain(session)
            missing = refused(session, "CREATE (:Person {age: 3})")
            assert missing.code == VALIDATION
            assert "with label `Person` must have the property `name`" in missing.message
            typed = refused(session, "CREATE (:Person {name: 'Ann', age: '3'})")
            assert typed.code == VALIDATION
            assert "to be of type `INTEGER`, but was of type `STRING`" in typed.message
            assert session.run("MATCH (p:Person) RETURN count(p) AS n").single()["n"] == 0


def test_an_explicit_transaction_is_checked_at_commit(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            constrain(session)
            # A later statement of the same transaction supplies the property.
            with session.begin_transaction() as tx:
                tx.run("CREATE (:Person {age: 1})").consume()
                tx.run("MATCH (p:Person) SET p.name = 'Ann'").consume()
                tx.commit()
            # The violating statement's transaction fails with the constraint error.
            tx = session.begin_transaction()
            tx.run("CREATE (:Person {age: 2})").consume()
            with pytest.raises(ClientError) as failed:
                tx.commit()
            assert failed.value.code == VALIDATION
            assert "must have the property `name`" in failed.value.message
            names = [
                r["name"] for r in session.run("MATCH (p:Person) RETURN p.name AS name")
            ]
            assert names == ["Ann"]


def test_show_constraints_lists_them(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            constrain(session)
            rows = {
                r["name"]: (r["type"], r["propertyType"])
                for r in session.run("SHOW CONSTRAINTS")
            }
            assert rows == {
                "person_name": ("NODE_PROPERTY_EXISTENCE", None),
                "person_age": ("NODE_PROPERTY_TYPE", "INTEGER"),
            }
