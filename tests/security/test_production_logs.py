"""Tokens never reach a log: gunicorn's access and error logs (the Procfile's web command), the
development server's request lines, pbem's own records of a failed request."""

from __future__ import annotations

import http.client
import logging
import os
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from werkzeug.serving import make_server

from pbem.gunicorn_logging import MaskingLogger
from pbem.redact import LOGGERS, RedactingFilter, redact
from tests.conftest import make_app
from tests.support.procs import VENV_BIN, free_port

ROOT = Path(__file__).resolve().parents[2]
# The shape of a seat token: base64 of the claims, a timestamp and a signature.
TOKEN = "WyJzZWF0IiwiZ2FtZUlkMTIzIiwwLDEsIm5vbmNlIl0.Zm9vYmFy.U2lnbmF0dXJlT2ZBVG9rZW4xMjM0NTY"
SHOWN = TOKEN[:6] + "…"


@pytest.fixture
def unmasked_loggers() -> Iterator[None]:
    """pbem's and werkzeug's loggers as a fresh process has them: the app must mask them itself
    (the gunicorn logger class also does, for the processes it runs)."""
    loggers = [logging.getLogger(name) for name in LOGGERS]
    kept = {logger.name: list(logger.filters) for logger in loggers}
    for logger in loggers:
        for found in [f for f in logger.filters if isinstance(f, RedactingFilter)]:
            logger.removeFilter(found)
    yield
    for logger in loggers:
        logger.filters[:] = kept[logger.name]


def test_redact_keeps_a_prefix_of_every_token() -> None:
    cases = {
        f"GET /play/{TOKEN} HTTP/1.1": f"GET /play/{SHOWN} HTTP/1.1",
        f"POST /play/{TOKEN}/replay/3": f"POST /play/{SHOWN}/replay/3",
        f"/invite/{TOKEN}": f"/invite/{SHOWN}",
        f"/me/{TOKEN}/new?game=mmw": f"/me/{SHOWN}/new?game=mmw",
        f"/signin/{TOKEN} /block/{TOKEN}": f"/signin/{SHOWN} /block/{SHOWN}",
        f"/submission/4?token={TOKEN}&x=1": f"/submission/4?token={SHOWN}&x=1",
        f"token={TOKEN}": f"token={SHOWN}",
        f"Bearer {TOKEN}": f"Bearer {SHOWN}",
        f"/signin?next=%2Fme%2F{TOKEN}": f"/signin?next=%2Fme%2F{SHOWN}",
        "GET /static/play.js HTTP/1.1": "GET /static/play.js HTTP/1.1",
        "/api/games/Ss94i_NZQcq1/positions/3": "/api/games/Ss94i_NZQcq1/positions/3",
    }
    for text, masked in cases.items():
        assert redact(text) == masked


def _access_line(environ: dict[str, str], headers: list[tuple[str, str]]) -> str:
    cfg = Config()
    cfg.set("accesslog", "-")
    logger = MaskingLogger(cfg)
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    logger.access_log.addHandler(handler)
    response = SimpleNamespace(status="200 OK", sent=123, headers=[("Content-Type", "text/html")])
    request = SimpleNamespace(headers=headers)
    base = {"REMOTE_ADDR": "192.0.2.1", "REQUEST_METHOD": "GET", "SERVER_PROTOCOL": "HTTP/1.1"}
    logger.access(response, request, {**base, **environ}, timedelta(milliseconds=5))
    logger.access_log.removeHandler(handler)
    (line,) = lines
    return line


def test_the_gunicorn_access_log_masks_tokens() -> None:
    line = _access_line(
        {"RAW_URI": f"/play/{TOKEN}", "PATH_INFO": f"/play/{TOKEN}", "QUERY_STRING": ""}, []
    )
    assert TOKEN not in line and f'"GET /play/{SHOWN} HTTP/1.1" 200' in line
    query = f"token={TOKEN}"
    line = _access_line(
        {
            "RAW_URI": f"/api/games/g1?{query}",
            "PATH_INFO": "/api/games/g1",
            "QUERY_STRING": query,
            "HTTP_REFERER": f"https://pbem.example.org/play/{TOKEN}",
        },
        [("Authorization", f"Bearer {TOKEN}")],
    )
    assert TOKEN not in line and f"/api/games/g1?token={SHOWN}" in line
    # Every atom a custom access_log_format could name is masked as well.
    cfg = Config()
    logger = MaskingLogger(cfg)
    environ = {
        "REQUEST_METHOD": "GET",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "RAW_URI": f"/play/{TOKEN}?token={TOKEN}",
        "PATH_INFO": f"/play/{TOKEN}",
        "QUERY_STRING": f"token={TOKEN}",
        "HTTP_REFERER": f"/invite/{TOKEN}",
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN}",
    }
    request = SimpleNamespace(
        headers=[("Authorization", f"Bearer {TOKEN}"), ("Referer", f"/invite/{TOKEN}")]
    )
    response = SimpleNamespace(status="200 OK", sent=1, headers=[])
    atoms = logger.atoms(response, request, environ, timedelta(0))
    leaked = {key: value for key, value in atoms.items() if TOKEN in str(value)}
    assert leaked == {}
    assert atoms["{authorization}i"] == "Bearer …"


