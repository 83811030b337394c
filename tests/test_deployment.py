"""The deployment files, where no container engine runs: the Containerfile passes hadolint, the
compose file the Compose Specification's schema, and both run the Procfile's processes by name
through deploy/entrypoint.sh (tests/integration/test_it_entrypoints.py runs them)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.needs import missing

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = BIN / name
    if found.exists():
        return str(found)
    path = shutil.which(name)
    if path is None:
        missing(f"{name} is not installed (the test extra of pyproject.toml installs it)")
    return path


def _procfile() -> dict[str, str]:
    lines = (REPO / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def test_the_containerfile_passes_hadolint() -> None:
    done = subprocess.run(
        [_tool("hadolint"), "--no-color", "--failure-threshold", "info", "Containerfile"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


def test_the_compose_file_follows_the_compose_specification() -> None:
    done = subprocess.run(
        [
            _tool("check-jsonschema"),
            "--builtin-schema",
            "vendor.compose-spec",
            "deploy/compose.yaml",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_runs_every_process_of_the_procfile_from_one_image() -> None:
    compose = yaml.safe_load((REPO / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    for name in _procfile():
        assert services[name]["command"] == [name], name
        assert services[name]["build"]["target"] == "runtime"
    assert services["release"]["restart"] == "no"
    for name in ("web", "worker", "picture", "bot", "beat"):
        assert services[name]["depends_on"]["release"] == {
            "condition": "service_completed_successfully"
        }
    assert services["mta"]["build"]["target"] == "mta"
    assert {"postgres", "redis"} <= set(services)


def test_the_image_holds_what_the_wheel_is_built_from_and_runs_unprivileged() -> None:
    text = (REPO / "Containerfile").read_text()
    for folder in ("pbem", "workers", "templates"):
        assert f"COPY {folder} ./{folder}" in text
    runtime = text.split("AS runtime", 1)[1].split("AS mta", 1)[0]
    assert "USER 10001:10001" in runtime
    assert 'ENTRYPOINT ["/app/entrypoint.sh"]' in runtime
    for script in ("entrypoint.sh", "mta-entrypoint.sh", "mail-in.sh"):
        path = REPO / "deploy" / script
        assert path.stat().st_mode & 0o111, f"{script} is not executable"
        assert subprocess.run(["sh", "-n", str(path)], check=False).returncode == 0
