"""Template ``property``: ``normalize_rows(x)``, checked by examples and by a property.

The pattern: beside examples compared with the reference, a hypothesis property states the
lesson ("every row sums to 1, and scaling a row changes nothing") over many small inputs.
``PROPERTY`` makes it deterministic, keeps nothing on disk and lets hypothesis shrink a
failure to the smallest input, which is what the learner sees.

The files beside this one are the template (``grade new --template property``); this
``__init__`` only makes them a package, so that lint and the type checker read them.
"""
