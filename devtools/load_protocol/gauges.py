"""The server's meters for a phase: CPU seconds and RSS of its process groups (psutil), this process's CPU and the
machine's busy cores between ``begin()`` and ``end()``, the RSS peak sampled in a greenlet."""

from __future__ import annotations

import os
import time

import gevent
import psutil

from devtools.bench_report import load


class ProcessGroups:
    """CPU seconds and RSS summed over the process groups of the given leader pids."""

    def __init__(self, leaders: list[int]) -> None:
        self.groups = {os.getpgid(pid) for pid in leaders}

    def processes(self) -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter(["pid"]):
            try:
                if os.getpgid(process.pid) in self.groups:
                    found.append(process)
            except (ProcessLookupError, PermissionError):
                pass
        return found

    def cpu_seconds(self) -> float:
        total = 0.0
        for process in self.processes():
            try:
                times = process.cpu_times()
                total += times.user + times.system
            except psutil.Error:
                pass
        return total

    def rss_mb(self) -> float:
        total = 0
        for process in self.processes():
            try:
                total += process.memory_info().rss
            except psutil.Error:
                pass
        return total / 2**20


class Gauge:
    """CPU of the server groups, of this process and of the machine between ``begin()`` and ``end()``; RSS peak."""

    def __init__(self, groups: ProcessGroups) -> None:
        self.groups = groups
        self.me = psutil.Process()
        self.peak_rss = 0.0
        self._sampler: gevent.Greenlet | None = None

    def _sample(self) -> None:
        while True:
            self.peak_rss = max(self.peak_rss, self.groups.rss_mb())
            gevent.sleep(0.5)

    def watch(self) -> None:
        self._sampler = gevent.spawn(self._sample)

    def begin(self) -> None:
        self.t0 = time.perf_counter()
        self.server0 = self.groups.cpu_seconds()
        mine = self.me.cpu_times()
        self.me0 = mine.user + mine.system
        self.machine0 = psutil.cpu_times()

    def end(self) -> dict:
        wall = time.perf_counter() - self.t0
        mine = self.me.cpu_times()
        machine = psutil.cpu_times()
        busy = lambda t: t.user + t.nice + t.system + t.irq + t.softirq + t.steal  # noqa: E731
        if self._sampler is not None:
            self._sampler.kill()
        return {
            "server_cores": (self.groups.cpu_seconds() - self.server0) / wall,
            "client_cores": (mine.user + mine.system - self.me0) / wall,
            "machine_busy_cores": (busy(machine) - busy(self.machine0)) / wall,
            "load_average_1min": load(),
            "peak_rss_mb": self.peak_rss,
        }
