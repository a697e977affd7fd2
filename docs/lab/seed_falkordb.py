"""Seeds FalkorDB (over RESP) with the lab's social-network shape, for the redis-benchmark peer.

The lab seeds a Bolt peer itself (`--peer NAME=bolt://... --seed-target`); this script is the
RESP route to the same shape: PERSONS `:Person {id: 24 hex digits, name}` nodes, each with 5-8
distinct `:KNOWS {since: 'YYYY-MM-DD'}` out-edges, in the graph `falkordb`. The random draw is
Python's, so edge endpoints differ from the lab's seed 42; the count query's answer (PERSONS)
and the graph's size and shape are the same.

usage: python seed_falkordb.py [PORT] [PERSONS]
"""
import datetime
import random
import sys

from falkordb import FalkorDB

port = int(sys.argv[1]) if len(sys.argv) > 1 else 16379
persons = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rng = random.Random(42)
g = FalkorDB(host="127.0.0.1", port=port).select_graph("falkordb")
existing = g.query("MATCH (n:Person) RETURN count(n)").result_set[0][0]
if existing not in (0, persons):
    sys.exit(f"graph falkordb holds {existing} :Person nodes, not {persons}: start it empty")
if existing == 0:
    g.query("CREATE INDEX FOR (p:Person) ON (p.id)")
    ids = ["%024x" % rng.getrandbits(96) for _ in range(persons)]
    for start in range(0, persons, 500):
        rows = [{"id": ids[i], "name": f"person-{i}"} for i in range(start, min(start + 500, persons))]
        g.query("UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name})", {"rows": rows})
    anchor = datetime.date(2024, 1, 1)
    edges = []
    for i in range(persons):
        for j in rng.sample([k for k in range(persons) if k != i], rng.randint(5, 8)):
            since = (anchor - datetime.timedelta(days=rng.randrange(3650))).isoformat()
            edges.append({"a": ids[i], "b": ids[j], "since": since})
    for start in range(0, len(edges), 500):
        g.query(
            "UNWIND $rows AS r MATCH (a:Person {id: r.a}), (b:Person {id: r.b}) "
            "CREATE (a)-[:KNOWS {since: r.since}]->(b)",
            {"rows": edges[start : start + 500]},
        )
n = g.query("MATCH (n:Person) RETURN count(n)").result_set[0][0]
e = g.query("MATCH (:Person)-[k:KNOWS]->(:Person) RETURN count(k)").result_set[0][0]
print(f"falkordb nodes.person={n} edges.knows={e}")
