"""A measured bulk transfer between two emulated hosts, with Linux's TCP.

The Linux half of the sim-vs-Linux comparison (docs/tcp-sim-vs-linux.md):
what satcc's `bulk` application does in a simulation, done by real sockets.
`serve` accepts one connection and logs, for every read, the time
(CLOCK_MONOTONIC, which every namespace of the machine shares) and the bytes
received so far; `send` connects with a chosen congestion control and writes
for a given time or a given number of bytes, logging when it began to
connect (time zero: satcc's flows start with their handshake too) and
the kernel's counters (tcp_info) at the end of the warm-up, when it stopped
writing, and when the receiver closed (all acknowledged).

The receiver's window is set with TCP_WINDOW_CLAMP, on the listening socket
(which the accepted connection inherits) and again after every read that
finds the kernel has moved it: Linux (6.x) resets the clamp to what its
receive buffer could hold whenever it re-estimates the payload share of its
buffers (tcp_measure_rcv_mss, on the first full-sized segments), which would
lift the limit within the first round trips. The receive buffer is set by
hand (which stops autotuning from moving the clamp too) to several windows.
How many times the clamp had to be put back is logged. SO_RCVBUF alone
would not do: Linux doubles the value given and keeps a share of the buffer
that depends on the packets' truesize, so the window it yields is not the
number set; nor does a route's `cwnd lock` (ignored by this kernel).

    python -m satcc.emulate.bulk serve --port 5201 --log rx.json [--window BYTES]
    python -m satcc.emulate.bulk send --to 10.77.0.2 --port 5201 --log tx.json \
        --cc cubic (--seconds S [--warmup W] | --bytes N)
"""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import socket
import struct
import sys
import time
from array import array
from bisect import bisect_left, bisect_right
from pathlib import Path

CHUNK = 1 << 20
# socket.h's SO_RCVBUFFORCE, which Python's socket module does not name.
SO_RCVBUFFORCE = 33
RCVBUF_SLACK = 1 << 20
# How long a client keeps trying to reach a server that is not listening yet.
CONNECT_PATIENCE_S = 10.0
# How long the client waits, after its last byte, for the server to close.
CLOSE_PATIENCE_S = 60.0

# struct tcp_info (include/uapi/linux/tcp.h): eight u8 fields, then u32s
# from tcpi_rto to tcpi_total_retrans.
_TCP_INFO = struct.Struct("<8B24I")
_TCP_INFO_FIELDS = {
    "rto_us": 0,
    "snd_mss": 2,
    "retrans": 7,
    "rtt_us": 15,
    "rttvar_us": 16,
    "snd_ssthresh": 17,
    "snd_cwnd": 18,
    "total_retrans": 23,
}


def now_ns() -> int:
    return time.monotonic_ns()


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The kernel's counters for a connection, the ones the comparison uses."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO.size)
    values = _TCP_INFO.unpack(raw[: _TCP_INFO.size])[8:]
    return {name: int(values[i]) for name, i in _TCP_INFO_FIELDS.items()}


