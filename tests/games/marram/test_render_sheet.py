"""The tile-sheet generator (scripts/render_marram_sheet.py) on the shipped standard set."""

from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "render_marram_sheet.py"
STANDARD = REPO / "pbem" / "games" / "marram" / "data" / "standard.json"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("render_marram_sheet", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sheet_and_document_cover_every_tile(tmp_path: Path) -> None:
    sheet = load_script()
    assert sheet.main(["--out", str(tmp_path), "--no-png"]) == 0
    data = json.loads(STANDARD.read_text("utf-8"))
    count = 1 + len(data["tiles"])
    root = ET.fromstring((tmp_path / "marram-tiles.svg").read_text("utf-8"))
    fronts = {e.get("data-tile") for e in root.iter() if e.get("class") == "tile"}
    backs = [e for e in root.iter() if e.get("data-face") == "back"]
    assert fronts == {str(i) for i in range(count)}
    assert len(backs) == sum(1 for t in data["tiles"] if t.get("back"))
    text = (tmp_path / "marram-tiles.md").read_text("utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and line[2:3].isdigit()]
    assert len(rows) == count
    assert f"| tiles with a shovel | {len(backs)} of {count - 1} |" in text


def test_committed_sheet_matches_the_standard_set() -> None:
    """docs/rules/marram-tiles.md is generated; regenerate it when the set changes."""
    doc = REPO / "docs" / "rules" / "marram-tiles.md"
    sheet = load_script()
    expected = sheet.markdown(sheet.load(STANDARD), "pbem/games/marram/data/standard.json")
    assert doc.read_text("utf-8") == expected, "run scripts/render_marram_sheet.py"
