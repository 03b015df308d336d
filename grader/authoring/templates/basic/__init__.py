"""The default template: one function, ``scale(x, factor)``, checked on every device.

The smallest complete exercise: hidden tests that compare with the reference and judge the
dtype alone, three mutants (one with a diagnosis), two alternatives, two hints and the
requirements table.

The files beside this one are the template (``grade new --template basic``); this
``__init__`` only makes them a package, so that lint and the type checker read them.
"""
