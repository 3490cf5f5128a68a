#!/usr/bin/env bash
# Prepare a fresh machine: Java 17 for the local Spark server, the venv, gryph with its extras.
# Idempotent: each step runs only when its result is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

java_major() {
    local major
    major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
    echo "${major:-0}"
}

if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
    echo "bootstrap: installing Java 17 (needed by the local Spark Connect server)"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO apt-get install -y openjdk-17-jre-headless
fi

# headless Chromium: the HTML report's browser tests open it (tests/client/browser.py)
if ! command -v chromium >/dev/null 2>&1; then
    echo "bootstrap: installing chromium (the HTML report's browser tests)"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO apt-get install -y chromium
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q -e ".[spark,test]"
