"""The grader's version: what every fingerprint, cache key and result names.

Apart from the package's ``__init__`` (the entry point ``%load_ext grader`` looks up, so it sits
above every front end), so that modules of every layer can name the version without importing
the top of the package.
"""

__version__ = "0.1.0"
