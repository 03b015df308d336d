"""An automated grader for PyTorch fundamentals exercises.

The data flow, one module each: ``spec`` (exercise YAML) -> ``grading`` (the process tree:
``sandbox`` children for learner code, a ``worker`` running the hidden tests with ``plugin``) ->
``results`` (the versioned JSON) -> ``diagnose`` (the misconception) -> ``summary`` and ``report``
(terminal and HTML) -> ``cli``.
"""

__version__ = "0.1.0"
