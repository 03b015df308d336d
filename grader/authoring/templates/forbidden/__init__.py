"""Template ``forbidden``: ``relu(x)`` written without the library's relu or clamp.

The pattern: a ``forbidden:`` group (a list of names with one ``why``), checked by
``assert_not_forbidden`` on the learner's source (every spelling, in-place forms included,
helpers too) and on a traced call; its own test, so that a forbidden call costs only that test.

The files beside this one are the template (``grade new --template forbidden``); this
``__init__`` only makes them a package, so that lint and the type checker read them.
"""
