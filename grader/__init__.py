"""An automated grader for PyTorch fundamentals exercises.

The data flow, one package or module each:

    spec, catalog      exercise YAML, loaded strictly
    engine             a GradeRequest in, a Result out (scheduler, trusted worker, pytest plugin)
    sandbox            learner code in isolated children (fork server, tiers, codec)
    testing            the API hidden tests are written against (learner proxy, checks)
    results            the versioned result JSON
    diagnose           the misconception behind a failure
    render             terminal summary, HTML report, dashboard, class report
    lms                submissions in, grades out (batch, cache, gradebook)
    authoring          validate and scaffold exercises
    cli                the ``grade`` command, on top of everything; nothing imports it
"""

__version__ = "0.1.0"
