"""HTML reports: pure functions from result JSON to one self-contained HTML file.

Two reports: one per graded submission (:func:`render_result`) and the workspace dashboard
(:func:`render_dashboard`, ``grade report``). Templates live in ``reports/templates`` (Jinja2,
autoescaped, undefined names are errors). This module turns the JSON into plain values for them
(strings, numbers, lists, and the coordinates of the SVG charts), so nothing learner-controlled is
ever marked safe: a submission that prints ``<script>`` cannot run script in its report. The page
also forbids scripts and every external load with a Content-Security-Policy, and needs neither.
"""

from __future__ import annotations

import functools
import math
import sys
from pathlib import Path
from typing import Any

from grader.catalog import install_root
from grader.results import Result, Status, devices_of, failure_groups

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "score": "Score",
        "status": "Status",
        "passed": "passed",
        "failed": "failed",
        "error": "error",
        "timeout": "timeout",
        "skipped": "skipped",
        "test": "Test",
        "tests": "Tests by device",
        "failures": "What went wrong",
        "diagnosis": "Why",
        "fix": "How to fix it",
        "teaches": "Tutorial section",
        "hint": "Hint",
        "hints": "Hints",
        "next_hint": "Stuck? A hint",
        "code": "Your code",
        "line": "line ",
        "line_after": "",
        "output": "Output",
        "output_cut": "Output (cut: too long)",
        "environment": "Environment",
        "python": "Python",
        "torch": "PyTorch",
        "devices": "Devices",
        "cuda": "CUDA devices",
        "none": "none",
        "isolation": "Isolation",
        "seed": "Seed",
        "grader": "Grader",
        "duration": "Grading time",
        "submission": "Submission",
        "training": "Training curves",
        "yours": "yours",
        "expected": "expected",
        "loss": "loss",
        "epoch": "epoch",
        "any": "any device",
        "all_passed": "Every test passed. Well done!",
        "in": "in",
        "points": "points",
        "notes": "Notes",
        "no_code": "(the source is not available)",
        "where": "Where",
        "dashboard": "Progress",
        "exercise": "Exercise",
        "exercises": "Exercises",
        "concepts": "Concepts",
        "concepts_mastered": "Concepts mastered",
        "not_started": "not started",
        "failing": "failing",
        "report": "report",
        "progress_of": "exercises passed",
        "last_graded": "Last graded",
        "class": "Class report",
        "students": "students",
        "distribution": "Score distribution",
        "per_exercise": "Exercises",
        "pass_rate": "pass rate",
        "mean": "mean",
        "submitted": "submitted",
        "graded_n": "graded",
        "top_diagnoses": "Most frequent misconceptions",
        "per_test": "Pass rate per test",
        "student": "Student",
        "students_heading": "Students",
        "total": "Total",
        "problems": "Problems",
        "missing": "missing",
        "unreadable": "unreadable",
        "not graded": "not graded",
        "batch_problems": "Not graded",
        "kind": "Kind",
        "advisory": "Graded in your own workspace: "
        "this verdict is for practice; your instructor's grading is the one that counts.",
    },
    "zh": {
        "score": "得分",
        "status": "状态",
        "passed": "通过",
        "failed": "未通过",
        "error": "错误",
        "timeout": "超时",
        "skipped": "跳过",
        "test": "测试",
        "tests": "各设备上的测试结果",
        "failures": "哪里出了问题",
        "diagnosis": "原因",
        "fix": "如何修改",
        "teaches": "教程章节",
        "hint": "提示",
        "hints": "提示",
        "next_hint": "卡住了？看看提示",
        "code": "你的代码",
        "line": "第 ",
        "line_after": " 行",
        "output": "输出",
        "output_cut": "输出（过长，已截断）",
        "environment": "运行环境",
        "python": "Python",
        "torch": "PyTorch",
        "devices": "设备",
        "cuda": "CUDA 设备",
        "none": "无",
        "isolation": "隔离级别",
        "seed": "随机种子",
        "grader": "评分器",
        "duration": "评分用时",
        "submission": "提交文件",
        "training": "训练曲线",
        "yours": "你的",
        "expected": "期望",
        "loss": "损失",
        "epoch": "轮次",
        "any": "任意设备",
        "all_passed": "所有测试都通过了，做得好！",
        "in": "函数",
        "points": "分",
        "notes": "说明",
        "no_code": "（无法获取源代码）",
        "where": "位置",
        "dashboard": "学习进度",
        "exercise": "练习",
        "exercises": "全部练习",
        "concepts": "概念",
        "concepts_mastered": "已掌握的概念",
        "not_started": "未开始",
        "failing": "未通过",
        "report": "报告",
        "progress_of": "个练习已通过",
        "last_graded": "最近评分",
        "class": "班级报告",
        "students": "名学生",
        "distribution": "分数分布",
        "per_exercise": "各练习",
        "pass_rate": "通过率",
        "mean": "平均分",
        "submitted": "已提交",
        "graded_n": "已评分",
        "top_diagnoses": "最常见的误解",
        "per_test": "各测试的通过率",
        "student": "学生",
        "students_heading": "学生",
        "total": "总分",
        "problems": "问题",
        "missing": "缺失",
        "unreadable": "无法读取",
        "not graded": "未评分",
        "batch_problems": "未评分的文件",
        "kind": "类型",
        "advisory": "这是在你自己的工作区中评分的结果，仅供练习；以老师的评分为准。",
    },
}


