#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs pbem with its test extra, starts PostgreSQL
# and Redis when they are not running, then lints, type-checks and runs pytest; then runs the
# tests that need no real service again a year ahead (faketime), so that a test carrying a date
# fails the day it is written, not the day that date passes.
# Extra arguments go to both pytest runs, e.g. scripts/test.sh -k gorami
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/bootstrap.sh test
scripts/services.sh

export PBEM_TEST_DATABASE_URL=${PBEM_TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test}
export PBEM_TEST_REDIS_URL=${PBEM_TEST_REDIS_URL:-redis://127.0.0.1:6379/0}

echo "== ruff" && .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy --strict pbem workers" && .venv/bin/mypy
echo "== pytest"
.venv/bin/python -m pytest -n 2 -p no:cacheprovider "$@"

# The integration and browser tests stay on the real clock: Celery ETAs, Redis expiries and
# chromium's timers cannot be moved. The monotonic clock is left alone (timeouts, waits);
# tests/support/faketime.py makes sleeping work under it.
echo "== pytest a year ahead: FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f +365d"
status=0
FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f +365d .venv/bin/python -m pytest -n 2 -p no:cacheprovider \
    -m "not integration and not browser" "$@" || status=$?
# Arguments that pick only integration or browser tests leave nothing to run here (exit 5).
if [ "$status" = 5 ]; then status=0; fi
exit "$status"
