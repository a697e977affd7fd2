"""What the chart relies on the server for, checked by running the rendered containers'
commands against the binary on loopback: the probes' paths answer 200 on a started server,
SIGTERM ends it cleanly within the grace period (idle, and with a query in flight past the
drain), the memory limit reaches the query pool, the backup job's and restore init container's
commands back up and restore, and a cluster member's command picks its id, its certificate and
initial members or --join from its pod name."""

import json
import subprocess
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import (
    MEMORY_LIMIT,
    QUIVER_BIN,
    container,
    cypher,
    free_port,
    one,
    pod_spec,
    probe_url,
    rendered,
    request,
    run_to_end,
    wait_until_live,
)

# What stops a pod after the grace period besides the server: the preStop sleep runs first.
PROBES = ["startupProbe", "readinessProbe", "livenessProbe"]


def shutdown_budget(sts):
    """Seconds the server has from SIGTERM to exit: the grace period less the preStop sleep."""
    spec = pod_spec(sts)
    server = container(sts, "quiver")
    pre_stop = server.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
    sleep = int(pre_stop[1]) if pre_stop[:1] == ["sleep"] else 0
    return spec["terminationGracePeriodSeconds"] - sleep


def loopback(tmp, data_dir=None):
    """What a pod has that this machine has not: its listeners (on loopback here) and volume."""
    bolt, http = free_port(), free_port()
    return {
        "QUIVER_BOLT_LISTEN": f"127.0.0.1:{bolt}",
        "QUIVER_HTTP_LISTEN": f"127.0.0.1:{http}",
        "QUIVER_DATA_DIR": str(data_dir or Path(tmp) / "data" / "quiver"),
    }, http


def start_server(pods, tmp, sts, pod_name="quiver-0", data_dir=None, extra=None):
    overrides, http = loopback(tmp, data_dir)
    overrides.update(extra or {})
    server = container(sts, "quiver")
    pod = pods(server, pod_name, overrides)
    wait_until_live(pod, probe_url(server, "startupProbe", http))
    return pod, server, http


def test_probes_answer_and_sigterm_stops_an_idle_server_in_time(pods, tmp_path):
    sts = one(rendered("default"), "StatefulSet")
    pod, server, http = start_server(pods, tmp_path, sts)
    for probe in PROBES:
        status, body = request(probe_url(server, probe, http))
        assert status == 200, f"{probe}: {status} {body}"
    # The container's memory limit, not the machine's, bounds the queries together.
    _, metrics = request(f"http://127.0.0.1:{http}/metrics")
    pool = next(
        line for line in metrics.splitlines() if line.startswith("quiver_query_memory_pool_max_bytes")
    )
    assert float(pool.split()[-1]) == MEMORY_LIMIT // 100 * 70
    started = time.monotonic()
    pod.terminate()
    assert pod.wait(shutdown_budget(sts)) == 0, pod.output()
    assert time.monotonic() - started < 5, "an idle server stops at once"


def test_sigterm_with_a_query_in_flight_ends_after_the_drain_within_the_grace_period(pods, tmp_path):
    sts = one(rendered("default"), "StatefulSet")
    pod, server, http = start_server(pods, tmp_path, sts)
    drain = int(pod.env["QUIVER_DRAIN_TIMEOUT_MS"]) / 1000
    budget = shutdown_budget(sts)
    assert budget > drain + 5, "the grace period leaves room for the drain and the handover"

    answered = []

    def long_query():
        try:
            answered.append(
                request(
                    f"http://127.0.0.1:{http}/db/neo4j/tx/commit",
                    {"statements": [{"statement": "UNWIND range(1, 10000000000) AS x WITH x WHERE x < 0 RETURN count(*)"}]},
                    timeout=budget,
                )
            )
        except OSError as error:
            answered.append(error)

    client = threading.Thread(target=long_query, daemon=True)
    client.start()
    time.sleep(0.5)
    assert not answered, "the query ran to its end before the signal"
    # Not ready once draining: the readiness probe takes the pod out of its Services.
    started = time.monotonic()
    pod.terminate()
    status = pod.wait(budget)
    took = time.monotonic() - started
    assert status == 0, pod.output()
    assert took <= drain + 5, f"stopped after {took:.1f}s, the drain is {drain}s"
    client.join(5)


