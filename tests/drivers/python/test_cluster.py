"""A three-member cluster behind a `neo4j://` driver: a managed-transaction write loop keeps
going while each member is restarted in turn, and no acknowledged write is lost."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

import neo4j

from conftest import PASSWORD, USER, spawn, wait_until


def free_ports(n):
    held = [socket.socket() for _ in range(n)]
    for s in held:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in held]
    for s in held:
        s.close()
    return ports


class Member:
    def __init__(self, node_id, ports, members, data_dir):
        self.node_id = node_id
        self.raft, self.bolt, self.http = ports
        self.members = members
        self.data_dir = data_dir
        self.process = None

    def start(self):
        self.process = spawn(
            [
                "serve",
                "--node-id", str(self.node_id),
                "--raft-listen", f"127.0.0.1:{self.raft}",
                "--initial-members", self.members,
                "--bolt-listen", f"127.0.0.1:{self.bolt}",
                "--http-listen", f"127.0.0.1:{self.http}",
                "--data-dir", self.data_dir,
            ],
            stdout=subprocess.DEVNULL,
        )

    def ready(self):
        try:
            with socket.create_connection(("127.0.0.1", self.http), timeout=1) as s:
                s.sendall(b"GET /health/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return s.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def stop(self):
        """SIGTERM: a leader hands over, the member drains and must exit 0."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=30)
        assert code == 0, f"member {self.node_id} exited with {code}"

    def kill(self):
        """SIGKILL, where the member still runs: what a failed test leaves is cleared away."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def three_members(prefix, leave=Member.kill):
    """A three-member cluster in a temporary directory named from `prefix`, all members ready;
    on leaving, `leave` ends each member and the directory is removed."""
    root = tempfile.mkdtemp(prefix=prefix)
    ports = free_ports(9)
    members = ",".join(f"{i + 1}=127.0.0.1:{ports[i * 3]}" for i in range(3))
    cluster = [
        Member(i + 1, ports[i * 3:i * 3 + 3], members, os.path.join(root, f"m{i + 1}"))
        for i in range(3)
    ]
    for m in cluster:
        m.start()
    try:
        assert wait_until(lambda: all(m.ready() for m in cluster), timeout=30)
        yield cluster
    finally:
        for m in cluster:
            leave(m)
        shutil.rmtree(root, ignore_errors=True)


def test_a_write_loop_survives_a_rolling_restart():
    with three_members("quiver-cluster-") as cluster:
        uri = f"neo4j://127.0.0.1:{cluster[0].bolt}"
        acked = []
        failures = []
        bookmarks = []
        stop = threading.Event()

        def write(tx, n):
            tx.run("CREATE (:Item {n: $n})", n=n).consume()

        with neo4j.GraphDatabase.driver(uri, auth=(USER, PASSWORD)) as driver:
            # The cluster has elected a leader and it takes writes.
            with driver.session() as session:
                session.execute_write(write, 0)
            acked.append(0)

            def loop():
                n = 1
                with driver.session() as session:
                    while not stop.is_set():
                        try:
                            session.execute_write(write, n)
                            acked.append(n)
                        except Exception as error:  # noqa: BLE001 - recorded, checked below
                            failures.append(repr(error))
                        n += 1
                    bookmarks.append(session.last_bookmarks())

            writer = threading.Thread(target=loop)
            writer.start()
            for m in cluster:
                before = len(acked)
                assert wait_until(lambda: len(acked) > before + 5, timeout=30)
                m.stop()
                m.start()
                assert wait_until(m.ready, timeout=30)
            before = len(acked)
            assert wait_until(lambda: len(acked) > before + 5, timeout=30)
            stop.set()
            writer.join(timeout=60)

            # A read on any member, at the writer's last bookmark: it sees every commit.
            with driver.session(bookmarks=bookmarks[0]) as session:
                got = session.execute_read(
                    lambda tx: [r["n"] for r in tx.run("MATCH (i:Item) RETURN i.n AS n")]
                )
        missing = sorted(set(acked) - set(got))
        assert not missing, (
            f"acknowledged writes lost: {missing[:20]} of {len(acked)}; failures: {failures[:5]}"
        )
