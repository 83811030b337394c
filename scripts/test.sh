#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs pbem with its test extra, starts PostgreSQL
# and Redis when they are not running, then lints, type-checks and runs pytest.
# Extra arguments go to pytest, e.g. scripts/test.sh -k gorami
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/bootstrap.sh test
scripts/services.sh

export PBEM_TEST_DATABASE_URL=${PBEM_TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test}
export PBEM_TEST_REDIS_URL=${PBEM_TEST_REDIS_URL:-redis://127.0.0.1:6379/0}

echo "== ruff" && .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy --strict pbem workers" && .venv/bin/mypy
echo "== pytest"
exec .venv/bin/python -m pytest -n 2 -p no:cacheprovider "$@"
