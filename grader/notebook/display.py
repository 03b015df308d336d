"""A grading result as a notebook shows it: rich HTML, with the terminal summary as plain text.

IPython asks a displayed object for its representations: ``_repr_html_`` gives the inline
report (:func:`grader.render.html.render_inline`: the same result JSON and templates as the
HTML report, no script, nothing loaded), ``__repr__`` the summary ``grade ID`` prints, for
front ends that show only text (a terminal IPython, nbconvert to text, a log).
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.results import Result


@dataclass(frozen=True)
class GradeOutput:
    result: Result
    report_path: str | None = None
    practice: bool = False  # graded in the learner's own workspace

    def _repr_html_(self) -> str:
        from grader.render.html import render_inline

        return render_inline(self.result, report_path=self.report_path, practice=self.practice)

    def __repr__(self) -> str:
        from grader.render.terminal import render

        return render(
            self.result, colour=False, report_path=self.report_path, practice=self.practice
        ).rstrip("\n")
