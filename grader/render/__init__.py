"""Renderers: pure functions of result JSON (and of a class's gradebook) to what people read.

    terminal     the summary ``grade ID`` prints
    html         the report of one graded submission
    dashboard    a learner's workspace progress page
    classreport  a batch's class report
    feedback     a student's feedback page for a batch (all their exercises, ready to send)
    charts       SVG geometry for the reports
    templates    the Jinja2 environment (templates in reports/templates)

Their words in each language live in :mod:`grader.i18n`.
"""
