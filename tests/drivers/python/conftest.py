"""Starts `quiver serve` on ephemeral ports for the official Python driver's tests.

The binary is taken from $QUIVER_BIN (tests/drivers/run.sh sets it after building).
"""

import contextlib
import os
import signal
import socket
import subprocess
import time

import neo4j
import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

USER = "neo4j"
PASSWORD = "quiver-test-password"

DRIVER_MAJOR = int(neo4j.__version__.split(".")[0])
# For the tests of what a 5.x driver does where the 6.x driver has a Bolt 6 type.
driver_5x = pytest.mark.skipif(DRIVER_MAJOR >= 6, reason="the 5.x driver's behaviour")


def spawn(args, **popen):
    """Starts the quiver binary with `args`, its users' store holding the test user and its log at
    warnings unless $QUIVER_LOG says otherwise; `popen` goes to `subprocess.Popen`."""
    binary = os.environ.get("QUIVER_BIN", "target/debug/quiver")
    env = dict(os.environ)
    env["QUIVER_AUTH"] = f"{USER}/{PASSWORD}"
    env.setdefault("QUIVER_LOG", "warn")
    return subprocess.Popen([binary, *args], env=env, **popen)


class Quiver:
    def __init__(self, *extra_args, data_dir=None):
        storage = ["--data-dir", str(data_dir)] if data_dir else ["--in-memory"]
        self.process = spawn(
            [
                "serve",
                "--bolt-listen",
                "127.0.0.1:0",
                "--http-listen",
                "127.0.0.1:0",
                *storage,
                *extra_args,
            ],
            stdout=subprocess.PIPE,
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
def driver(quiver):
    """The official driver, connected to the test's server as the test user."""
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        yield driver


def neomodel_url(quiver):
    """The server's bolt:// URL with the test user's credentials in it, as neomodel takes it."""
    host, port = quiver.bolt
    return f"bolt://{USER}:{PASSWORD}@{host}:{port}"


@pytest.fixture
def connected(quiver):
    """neomodel's `db`, connected to the test's server for the test (neomodel's tests only)."""
    from neomodel import db

    db.set_connection(url=neomodel_url(quiver))
    try:
        yield db
    finally:
        db.close_connection()


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


def needs_6x(what):
    """Skips a test of `what` (a Bolt 6 type) where the driver is older than 6.x."""
    return pytest.mark.skipif(DRIVER_MAJOR < 6, reason=f"{what} needs the 6.x driver")


def negotiated(driver):
    """The Bolt version, (major, minor), that the driver's connections speak."""
    return driver.execute_query("RETURN 1").summary.server.protocol_version


@contextlib.contextmanager
def refused_on_bolt_5(driver, query, version):
    """A session of a 5.x driver, which speaks Bolt 5: `query`, which returns a value of a type
    that Bolt `version` brought, fails naming that version. The session is yielded to show that
    its connection goes on."""
    with driver.session() as session:
        assert session.run("RETURN 1").consume().server.protocol_version < (6, 0)
        with pytest.raises(ClientError) as failure:
            session.run(query).single()
        assert f"Bolt {version}" in failure.value.message
        yield session


def refused(session, query):
    """Runs `query` in `session` to its end, which must fail with a ClientError; returns it."""
    with pytest.raises(ClientError) as raised:
        session.run(query).consume()
    return raised.value
