#!/usr/bin/env bash
# Runs pbem on its embedded default: SQLite, tasks in-process, mail saved to ./var/outbox.
# Open http://127.0.0.1:5000/ afterwards. Extra arguments go to `pbem serve`; it listens on
# 127.0.0.1 only unless given --host (e.g. --host 0.0.0.0, with BASE_URL set).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/bootstrap.sh
exec .venv/bin/pbem serve "$@"
