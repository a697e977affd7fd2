"""Vector search, Quiver against FalkorDB, in one run over the network.

Generates N clustered vectors (100 centres, uniform noise, as embeddings cluster) and Q queries
near them from a fixed seed, then for each server in turn: starts it on loopback, creates a
Euclidean vector index on (:V).v (m 16, ef_construction 100 and the same search list, --ef, on
both: Quiver's `vector.hnsw.ef_search`, FalkorDB's efRuntime), loads the vectors through
UNWIND batches with the index already in place (so the graph is built while loading), runs the
first query (which may finish the build), and measures resident memory per vector (RSS after
minus RSS before the load, over N), recall@10 against exact search over the same vectors, and
queries/s with the median and 99th percentile latency at each client count. Prints a table and
writes JSON. Servers run one after the other, so they never compete for the two cores.

usage: vbench.py --quiver BINARY --n N --dim D [--out FILE] (see --help)
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import servers  # noqa: E402

SEED = 20261201
CENTRES = 100
K = 10


def generate(n, dim, queries):
    rng = np.random.default_rng(SEED)
    centres = rng.uniform(-2.0, 2.0, size=(CENTRES, dim)).astype(np.float32)
    data = centres[np.arange(n) % CENTRES] + rng.uniform(-0.5, 0.5, size=(n, dim)).astype(np.float32)
    picks = rng.integers(0, n, size=queries)
    qs = data[picks] + rng.normal(0.0, 0.1, size=(queries, dim)).astype(np.float32)
    return data.astype(np.float32), qs.astype(np.float32)


def exact_top(data, qs, k):
    """The ids of the k nearest vectors of each query, by brute force in float64."""
    best_d = np.full((len(qs), k), np.inf)
    best_i = np.zeros((len(qs), k), dtype=np.int64)
    q64 = qs.astype(np.float64)
    qn = (q64 * q64).sum(1)[:, None]
    step = 50_000
    for start in range(0, len(data), step):
        chunk = data[start:start + step].astype(np.float64)
        d = qn - 2.0 * q64 @ chunk.T + (chunk * chunk).sum(1)[None, :]
        idx = np.argpartition(d, k, axis=1)[:, :k]
        cand_d = np.concatenate([best_d, np.take_along_axis(d, idx, 1)], 1)
        cand_i = np.concatenate([best_i, idx + start], 1)
        order = np.argsort(cand_d, axis=1)[:, :k]
        best_d = np.take_along_axis(cand_d, order, 1)
        best_i = np.take_along_axis(cand_i, order, 1)
    return [set(row.tolist()) for row in best_i]


def recall(found, truth):
    return sum(len(set(f) & t) / K for f, t in zip(found, truth)) / len(truth)


# --- Quiver over Bolt ---------------------------------------------------------------------

SEARCH = "CALL db.index.vector.queryNodes('vec', 10, $q) YIELD node RETURN node.i AS i"
# With --filtered: the nearest of the vectors in one band of ten, filtered inside the index.
# Vector i belongs to centre i % 100 and to band (i // 100) % 10, so every centre holds every
# band alike, as a tenant or a date filter would cut across what the vectors are about.
BAND = 3
FILTERED = (f"MATCH (n:V) SEARCH n IN (VECTOR INDEX vec FOR $q WHERE n.band = {BAND} LIMIT 10) "
            "RETURN n.i AS i")


def quiver_run(args, data, qs, truth, log_dir, band_truth=None):
    from neo4j import GraphDatabase
    from neo4j.vector import Vector

    server = servers.Quiver(args.quiver, os.path.join(log_dir, "quiver.log"))
    out = {"server": "quiver", "ef_search": args.ef, "quantization": args.quantization}
    try:
        uri = f"bolt://{server.bolt}"
        with GraphDatabase.driver(uri, auth=None) as driver, driver.session() as s:
            s.run(
                "CREATE VECTOR INDEX vec FOR (n:V) ON (n.v) WITH [n.band] OPTIONS {indexConfig: {"
                f"`vector.dimensions`: {args.dim}, `vector.similarity_function`: 'euclidean', "
                "`vector.hnsw.m`: 16, `vector.hnsw.ef_construction`: 100, "
                f"`vector.quantization.enabled`: {str(args.quantization == 'on').lower()}, "
                f"`vector.hnsw.ef_search`: {args.ef}}}}}").consume()
            servers.timed_build(
                out, server.pid,
                lambda: servers.bolt_load(s, "quiver", data, args.batch,
                                          lambda i, v: {"i": i, "v": Vector.from_numpy(v)},
                                          "CREATE (:V {i: r.i, v: r.v, band: (r.i / 100) % 10})"),
                lambda: s.run(
                    "CALL db.index.vector.queryNodes('vec', 10, $q) YIELD node RETURN node.i",
                    q=Vector.from_numpy(qs[0])).consume(),
                len(data), "vector", build_s=True)
            found = [[r["i"] for r in s.run(SEARCH, q=Vector.from_numpy(q))] for q in qs]
            out["recall_at_10"] = round(recall(found, truth), 4)
            if band_truth is not None:
                found = [[r["i"] for r in s.run(FILTERED, q=Vector.from_numpy(q))] for q in qs]
                out["filtered_recall_at_10"] = round(recall(found, band_truth), 4)
        vectors = [Vector.from_numpy(q) for q in qs]
        servers.measure_clients(out, "", servers.bolt_runner(uri, SEARCH, vectors),
                                args.clients, args.seconds, server.pid)
        if band_truth is not None:
            servers.measure_clients(out, "filtered_", servers.bolt_runner(uri, FILTERED, vectors),
                                    args.clients, args.seconds, server.pid)
    finally:
        server.stop()
    return out


# --- FalkorDB over RESP -------------------------------------------------------------------

def literal(v):
    """A vector as a Cypher list literal: each float32 widened exactly to a double, whose
    shortest representation FalkorDB's vecf32 narrows back to the same float32."""
    return "[" + ",".join(map(repr, v.tolist())) + "]"


