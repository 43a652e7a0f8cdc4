"""Prometheus metrics: what one scrape exposes, whichever server process answers it.

The counters, histograms and gauges are prometheus-client's, defined where their events
happen (``core.request_metrics``, ``games.metrics``, ``leaderboards.metrics``); the figures
that live in PostgreSQL (deals per status, days still unfilled, verification outcomes and
durations) are read at scrape time by collectors registered here with ``add_collector``, so
they are right whichever process (web, Celery worker, embedded verifier) did the work.

Several server processes (``uvicorn --workers N``): with ``PROMETHEUS_MULTIPROC_DIR`` set
(an empty directory, wiped at each start), prometheus-client writes each process's values
to memory-mapped files there, and a scrape answered by any process sums them all
(its multiprocess mode). Counters of a process that has exited keep counting in the sum (a
worker restart loses no requests); ``live`` gauges (open WebSockets) count only the
processes still running: before each collection the files of dead processes are removed.
Without the variable, one process keeps its metrics in its memory.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable, Iterator
from typing import Protocol

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

# Every metric of this project starts with this (docs/metrics.md lists them all).
PREFIX = "astrocyte"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# What ``generate_latest`` writes: Prometheus's text format 0.0.4, which every scraper reads.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_LIVE_GAUGE_FILE = re.compile(r"^gauge_live\w*?_(\d+)\.db$")

# No `*_created` series beside each counter and histogram (a process's start time, which
# multiprocess mode leaves out anyway): the same series whatever the mode.
disable_created_metrics()


class Collector(Protocol):
    def collect(self) -> Iterable[Metric]: ...


_collectors: list[Collector] = []


def add_collector(collector: Collector) -> None:
    """A collector read at every scrape, in the process that answers it (idempotent)."""
    if collector not in _collectors:
        _collectors.append(collector)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def process_is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def forget_dead_processes(path: str) -> list[int]:
    """Remove the live gauges of processes that are gone (a worker that crashed or was
    restarted), so that, say, its open WebSockets stop counting. Returns their pids."""
    dead: set[int] = set()
    for file in glob.glob(os.path.join(path, "gauge_live*_*.db")):
        found = _LIVE_GAUGE_FILE.match(os.path.basename(file))
        if found and not process_is_running(int(found.group(1))):
            dead.add(int(found.group(1)))
    for pid in dead:
        mark_process_dead(pid, path)
    return sorted(dead)


class _Scrape:
    """What one scrape reads: the processes' metrics, then the database's figures."""

    def __init__(self, processes: Collector) -> None:
        self.processes = processes

    def collect(self) -> Iterator[Metric]:
        yield from self.processes.collect()
        for collector in _collectors:
            yield from collector.collect()


def exposition() -> bytes:
    """The text a Prometheus server scrapes (its text format, version 0.0.4)."""
    path = multiprocess_dir()
    processes: Collector
    if path is None:
        processes = REGISTRY  # this process's metrics, with its CPU, memory and GC figures
    else:
        forget_dead_processes(path)
        processes = CollectorRegistry()
        MultiProcessCollector(processes, path=path)
    return generate_latest(_Scrape(processes))
