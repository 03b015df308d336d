"""Submissions in, grades out: what learning platforms hand an instructor, and what they take back.

- ``intake`` finds every student's work in a download (``gradescope``, ``canvas``, ``moodle`` or
  plain ``folders``), safely (``collect``), and names each file by exercise (``names``);
- ``assignment`` reads the instructor's assignment file and roster; ``grades`` is the neutral
  grades model that the batch fills from result JSON;
- ``canvas``, ``moodle`` and ``gradescope`` also write what each platform imports;
- ``batch`` is ``grade batch``: the orchestration over the engine, with its ``cache`` (results
  reused when nothing that decides them changed), ``gradebook`` (CSV/JSON, class statistics) and
  ``progress``.

Nothing here but ``batch`` grades, imports torch or runs learner code. ``docs/LMS.md`` is the
user's guide.
"""
