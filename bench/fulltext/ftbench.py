"""Full-text search, Quiver against FalkorDB, in one run over the network.

Generates N short documents (6 to 14 words each, drawn with Zipf frequencies, exponent 1.07,
from a fixed vocabulary of made-up words) and three query sets from a fixed seed, then for
each server in turn: starts it on loopback, creates a full-text index on (:D).text, loads the
documents through UNWIND batches with the index in place, runs the first query (which may
finish the build), measures resident memory per document, and times each kind of query at
each client count (queries/s, median and 99th percentile latency, mean rows returned), ten
rows a query, best score first.

The query kinds, in each server's syntax:
  term    a word of middling frequency    Quiver (Lucene) `word`     FalkorDB (RediSearch) `word`
  phrase  two adjacent words of a document                `"w1 w2"`                     `"w1 w2"`
  fuzzy   a word with one letter changed                  `word~1`                      `%word%`

usage: ftbench.py --quiver BINARY --n N [--out FILE] (see --help)
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vector"))
import servers  # noqa: E402

SEED = 20261201
VOCABULARY = 20_000
ZIPF_EXPONENT = 1.07
WORDS_MIN, WORDS_MAX = 6, 14
ROWS = 10
KINDS = ("term", "phrase", "fuzzy")
CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"


def vocabulary(rng):
    words, seen = [], set()
    while len(words) < VOCABULARY:
        syllables = rng.integers(2, 5)
        w = "".join(CONSONANTS[rng.integers(len(CONSONANTS))] + VOWELS[rng.integers(len(VOWELS))]
                    for _ in range(syllables))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def generate(n, queries):
    rng = np.random.default_rng(SEED)
    words = vocabulary(rng)
    p = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
    p /= p.sum()
    lengths = rng.integers(WORDS_MIN, WORDS_MAX + 1, size=n)
    drawn = rng.choice(VOCABULARY, size=int(lengths.sum()), p=p)
    docs, at = [], 0
    for length in lengths.tolist():
        docs.append(" ".join(words[w] for w in drawn[at:at + length].tolist()))
        at += length
    terms = [words[r] for r in rng.integers(50, 5000, size=queries).tolist()]
    phrases = []
    for d in rng.integers(0, n, size=queries).tolist():
        ws = docs[d].split()
        j = int(rng.integers(0, len(ws) - 1))
        phrases.append((ws[j], ws[j + 1]))
    fuzzy = []
    for w in (words[r] for r in rng.integers(50, 5000, size=queries).tolist()):
        j = 1 + 2 * int(rng.integers(0, len(w) // 2))
        j = min(j, len(w) - 1)
        other = VOWELS[(VOWELS.index(w[j]) + 1) % len(VOWELS)] if w[j] in VOWELS else "a"
        fuzzy.append(w[:j] + other + w[j + 1:])
    return docs, {"term": terms, "phrase": phrases, "fuzzy": fuzzy}


# How each server writes a fuzzy match of a word (the other kinds are written alike).
FUZZY = {"quiver": "{}~1", "falkordb": "%{}%"}


def query_text(server, kind, q):
    """The query of `kind` for `q` (a word, or two for a phrase) in `server`'s syntax."""
    if kind == "phrase":
        return f'"{q[0]} {q[1]}"'
    if kind == "fuzzy":
        return FUZZY[server].format(q)
    return q


