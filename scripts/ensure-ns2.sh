#!/bin/sh
# Make sure ns-2.35 (`ns`, Debian's `ns2` package) is installed.
#
# Used by the tcp-crosscheck study and tests/test_study_tcp_crosscheck.py,
# which run the same TCP scenarios in satcc and in ns-2. Never fails the
# build: without ns-2 the study shows its model comparisons only and the
# test skips its ns-2 part, saying why.
exec sh "$(dirname "$0")/ensure-debian-package.sh" ns ns2 optional
