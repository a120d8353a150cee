#!/bin/sh
# Make sure the real tools the emulator's tests and study modes run are
# installed: iperf3 and NetPIPE's NPtcp (Debian's netpipe-tcp).
#
# Where emulation can run (root, /dev/net/tun) they are required: the
# emulator tests must run, not skip. Elsewhere those tests skip anyway,
# saying why, so a missing tool is only reported.
set -u
here=$(dirname "$0")
need=optional
if [ "$(id -u)" -eq 0 ] && [ -e /dev/net/tun ]; then
    need=required
fi
sh "$here/ensure-debian-package.sh" iperf3 iperf3 "$need" || exit 1
sh "$here/ensure-debian-package.sh" NPtcp netpipe-tcp "$need" || exit 1