@functools.lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def templates_dir() -> Path:
    return install_root() / "reports" / "templates"


# ---------------------------------------------------------------------------------------------
# One submission


def render_result(result: Result, *, advisory: bool = False) -> str:
    """The HTML report of one graded submission."""
    lang = result.lang if result.lang in LABELS else "en"
    view = result_view(result)
    view["advisory"] = advisory
    template = _environment().get_template("result.html.j2")
    return template.render(v=view, t=LABELS[lang], lang=lang)


def render_result_data(data: dict[str, Any], *, advisory: bool = False) -> str:
    """The same, straight from result JSON (a dict), e.g. one read back from disk."""
    return render_result(Result.from_dict(data), advisory=advisory)


def result_view(result: Result) -> dict[str, Any]:
    """Plain values for the result template."""
    devices = devices_of(result.tests)
    failures = _failures(result)
    anchor_of = {(f["name"], d): f["anchor"] for f in failures for d in f["devices_raw"]}
    rows = []
    for name in dict.fromkeys(t.name for t in result.tests):
        tests = [t for t in result.tests if t.name == name]
        cells = []
        if all(t.device is None for t in tests):
            test = tests[0]
            cells.append(
                {
                    "span": max(1, len(devices)),
                    "status": test.status.value,
                    "label": "any",
                    "anchor": anchor_of.get((name, None)),
                    "title": test.message if test.status is Status.SKIPPED else "",
                }
            )
        else:
            for device in devices:
                test = next((t for t in tests if t.device == device), None)
                cells.append(
                    None
                    if test is None
                    else {
                        "span": 1,
                        "status": test.status.value,
                        "label": device,
                        "anchor": anchor_of.get((name, device)),
                        "title": test.message if test.status is Status.SKIPPED else "",
                    }
                )
        rows.append(
            {
                "name": name,
                "description": tests[0].description,
                "cells": cells,
                "points": f"{sum(t.points for t in tests if t.status is not Status.SKIPPED):g}/"
                f"{sum(t.max_points for t in tests if t.status is not Status.SKIPPED):g}",
            }
        )
    marked = {}
    for failure in failures:
        if failure["line"]:
            marked.setdefault(failure["line"], []).append(failure["anchor"])
    code = [
        {"number": i, "text": text, "anchors": marked.get(i, [])}
        for i, text in enumerate(result.source.splitlines(), start=1)
    ]
    curves = []
    seen_curves = set()
    for test in result.tests:
        curve = test.data.get("loss_curve") if isinstance(test.data, dict) else None
        chart = loss_chart(curve) if isinstance(curve, dict) else None
        if chart is not None and test.name not in seen_curves:
            seen_curves.add(test.name)
            chart.update(name=test.name, device=test.device or "", description=test.description)
            curves.append(chart)
    env = result.environment
    return {
        "exercise_id": result.exercise_id,
        "title": result.exercise_title,
        "status": result.status.value,
        "score": f"{result.score:g}",
        "max_score": f"{result.max_score:g}",
        "percent": round(result.percent),
        "submission": result.submission,
        "notes": list(result.notes),
        "devices": devices,
        "rows": rows,
        "failures": failures,
        "code": code,
        "curves": curves,
        "hints": list(result.hints),
        "all_passed": result.status is Status.PASSED,
        "environment": {
            "python": env.python,
            "torch": env.torch,
            "platform": env.platform,
            "cuda": ", ".join(env.cuda_devices),
            "isolation": env.isolation,
            "seed": result.seed,
            "grader": result.grader_version,
            "duration": f"{result.duration_s:.2f} s",
            "devices": ", ".join(result.devices),
        },
    }


