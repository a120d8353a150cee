#!/bin/sh
# Install a Debian package when the program it provides is missing.
#
#   ensure-debian-package.sh PROGRAM PACKAGE required|optional
#
# Idempotent: does nothing when PROGRAM (a path or a command on PATH) is
# there. Installs with apt-get as root (as CI runs) or with sudo. A
# `required` package that cannot be installed fails (exit 1); an `optional`
# one only says so and exits 0, for tools whose users skip that part.
set -u

program=$1 package=$2 need=$3
tag="ensure-$package"

have() { command -v "$program" >/dev/null 2>&1; }

give_up() {
    if [ "$need" = required ]; then
        echo "$tag: $1" >&2
        exit 1
    fi
    echo "$tag: $1: the parts that need $program will be skipped" >&2
    exit 0
}

have && exit 0

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    give_up "$program is missing and this is not root (no sudo either)"
fi

export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "$package" >/dev/null; }; then
    give_up "apt-get could not install $package"
fi
have || give_up "apt-get finished but $program is still missing"
echo "$tag: installed $package ($(command -v "$program"))" >&2
