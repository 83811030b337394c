"""How pytest-xdist hands the tests to its workers (`-n 2`): one by one, as `--dist load` does,
but every test of tests/integration/ to one worker, as one unit, first. That worker's session
starts the run's one real stack (tests/integration/conftest.py) and runs them one after the
other, while the other worker takes everything else; once done, it helps with what is left.

xdist's own `--dist loadgroup` would do the grouping from an `xdist_group` mark, but xdist 3.8
writes the group into `item._nodeid`, which pytest 9 no longer reads, so the mark is lost;
grouping by path needs no mark at all.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

STACK_TESTS = "tests/integration/"
STACK_UNIT = "the real stack (tests/integration)"


class StackScheduling(LoadScopeScheduling):
    """Load scheduling where the scope of a test is the test itself, but for the tests of the
    real stack, whose scope is one for them all. xdist orders the units by size, largest first
    (`--loadscope-reorder`, its default), so the stack's unit is handed out first."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(STACK_TESTS):
            return STACK_UNIT
        return nodeid
