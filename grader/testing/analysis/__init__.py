"""A trusted-side static analysis of a learner's whole file, which fails closed.

The checks that watch learner code run (which torch functions it called, how many tensor
operations it performed) are measured in the learner's process and can be forged by the code
they measure. This package backs them with a look at the source, on the trusted side, that never
imports or runs the learner's file:

* :func:`analyse` reads the whole file (no length cut-off; a file padded to a few MiB in well
  under a second) and says when it cannot (:class:`Problem`); every question about such a
  file raises :class:`Unanalysable`, and every check built on it fails;
* :func:`reach`-ability: what can run when a graded function is called (helpers, nested
  functions, lambdas, methods of the classes it refers to, functions referred to without being
  called, decorators, default arguments);
* :func:`forbidden_uses`: forbidden APIs matched by what names resolve to (see ``rules``);
* :func:`loops_in`: Python loops, iteration helpers and recursion in reachable code;
* :func:`review`: reach-ins into the grader or torch's internals, for a human to look at;
* :func:`canonical_op` / :func:`covers`: one key per operation for every spelling, shared with
  the learner-side trace (torch function names and ATen operator names).
"""

from grader.testing.analysis.core import Analysis, Reach, Use, analyse
from grader.testing.analysis.forbidden import forbidden_uses
from grader.testing.analysis.intake import Problem, Unanalysable
from grader.testing.analysis.loops import GROWTHS, Loop, loops_in
from grader.testing.analysis.opnames import canonical_op, covers, is_aten
from grader.testing.analysis.review import Finding, review
from grader.testing.analysis.rules import Rule, matches


def reach(source: str | bytes | Analysis, function: str) -> Reach:
    """What can run when ``function`` is called (raises Unanalysable)."""
    analysis = source if isinstance(source, Analysis) else analyse(source)
    return analysis.reach(function)


__all__ = [
    "GROWTHS",
    "Analysis",
    "Finding",
    "Loop",
    "Problem",
    "Reach",
    "Rule",
    "Unanalysable",
    "Use",
    "analyse",
    "canonical_op",
    "covers",
    "forbidden_uses",
    "is_aten",
    "loops_in",
    "matches",
    "reach",
    "review",
]
