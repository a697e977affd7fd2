"""Renders deploy/helm/quiver with each deploy/helm/rendered/NAME.values.yaml into NAME.yaml,
with Helm's own template engine (the Helm SDK, through the helm-python-sdk package).

    python render.py           # exit 1, with a diff, when a rendered file differs from the chart
    python render.py --write   # rewrite the rendered files
"""

import difflib
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "quiver"
RENDERED = ROOT / "deploy" / "helm" / "rendered"
RELEASE = "quiver"
NAMESPACE = "default"


def examples():
    """NAME -> (values file, rendered file), for every values file beside the rendered ones."""
    found = {}
    for values in sorted(RENDERED.glob("*.values.yaml")):
        name = values.name[: -len(".values.yaml")]
        found[name] = (values, RENDERED / f"{name}.yaml")
    return found


def render(values):
    """The manifests Helm renders for `values`, as one YAML stream, templates in name order."""
    import helm_python as helm

    with helm.Chart.load(str(CHART)) as chart:
        manifests = chart.render(values, name=RELEASE, namespace=NAMESPACE)
    parts = []
    for path in sorted(manifests):
        text = manifests[path].strip()
        if path.endswith("NOTES.txt") or not text:
            continue
        lines = "\n".join(line.rstrip() for line in text.splitlines())
        parts.append(f"---\n# Source: {path}\n{lines}\n")
    return "".join(parts)


def rendered_text(name, values_path):
    values = yaml.safe_load(values_path.read_text()) or {}
    header = (
        f"# deploy/helm/quiver rendered with {values_path.name} (release {RELEASE!r}, namespace\n"
        f"# {NAMESPACE!r}) by tests/deploy/render.py --write; tests/deploy/run.sh checks it matches.\n"
    )
    return header + render(values)


def main(argv):
    write = "--write" in argv
    stale = 0
    for name, (values_path, out_path) in examples().items():
        text = rendered_text(name, values_path)
        have = out_path.read_text() if out_path.exists() else ""
        if text == have:
            continue
        if write:
            out_path.write_text(text)
            print(f"wrote {out_path.relative_to(ROOT)}")
            continue
        stale += 1
        sys.stdout.writelines(
            difflib.unified_diff(
                have.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"{out_path.relative_to(ROOT)} (kept)",
                f"{out_path.relative_to(ROOT)} (rendered now)",
            )
        )
    if stale:
        print(f"{stale} rendered file(s) differ from the chart: python tests/deploy/render.py --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
