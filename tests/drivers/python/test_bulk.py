"""Bulk writes through the official Python driver: LOAD CSV from the server's import directory
(in batches with CALL { } IN TRANSACTIONS, refused outside it), and a uniqueness violation in an
explicit transaction raised by the statement that causes it, not by the commit."""

import gzip

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError, ConstraintError

from conftest import PASSWORD, USER, Quiver


@pytest.fixture
def import_dir(tmp_path):
    directory = tmp_path / "import"
    directory.mkdir()
    return directory


@pytest.fixture
def driver(import_dir):
    server = Quiver("--import-dir", str(import_dir))
    try:
        with GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD)) as driver:
            yield driver
    finally:
        server.stop()


def test_load_csv_in_batches_from_the_import_dir(driver, import_dir):
    rows = ["id,name"] + [f"{i},person {i}" for i in range(1, 2501)]
    (import_dir / "people.csv").write_text("\n".join(rows) + "\n")
    with driver.session() as session:
        summary = session.run(
            "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row "
            "CALL (row) { CREATE (:Person {id: toInteger(row.id), name: row.name}) } "
            "IN TRANSACTIONS OF 1000 ROWS"
        ).consume()
        assert summary.counters.nodes_created == 2500
        record = session.run(
            "MATCH (p:Person) RETURN count(p) AS n, max(p.id) AS top"
        ).single()
        assert (record["n"], record["top"]) == (2500, 2500)
        lines = session.run(
            "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row "
            "WITH row, linenumber() AS line WHERE row.id = '7' RETURN line"
        ).single()["line"]
        assert lines == 8


def test_gzip_and_tab_separated_files(driver, import_dir):
    with gzip.open(import_dir / "cities.tsv.gz", "wt") as f:
        f.write("name\tcountry\nLyon\tFR\nKyoto\tJP\n")
    with driver.session() as session:
        names = session.run(
            "LOAD CSV WITH HEADERS FROM 'file:///cities.tsv.gz' AS row FIELDTERMINATOR '\\t' "
            "RETURN row.name AS name"
        ).value()
        assert names == ["Lyon", "Kyoto"]


def test_files_outside_the_import_dir_are_refused(driver, import_dir):
    (import_dir.parent / "secret.csv").write_text("top,secret\n")
    with driver.session() as session:
        for url in ["file:///../secret.csv", "https://example.com/x.csv"]:
            with pytest.raises(ClientError) as raised:
                session.run(f"LOAD CSV FROM '{url}' AS row RETURN row").consume()
            assert raised.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"


def test_a_uniqueness_violation_fails_the_statement(driver):
    with driver.session() as session:
        session.run(
            "CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE"
        ).consume()
        session.run("CREATE (:Person {email: 'ann@example.com'})").consume()
        tx = session.begin_transaction()
        tx.run("CREATE (:Person {email: 'bob@example.com'})").consume()
        with pytest.raises(ConstraintError) as raised:
            tx.run("CREATE (:Person {email: 'ann@example.com'})").consume()
        assert raised.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"
        tx.close()
        count = session.run("MATCH (p:Person) RETURN count(p) AS n").single()["n"]
        assert count == 1
