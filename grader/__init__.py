"""An automated grader for PyTorch fundamentals exercises.

The data flow, one package or module each:

    spec, catalog      exercise YAML, loaded strictly
    engine             a GradeRequest in, a Result out (scheduler, trusted worker, pytest plugin)
    sandbox            learner code in isolated children (fork server, tiers, codec)
    testing            the API hidden tests are written against (learner proxy, checks)
    results            the versioned result JSON
    diagnose           the misconception behind a failure
    render             terminal summary, HTML report, dashboard, class report
    lms                submissions in, grades out (batch, cache, gradebook)
    authoring          validate and scaffold exercises
    serve              the warm grading server the learner's commands and the notebook use
    notebook           the Jupyter magics (``%load_ext grader``)
    cli                the ``grade`` command, on top of everything; nothing imports it
"""

from __future__ import annotations

from typing import Any

from grader.version import __version__

__all__ = ["__version__", "load_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext grader``: the notebook magics (imported only now: ``import grader`` stays
    cheap for everything else)."""
    from grader.notebook import load_ipython_extension as load

    load(ipython)
