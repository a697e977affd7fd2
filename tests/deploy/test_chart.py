"""The Helm chart as Helm renders it: the kept rendered files match it, it lints, every
manifest passes Kubernetes' schemas, it names only flags and variables the binary takes, and it
refuses values the server would refuse."""

import re
import subprocess

import helm_python as helm
import kubernetes_validate
import pytest
import yaml

import render
from conftest import (
    CHART,
    QUIVER_BIN,
    RENDERED,
    containers,
    help_flags,
    help_variables,
    one,
    pod_spec,
    rendered,
    script,
    values,
)

EXAMPLES = sorted(p.name[: -len(".values.yaml")] for p in RENDERED.glob("*.values.yaml"))
# The oldest and the newest Kubernetes whose schemas kubernetes-validate ships.
KUBERNETES = ["1.25.0", "1.37.0"]


def test_the_examples_are_there():
    assert {"default", "backup", "cluster"} <= set(EXAMPLES)


def test_the_charts_app_version_is_the_binarys():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    printed = subprocess.run([QUIVER_BIN, "version"], check=True, capture_output=True, text=True).stdout
    assert chart["appVersion"] in printed.split(), f"Chart.yaml's appVersion, quiver version: {printed}"


def test_the_rendered_files_are_the_charts(capsys):
    status = render.main([])
    assert status == 0, capsys.readouterr().out


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_chart_lints(name):
    report = helm.lint(str(CHART), values(name), strict=True)
    assert not report["errors"], report
    serious = [m for m in report["messages"] if m["severity"] >= 2]
    assert not serious, serious


@pytest.mark.parametrize("version", KUBERNETES)
@pytest.mark.parametrize("name", EXAMPLES)
def test_the_manifests_pass_kubernetes_schemas(name, version):
    for doc in rendered(name):
        if doc["apiVersion"] == "monitoring.coreos.com/v1":
            # The Prometheus Operator's CRD schema is not shipped: its fields are checked below.
            with pytest.raises(kubernetes_validate.SchemaNotFoundError):
                kubernetes_validate.validate(doc, version, strict=True)
            continue
        kubernetes_validate.validate(doc, version, strict=True)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_flag_and_variable_is_one_the_binary_takes(name):
    for workload, c in containers(rendered(name)):
        text = script(c)
        subcommands = set(re.findall(r"\bquiver\s+([a-z][a-z-]*)", text))
        assert subcommands, f"{c['name']} runs no quiver command: {text}"
        flags = set().union(*(help_flags(s) for s in subcommands))
        variables = set().union(*(help_variables(s) for s in subcommands))
        used_flags = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))
        assert used_flags <= flags, f"{c['name']}: not flags of quiver {subcommands}: {used_flags - flags}"
        named = {e["name"] for e in c.get("env", [])} | set(re.findall(r"\bQUIVER_[A-Z0-9_]+", text))
        used_variables = {n for n in named if n.startswith("QUIVER_")}
        assert used_variables <= variables, (
            f"{workload['kind']}/{c['name']}: not variables of quiver {subcommands}: "
            f"{used_variables - variables}"
        )
        # The chart's own variables must not look like settings the server might read.
        own = {n for n in named if not n.startswith("QUIVER_")}
        assert not any(n.startswith("QUIVER") for n in own)


@pytest.mark.parametrize("name", EXAMPLES)
def test_scripts_use_only_variables_they_are_given(name):
    for _, c in containers(rendered(name)):
        text = script(c)
        given = {e["name"] for e in c.get("env", [])}
        assigned = set(re.findall(r"(?:^|\s)(?:export\s+)?([A-Za-z_]\w*)=", text, re.M))
        assigned |= set(re.findall(r"\bfor\s+(\w+)\s+in\b", text))
        used = set(re.findall(r"\$\{?([A-Za-z_]\w*)", text))
        assert used <= given | assigned, f"{c['name']} uses unset {used - given - assigned}"


