#!/bin/sh
# Make sure ns-2.35 (`ns`, Debian's `ns2` package) is installed.
#
# Used by the tcp-crosscheck study and tests/test_study_tcp_crosscheck.py,
# which run the same TCP scenarios in satcc and in ns-2. Idempotent: does
# nothing when `ns` is already on PATH. Installs with apt-get as root (as CI
# runs) or with sudo. Never fails the build: without ns-2 the study shows
# its model comparisons only and the test skips its ns-2 part, saying why.
set -u

if command -v ns >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "ensure-ns2: ns-2 (ns) is missing and this is not root (no sudo either): ns-2 parts will be skipped" >&2
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends ns2 >/dev/null; }; then
    echo "ensure-ns2: apt-get could not install ns2: ns-2 parts will be skipped" >&2
    exit 0
fi

if ! command -v ns >/dev/null 2>&1; then
    echo "ensure-ns2: apt-get finished but ns is still missing: ns-2 parts will be skipped" >&2
    exit 0
fi
echo "ensure-ns2: installed ns-2 at $(command -v ns)" >&2
