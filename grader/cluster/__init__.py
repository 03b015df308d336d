"""Grading on a Dask cluster: ``grade batch --cluster tcp://scheduler:8786`` (or ``local:N``).

engine       ClusterEngine: the Engine interface over Dask (chunks, passes, routing, retries)
plugin       the WorkerPlugin holding one warm grading process per worker thread, and the tasks
handle       the worker's side of a grading process: start, hello, chunks, strict reading
slot         the warm grading process itself (``python -m grader.cluster.slot``): LocalEngine
protocol     the line protocol between a task and its grading process
fingerprint  what must be identical on the driver and every worker

Dask is an optional extra (``pip install "torch-grader[cluster]"``): only ``engine`` and
``plugin`` import it, and only this module's :func:`make_engine` imports them, when a cluster
is asked for. ``docs/CLUSTER.md`` is the guide.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grader.catalog import Catalog
from grader.engine.local import LocalEngine
from grader.errors import UsageError
from grader.spec import ExerciseSpec

if TYPE_CHECKING:
    from grader.cluster.engine import ClusterEngine


def dask_installed() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed"))


def make_engine(
    cluster: str | None,
    catalog: Catalog | None = None,
    *,
    jobs: int | None = None,
    gpu_jobs: int | None = None,
    hidden: Sequence[Path] = (),
    preload: Sequence[ExerciseSpec] | None = None,
    reports: bool = False,
) -> LocalEngine | ClusterEngine:
    """The engine a batch grades with: this machine's (``cluster`` None), or a Dask cluster's
    (``cluster``: a scheduler's address, or ``local:N``; ``jobs`` and ``gpu_jobs`` then do not
    apply: a cluster grades one submission per worker thread, CUDA passes one per GPU).
    ``reports``: a cluster renders each result's report on its worker (this machine's engine
    renders nothing: the batch does)."""
    if cluster is None:
        return LocalEngine(catalog, jobs=jobs, gpu_jobs=gpu_jobs, hidden=hidden, preload=preload)
    if not dask_installed():
        raise UsageError(
            '--cluster needs Dask: install torch-grader[cluster] (pip install "torch-grader[cluster]")'
        )
    from grader.cluster.engine import ClusterEngine

    return ClusterEngine(cluster, catalog, hidden=hidden, preload=preload, reports=reports)