def quiver_run(args, docs, queries, log_dir):
    from neo4j import GraphDatabase

    server = servers.Quiver(args.quiver, os.path.join(log_dir, "quiver.log"))
    out = {"server": "quiver"}
    search = ("CALL db.index.fulltext.queryNodes('docs', $q, {limit: %d}) YIELD node, score "
              "RETURN node.i AS i" % ROWS)
    try:
        uri = f"bolt://{server.bolt}"
        with GraphDatabase.driver(uri, auth=None) as driver, driver.session() as s:
            s.run("CREATE FULLTEXT INDEX docs FOR (n:D) ON EACH [n.text]").consume()
            servers.timed_build(
                out, server.pid,
                lambda: servers.bolt_load(s, "quiver", docs, args.batch,
                                          lambda i, d: {"i": i, "t": d},
                                          "CREATE (:D {i: r.i, text: r.t})"),
                lambda: s.run(search, q=query_text("quiver", "term", queries["term"][0])).consume(),
                len(docs), "document")
            for kind in KINDS:
                rows = [len(list(s.run(search, q=query_text("quiver", kind, q))))
                        for q in queries[kind]]
                out[f"{kind}_rows_mean"] = round(sum(rows) / len(rows), 2)
        for kind in KINDS:
            texts = [query_text("quiver", kind, q) for q in queries[kind]]
            servers.measure_clients(out, f"{kind}_", servers.bolt_runner(uri, search, texts),
                                    args.clients, args.seconds, server.pid)
    finally:
        server.stop()
    return out


def cypher_string(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def falkor_run(args, docs, queries, log_dir):
    server = servers.FalkorDB(os.path.join(log_dir, "falkordb.log"))
    out = {"server": "falkordb"}
    try:
        r = server.client()
        r.execute_command("GRAPH.QUERY", "g", "CALL db.idx.fulltext.createNodeIndex('D', 'text')")

        def search(kind, q):
            return (f"CYPHER q={cypher_string(query_text('falkordb', kind, q))} "
                    "CALL db.idx.fulltext.queryNodes('D', $q) YIELD node, score "
                    f"RETURN node.i AS i LIMIT {ROWS}")

        servers.falkor_build(
            out, server, r, docs, args.batch, lambda i, d: f"{{i:{i},t:{cypher_string(d)}}}",
            "CREATE (:D {i: r.i, text: r.t})", search("term", queries["term"][0]), "document")
        for kind in KINDS:
            rows = [len(servers.falkor_rows(r.execute_command(
                "GRAPH.RO_QUERY", "g", search(kind, q), "--compact"))) for q in queries[kind]]
            out[f"{kind}_rows_mean"] = round(sum(rows) / len(rows), 2)
        for kind in KINDS:
            texts = [search(kind, q) for q in queries[kind]]
            servers.measure_clients(out, f"{kind}_", servers.falkor_runner(server.port, texts),
                                    args.clients, args.seconds, server.pid)
    finally:
        server.stop()
    return out


def main():
    args = servers.arguments(
        __doc__.split("\n\n")[0], "queries of each kind", "documents", 5000,
        8.0, "each kind and client-count window").parse_args()
    servers.stop_on_term()

    t = time.perf_counter()
    docs, queries = generate(args.n, args.queries)
    print(f"generated {args.n} documents in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    results = servers.run_servers(
        args, (("quiver", quiver_run), ("falkordb", falkor_run)), "ftbench-", docs, queries)

    report = {
        "benchmark": "fulltext", "n": args.n, "rows": ROWS, "vocabulary": VOCABULARY,
        "zipf_exponent": ZIPF_EXPONENT, "words": [WORDS_MIN, WORDS_MAX],
        "queries": args.queries, "batch": args.batch, "seconds": args.seconds, "seed": SEED,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": os.cpu_count(), "results": results,
    }
    print(f"{args.n} documents, {ROWS} rows a query")
    for r in results:
        print(f"{r['server']}: load {r['load_s']} s, first query {r['first_query_s']} s, "
              f"{r['rss_per_document_bytes']} bytes/document")
    for kind in KINDS:
        for c in args.clients:
            cells = [f"{r['server']} {r[f'{kind}_clients_{c}']['qps']} q/s p99 "
                     f"{r[f'{kind}_clients_{c}']['p99_ms']} ms rows {r[f'{kind}_rows_mean']}"
                     for r in results]
            ratio = ""
            if len(results) == 2 and results[1][f"{kind}_clients_{c}"]["qps"]:
                ratio = f"  ({results[0][f'{kind}_clients_{c}']['qps'] / results[1][f'{kind}_clients_{c}']['qps']:.2f}x)"
            print(f"{kind:<7} {c} client(s): " + "; ".join(cells) + ratio)
    servers.write_report(args.out, report)


if __name__ == "__main__":
    main()