def _failures(result: Result) -> list[dict[str, Any]]:
    """One entry per distinct failure (the same message on several devices is shown once)."""
    failures = []
    for index, tests in enumerate(failure_groups(result.tests), start=1):
        first = tests[0]
        frame = first.frames[-1] if first.frames else None
        diagnosis = None
        if first.diagnosis is not None:
            d = first.diagnosis
            diagnosis = {
                "id": d.id,
                "title": d.title,
                "explanation": d.explanation,
                "fix": d.fix,
                "teaches": d.teaches,
            }
        failures.append(
            {
                "anchor": f"failure-{index}",
                "name": first.name,
                "description": first.description,
                "status": first.status.value,
                "devices": ", ".join(t.device for t in tests if t.device),
                "devices_raw": [t.device for t in tests],
                "message": first.message,
                "diagnosis": diagnosis,
                "line": frame.line if frame else None,
                "function": frame.function if frame else "",
                "code": frame.code if frame else "",
                "output": first.output,
                "output_truncated": first.output_truncated,
                "points": f"{sum(t.max_points for t in tests):g}",
            }
        )
    return failures


def loss_chart(curve: dict[str, Any], width: int = 560, height: int = 260) -> dict[str, Any] | None:
    """SVG geometry of "yours vs expected" loss curves (log scale when they span decades)."""
    series = {}
    for key in ("expected", "yours"):
        values = curve.get(key)
        if isinstance(values, list):
            points = [
                float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
            ]
            series[key] = points
    if not any(series.values()):
        return None
    finite = [v for values in series.values() for v in values if math.isfinite(v)]
    if not finite:
        return None
    low, high = min(finite), max(finite)
    log = low > 0 and high / low > 50
    transform = (lambda v: math.log10(v)) if log else (lambda v: v)
    t_low, t_high = transform(low), transform(high)
    if t_high == t_low:
        t_high = t_low + 1.0
    left, right, top, bottom = 56, 12, 12, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    count = max(len(v) for v in series.values())
    lines = {}
    for key, values in series.items():
        coords = []
        for i, value in enumerate(values):
            if not math.isfinite(value) or (log and value <= 0):
                continue
            x = left + (plot_w * i / max(count - 1, 1))
            y = top + plot_h * (1 - (transform(value) - t_low) / (t_high - t_low))
            coords.append(f"{x:.1f},{y:.1f}")
        lines[key] = " ".join(coords)
    ticks = []
    for k in range(5):
        fraction = k / 4
        t_value = t_low + fraction * (t_high - t_low)
        value = 10**t_value if log else t_value
        ticks.append({"y": f"{top + plot_h * (1 - fraction):.1f}", "label": f"{value:.3g}"})
    return {
        "width": width,
        "height": height,
        "left": left,
        "top": top,
        "right": width - right,
        "bottom": height - bottom,
        "yours": lines.get("yours", ""),
        "expected": lines.get("expected", ""),
        "ticks": ticks,
        "epochs": count,
        "log": log,
        "final_yours": f"{series['yours'][-1]:.4g}" if series.get("yours") else "",
        "final_expected": f"{series['expected'][-1]:.4g}" if series.get("expected") else "",
    }


# ---------------------------------------------------------------------------------------------
# The workspace dashboard


def dashboard_view(entries: list[dict[str, Any]], lang: str) -> dict[str, Any]:
    """Plain values for the dashboard; ``entries`` come from :func:`workspace_entries`."""
    passed = [e for e in entries if e["status"] == "passed"]
    mastered = sorted({c for e in passed for c in e["concepts"]})
    all_concepts = sorted({c for e in entries for c in e["concepts"]})
    return {
        "entries": entries,
        "passed": len(passed),
        "total": len(entries),
        "percent": round(100 * len(passed) / len(entries)) if entries else 0,
        "mastered": mastered,
        "concepts": [{"name": c, "mastered": c in mastered} for c in all_concepts],
        "lang": lang,
    }


def render_dashboard(entries: list[dict[str, Any]], lang: str) -> str:
    lang = lang if lang in LABELS else "en"
    template = _environment().get_template("dashboard.html.j2")
    return template.render(v=dashboard_view(entries, lang), t=LABELS[lang], lang=lang)


