#!/usr/bin/env python3
"""Run one command in a ramster guest through its agent console.

    guest-exec.py SOCKET TIMEOUT COMMAND

SOCKET is the unix socket QEMU serves the guest's second virtio console
on; the guest's agent (tools/guest/ramster-agent.c) reads "<id> <command>"
lines and answers with the output and "@@RAMSTER-END <id> <status>".
Prints the output and exits with the command's status (124 on timeout,
125 if the guest cannot be reached).
"""
import os
import socket
import sys
import time


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    path, timeout, command = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    if "\n" in command:
        sys.stderr.write("guest-exec: one line per command\n")
        return 2
    ident = "%d.%d" % (os.getpid(), time.monotonic_ns())
    marker = ("@@RAMSTER-END %s " % ident).encode()
    deadline = time.monotonic() + timeout
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(("%s %s\n" % (ident, command)).encode())
    except OSError as err:
        sys.stderr.write("guest-exec: %s: %s\n" % (path, err))
        return 125
    buf = b""
    while marker not in buf or b"\n" not in buf.partition(marker)[2]:
        left = deadline - time.monotonic()
        if left <= 0:
            sys.stdout.write(buf.decode(errors="replace"))
            sys.stderr.write("guest-exec: timed out after %gs\n" % timeout)
            return 124
        sock.settimeout(left)
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            sys.stderr.write("guest-exec: the guest went away\n")
            return 125
        buf += data
    out, _, tail = buf.partition(marker)
    # Output of earlier, abandoned commands may precede ours.
    start = out.rfind(b"@@RAMSTER-END ")
    if start >= 0:
        out = out[out.index(b"\n", start) + 1:]
    out = out.replace(b"\r", b"")
    # A console that still echoes sends our own line back first.
    sent = ("%s %s\n" % (ident, command)).encode()
    if out.startswith(sent):
        out = out[len(sent):]
    sys.stdout.write(out.decode(errors="replace"))
    status = tail.split()[0] if tail.split() else b"1"
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
