"""The wheel is the whole service: installed outside the checkout, it migrates, serves, plays.

The wheel is built from a copy of the checkout with the test environment's setuptools, offline
(`pip wheel --no-build-isolation --no-index`), and installed without its dependencies into a
throwaway virtual environment that borrows them from the test environment through a `.pth` file.
That file only adds the test environment's site-packages to `sys.path`; the `.pth` files in there
(the editable install's finder among them) are not run, so the checkout's `pbem` cannot leak in,
which the tests check. Every command then runs from an empty folder, with none of pbem's settings
in the environment: the embedded default (SQLite in ./var, mail saved in ./var/outbox).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import sqlite3
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem.config import SETTING_NAMES
from tests.support.http import Http
from tests.support.procs import Proc, free_port, port_open, wait_until
from tests.support.smtp import Received

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[2]
# Nothing is downloaded: the build uses the test environment's setuptools (the test extra).
PIP_OFFLINE = ["--no-deps", "--no-index", "--quiet", "--disable-pip-version-check"]
# What the copy the wheel is built from leaves out: caches, environments, build output, run data.
SKIPPED = {"build", "dist", "var", "artifacts", "node_modules", "__pycache__"}


def _skipped(folder: str, names: list[str]) -> set[str]:
    return {
        name
        for name in names
        if name.startswith(".") or name in SKIPPED or name.endswith((".egg-info", ".pyc"))
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy so that the checkout gets no build/ or egg-info writes."""
    source = tmp_path_factory.mktemp("source") / "pbem"
    shutil.copytree(REPO, source, ignore=_skipped)
    dist = tmp_path_factory.mktemp("dist")
    _run(
        [sys.executable, "-m", "pip", "wheel", *PIP_OFFLINE, "--no-build-isolation", str(source)],
        cwd=dist,
        env=os.environ,
    )
    (built,) = dist.glob("pbem-*.whl")
    return built


@dataclass
class Installed:
    venv: Path
    env: dict[str, str]

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def python(self) -> str:
        return str(self.bin / "python")

    def run(self, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        return _run(argv, cwd=cwd, env=self.env)


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv, env=_clean_env())
    python = str(venv / "bin" / "python")
    purelib = _run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        cwd=venv,
        env=_clean_env(),
    ).stdout.strip()
    # Appended after the venv's own site-packages: the wheel's pbem comes first, the test
    # environment only supplies Flask, Celery, … and pip.
    borrowed = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(purelib, "zz-test-environment.pth").write_text("\n".join(borrowed) + "\n")
    env = _clean_env()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    ours = Installed(venv, env)
    ours.run(
        [python, "-m", "pip", "install", *PIP_OFFLINE, "--ignore-installed", str(wheel)],
        cwd=venv,
    )
    return ours


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    return folder


def test_the_wheel_carries_templates_static_files_migrations_and_game_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "pbem/templates/pages/index.html",
        "pbem/templates/mail/invite.txt",
        "pbem/static/pbem.css",
        "pbem/static/play.js",
        "pbem/migrations/alembic.ini",
        "pbem/migrations/env.py",
        "pbem/migrations/script.py.mako",
        "pbem/games/marram/data/standard.json",
        "workers/celery_app.py",
        "workers/tasks.py",
    }
    for folder, pattern in (
        ("templates", "**/*"),
        ("pbem/static", "**/*"),
        ("pbem/migrations/versions", "*.py"),
        ("pbem/games", "**/*.js"),
        ("pbem/games", "**/*.css"),
        ("pbem/games", "**/*.json"),
        ("pbem/games", "**/*.html"),
    ):
        for path in (REPO / folder).glob(pattern):
            if path.is_file() and "__pycache__" not in path.parts:
                relative = path.relative_to(REPO).as_posix()
                expected.add("pbem/" + relative if folder == "templates" else relative)
    # Each catalog compiled by the build (setup.py), though the checkout keeps only the .po.
    for po in (REPO / "pbem").glob("**/translations/*/LC_MESSAGES/*.po"):
        expected.add(po.relative_to(REPO).with_suffix(".mo").as_posix())
    assert any(name.endswith("fr/LC_MESSAGES/messages.mo") for name in expected)
    assert sorted(expected - names) == []


def test_the_installed_pbem_is_the_wheel_not_the_checkout(
    installed: Installed, empty: Path
) -> None:
    script = (
        "import json, pbem, workers\n"
        "from pbem import resources as r\n"
        "print(json.dumps([pbem.__file__, workers.__file__, str(r.templates_dir()),"
        " str(r.static_dir()), str(r.migrations_dir())]))"
    )
    paths = json.loads(installed.run([installed.python, "-c", script], cwd=empty).stdout)
    venv = installed.venv.resolve()
    for path in paths:
        assert Path(path).resolve().is_relative_to(venv), (path, venv)
    assert Path(paths[2]).name == "templates" and Path(paths[2]).parent.name == "pbem"


