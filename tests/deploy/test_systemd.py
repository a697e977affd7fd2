"""deploy/systemd: the unit passes `systemd-analyze verify`, its user file `systemd-sysusers`,
its environment file names only settings `quiver serve` has, its stop timeout covers the
drain, and the server makes only system calls the unit's filter allows (traced with strace
through a start, writes, a backup, a scrape and a SIGTERM) and maps no memory writable and
executable at once (MemoryDenyWriteExecute)."""

import re
import shutil
import subprocess
import time

import pytest

from conftest import QUIVER_BIN, ROOT, cypher, free_port, help_flags, help_variables, request

SYSTEMD = ROOT / "deploy" / "systemd"


def unit():
    """The [Service] section's settings, name -> list of values."""
    settings = {}
    for line in (SYSTEMD / "quiver.service").read_text().splitlines():
        match = re.match(r"^([A-Za-z]+)=(.*)$", line)
        if match:
            settings.setdefault(match.group(1), []).append(match.group(2))
    return settings


def env_file():
    """Every QUIVER_* variable the example file sets or shows commented out, with its value."""
    found = {}
    for line in (SYSTEMD / "quiver.env").read_text().splitlines():
        match = re.match(r"^#?\s*(QUIVER_[A-Z0-9_]+)=(.*)$", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def test_the_unit_runs_serve_with_settings_it_has():
    (exec_start,) = unit()["ExecStart"]
    words = exec_start.split()
    assert words[:2] == ["/usr/local/bin/quiver", "serve"]
    assert set(w for w in words if w.startswith("--")) <= help_flags("serve")
    assert set(env_file()) <= help_variables("serve")


def test_the_stop_timeout_covers_the_handover_and_the_drain():
    drain = int(env_file()["QUIVER_DRAIN_TIMEOUT_MS"]) / 1000
    (stop,) = unit()["TimeoutStopSec"]
    assert int(stop) > 5 + drain + 10
    assert unit()["KillSignal"] == ["SIGTERM"]
    assert unit()["Restart"] == ["on-failure"]
    assert int(unit()["LimitNOFILE"][0]) >= 10000 + 4096


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
def test_systemd_analyze_verifies_the_unit(tmp_path):
    # verify checks that ExecStart's program exists: the binary under test stands in for it.
    text = (SYSTEMD / "quiver.service").read_text().replace("/usr/local/bin/quiver", QUIVER_BIN)
    (tmp_path / "quiver.service").write_text(text)
    verified = subprocess.run(
        ["systemd-analyze", "verify", str(tmp_path / "quiver.service")], capture_output=True, text=True
    )
    assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr


@pytest.mark.skipif(not shutil.which("systemd-sysusers"), reason="systemd-sysusers is not installed")
def test_sysusers_makes_the_quiver_user(tmp_path):
    (tmp_path / "etc").mkdir()
    made = subprocess.run(
        ["systemd-sysusers", f"--root={tmp_path}", str(SYSTEMD / "quiver.sysusers")],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    passwd = (tmp_path / "etc" / "passwd").read_text()
    assert re.search(r"^quiver:x:\d+:\d+:[^:]*:/var/lib/quiver:/usr/sbin/nologin$", passwd, re.M), passwd


def allowed_system_calls(group):
    """The system calls `group` (e.g. @system-service) holds, its nested groups expanded."""
    listed = subprocess.run(
        ["systemd-analyze", "syscall-filter", group], check=True, capture_output=True, text=True
    ).stdout.splitlines()[1:]
    calls = set()
    for line in listed:
        name = line.split("#")[0].strip()
        if name.startswith("@"):
            calls |= allowed_system_calls(name)
        elif name:
            calls.add(name)
    return calls


@pytest.mark.skipif(
    not (shutil.which("strace") and shutil.which("systemd-analyze")),
    reason="strace or systemd-analyze is not installed",
)
def test_the_server_needs_nothing_the_hardening_denies(tmp_path):
    (call_filter,) = unit()["SystemCallFilter"]
    allowed = set().union(*(allowed_system_calls(g) for g in call_filter.split()))
    http = free_port()
    env = {k: v for k, v in env_file().items() if not k.startswith("QUIVER_") or k in {
        "QUIVER_DURABILITY", "QUIVER_DRAIN_TIMEOUT_MS", "QUIVER_LOG_RETENTION_MS", "QUIVER_AUTH"}}
    env.update(
        {
            "PATH": "/usr/bin:/bin",
            "QUIVER_DATA_DIR": str(tmp_path / "data"),
            "QUIVER_BOLT_LISTEN": f"127.0.0.1:{free_port()}",
            "QUIVER_HTTP_LISTEN": f"127.0.0.1:{http}",
        }
    )
    trace = tmp_path / "trace"
    server = subprocess.Popen(
        ["strace", "-f", "-qq", "-o", str(trace), QUIVER_BIN, "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "server.log", "wb"),
    )
    try:
        base = f"http://127.0.0.1:{http}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if request(f"{base}/health/ready", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                log = (tmp_path / "server.log").read_text(errors="replace")
                if "Operation not permitted" in log or "ptrace" in log:
                    pytest.skip(f"strace cannot trace here: {log[-300:]}")
                raise AssertionError(f"the traced server did not start:\n{log}")
            time.sleep(0.05)
        password = env["QUIVER_AUTH"].split("/", 1)[1]
        cypher(base, "UNWIND range(1, 1000) AS n CREATE (:Item {n: n})", password=password)
        assert request(f"{base}/metrics")[0] == 200
        backup = subprocess.run(
            [QUIVER_BIN, "backup", "--from", base, "--to-path", str(tmp_path / "backups")],
            env={"QUIVER_BACKUP_PASSWORD": password, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
        )
        assert backup.returncode == 0, backup.stderr
        # The server is the last line of `strace`'s process tree: signal it, not strace.
        children = (
            open(f"/proc/{server.pid}/task/{server.pid}/children").read().split()
        )
        subprocess.run(["kill", "-TERM", *children], check=True)
        assert server.wait(30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    text = trace.read_text()
    used = set(re.findall(r"^\d+\s+([a-z_0-9]+)\(", text, re.M))
    assert used, "strace recorded no system call"
    assert used <= allowed, f"system calls outside {call_filter}: {sorted(used - allowed)}"
    assert not re.search(r"PROT_WRITE\|PROT_EXEC|PROT_EXEC\|PROT_WRITE", text), "a writable and executable mapping"
