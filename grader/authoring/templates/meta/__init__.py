"""Template ``meta``: ``add_positions(x)``, whose device is checked on any machine.

The pattern: a test listed for ``devices: [cuda, meta]`` runs on the meta device wherever there
is no GPU. Meta tensors have a device but no data, so a tensor made on the CPU next to them
fails as it would next to CUDA inputs; ``on_meta`` runs the call and names a copy of meta data
to another device, and the test judges the device alone.

The files beside this one are the template (``grade new --template meta``); this
``__init__`` only makes them a package, so that lint and the type checker read them.
"""
