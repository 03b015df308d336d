"""The Jupyter front end: ``%%grade 7``, ``%grade 7`` and ``%grade hint 7`` in a notebook.

Load it with ``%load_ext grader`` or ``import grader.notebook`` (either adds the magics to the
running IPython). Grading never happens inside the kernel, which holds the learner's variables
and may hold CUDA state (a process that has touched CUDA cannot fork children that use it): the
magics send the code to the learner's warm server (:mod:`grader.serve`), starting one if needed,
and show the result inline, made from the same result JSON and templates as the HTML report.

    magics     the magics: what each one grades, and where
    display    a result as rich HTML output, with the terminal summary as its plain text
    workspace  ``grade init --notebooks``: one notebook per exercise

Not to be confused with :mod:`grader.notebooks`, which reads notebook *files* as submissions
(their code cells joined, with a map back to the cells); this package uses it.
"""

from __future__ import annotations

import sys
from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """Add the grader's magics to ``ipython`` (what ``%load_ext grader`` calls)."""
    from grader.notebook.magics import GraderMagics

    ipython.register_magics(GraderMagics)


def _register_in_running_shell() -> None:
    """``import grader.notebook`` inside IPython loads the magics too (outside, it does
    nothing, and imports no part of IPython)."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return
    shell = ipython_module.get_ipython()
    if shell is not None:
        load_ipython_extension(shell)


_register_in_running_shell()
