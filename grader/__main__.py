"""``python -m grader`` is the same as the ``grade`` command."""

from grader.cli import run

run()
