"""Template ``mistakes``: ``standardize(x)``, whose test replays the classic mistakes.

The pattern: when the learner's answer differs from the reference, the test computes the
answers of the classic mistakes on the same input (here: the statistics of the whole tensor, of
the rows, the population std) and, when one matches, names that mistake with its own evidence
tag, so the diagnosis names the misconception instead of "the values differ".

The files beside this one are the template (``grade new --template mistakes``); this
``__init__`` only makes them a package, so that lint and the type checker read them.
"""
