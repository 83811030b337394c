"""The layout's promises, checked from the source: the import graph has no circle, the domain
knows neither the web nor the app factory, engines are pure, only engines name a game, and the
wall clock is read in one place."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pbem import games

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pbem", "workers")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue  # Alembic's scripts are run by Alembic, not imported
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """The modules of this project that `name` imports, anywhere in its body."""
    tree = ast.parse(MODULES[name].read_text())
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    # Imports for the type checker alone are never run.
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for inner in ast.walk(node)
    }
    named: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            named.add(base)
            named.update(f"{base}.{alias.name}" for alias in node.names)
    return {module for module in named if module in MODULES and module != name}


def test_the_import_graph_has_no_circle() -> None:
    graph = {name: _imports(name) for name in MODULES}
    # A package's __init__ importing its own submodules is how packages work, not a circle.
    for name, targets in graph.items():
        graph[name] = {t for t in targets if not name.startswith(t + ".")}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycle = [*path[path.index(name) :], name]
            raise AssertionError("import circle: " + " -> ".join(cycle))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def _all_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            named.add(node.module or "")
    return named


def test_the_domain_knows_neither_the_web_nor_the_app_factory() -> None:
    """Nor the mail-in edge: the addresses it reads are made by `pbem.links`."""
    for name, path in MODULES.items():
        if not name.startswith("pbem.domain"):
            continue
        for imported in _all_imports(path):
            edges = ("flask", "pbem.web", "pbem.app", "pbem.mailin", "workers")
            assert not imported.startswith(edges), f"{name} imports {imported}"


def test_engines_are_pure() -> None:
    for name, path in MODULES.items():
        if not name.startswith("pbem.games"):
            continue
        for imported in _all_imports(path):
            top = imported.split(".")[0]
            assert top not in ("flask", "sqlalchemy", "celery", "pbem") or imported.startswith(
                "pbem.games"
            ), f"{name} imports {imported}"
            assert top not in ("socket", "smtplib", "time", "datetime", "urllib", "requests"), (
                f"{name} imports {imported}, which is I/O or a clock"
            )


def test_only_engines_name_a_game() -> None:
    names = [re.escape(name) for name in games.names()]
    pattern = re.compile(rf"\b({'|'.join(names)})\b", re.IGNORECASE)
    places = [ROOT / "pbem", ROOT / "workers", ROOT / "templates"]
    found = []
    for place in places:
        for path in sorted(place.rglob("*")):
            if not path.is_file() or path.suffix not in (".py", ".js", ".css", ".html", ".txt"):
                continue
            if (ROOT / "pbem" / "games") in path.parents:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


# Reading the wall clock: in Python, and in SQL that asks the database for its own.
_CLOCK_CALLS = {
    "datetime.now",
    "datetime.utcnow",
    "datetime.today",
    "date.today",
    "time.time",
    "time.time_ns",
    "time.localtime",
    "time.gmtime",
    "func.now",
    "func.current_timestamp",
    "func.localtimestamp",
}
_SQL_CLOCK = re.compile(r"\b(now\(\)|current_timestamp|current_date|localtimestamp)", re.I)
ONE_CLOCK = ("pbem.models", "utcnow")


def test_the_wall_clock_is_read_in_one_place() -> None:
    """`pbem.models.utcnow` is "now" for the service, so a test that moves it moves everything,
    and no instant comes from the database's clock."""
    found = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        allowed = {
            id(inner)
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef) and (name, function.name) == ONE_CLOCK
            for inner in ast.walk(function)
        }
        for node in ast.walk(tree):
            if id(node) in allowed or not isinstance(node, ast.Call):
                continue
            called = ast.unparse(node.func)
            if any(called == c or called.endswith("." + c) for c in _CLOCK_CALLS):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {called}()")
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and _SQL_CLOCK.search(text):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: SQL reads the clock")
    assert not found, "\n".join(found)


# Each module reads in one sitting: an engine's rules module alone may be longer (it is the
# rules, kept whole beside the rules page it implements).
MOST_MODULE_LINES = 600
MOST_FUNCTION_LINES = 80


def test_modules_and_functions_read_in_one_sitting() -> None:
    found = []
    for name, path in MODULES.items():
        text = path.read_text()
        lines = text.count("\n")
        if lines > MOST_MODULE_LINES and path.name != "rules.py":
            found.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MOST_FUNCTION_LINES:
                    found.append(f"{name}.{node.name} (line {node.lineno}): {length} lines")
    assert not found, "\n".join(found)
