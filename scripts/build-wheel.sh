#!/usr/bin/env bash
# Build a satcc wheel that installs on any Linux of this machine's
# architecture with glibc 2.17 or newer (manylinux2014), for Python 3.11 and
# later (one abi3 wheel), into dist/ or the folder given.
#
#   scripts/build-wheel.sh [OUT_DIR]
#   pip install OUT_DIR/satcc-*.whl
#
# Why Zig: the Rust toolchain links against the glibc it runs on, and
# maturin refuses to tag such a wheel manylinux_2_28 on a newer system
# (Debian 12's glibc 2.36 gives the core symbols of glibc 2.29 to 2.34).
# Zig, installed from PyPI as the ziglang package, links against the glibc
# 2.17 symbol set instead, so no build container is needed. maturin checks
# the result's symbol versions itself and refuses a wheel that would not
# hold to its tag.
#
# The build tools go into a virtual environment under the Cargo target
# folder, at the versions constraints.txt pins for maturin and ZIGLANG_PIN
# for Zig; nothing else is installed. The Rust core is compiled in release
# mode, several minutes on two cores.

set -euo pipefail

# ziglang is not a dependency of satcc, so constraints.txt does not list it.
ZIGLANG_PIN="ziglang==0.17.1"

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/dist}")
target=${CARGO_TARGET_DIR:-$root/target}
tools=$target/wheel-tools

if [ ! -x "$tools/bin/python" ]; then
    "${PY:-python3}" -m venv "$tools"
fi
PIP_CONSTRAINT="$root/constraints.txt" "$tools/bin/pip" install -q maturin "$ZIGLANG_PIN"

mkdir -p "$out"
cd "$root"
# maturin finds Zig as python -m ziglang through the tools' interpreter.
PATH="$tools/bin:$PATH" CARGO_TARGET_DIR="$target" \
    "$tools/bin/maturin" build --release --zig --compatibility manylinux2014 --out "$out"
ls "$out"/satcc-*manylinux*.whl
