#!/usr/bin/env bash
# Prepare a fresh machine: the venv and gryph's base package (all `make example` needs: DuckDB
# suites); with the argument `tests`, first the Debian packages the tests' real servers need, then
# every extra (gryph[all,anomaly,test]).
# Idempotent: each step runs only when its result is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages, without their recommends, as root or through sudo
apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "$@"
}

java_major() {
    local major
    major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
    echo "${major:-0}"
}

# Java 17 for the local Spark Connect server; headless Chromium for the HTML report's browser
# tests (tests/client/browser.py); PostgreSQL and MariaDB servers the tests start themselves, and
# the JDBC drivers the local Spark server loads (spark.jars) to read PostgreSQL, MySQL and SQLite
# on the cluster;
# Maven, which fetches the Spark connectors and the test Kafka broker from Maven Central
install_test_packages() {
    local missing=""
    if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
        missing="$missing openjdk-17-jre-headless"
    fi
    command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
    ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing="$missing postgresql"
    [ -f /usr/share/java/postgresql.jar ] || missing="$missing libpostgresql-jdbc-java"
    [ -f /usr/share/java/sqlite-jdbc.jar ] || missing="$missing libxerial-sqlite-jdbc-java"
    command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || missing="$missing mariadb-server"
    [ -f /usr/share/java/mariadb-java-client.jar ] || missing="$missing libmariadb-java"
    command -v mvn >/dev/null 2>&1 || missing="$missing maven"
    # the history's concurrency test delays DuckDB's lock calls under strace to widen the race it guards
    command -v strace >/dev/null 2>&1 || missing="$missing strace"
    # the alert tests make a test CA and server certificates with the openssl command
    command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
    if [ -n "$missing" ]; then
        echo "bootstrap: installing$missing"
        # without recommends: the tests need the servers and drivers, not the mail server, Perl
        # DBI tools, systemd and samba libraries recommends bring; fonts come with Chromium's own
        # dependencies
        # shellcheck disable=SC2086
        apt_install $missing
    fi
}

if [ "${1:-}" = "tests" ]; then
    install_test_packages
fi

if [ ! -x .venv/bin/python ]; then
    # Debian ships Python's venv module (with the pip it installs) apart from python3
    if ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
        echo "bootstrap: installing python3-venv"
        apt_install python3-venv
    fi
    python3 -m venv .venv
fi
if [ "${1:-}" = "tests" ]; then
    # anomaly: the holt_winters tests fit with statsmodels
    .venv/bin/python -m pip install -q -e ".[all,anomaly,test]"
else
    .venv/bin/python -m pip install -q -e .
fi

# The jars from Maven Central, cached outside the checkout (~/.cache/gryph): the connectors the
# local Spark server loads (spark-avro, Kafka, Delta, Iceberg) and the Kafka broker the tests start
if [ "${1:-}" = "tests" ]; then
    .venv/bin/python -m gryph.client.spark.session.connector_jars >/dev/null
    (cd tests && ../.venv/bin/python -c "from kafka_server import broker_jars; broker_jars()")
fi
