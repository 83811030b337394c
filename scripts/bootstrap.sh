#!/usr/bin/env bash
# Creates .venv and installs pbem with its test extra. Sourced by serve.sh and test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "pbem needs Python 3.11 or newer; found: $("$PYTHON" --version 2>&1)" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
extras=${1:-}
stamp=.venv/.installed${extras:+-$extras}
# Reinstall only when the project's declared dependencies changed.
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".${extras:+[$extras]}"
    touch "$stamp"
fi
# The audits' JavaScript and Java tools, pinned by package-lock.json: axe-core (run inside the
# pages), the Nu HTML checker (vnu-jar, on Debian's Java) and Lighthouse. npm from Debian. No
# install script runs: vnu-jar's would download a Java runtime, and Debian's is used instead.
if [ "$extras" = test ] && [ -f package-lock.json ]; then
    if ! command -v npm >/dev/null; then
        echo "bootstrap: installing nodejs and npm" >&2
        if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
    fi
    if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
        npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    fi
fi
