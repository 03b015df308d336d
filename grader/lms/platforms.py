"""The registry of learning platforms: every platform module's declared ``PLATFORM``
(:mod:`grader.lms.platform` says what each declares), most specific layout first, the order
intake detects layouts in. A new platform is one module and its line here."""

from __future__ import annotations

from grader.lms import canvas, folders, gradescope, moodle
from grader.lms.platform import Platform

PLATFORMS: tuple[Platform, ...] = (
    gradescope.PLATFORM,  # its metadata file: the most specific
    moodle.PLATFORM,
    canvas.PLATFORM,
    folders.PLATFORM,  # any folder: the fallback
)


def platforms() -> tuple[Platform, ...]:
    return PLATFORMS


def by_name(name: str) -> Platform:
    return next(p for p in PLATFORMS if p.name == name)


def names() -> tuple[str, ...]:
    return tuple(p.name for p in PLATFORMS)