def write_log(path: Path, document: dict) -> None:
    """Whole or not at all: the reader never sees half a log."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(document), encoding="utf-8")
    os.replace(tmp, path)


def _clamp(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP)


def serve(port: int, log: Path, window: int | None) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if window is not None:
        # A receive buffer set by hand stops autotuning, which would
        # otherwise raise the clamp with the buffer; FORCE (root) passes
        # net.core.rmem_max, which a namespace cannot change.
        listener.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 * window + RCVBUF_SLACK)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, window)
    listener.bind(("0.0.0.0", port))
    listener.listen(1)
    conn, _ = listener.accept()
    accepted = now_ns()
    buffer = bytearray(CHUNK)
    times, received = array("q"), array("q")
    total = 0
    resets = 0
    while True:
        n = conn.recv_into(buffer)
        if n == 0:
            break
        total += n
        times.append(now_ns())
        received.append(total)
        if window is not None and _clamp(conn) != window:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, window)
            resets += 1
    write_log(
        log,
        {
            "accepted_ns": accepted,
            "window_clamp": window,
            "clamp_resets": resets,
            "times_ns": times.tolist(),
            "bytes": received.tolist(),
        },
    )
    conn.close()
    listener.close()
    return 0


def _connect(address: str, port: int, congestion_control: str) -> tuple[socket.socket, int]:
    """The connected socket and when its SYN left (the attempt that made it)."""
    deadline = time.monotonic() + CONNECT_PATIENCE_S
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, congestion_control.encode())
        try:
            syn = now_ns()
            sock.connect((address, port))
            return sock, syn
        except OSError as e:
            sock.close()
            if e.errno != errno.ECONNREFUSED or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def send(
    address: str,
    port: int,
    log: Path,
    congestion_control: str,
    seconds: float | None,
    warmup: float,
    size: int | None,
) -> int:
    # Time zero is the SYN, as for satcc's flows, which begin with their
    # handshake.
    sock, start = _connect(address, port, congestion_control)
    established = now_ns()
    stop = start + int(seconds * 1e9) if seconds is not None else None
    warm_at = start + int(warmup * 1e9)
    data = memoryview(bytes(CHUNK))
    sent = 0
    at_warmup = None
    while True:
        if size is not None:
            if sent >= size:
                break
            chunk = data[: min(CHUNK, size - sent)]
        else:
            chunk = data[:65536]
        sent += sock.send(chunk)
        t = now_ns()
        if at_warmup is None and t >= warm_at:
            at_warmup = {"time_ns": t, **tcp_info(sock)}
        if stop is not None and t >= stop:
            break
    ended = now_ns()
    at_end = tcp_info(sock)
    sock.shutdown(socket.SHUT_WR)
    sock.settimeout(CLOSE_PATIENCE_S)
    while sock.recv(4096):
        pass
    # The receiver closes once it has read everything: every segment has
    # been acknowledged, and retransmitted if need be, by now.
    at_close = tcp_info(sock)
    write_log(
        log,
        {
            "congestion_control": congestion_control,
            "start_ns": start,
            "established_ns": established,
            "stopped_writing_ns": ended,
            "bytes_written": sent,
            "at_warmup": at_warmup,
            "at_end": at_end,
            "at_close": at_close,
        },
    )
    sock.close()
    return 0


# ---------------------------------------------------------------------------
# Reading the logs (time zero: the sender's SYN)


def received_by(rx: dict, t_ns: int) -> int:
    """Bytes the receiver had read by `t_ns` (the log is a step function)."""
    i = bisect_right(rx["times_ns"], t_ns)
    return rx["bytes"][i - 1] if i else 0


def goodput_bps(tx: dict, rx: dict, warmup_s: float, duration_s: float) -> float:
    """Payload b/s read by the receiver between warm-up and end."""
    start = tx["start_ns"]
    low = received_by(rx, start + int(warmup_s * 1e9))
    high = received_by(rx, start + int(duration_s * 1e9))
    return (high - low) * 8 / (duration_s - warmup_s)


def completion_s(tx: dict, rx: dict, size: int) -> float:
    """Seconds from time zero to the receiver's reading the last of `size`
    bytes; NaN if they never all arrived."""
    if not rx["bytes"] or rx["bytes"][-1] < size:
        return math.nan
    i = bisect_left(rx["bytes"], size)
    return (rx["times_ns"][i] - tx["start_ns"]) / 1e9


def retransmissions(tx: dict, since_warmup: bool = True) -> float:
    """Segments retransmitted between the warm-up and the end of writing;
    or, for the whole connection, up to the receiver's close."""
    if not since_warmup:
        return float(tx["at_close"]["total_retrans"])
    if tx.get("at_warmup") is None:
        return math.nan
    return float(tx["at_end"]["total_retrans"] - tx["at_warmup"]["total_retrans"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m satcc.emulate.bulk", description=__doc__)
    sub = parser.add_subparsers(dest="role", required=True)
    server = sub.add_parser("serve", help="receive one connection, log what arrives when")
    server.add_argument("--port", type=int, required=True)
    server.add_argument("--log", type=Path, required=True)
    server.add_argument("--window", type=int, help="largest window to advertise (bytes)")
    client = sub.add_parser("send", help="connect and write, for a time or a size")
    client.add_argument("--to", required=True)
    client.add_argument("--port", type=int, required=True)
    client.add_argument("--log", type=Path, required=True)
    client.add_argument("--cc", default="cubic", help="TCP_CONGESTION: reno, cubic, bbr, ...")
    how = client.add_mutually_exclusive_group(required=True)
    how.add_argument("--seconds", type=float, help="write for this long")
    how.add_argument("--bytes", type=int, help="write this many bytes")
    client.add_argument("--warmup", type=float, default=0.0)
    args = parser.parse_args(argv)
    if args.role == "serve":
        return serve(args.port, args.log, args.window)
    return send(args.to, args.port, args.log, args.cc, args.seconds, args.warmup, args.bytes)


if __name__ == "__main__":
    sys.exit(main())
