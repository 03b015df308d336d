"""Talking to the warm server: grade, status, stop.

Every way the server can fail a client becomes :class:`Unavailable`, with the reason in words
for the one line the front end prints before it grades elsewhere; ``quiet`` marks the reasons
that are part of a server's normal life (none is running yet; the one running has just found
its code changed and is leaving), which need no line. A usage error the server reports (a
request that cannot be graded as asked) is raised as the UsageError it is: grading elsewhere
would say the same.
"""

from __future__ import annotations

import errno
import socket
import time

from grader.engine.api import GradeRequest
from grader.errors import UsageError
from grader.results import Result
from grader.serve import protocol
from grader.serve.runtime import Place, same_user

ACCEPT_S = 120.0  # for a server to take a request (one that is still warming up included)
CONNECT_S = 5.0


class Unavailable(Exception):
    """The server cannot be used for this call (``reason`` says why)."""

    def __init__(self, reason: str, *, quiet: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.quiet = quiet


def connect(place: Place) -> socket.socket:
    """A connection to the server at ``place``, checked to be this user's."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONNECT_S)
    try:
        sock.connect(str(place.socket))
    except FileNotFoundError:
        sock.close()
        raise Unavailable("no server is running", quiet=True) from None
    except ConnectionRefusedError:
        sock.close()
        raise Unavailable("a stale socket with no server behind it") from None
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EAGAIN:
            raise Unavailable("the server is too busy to take a connection") from None
        raise Unavailable(f"cannot connect to {place.socket}: {exc.strerror or exc}") from None
    if not same_user(sock):
        sock.close()
        raise Unavailable(f"{place.socket} belongs to another user")
    return sock


def _call(
    place: Place, message: protocol.Message, deadline: float
) -> tuple[socket.socket, protocol.Message]:
    sock = connect(place)
    try:
        protocol.send(sock, message)
        reply = protocol.receive(sock, protocol.REPLIES, deadline)
    except protocol.Closed:
        sock.close()
        raise Unavailable("the server closed the connection without answering") from None
    except protocol.ProtocolError as exc:
        sock.close()
        raise Unavailable(f"the server's answer was not understood: {exc}") from None
    except OSError as exc:
        sock.close()
        raise Unavailable(f"the connection failed: {exc.strerror or exc}") from None
    return sock, reply


def _raise_error(reply: protocol.ErrorReply) -> None:
    if reply.error == protocol.USAGE:
        raise UsageError(reply.message, hint=reply.hint or None)
    if reply.error == protocol.STALE:
        raise Unavailable("its code or the exercises changed: it is restarting", quiet=True)
    raise Unavailable(f"the server answered: {reply.message}")


def grade(place: Place, request: GradeRequest, timeout_s: float) -> Result:
    """Grade ``request`` on the server; ``timeout_s``: how long the grading may take there."""
    sock, reply = _call(place, protocol.GradeCall(request), time.monotonic() + ACCEPT_S)
    with sock:
        if isinstance(reply, protocol.ErrorReply):
            _raise_error(reply)
        if not isinstance(reply, protocol.Accepted):
            raise Unavailable(f"the server answered a grading with {reply.kind}")
        try:
            reply = protocol.receive(
                sock, (protocol.ResultReply, protocol.ErrorReply), time.monotonic() + timeout_s
            )
        except protocol.Closed:
            raise Unavailable("the server stopped in the middle of the grading") from None
        except protocol.ProtocolError as exc:
            raise Unavailable(f"the server's answer was not understood: {exc}") from None
        except OSError as exc:
            raise Unavailable(f"the connection failed: {exc.strerror or exc}") from None
    if isinstance(reply, protocol.ErrorReply):
        _raise_error(reply)
    assert isinstance(reply, protocol.ResultReply)
    return reply.result


def status(place: Place, timeout_s: float = ACCEPT_S) -> protocol.StatusReply:
    sock, reply = _call(place, protocol.StatusCall(), time.monotonic() + timeout_s)
    sock.close()
    if isinstance(reply, protocol.ErrorReply):
        _raise_error(reply)
    if not isinstance(reply, protocol.StatusReply):
        raise Unavailable(f"the server answered a status call with {reply.kind}")
    return reply


def stop(place: Place, wait_s: float = 15.0) -> bool:
    """Ask the server to exit and wait until it has; False when none was running."""
    try:
        sock, reply = _call(place, protocol.StopCall(), time.monotonic() + ACCEPT_S)
    except Unavailable as exc:
        if exc.quiet:
            return False
        raise
    sock.close()
    if not isinstance(reply, protocol.Stopping):
        raise Unavailable(f"the server answered a stop call with {reply.kind}")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not place.socket.exists():
            return True
        time.sleep(0.02)
    raise Unavailable(f"the server said it would stop, but {place.socket} is still there")
