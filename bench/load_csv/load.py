"""Runs the bench's LOAD CSV over Bolt in an auto-commit transaction (what CALL { } IN
TRANSACTIONS needs) and prints the rows loaded. usage: load.py BOLT_ADDRESS BATCH_ROWS"""

import sys

from neo4j import GraphDatabase


def main():
    address, batch = sys.argv[1], int(sys.argv[2])
    with GraphDatabase.driver(f"bolt://{address}", auth=None) as driver:
        with driver.session() as session:
            session.run(
                "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row "
                "CALL (row) { CREATE (:Person {id: toInteger(row.id), name: row.name, "
                "email: row.email, born: toInteger(row.born)}) } "
                f"IN TRANSACTIONS OF {batch} ROWS"
            ).consume()
            print(session.run("MATCH (p:Person) RETURN count(p) AS n").single()["n"])


if __name__ == "__main__":
    main()