def test_the_backup_job_and_the_restore_init_container(pods, tmp_path):
    docs = rendered("backup")
    sts = one(docs, "StatefulSet")
    job = container(one(docs, "CronJob"), "backup")
    restore = container(sts, "restore")
    backups = tmp_path / "backups"
    pod, _, http = start_server(pods, tmp_path, sts)
    base = f"http://127.0.0.1:{http}"
    job_env = {"SERVER": base, "BACKUP_DIR": str(backups)}

    cypher(base, "CREATE (:Item {n: 1})")
    status, output = run_to_end(tmp_path, job, "quiver-backup-1", job_env)
    assert status == 0, output
    time.sleep(1.1)
    # A time between the two writes, in the form with a space (it must reach --restore-until
    # as one word).
    between = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    time.sleep(1.1)
    cypher(base, "CREATE (:Item {n: 2})")
    status, output = run_to_end(tmp_path, job, "quiver-backup-2", job_env)
    assert status == 0, output
    inspected = subprocess.run(
        [QUIVER_BIN, "backup", "--inspect", str(backups / "neo4j")], capture_output=True, text=True
    )
    assert inspected.returncode == 0, inspected.stderr
    pieces = sorted(p.name for p in (backups / "neo4j").glob("backup-*.json"))
    assert len(pieces) == 2, f"a full backup, then an incremental one: {pieces}"
    pod.terminate()
    assert pod.wait(shutdown_budget(sts)) == 0

    for until, expected in [("", [1, 2]), (between, [1])]:
        volume = tmp_path / f"volume-{len(expected)}"
        (volume / "lost+found").mkdir(parents=True)  # as a fresh file system has
        data_dir = volume / "quiver"
        init_env = {"DATA_DIR": str(data_dir), "BACKUP_DIR": str(backups), "RESTORE_UNTIL": until}
        status, output = run_to_end(tmp_path, restore, "quiver-0", init_env)
        assert status == 0, output
        # Once restored, a restart leaves the data directory alone.
        status, output = run_to_end(tmp_path, restore, "quiver-0", init_env)
        assert status == 0 and "nothing restored" in output, output
        restored, _, http = start_server(pods, tmp_path, sts, data_dir=data_dir)
        rows = cypher(f"http://127.0.0.1:{http}", "MATCH (i:Item) RETURN i.n ORDER BY i.n")
        assert [row[0] for row in rows] == expected, f"restored until {until!r}"
        restored.terminate()
        assert restored.wait(shutdown_budget(sts)) == 0


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def certificate(directory, name, subject_alt_name):
    openssl(
        "req", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-subj", f"/CN={name}", "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=directory,
    )
    (directory / f"{name}.ext").write_text(
        f"subjectAltName={subject_alt_name}\nextendedKeyUsage=serverAuth,clientAuth\n"
    )
    openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-days", "2",
        "-out", f"{name}.pem", "-extfile", f"{name}.ext", cwd=directory,
    )


@pytest.fixture
def cluster_certs(tmp_path):
    """The cluster TLS Secret's files (ca.pem, member-N.pem, member-N.key for members 1 to 4)
    and the listeners' kubernetes.io/tls files (tls.crt, tls.key)."""
    directory = tmp_path / "certs"
    directory.mkdir()
    openssl(
        "req", "-x509", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-days", "2", "-subj", "/CN=quiver test CA", "-keyout", "ca.key", "-out", "ca.pem",
        cwd=directory,
    )
    for member in range(1, 5):
        certificate(directory, f"member-{member}", f"DNS:member-{member}.quiver-cluster")
    certificate(directory, "server", "DNS:localhost,IP:127.0.0.1")
    return directory


@pytest.mark.parametrize(
    "pod_name, member, joins",
    [("quiver-0", 1, False), ("quiver-2", 3, False), ("quiver-3", 4, True)],
)
def test_a_cluster_member_starts_from_its_pod_name(pods, tmp_path, cluster_certs, pod_name, member, joins):
    sts = one(rendered("cluster"), "StatefulSet")
    server = container(sts, "quiver")
    # The members' names resolve only inside Kubernetes: here the other members are loopback
    # addresses nobody listens on, and this one is alone (an election it cannot win, or a wait
    # to be added).
    rafts = {n: free_port() for n in range(1, 5)}
    extra = {
        "QUIVER_RAFT_LISTEN": f"127.0.0.1:{rafts[member]}",
        "INITIAL_MEMBERS": ",".join(f"{n}=127.0.0.1:{rafts[n]}" for n in range(1, 4)),
        "JOIN_ADDRESS": f"127.0.0.1:{rafts[1]}",
        "CLUSTER_TLS_DIR": str(cluster_certs),
        "QUIVER_TLS_CERT": str(cluster_certs / "server.pem"),
        "QUIVER_TLS_KEY": str(cluster_certs / "server.key"),
    }
    pod, server, http = start_server(pods, tmp_path, sts, pod_name=pod_name, extra=extra)
    assert pod.env["QUIVER_HTTP_TLS"] == "required"
    for probe in PROBES:
        url = probe_url(server, probe, http)
        assert url.startswith("https://")
        status, body = request(url)
        if probe == "readinessProbe":
            # Alone, the member knows no leader: once it serves, it takes no traffic and says why.
            deadline = time.monotonic() + 30
            while "cluster" not in json.loads(body) and time.monotonic() < deadline:
                time.sleep(0.05)
                status, body = request(url)
            assert status == 503, f"{probe}: {status} {body}"
            assert json.loads(body)["cluster"] == "no leader", body
        else:
            assert status == 200, f"{probe}: {status} {body}"
    status, body = request(f"https://127.0.0.1:{http}/cluster/status")
    assert status == 200, body
    state = json.loads(body)
    assert state["id"] == member
    if member == 1:
        # The lowest id starts the new cluster with the initial members.
        assert sorted(m["id"] for m in state["members"]) == [1, 2, 3], body
    # What the script handed the server (bash exec'd it: the same process).
    environ = dict(
        entry.split("=", 1)
        for entry in Path(f"/proc/{pod.process.pid}/environ").read_text().split("\0")
        if "=" in entry
    )
    assert environ["QUIVER_NODE_ID"] == str(member)
    assert environ["QUIVER_ADVERTISED_ADDRESS"] == f"{pod_name}.{pod.env['MEMBER_DOMAIN']}"
    assert environ["QUIVER_CLUSTER_TLS_CERT"] == str(cluster_certs / f"member-{member}.pem")
    if joins:
        assert environ["QUIVER_JOIN"] == extra["JOIN_ADDRESS"]
        assert "QUIVER_INITIAL_MEMBERS" not in environ
    else:
        assert environ["QUIVER_INITIAL_MEMBERS"] == extra["INITIAL_MEMBERS"]
        assert "QUIVER_JOIN" not in environ
    started = time.monotonic()
    pod.terminate()
    assert pod.wait(shutdown_budget(sts)) == 0, pod.output()
    assert time.monotonic() - started < 10
