#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs pbem with its test extra, starts PostgreSQL
# and Redis when they are not running, then lints and type-checks, runs pytest's two tiers (the
# default tier, what a developer runs before each commit, then the audit tier: browser audits,
# long random runs, whole-stack games), then runs the default tier's tests that need no real
# service again a year ahead (faketime), so that a test carrying a date fails the day it is
# written, not the day that date passes.
# Extra arguments go to every pytest run, e.g. scripts/test.sh -k gorami
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/bootstrap.sh test
scripts/services.sh

export PBEM_TEST_DATABASE_URL=${PBEM_TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test}
export PBEM_TEST_REDIS_URL=${PBEM_TEST_REDIS_URL:-redis://127.0.0.1:6379/0}

# pytest, where arguments that pick no test of a tier leave nothing to run there (exit 5).
tier() {
    local status=0 started=$SECONDS
    "$@" || status=$?
    echo "   ($((SECONDS - started)) s)"
    if [ "$status" = 5 ]; then status=0; fi
    return "$status"
}
PYTEST=(.venv/bin/python -m pytest -n 2 -p no:cacheprovider)

echo "== ruff" && .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy --strict pbem workers" && .venv/bin/mypy
# pyproject.toml's pytest options pick the default tier (-m "not audit"); tests/conftest.py
# gives the tests of the one real stack to one xdist worker.
echo "== pytest, default tier: -m \"not audit\""
tier "${PYTEST[@]}" "$@"
echo "== pytest, audit tier: -m \"audit and not alone\""
tier "${PYTEST[@]}" -m "audit and not alone" "$@"
# What measures a page's speed runs with nothing beside it (pyproject.toml's `alone` marker).
echo "== pytest, audit tier, by itself: -m alone"
tier .venv/bin/python -m pytest -p no:cacheprovider -m alone "$@"

# The integration and browser tests stay on the real clock: Celery ETAs, Redis expiries and
# chromium's timers cannot be moved. The monotonic clock is left alone (timeouts, waits);
# tests/support/faketime.py makes sleeping work under it.
echo "== pytest a year ahead: FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f +365d"
tier env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f +365d "${PYTEST[@]}" \
    -m "not audit and not integration and not browser" "$@"
