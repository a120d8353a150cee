#!/bin/sh
# Make sure tshark (Wireshark's command-line reader) is installed: the trace
# tests decode satcc's pcap files with it, a reader satcc did not write.
#
# Required where packages can be installed (root or sudo); elsewhere those
# tests skip, saying why.
set -u
here=$(dirname "$0")
need=optional
if [ "$(id -u)" -eq 0 ]; then
    need=required
fi
sh "$here/ensure-debian-package.sh" tshark tshark "$need" || exit 1
