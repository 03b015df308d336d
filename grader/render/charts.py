"""SVG geometry for the reports' charts, as plain numbers and strings for the templates.

The loss chart plots a learner's losses against the reference's (on a log scale when they span
decades); the histogram bins a class's scores in tens of percent.
"""

from __future__ import annotations

import math
from typing import Any


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


def histogram(percents: list[float], width: int = 520, height: int = 224) -> dict[str, Any]:
    """SVG geometry of the score distribution in ten bins of 10 %, with room for both axes'
    labels."""
    bins = [0] * 10
    for pct in percents:
        bins[min(int(pct // 10), 9)] += 1
    left, bottom, top = 44, height - 44, 12
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
