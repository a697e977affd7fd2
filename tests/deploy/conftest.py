"""What the deployment tests share: the rendered manifests, the binary's help, and running a
rendered container's command against the binary on loopback."""

import base64
import functools
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "quiver"
RENDERED = ROOT / "deploy" / "helm" / "rendered"
QUIVER_BIN = os.environ.get("QUIVER_BIN") or str(ROOT / "target" / "debug" / "quiver")
PASSWORD = "deploy-test-password"
# The memory limit the tests' "pods" have (the downward API's limits.memory, in bytes).
MEMORY_LIMIT = 2 * 1024**3


def rendered(name):
    """The documents of deploy/helm/rendered/NAME.yaml."""
    return [doc for doc in yaml.safe_load_all((RENDERED / f"{name}.yaml").read_text()) if doc]


def values(name):
    return yaml.safe_load((RENDERED / f"{name}.values.yaml").read_text()) or {}


def one(docs, kind):
    found = [doc for doc in docs if doc["kind"] == kind]
    assert len(found) == 1, f"one {kind} expected, found {len(found)}"
    return found[0]


def pod_spec(doc):
    if doc["kind"] == "StatefulSet":
        return doc["spec"]["template"]["spec"]
    if doc["kind"] == "CronJob":
        return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return None


def containers(docs):
    """(workload, container) for every container and init container of every workload."""
    for doc in docs:
        spec = pod_spec(doc)
        if spec is None:
            continue
        for container in spec.get("initContainers", []) + spec["containers"]:
            yield doc, container


def container(doc, name):
    spec = pod_spec(doc)
    for c in spec.get("initContainers", []) + spec["containers"]:
        if c["name"] == name:
            return c
    raise AssertionError(f"no container {name} in {doc['kind']}")


def script(c):
    """The shell text of a container's command (bash -c SCRIPT), or its words joined."""
    words = c.get("command", []) + c.get("args", [])
    if words[:2] == ["bash", "-c"]:
        return words[2]
    return " ".join(words)


@functools.cache
def help_text(subcommand):
    return subprocess.run(
        [QUIVER_BIN, subcommand, "--help"], check=True, capture_output=True, text=True
    ).stdout


def help_flags(subcommand):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", help_text(subcommand)))


def help_variables(subcommand):
    return set(re.findall(r"\bQUIVER_[A-Z0-9_]+", help_text(subcommand)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pod_env(c, pod_name, overrides):
    """The environment the kubelet would give container `c`: secrets hold PASSWORD, the pod is
    `pod_name` with MEMORY_LIMIT of memory, $(VAR) references expanded in order; then
    `overrides` (what only a real pod has: its addresses, volumes' paths)."""
    env = {}
    for entry in c.get("env", []):
        name = entry["name"]
        if "value" in entry:
            value = re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1), m.group(0)), entry["value"])
        else:
            source = entry["valueFrom"]
            if "secretKeyRef" in source:
                value = PASSWORD
            elif source.get("fieldRef", {}).get("fieldPath") == "metadata.name":
                value = pod_name
            elif source.get("resourceFieldRef", {}).get("resource") == "limits.memory":
                value = str(MEMORY_LIMIT)
            else:
                raise AssertionError(f"unexpected valueFrom {source}")
        env[name] = value
    env.update(overrides)
    return env


class Pod:
    """A rendered container's command run as the container would run it, `quiver` on PATH being
    the binary under test. Stopped (SIGKILL) by `close` if still running."""

    def __init__(self, tmp, c, pod_name, overrides):
        self.tmp = Path(tmp)
        shims = self.tmp / "bin"
        shims.mkdir(exist_ok=True)
        if not (shims / "quiver").exists():
            (shims / "quiver").symlink_to(QUIVER_BIN)
        self.env = pod_env(c, pod_name, overrides)
        self.env["PATH"] = f"{shims}:/usr/local/bin:/usr/bin:/bin"
        self.env["HOME"] = str(self.tmp)
        self.log = open(self.tmp / f"{pod_name}-{c['name']}.log", "ab")
        self.process = subprocess.Popen(
            c["command"] + c.get("args", []),
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait(self, timeout):
        return self.process.wait(timeout=timeout)

    def output(self):
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def terminate(self):
        self.process.send_signal(signal.SIGTERM)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture
def pods(tmp_path):
    started = []

    def start(c, pod_name, overrides):
        pod = Pod(tmp_path, c, pod_name, overrides)
        started.append(pod)
        return pod

    yield start
    for pod in started:
        pod.close()


def run_to_end(tmp, c, pod_name, overrides, timeout=60):
    """Runs a container that ends (a job, an init container); its exit status and output."""
    pod = Pod(tmp, c, pod_name, overrides)
    try:
        status = pod.wait(timeout)
        return status, pod.output()
    finally:
        pod.close()


UNVERIFIED = ssl.create_default_context()
UNVERIFIED.check_hostname = False
UNVERIFIED.verify_mode = ssl.CERT_NONE


def request(url, body=None, timeout=10, password=PASSWORD):
    """(status, text) of GET url, or POST of `body` as JSON; Basic credentials of the
    administrator; HTTPS unverified, as the kubelet's probes are."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    req.add_header("Authorization", "Basic " + base64.b64encode(f"neo4j:{password}".encode()).decode())
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=UNVERIFIED) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def probe_url(c, probe, http_port):
    """The URL the kubelet would probe, `http_port` standing for the container's named port."""
    get = c[probe]["httpGet"]
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert get["port"] in ports, f"{probe} names port {get['port']}, not one of {sorted(ports)}"
    return f"{get.get('scheme', 'HTTP').lower()}://127.0.0.1:{http_port}{get['path']}"


def wait_until_live(pod, url, deadline=30):
    """As a startup probe: until `url` answers 200 (or the process ends)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if pod.process.poll() is not None:
            raise AssertionError(f"the server exited ({pod.process.returncode}):\n{pod.output()}")
        try:
            if request(url, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{url} did not answer within {deadline}s:\n{pod.output()}")


def cypher(http_base, statement, parameters=None, password=PASSWORD):
    status, text = request(
        f"{http_base}/db/neo4j/tx/commit",
        {"statements": [{"statement": statement, "parameters": parameters or {}}]},
        password=password,
    )
    assert status == 200, text
    answer = json.loads(text)
    assert not answer["errors"], answer["errors"]
    return [row["row"] for row in answer["results"][0]["data"]]