def workspace_entries(
    workspace: Any, specs: list[Any], lang: str, report_dir: Path
) -> list[dict[str, Any]]:
    """One row per exercise: its spec's title and concepts, and the last grading, if any."""
    rows = []
    for spec in specs:
        result = workspace.last_result(spec.id)
        status = workspace.status(spec)
        report = workspace.report_path(spec.id)
        rows.append(
            {
                "id": spec.id,
                "title": spec.title.get(lang),
                "kind": spec.kind,
                "concepts": list(spec.concepts),
                "status": {"not started": "not_started"}.get(status, status),
                "score": f"{result.score:g}" if result else "",
                "max_score": f"{result.max_score:g}" if result else f"{spec.max_points}",
                "percent": round(result.percent) if result else 0,
                "report": _relative(report, report_dir) if report.exists() else "",
                "graded_at": str(workspace.entry(spec.id).get("graded_at") or ""),
            }
        )
    return rows


def _relative(path: Path, start: Path) -> str:
    import os

    return Path(os.path.relpath(path, start)).as_posix()


def dashboard_main(argv: list[str]) -> int:
    from grader.catalog import Catalog, project_root
    from grader.cli import _lang_arg, _Parser, default_lang
    from grader.errors import UsageError
    from grader.results import write_atomic
    from grader.workspace import find_workspace

    parser = _Parser(
        prog="grade report", description="Write the progress dashboard of your workspace."
    )
    parser.add_argument(
        "--out", type=Path, help="where to write it (default: .grade/reports/index.html)"
    )
    _lang_arg(parser)
    args = parser.parse_args(argv)
    lang = args.lang or default_lang()
    workspace = find_workspace()
    if workspace is None:
        raise UsageError(
            "not in a workspace", hint="Run `grade init` first, or cd into your workspace."
        )
    out = args.out or workspace.state_dir / "reports" / "index.html"
    specs = Catalog(project_root()).all()
    entries = workspace_entries(workspace, specs, lang, out.resolve().parent)
    write_atomic(out, render_dashboard(entries, lang))
    passed = sum(e["status"] == "passed" for e in entries)
    print(f"{passed}/{len(entries)} exercises passed. Dashboard: {out}", file=sys.stdout)
    return 0


# ---------------------------------------------------------------------------------------------
# The class report (grade batch)


def histogram(percents: list[float], width: int = 520, height: int = 200) -> dict[str, Any]:
    """SVG geometry of the score distribution in ten bins of 10 %."""
    bins = [0] * 10
    for pct in percents:
        bins[min(int(pct // 10), 9)] += 1
    left, bottom, top = 36, height - 28, 12
    plot_w, plot_h = width - left - 8, bottom - top
    peak = max(bins) or 1
    bars = []
    for i, count in enumerate(bins):
        bar_h = plot_h * count / peak
        bars.append(
            {
                "x": f"{left + i * plot_w / 10 + 2:.1f}",
                "y": f"{bottom - bar_h:.1f}",
                "w": f"{plot_w / 10 - 4:.1f}",
                "h": f"{bar_h:.1f}",
                "count": count,
                "label": f"{i * 10}" if i < 9 else "90",
                "lx": f"{left + (i + 0.5) * plot_w / 10:.1f}",
            }
        )
    return {
        "width": width,
        "height": height,
        "bars": bars,
        "bottom": bottom,
        "left": left,
        "right": width - 8,
        "peak": peak,
        "top": top,
    }


def render_class(
    rows: list[Any],
    columns: list[str],
    maxima: dict[str, float],
    titles: dict[str, str],
    stats: dict[str, Any],
    stray: list[str],
    lang: str,
) -> str:
    lang = lang if lang in LABELS else "en"
    students = []
    for row in rows:
        total, maximum = row.total(columns, maxima)
        cells = []
        for exercise in columns:
            cell = row.cells.get(exercise)
            cells.append(
                {
                    "status": cell.status if cell else "missing",
                    "score": f"{cell.score:g}" if cell and cell.result is not None else "",
                    "report": cell.report_path if cell else "",
                }
            )
        students.append(
            {
                "id": row.student,
                "cells": cells,
                "total": f"{total:g}",
                "max": f"{maximum:g}",
                "percent": round(row.percent(columns, maxima)),
                "problems": row.problems,
            }
        )
    percents = stats["percents"]
    view = {
        "students": students,
        "columns": [
            {"id": e, "title": titles.get(e, ""), "max": f"{maxima[e]:g}"} for e in columns
        ],
        "exercises": [
            dict(e, mean=f"{e['mean']:.1f}", max=f"{e['max']:g}") for e in stats["exercises"]
        ],
        "count": stats["students"],
        "mean": round(sum(percents) / len(percents)) if percents else 0,
        "histogram": histogram(percents),
        "stray": stray,
    }
    template = _environment().get_template("class.html.j2")
    return template.render(v=view, t=LABELS[lang], lang=lang)