@pytest.mark.parametrize("name", EXAMPLES)
def test_services_reach_the_server_pods_only(name):
    docs = rendered(name)
    sts = one(docs, "StatefulSet")
    pod_labels = sts["spec"]["template"]["metadata"]["labels"]
    server = next(c for c in pod_spec(sts)["containers"] if c["name"] == "quiver")
    port_names = {p["name"] for p in server["ports"]}
    services = [d for d in docs if d["kind"] == "Service"]
    assert sts["spec"]["serviceName"] in {s["metadata"]["name"] for s in services}
    for service in services:
        selector = service["spec"]["selector"]
        assert selector.items() <= pod_labels.items()
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in port_names
    for doc in docs:
        if doc["kind"] == "CronJob":
            job_labels = doc["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]
            for service in services:
                assert not service["spec"]["selector"].items() <= job_labels.items()
    headless = next(s for s in services if s["spec"].get("clusterIP") == "None")
    assert headless["spec"]["publishNotReadyAddresses"] is True
    for monitor in (d for d in docs if d["kind"] == "ServiceMonitor"):
        assert monitor["spec"]["selector"]["matchLabels"].items() <= headless["metadata"]["labels"].items()
        assert monitor["spec"]["jobLabel"] in headless["metadata"]["labels"]
        assert headless["metadata"]["labels"][monitor["spec"]["jobLabel"]] == "quiver"
        (endpoint,) = monitor["spec"]["endpoints"]
        assert endpoint["port"] == "http" and endpoint["path"] == "/metrics"


def test_a_cluster_has_a_majority_budget_and_a_raft_port():
    docs = rendered("cluster")
    sts = one(docs, "StatefulSet")
    assert sts["spec"]["replicas"] == 3
    assert sts["spec"]["podManagementPolicy"] == "Parallel"
    assert one(docs, "PodDisruptionBudget")["spec"]["minAvailable"] == 2
    assert not [d for d in rendered("default") if d["kind"] == "PodDisruptionBudget"]


def render_with(overrides):
    with helm.Chart.load(str(CHART)) as chart:
        return chart.render(overrides, name="quiver", namespace="default")


def test_settings_become_variables_with_whole_numbers():
    manifests = render_with(
        {
            "auth": {"password": "long-enough-password"},
            "settings": {"log-retention-ms": 604800000, "durability": "group", "cdc": "diff"},
        }
    )
    text = manifests["quiver/templates/statefulset.yaml"]
    assert 'name: QUIVER_LOG_RETENTION_MS\n              value: "604800000"' in text
    assert 'name: QUIVER_DURABILITY\n              value: "group"' in text
    assert "password" in manifests["quiver/templates/secret.yaml"]


SECRET = {"existingSecret": "quiver-auth"}


@pytest.mark.parametrize(
    "overrides, refusal",
    [
        ({}, "auth.existingSecret"),
        ({"auth": {"password": "short"}}, "8 characters"),
        ({"auth": SECRET, "cluster": {"enabled": True}}, "cluster.tls.secretName"),
        (
            {"auth": SECRET, "cluster": {"enabled": True, "allowPlainNetwork": True}, "backup": {"enabled": True}},
            "refuse backups",
        ),
        (
            {"auth": SECRET, "cluster": {"enabled": True, "allowPlainNetwork": True}, "restore": {"enabled": True}},
            "single server",
        ),
        ({"auth": SECRET, "settings": {"bolt-listen": "0.0.0.0:1"}}, "set by the chart"),
        ({"auth": SECRET, "shutdown": {"terminationGracePeriodSeconds": 15}}, "must exceed"),
        ({"auth": SECRET, "tls": {"enabled": True}}, "tls.secretName"),
        (
            {"auth": SECRET, "tls": {"enabled": True, "secretName": "t", "http": "required", "clientCa": True}},
            "probes",
        ),
    ],
)
def test_values_the_server_would_refuse_fail_the_render(overrides, refusal):
    with pytest.raises(helm.HelmRenderError, match=re.escape(refusal)):
        render_with(overrides)


def test_a_plain_cluster_network_is_said_on_purpose():
    text = render_with({"auth": SECRET, "cluster": {"enabled": True, "allowPlainNetwork": True}})[
        "quiver/templates/statefulset.yaml"
    ]
    assert "QUIVER_ALLOW_PLAIN_CLUSTER_NETWORK" in text
    assert "QUIVER_CLUSTER_TLS" not in text