def falkor_run(args, data, qs, truth, log_dir):
    server = servers.FalkorDB(os.path.join(log_dir, "falkordb.log"))
    out = {"server": "falkordb", "ef_runtime": args.ef}
    try:
        r = server.client()
        r.execute_command(
            "GRAPH.QUERY", "g",
            f"CREATE VECTOR INDEX FOR (n:V) ON (n.v) OPTIONS {{dimension: {args.dim}, "
            f"similarityFunction: 'euclidean', M: 16, efConstruction: 100, "
            f"efRuntime: {args.ef}}}")
        texts = [f"CYPHER q={literal(q)} CALL db.idx.vector.queryNodes('V', 'v', 10, vecf32($q)) "
                 "YIELD node RETURN node.i AS i" for q in qs]
        servers.falkor_build(
            out, server, r, data, args.batch, lambda i, v: f"{{i:{i},v:{literal(v)}}}",
            "CREATE (:V {i: r.i, v: vecf32(r.v)})", texts[0], "vector", build_s=True)
        found = [[row[0] for row in servers.falkor_rows(
            r.execute_command("GRAPH.RO_QUERY", "g", t, "--compact"))] for t in texts]
        out["recall_at_10"] = round(recall(found, truth), 4)
        servers.measure_clients(out, "", servers.falkor_runner(server.port, texts),
                                args.clients, args.seconds, server.pid)
    finally:
        server.stop()
    return out


def main():
    p = servers.arguments(__doc__.split("\n\n")[0], "queries for recall and load", "vectors",
                          1000, 10.0, "each client-count window")
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--ef", type=int, default=64,
                   help="the search list on both servers (ef_search, efRuntime)")
    p.add_argument("--quantization", choices=["on", "off"], default="on",
                   help="Quiver's vector.quantization.enabled (on, Neo4j's default: its graph "
                        "holds 16-bit points for this Euclidean index)")
    p.add_argument("--filtered", action="store_true",
                   help="also time Quiver's filtered search (SEARCH ... WHERE n.band = 3, a "
                        "tenth of the vectors), with its recall against exact search of the band")
    p.add_argument("--cache", help="keep the exact answers here, for the next run")
    args = p.parse_args()
    servers.stop_on_term()

    t = time.perf_counter()
    data, qs = generate(args.n, args.dim, args.queries)
    cached = None
    if args.cache:
        os.makedirs(args.cache, exist_ok=True)
        cached = os.path.join(args.cache, f"exact-{SEED}-{args.n}-{args.dim}-{args.queries}.npy")
    if cached and os.path.exists(cached):
        truth = [set(row.tolist()) for row in np.load(cached)]
    else:
        truth = exact_top(data, qs, K)
        if cached:
            np.save(cached, np.array([sorted(t) for t in truth]))
    print(f"generated {args.n} x {args.dim} and exact top-{K} of {args.queries} queries in "
          f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
    band_truth = None
    if args.filtered:
        ids = np.flatnonzero((np.arange(args.n) // 100) % 10 == BAND)
        band_truth = [{int(ids[j]) for j in t} for t in exact_top(data[ids], qs, K)]

    def quiver(args, data, qs, truth, log_dir):
        return quiver_run(args, data, qs, truth, log_dir, band_truth)

    results = servers.run_servers(
        args, (("quiver", quiver), ("falkordb", falkor_run)), "vbench-", data, qs, truth)

    report = {
        "benchmark": "vector", "n": args.n, "dimensions": args.dim, "k": K,
        "similarity": "euclidean", "m": 16, "ef_construction": 100, "ef": args.ef,
        "queries": args.queries,
        "batch": args.batch, "seconds": args.seconds, "seed": SEED,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": os.cpu_count(), "results": results,
    }
    cols = ["build_s", "load_s", "first_query_s", "rss_per_vector_bytes", "recall_at_10"]
    print(f"{args.n} vectors x {args.dim} dimensions, k {K}")
    print(f"{'server':<10}" + "".join(f"{c:>22}" for c in cols))
    for r in results:
        print(f"{r['server']:<10}" + "".join(f"{r.get(c, ''):>22}" for c in cols))
    for c in args.clients:
        print(f"{c} client(s): " + "; ".join(
            f"{r['server']} {r[f'clients_{c}']['qps']} q/s, p50 {r[f'clients_{c}']['p50_ms']} ms, "
            f"p99 {r[f'clients_{c}']['p99_ms']} ms, server CPU "
            f"{r[f'clients_{c}']['server_cpu_us_per_query']} us/q (load {r['load_avg_' + str(c)]})"
            for r in results))
        if len(results) == 2 and results[1][f"clients_{c}"]["qps"]:
            print(f"  quiver / falkordb: {results[0][f'clients_{c}']['qps'] / results[1][f'clients_{c}']['qps']:.2f}x")
        for r in results:
            f = r.get(f"filtered_clients_{c}")
            if f:
                print(f"  quiver filtered (recall {r['filtered_recall_at_10']}): {f['qps']} q/s, "
                      f"p99 {f['p99_ms']} ms, server CPU {f.get('server_cpu_us_per_query')} us/q")
    servers.write_report(args.out, report)


if __name__ == "__main__":
    main()
