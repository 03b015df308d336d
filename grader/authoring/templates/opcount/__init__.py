"""Template ``opcount``: ``row_norms(x)`` without Python loops.

The pattern: "no Python loops" means the number of tensor operations does not grow with the
input. ``assert_op_growth`` compares traced calls that differ in one named size only (here
``n`` and ``d``, each at two sizes), and ``assert_no_loops`` is the static backstop (a loop,
comprehension, ``map`` or recursion anywhere the function reaches).

The files beside this one are the template (``grade new --template opcount``); this
``__init__`` only makes them a package, so that lint and the type checker read them.
"""
