import os
import socket
import struct
import time


def double(x):
    # A well-framed answer whose JSON header is nested 200,000 levels deep, written straight
    # into the answer socket; then the call itself never answers.
    depth = 200_000
    forged = ("[" * depth + "]" * depth).encode()
    for name in os.listdir("/proc/self/fd"):
        try:
            sock = socket.socket(fileno=os.dup(int(name)))
            sock.sendall(struct.pack("!I", len(forged)) + forged)
            sock.detach()
        except OSError:
            pass
    time.sleep(60)


def triple(x):
    return x * 3