def test_db_upgrade_then_serve_plays_a_game_from_an_empty_folder(
    installed: Installed, empty: Path
) -> None:
    pbem = str(installed.bin / "pbem")
    installed.run([pbem, "db", "upgrade"], cwd=empty)
    with sqlite3.connect(empty / "var" / "pbem.db") as connection:
        tables = {row[0] for row in connection.execute("select name from sqlite_master")}
    assert {"players", "games", "seats", "moves", "submissions", "outbox"} <= tables

    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    server = Proc(
        "pbem-serve",
        [pbem, "serve", "--port", str(port)],
        env=installed.env,
        cwd=empty,
        log_dir=empty.parent,
    ).start()
    try:
        wait_until(
            lambda: port_open(port) or not server.running,
            timeout=60,
            message="pbem serve to listen",
        )
        assert server.running, server.log_tail()
        _play_one_move(installed, empty, Http(base_url), base_url, server)
    finally:
        server.stop()


def test_celery_finds_the_worker_app(installed: Installed, empty: Path) -> None:
    script = (
        "import workers.celery_app as m\n"
        "print(' '.join(sorted(t for t in m.celery.tasks if t.startswith('workers.'))))"
    )
    tasks = installed.run([installed.python, "-c", script], cwd=empty).stdout.split()
    assert "workers.tasks.sweep" in tasks and "workers.tasks.apply_move" in tasks
    report = installed.run(
        [installed.python, "-m", "celery", "-A", "workers.celery_app", "report"], cwd=empty
    )
    assert "celery" in report.stdout.lower()


def _play_one_move(
    installed: Installed, folder: Path, http: Http, base_url: str, server: Proc
) -> None:
    home = http.get("/")
    assert home.status == 200 and "Start a game" in home.text, home
    style = http.get("/static/pbem.css")
    assert style.status == 200 and "css" in style.headers.get("Content-Type", ""), style
    assert http.get("/static/play.js").status == 200

    # The invitations go out from another process, as an organiser's terminal would send them.
    new_game = [str(installed.bin / "pbem"), "new-game", "gorami"]
    created = _run(
        [*new_game, "alice@example.org", "bob@example.org"],
        cwd=folder,
        env={**installed.env, "BASE_URL": base_url},
    )
    game_id = created.stdout.split()[1].rstrip(":")
    outbox = folder / "var" / "outbox"
    invitations = [_mail(path) for path in sorted(outbox.glob("*-invite.eml"))]
    assert len(invitations) == 2, sorted(p.name for p in outbox.iterdir())
    for invitation in invitations:
        link = invitation.link("/invite/")
        assert link and link.startswith(base_url), invitation.text
        assert http.get(link).status == 200
        accepted = http.post_form(link, {})
        assert accepted.status == 200, accepted

    def to_move() -> tuple[str, dict[str, object]] | None:
        for path in sorted(outbox.glob("*.eml")):
            link = _mail(path).link("/play/")
            if link and server.running:
                token = link.rstrip("/").rsplit("/", 1)[-1]
                legal = http.get(f"/api/games/{game_id}/legal", token=token)
                if legal.status == 200 and legal.json()["your_turn"]:
                    return token, legal.json()
        return None

    found = wait_until(lambda: to_move() or not server.running, timeout=60, message="a turn email")
    assert server.running and isinstance(found, tuple), server.log_tail()
    token, legal = found
    page = http.get(f"/play/{token}")
    assert page.status == 200, page
    # Whatever the page loads from /static (the game's own board.js and board.css ship in its
    # package, pbem.web.board_scripts) is served from the installed wheel.
    for asset in sorted(set(re.findall(r"""["'](/static/[^"'?#]+)""", page.text))):
        served = http.get(asset)
        assert served.status == 200, served
    moves = legal["moves"]
    assert isinstance(moves, list) and moves
    ply = legal["ply"]
    sent = http.post_json(
        f"/api/games/{game_id}/moves", {"move": moves[0], "ply": ply}, token=token
    )
    assert sent.status == 202, sent

    def applied() -> bool:
        game = http.get(f"/api/games/{game_id}", token=token)
        return game.status == 200 and game.json()["ply"] == ply + 1

    wait_until(applied, timeout=30, message=f"move {moves[0]!r} to be applied")
    history = http.get(f"/api/games/{game_id}/history", token=token)
    assert history.status == 200, history
    assert [m["move"] for m in history.json()["moves"]] == [moves[0]], history


def _mail(path: Path) -> Received:
    return Received(mail_from="", rcpt_tos=[], raw=path.read_bytes(), accepted_at=0.0)


def _clean_env() -> dict[str, str]:
    """The environment without pbem's settings and without anything steering Python's imports."""
    return {
        name: value
        for name, value in os.environ.items()
        if name not in SETTING_NAMES
        and not name.startswith(("PBEM_", "PYTHON"))
        and name != "VIRTUAL_ENV"
    }


def _run(
    argv: list[str], cwd: Path, env: dict[str, str] | os._Environ[str]
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        argv, cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, (
        f"{' '.join(argv)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    )
    return result
