#!/usr/bin/env bash
# Every page at 1280×900 and 390×844 into artifacts/screenshots/pages/ (git-ignored), to look at
# before a change lands: the audit tier's tests/browser/test_screenshots.py, run alone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/bootstrap.sh test
exec .venv/bin/python -m pytest -p no:cacheprovider -q -m audit tests/browser/test_screenshots.py "$@"
