#!/usr/bin/env bash
# Makes sure PostgreSQL (127.0.0.1:5432, database "test") and Redis (127.0.0.1:6379) answer,
# installing and starting them from Debian's packages when they do not.
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=
apt_install() {
    if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

wait_for() { # wait_for SECONDS CMD...
    local n=$1; shift
    for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
    return 1
}

# PostgreSQL
if ! command -v pg_isready >/dev/null || ! pg_isready -q -h 127.0.0.1 -p 5432; then
    if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
        echo "services: installing PostgreSQL" >&2
        apt_install postgresql
    fi
    echo "services: starting PostgreSQL" >&2
    ver=$(ls /etc/postgresql | sort -V | tail -n 1)
    as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
    wait_for 30 pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL did not start" >&2; exit 1; }
fi
psql_admin() { psql -h 127.0.0.1 -U postgres -tA "$@" 2>/dev/null || su postgres -c "psql -tA $(printf '%q ' "$@")"; }
if [ "$(psql_admin -c "select 1 from pg_database where datname='test'")" != 1 ]; then
    psql_admin -c "create database test" >/dev/null
fi

# Redis
if ! command -v redis-cli >/dev/null || ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    command -v redis-server >/dev/null || { echo "services: installing Redis" >&2; apt_install redis-server; }
    echo "services: starting Redis" >&2
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log
    wait_for 30 redis-cli -h 127.0.0.1 -p 6379 ping || { echo "Redis did not start" >&2; exit 1; }
fi

# Chromium for the browser tests (Debian's build; Playwright's own download cannot work offline).
if [ ! -x /usr/bin/chromium ]; then
    echo "services: installing chromium" >&2
    apt_install chromium
fi
# SpamAssassin scores every kind of pbem's mail in a test (tests/test_spam_scores.py).
if ! command -v spamassassin >/dev/null; then
    echo "services: installing spamassassin" >&2
    apt_install spamassassin
fi
# The Nu HTML checker (vnu.jar from npm, tests/support/nu.py) runs on Debian's Java.
if ! command -v java >/dev/null; then
    echo "services: installing default-jre-headless" >&2
    apt_install default-jre-headless
fi
# faketime runs the tests that need no real service a year ahead (scripts/test.sh).
if ! command -v faketime >/dev/null; then
    echo "services: installing faketime" >&2
    apt_install faketime
fi
# promtool checks the Prometheus alert rules of docs/monitoring and runs their unit tests
# (tests/test_monitoring.py); Debian ships it with the prometheus package, which is not started.
if ! command -v promtool >/dev/null; then
    echo "services: installing prometheus (for promtool)" >&2
    apt_install prometheus
fi
echo "services: PostgreSQL, Redis, chromium, spamassassin, Java, faketime and promtool are ready" >&2
