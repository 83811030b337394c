"""axe-core inside the browser tests: every page a player meets is checked against WCAG 2.2's
A, AA and AAA rules and axe's best practices, and must have no violation at all (issue 31).

axe-core comes from npm, pinned by the root package-lock.json (`scripts/bootstrap.sh test` runs
`npm ci`). Playwright's `add_script_tag` writes an inline `<script>`, which the pages' CSP
(script-src 'self') refuses; `page.evaluate` runs the same source through the DevTools protocol,
which the CSP does not govern, so the page is checked with its real policy in force.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.support.needs import missing

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# Every WCAG level, AAA included (enhanced contrast, links of one name going to one place),
# and axe's best practices: what axe runs by default plus the AAA rules it leaves off.
TAGS = ["wcag2a", "wcag2aa", "wcag2aaa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


@cache
def _source() -> str:
    return AXE.read_text(encoding="utf-8") + "\n;undefined"


def require_axe() -> None:
    """Skips (fails under CI=true) when axe-core is not installed."""
    if not AXE.is_file():
        missing("axe-core is not installed: run `npm ci` at the repository's root")


def violations(page: Page) -> list[dict[str, Any]]:
    """axe's violations on the page as it is now (TAGS' rules)."""
    require_axe()
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_source())
    found: list[dict[str, Any]] = page.evaluate(
        """async (TAGS) => {
            const result = await axe.run(document, {
                resultTypes: ["violations"],
                runOnly: { type: "tag", values: TAGS },
            });
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => ({
                    target: n.target.join(" "), summary: n.failureSummary,
                })),
            }));
        }""",
        TAGS,
    )
    return found


def describe(found: list[dict[str, Any]]) -> str:
    lines = []
    for v in found:
        lines.append(f"{v['impact']}: {v['id']} ({v['help']})")
        lines.extend(
            f"    {n['target']}: {(n['summary'] or '').splitlines()[-1:]}" for n in v["nodes"][:5]
        )
    return "\n".join(lines)


def assert_accessible(page: Page, where: str) -> None:
    """Fails on any violation, whatever its impact."""
    found = violations(page)
    assert not found, f"axe-core on {where} ({page.url}):\n{describe(found)}"