def test_the_gunicorn_error_log_masks_tokens() -> None:
    logger = MaskingLogger(Config())
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger.error_log.addHandler(handler)
    try:
        raise ValueError(f"bad request line /play/{TOKEN}")
    except ValueError:
        logger.exception("Error handling request %s", f"/play/{TOKEN}")
    logger.error_log.removeHandler(handler)
    (record,) = records
    assert record.getMessage() == f"Error handling request /play/{SHOWN}"
    assert record.exc_text and TOKEN not in record.exc_text and SHOWN in record.exc_text


def test_pbem_logs_no_token_of_a_failed_request(
    tmp_path: Path,
    countdown_engine: None,
    unmasked_loggers: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pbem.web import play

    app = make_app(tmp_path, PROPAGATE_EXCEPTIONS=False)

    def broken(*, token: str) -> object:
        raise RuntimeError(f"no seat for {token}")

    monkeypatch.setattr(play, "seat_for", broken)
    caplog.set_level(logging.DEBUG)
    assert app.test_client().get(f"/play/{TOKEN}").status_code == 500
    failures = [r for r in caplog.records if r.name == "pbem"]
    assert [r.getMessage() for r in failures] == [f"Exception on /play/{SHOWN} [GET]"]
    for record in caplog.records:
        assert TOKEN not in record.getMessage() and TOKEN not in (record.exc_text or "")
    assert TOKEN not in caplog.text and f"no seat for {SHOWN}" in caplog.text


def test_the_development_server_logs_no_token(
    tmp_path: Path,
    countdown_engine: None,
    unmasked_loggers: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # `pbem serve` runs werkzeug's server, which logs every request line.
    app = make_app(tmp_path)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    caplog.set_level(logging.INFO)
    try:
        for path in (f"/play/{TOKEN}", f"/api/games/g1?token={TOKEN}"):
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            connection.request("GET", path)
            connection.getresponse().read()
            connection.close()
    finally:
        server.shutdown()
        thread.join(timeout=10)
    lines = [r.getMessage() for r in caplog.records if r.name == "werkzeug"]
    assert any(f"GET /play/{SHOWN} HTTP/1.1" in line for line in lines), lines
    assert any(f"?token={SHOWN} HTTP/1.1" in line for line in lines), lines
    assert TOKEN not in caplog.text


def _procfile_web() -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("web:"):
            return line.removeprefix("web:").strip()
    raise AssertionError("the Procfile has no web line")


def test_the_procfile_web_command_logs_no_token(tmp_path: Path) -> None:
    command = _procfile_web()
    assert "--access-logfile -" in command
    assert "--logger-class pbem.gunicorn_logging.MaskingLogger" in command
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PBEM_", "DATABASE_URL", "REDIS_URL", "SMTP_URL", "SECRET_KEY"))
    }
    env.update(
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        # Kept after ROOT: under faketime it holds tests/support/faketime_site.
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        PORT=str(port),
        WEB_CONCURRENCY="1",
        WEB_THREADS="2",
        PBEM_ENV="test",
        PBEM_VAR_DIR=str(tmp_path / "var"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'pbem.db'}",
        BASE_URL=f"http://127.0.0.1:{port}",
    )
    log = tmp_path / "web.log"
    with open(log, "wb") as out:
        # The Procfile's line as a process manager runs it: through the shell, which expands
        # ${PORT:-8000} and friends. Bound to loopback here.
        proc = subprocess.Popen(
            ["sh", "-c", "exec " + command.replace("0.0.0.0", "127.0.0.1")],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        answered = []
        deadline = time.monotonic() + 60
        paths = [f"/play/{TOKEN}", f"/api/games/g1?token={TOKEN}", "/api/games/g1"]
        while paths and time.monotonic() < deadline and proc.poll() is None:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", paths[0], headers={"Authorization": f"Bearer {TOKEN}"})
                answered.append(connection.getresponse().status)
                connection.close()
                paths.pop(0)
            except OSError:
                time.sleep(0.2)
        assert answered == [403, 403, 403], log.read_text()
        deadline = time.monotonic() + 10
        while log.read_text().count('" 403 ') < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
    text = log.read_text()
    assert TOKEN not in text, text
    assert re.search(rf'"GET /play/{re.escape(SHOWN)} HTTP/1.1" 403 ', text), text
    assert f'"GET /api/games/g1?token={SHOWN} HTTP/1.1" 403 ' in text, text
    assert shlex.split(command)[0] == "gunicorn"
