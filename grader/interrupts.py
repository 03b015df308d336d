"""A Ctrl-C that a grading's loop never loses.

Python turns SIGINT into KeyboardInterrupt in whatever Python code the main thread runs at
that instant. When that code is a finaliser (a ``__del__``, a weakref callback, a gc callback:
Dask's client installs one that runs at every collection), the interpreter hands the exception
to ``sys.unraisablehook``, prints "Exception ignored" and drops it. The Ctrl-C is then lost,
and a batch the instructor stopped grades on to its end. While :func:`watch` is open, a
KeyboardInterrupt dropped that way is kept instead (and not printed). The loop calls
:meth:`Watch.check` at every turn, a place where the exception cannot be dropped, and the watch
raises it when it closes if nothing else did.

Nothing else changes: the SIGINT handler is whoever's it was (Python's, a notebook kernel's),
an ignored SIGINT stays ignored, and a KeyboardInterrupt that code catches on purpose stays
caught. Only the main thread watches: Python raises KeyboardInterrupt nowhere else."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any


class Watch:
    """The Ctrl-Cs dropped while a loop ran, and the loop's way to take them."""

    def __init__(self) -> None:
        self.pending = False

    def check(self) -> None:
        """Raise KeyboardInterrupt if a finaliser dropped one since the last check (here it
        cannot be dropped)."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


@contextlib.contextmanager
def watch() -> Iterator[Watch]:
    """Keep every KeyboardInterrupt dropped until the block ends; raise one left untaken when
    it ends.

    A watch opened inside another shares it: the inner loop takes the Ctrl-C, and the outer
    one does not see it again."""
    if threading.current_thread() is not threading.main_thread():
        yield Watch()
        return
    previous = sys.unraisablehook
    outer = getattr(previous, "watch", None)
    if isinstance(outer, Watch):
        yield outer
        outer.check()
        return
    mine = Watch()

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            mine.pending = True  # raised at the next check: no "Exception ignored" for it
        else:
            previous(unraisable)

    hook.watch = mine  # type: ignore[attr-defined]
    sys.unraisablehook = hook
    try:
        yield mine
    except BaseException:
        mine.pending = False  # whatever ends the block now, the Ctrl-C is on its way or moot
        raise
    finally:
        if sys.unraisablehook is hook:
            sys.unraisablehook = previous
    mine.check()
