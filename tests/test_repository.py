"""The repository stands on its own: no tracked file sends a reader to a path outside it.

A fresh clone is all a developer, a CI run or a deployment has; the rules and the design live in
docs/. The forbidden spellings are assembled at run time so that this file does not match itself.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.support.needs import missing

ROOT = Path(__file__).resolve().parents[1]

# Folders beside the checkout, and the absolute path of the machine it was first written on.
_SHARED = "shared"
OUTSIDE = (
    "../" + _SHARED,
    _SHARED + "/rules",
    _SHARED + "/design",
    "/" + "work" + "/",
)


def tracked_files() -> list[Path]:
    """Every file git tracks here (still present in the working tree)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        missing("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode("utf-8")
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def text_of(path: Path) -> str | None:
    """The file's text, or None for a binary file (a NUL byte, or not UTF-8)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_tracked_file_refers_outside_the_repository() -> None:
    found = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if any(outside in line for outside in OUTSIDE):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not found, "paths outside the repository:\n" + "\n".join(found)
