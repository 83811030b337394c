"""The repository stands on its own: no tracked file sends a reader to a path outside it.

A fresh clone is all a developer, a CI run or a deployment has; the rules and the design live in
docs/. The forbidden spellings are assembled at run time so that this file does not match itself.
"""

from __future__ import annotations

import ast
import re
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


# --- the documents name only what is there -------------------------------------------------------

# The documents whose every module path and dotted module name must exist in the tree: the design
# above all (the map of the code), and the README and docs pages, which name modules too.
DOCUMENTS = tuple(
    dict.fromkeys(
        [
            "docs/design.md",
            "README.md",
            *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")),
        ]
    )
)
# A path into the tree: a top-level folder of the checkout, then path characters. Placeholders
# (`pbem/games/<name>/`, `templates/mail/<kind>.{subject,txt,html}`) and globs are not paths.
_PATH = re.compile(r"(?<![\w./-])((?:pbem|workers|templates|tests|bench|scripts|docs)/[\w./-]*)")
# A dotted name of this project's code, `pbem.domain.turns` or `pbem.domain.turns.may_act`.
_DOTTED = re.compile(r"(?<![\w./-])((?:pbem|workers)(?:\.\w+)+)")
# `pbem.css` is a file's name, not a module's; `pbem.example.org` and `pbem._domainkey` (the mail
# set-up in docs/operations.md) are host names.
_FILE_SUFFIXES = frozenset({"css", "js", "json", "html", "txt", "md", "png", "svg", "toml", "db"})
_HOST_PARTS = frozenset({"example", "_domainkey"})
# A module's path followed by a name in it: "`pbem/domain/outbox.py` `write_letters`".
_PATH_AND_NAME = re.compile(r"`((?:pbem|workers)/[\w/]+\.py)` `(\w+)`")


def _top_level_names(path: Path) -> set[str]:
    """What a module defines or imports at its top level (read, not imported: a module that
    fails to import still has names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(
                t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)
            )
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _module_file(dotted: list[str]) -> Path | None:
    """The file of module `dotted` (a package's __init__.py), or None when there is none."""
    base = ROOT.joinpath(*dotted)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _dotted_problem(name: str) -> str | None:
    """Why `name` (a module, or a module and a name in it) is not in the tree; None when it is."""
    parts = name.split(".")
    for length in range(len(parts), 0, -1):
        module = _module_file(parts[:length])
        if module is None:
            continue
        rest = parts[length:]
        if not rest:
            return None
        if rest[0] in _top_level_names(module):
            return None
        # A submodule of a package that its __init__ does not import is still there.
        if module.name == "__init__.py" and _module_file(parts[: length + 1]) is not None:
            return None
        return f"{'.'.join(parts[:length])} has no {rest[0]!r}"
    return "no such module"


def _path_problem(path: str) -> str | None:
    if any(mark in path for mark in "<>{}*"):
        return None
    return None if (ROOT / path.rstrip(".")).exists() else "no such file or folder"


def names_missing_from_the_tree(document: str, text: str | None = None) -> list[str]:
    """Every module path, dotted name and path-and-name pair `document` (or `text`, read as
    that document) gives that the tree lacks, as "document:line: name (why)"."""
    missing = []
    if text is None:
        text = (ROOT / document).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        found: list[tuple[str, str | None]] = []
        found += [(m, _path_problem(m)) for m in _PATH.findall(line)]
        dotted_names = [
            m
            for m in _DOTTED.findall(line)
            if m.split(".")[-1] not in _FILE_SUFFIXES and not _HOST_PARTS & set(m.split("."))
        ]
        found += [(m, _dotted_problem(m)) for m in dotted_names]
        for path, name in _PATH_AND_NAME.findall(line):
            dotted = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
            if (ROOT / path).is_file():
                found.append((f"{path} {name}", _dotted_problem(f"{dotted}.{name}")))
        missing += [f"{document}:{number}: {name} ({why})" for name, why in found if why]
    return missing


def test_the_check_finds_what_is_missing() -> None:
    text = (
        "`pbem/domain/turns.py` `may_act`, `pbem.domain.turns.may_act`, `pbem/web/` and "
        "`templates/mail/<kind>.txt`\n"
        "`pbem/domain/nowhere.py`, `pbem.domain.turns.nothing`, `pbem.nowhere`, "
        "`pbem/domain/turns.py` `nothing_either`"
    )
    assert names_missing_from_the_tree("example.md", text) == [
        "example.md:2: pbem/domain/nowhere.py (no such file or folder)",
        "example.md:2: pbem.domain.turns.nothing (pbem.domain.turns has no 'nothing')",
        "example.md:2: pbem.nowhere (pbem has no 'nowhere')",
        "example.md:2: pbem/domain/turns.py nothing_either "
        "(pbem.domain.turns has no 'nothing_either')",
    ]


def test_every_module_the_design_names_exists() -> None:
    """docs/design.md is the map of the code: each module path (`pbem/domain/moves.py`), dotted
    name (`pbem.domain.turns.may_act`) and module-and-name pair it gives must be in the tree; so
    must those the README and the other docs pages give."""
    missing = [name for document in DOCUMENTS for name in names_missing_from_the_tree(document)]
    assert not missing, "named in the documents but not in the tree:\n" + "\n".join(missing)
