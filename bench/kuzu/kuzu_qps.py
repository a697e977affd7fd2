"""Queries per second of the engine benchmark's queries in Kuzu (embedded), one thread.

Loads the CSV graph written by `cypher_qps --export DIR`, then times each query the way
`crates/engine/examples/cypher_qps.rs` times Quiver: warm up, three rounds of a fixed time,
report the median rate per wall-clock second and per CPU second of the process (Kuzu may use
worker threads; their time counts), and the rows of the last run. Prints
`name<TAB>qps<TAB>cpu_qps<TAB>rows`, or `name<TAB>n/a<TAB>n/a<TAB>reason` where Kuzu does not
accept the query.
"""

import os
import shutil
import sys
import time

import kuzu

QUERIES = [
    ("count", "MATCH (n:Person) RETURN count(n) AS c", None),
    ("lookup_by_property", "MATCH (n:Person {id: $id}) RETURN n.name AS name", "id"),
    (
        "lookup_by_id",
        "MATCH (n:Person) WHERE id(n) = internal_id(0, $node) RETURN n.name AS name",
        "node",
    ),
    (
        "expand_aggregate",
        "MATCH (p:Person {id: $id})-[:KNOWS]->(f) RETURN p.name AS name, count(f) AS friends, collect(f.name) AS names",
        "id",
    ),
    (
        "friend_of_friend",
        "MATCH (me:Person {id: $id})-[:KNOWS]-(p)-[:KNOWS]-(fof) WHERE me <> fof AND NOT (me)-[:KNOWS]-(fof) RETURN fof.name AS name, count(*) AS freq ORDER BY freq DESC, name LIMIT 10",
        "id",
    ),
    (
        "two_hop_count",
        "MATCH (me:Person {id: $id})-[:KNOWS]->()-[:KNOWS]->(x) RETURN count(x) AS c",
        "id",
    ),
]


def fresh_database(db_dir):
    """A new Kuzu database at `db_dir` and a connection to it, made after removing what an
    earlier run left there (Kuzu keeps a database as a directory or, in newer versions, a file,
    plus a WAL)."""
    for path in (db_dir, db_dir + ".wal"):
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    db = kuzu.Database(db_dir)
    return db, kuzu.Connection(db)


def main():
    csv_dir, db_dir, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    db, conn = fresh_database(db_dir)
    conn.execute("CREATE NODE TABLE Person(id STRING, name STRING, PRIMARY KEY(id))")
    conn.execute("CREATE REL TABLE KNOWS(FROM Person TO Person, since STRING)")
    start = time.time()
    conn.execute(f"COPY Person FROM '{csv_dir}/persons.csv' (HEADER=false)")
    conn.execute(f"COPY KNOWS FROM '{csv_dir}/knows.csv' (HEADER=false)")
    print(f"loaded in {time.time() - start:.1f}s", file=sys.stderr)
    ids = []
    with open(f"{csv_dir}/persons.csv") as f:
        for line in f:
            ids.append(line.split(",", 1)[0])
    n = len(ids)

    def params(kind, i):
        person = (i * 7919) % n
        if kind == "id":
            return {"id": ids[person]}
        if kind == "node":
            return {"node": person}
        return {}

    budget = seconds / 3.0
    for name, cypher, kind in QUERIES:
        try:
            prepared = conn.prepare(cypher) if hasattr(conn, "prepare") else cypher
            rows = 0
            i = 0

            def run():
                nonlocal rows, i
                i += 1
                r = conn.execute(prepared, params(kind, i))
                rows = 0
                while r.has_next():
                    r.get_next()
                    rows += 1

            for _ in range(10):
                run()
            rounds = []
            cpu_rounds = []
            for _ in range(3):
                t = time.time()
                c = time.process_time()
                k = 0
                while time.time() - t < budget or k < 5:
                    run()
                    k += 1
                rounds.append(k / (time.time() - t))
                cpu_rounds.append(k / max(time.process_time() - c, 1e-9))
            rounds.sort()
            cpu_rounds.sort()
            print(f"{name}\t{rounds[1]:.0f}\t{cpu_rounds[1]:.0f}\t{rows}", flush=True)
        except Exception as e:  # Kuzu rejects the query: report and go on
            print(f"{name}\tn/a\tn/a\t{str(e).splitlines()[0]}", flush=True)


if __name__ == "__main__":
    main()
