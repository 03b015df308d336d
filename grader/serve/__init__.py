"""The warm grading server: one learner's grading process, kept open between commands.

The first ``grade ID`` of a learner grades in its own process and then leaves that process
behind as a background server (the dmypy or Gradle daemon pattern); later commands, ``grade
watch`` and the notebook's magics send it their requests over a Unix socket and get the same
result JSON back, in a fraction of the time a fresh process takes to import torch.

    protocol     the messages, length-prefixed JSON, parsed strictly
    runtime      the per-user runtime folder, the socket's name, the peer's uid
    fingerprint  when a server is out of date (the grader's code or the exercises changed)
    server       the server: a LocalEngine kept open, idle timeout, cancellation
    client       grade, status and stop, every failure as one reason in words
    launch       starting a server: handed off by a warm process, or spawned fresh
    submission   around every learner grading: which file, the request, what is written after

Nothing here changes a grading: the server calls the same engine, with the same sandbox, as
the command's own process would. It only keeps the process warm.
"""
