#!/bin/sh
# Make sure a headless-capable Chromium is installed at /usr/bin/chromium.
#
# Used by tests/test_report.py, which renders the HTML report in headless
# Chromium. Must run as root (as CI does) or with sudo available.
exec sh "$(dirname "$0")/ensure-debian-package.sh" /usr/bin/chromium chromium required
