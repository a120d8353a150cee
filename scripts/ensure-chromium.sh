#!/bin/sh
# Make sure a headless-capable Chromium is installed at /usr/bin/chromium.
#
# Used by tests/test_report.py, which renders the HTML report in headless
# Chromium. Idempotent: does nothing when Chromium is already there. Installs
# Debian's `chromium` package with apt-get; must run as root (as CI does) or
# with sudo available.
set -eu

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "ensure-chromium: /usr/bin/chromium is missing and this is not root (no sudo either)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null

if [ ! -x /usr/bin/chromium ]; then
    echo "ensure-chromium: apt-get finished but /usr/bin/chromium is still missing" >&2
    exit 1
fi
echo "ensure-chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)" >&2
