"""Starts `quiver serve` on ephemeral ports for the official Python driver's tests.

The binary is taken from $QUIVER_BIN (tests/drivers/run.sh sets it after building).
"""

import os
import signal
import socket
import subprocess
import time

import pytest

USER = "neo4j"
PASSWORD = "quiver-test-password"


class Quiver:
    def __init__(self, *extra_args):
        binary = os.environ.get("QUIVER_BIN", "target/debug/quiver")
        env = dict(os.environ)
        env["QUIVER_AUTH"] = f"{USER}/{PASSWORD}"
        env.setdefault("QUIVER_LOG", "warn")
        self.process = subprocess.Popen(
            [
                binary,
                "serve",
                "--bolt-listen",
                "127.0.0.1:0",
                "--http-listen",
                "127.0.0.1:0",
                "--in-memory",
                *extra_args,
            ],
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        self.bolt = self._address("bolt listening on ")
        self.http = self._address("http listening on ")

    def _address(self, prefix):
        line = self.process.stdout.readline().strip()
        assert line.startswith(prefix), f"unexpected start-up line: {line!r}"
        host, port = line[len(prefix):].rsplit(":", 1)
        return host, int(port)

    def uri(self, scheme="bolt"):
        host, port = self.bolt
        return f"{scheme}://{host}:{port}"

    def hold(self, count):
        """Opens raw TCP connections that occupy admission slots."""
        return [socket.create_connection(self.bolt) for _ in range(count)]

    def stop(self):
        """SIGTERM: the server drains and must exit 0."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=30)
        assert code == 0, f"quiver exited with {code}"


@pytest.fixture
def quiver():
    server = Quiver()
    yield server
    server.stop()


@pytest.fixture
def small_quiver():
    """A server admitting two connections, none reserved."""
    server = Quiver("--max-connections", "2", "--admin-reserved-connections", "0")
    yield server
    server.stop()


def wait_until(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def metric(quiver, name):
    """A counter or gauge from the server's Prometheus text at GET /metrics."""
    import urllib.request

    host, port = quiver.http
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")
