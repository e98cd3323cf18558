"""A process group's memory and CPU time read from /proc (Linux, no psutil): the load benchmarks' meters."""

from __future__ import annotations

import os
import threading
import time


def stat_fields(path: str) -> list[str] | None:
    """The fields of a /proc/<pid>/stat (or task stat) file after "pid (comm)": state ppid pgrp ...; None if gone."""
    try:
        with open(path) as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def group_pids(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` now."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(f"/proc/{entry}/stat")
            if fields and int(fields[2]) == pgid:
                pids.append(int(entry))
    return pids


def group_rss_mb(pgid: int) -> float:
    """VmRSS of every process in the group (the server and any children), MB."""
    total_kb = 0
    for pid in group_pids(pgid):
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total_kb += int(line.split()[1])
                        break
        except OSError:
            pass
    return total_kb / 1024


def group_cpu_seconds(pgid: int) -> float:
    """utime + stime of every process in the group so far, seconds."""
    total = 0
    for pid in group_pids(pgid):
        fields = stat_fields(f"/proc/{pid}/stat")
        if fields:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def set_nice(pids, nice: int) -> None:
    """Set every thread of these processes to ``nice`` (only processes this script started)."""
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            fields = stat_fields(f"/proc/{pid}/task/{tid}/stat")
            if fields and int(fields[16]) != nice:  # field 19 of stat: nice
                try:
                    os.setpriority(os.PRIO_PROCESS, int(tid), nice)
                except OSError:
                    pass


def descendants(root: int, exclude_group: int) -> list[int]:
    """The child processes of ``root`` and theirs (the Playwright driver, Chromium), not the server's group."""
    children: dict[int, list[int]] = {}
    groups: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(f"/proc/{entry}/stat")
            if fields:
                children.setdefault(int(fields[1]), []).append(int(entry))
                groups[int(entry)] = int(fields[2])
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if groups.get(pid) != exclude_group:
            found.append(pid)
            todo.extend(children.get(pid, []))
    return found


class RssSampler(threading.Thread):
    """Samples the group's RSS every ``interval`` seconds until stopped; keeps the peak.

    With ``client_nice``, it also keeps the browser's processes at that niceness and the
    server's at 0 (Chromium raises its own browser and GPU processes' priority).
    """

    def __init__(self, pgid: int, interval: float = 0.5, client_nice: int = 0) -> None:
        super().__init__(daemon=True)
        self.pgid, self.interval, self.client_nice = pgid, interval, client_nice
        self.peak = 0.0
        self.samples: list[tuple[float, float]] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        rounds = 0
        while not self._stop_event.is_set():
            rss = group_rss_mb(self.pgid)
            self.samples.append((time.monotonic(), rss))
            self.peak = max(self.peak, rss)
            if self.client_nice and rounds % 4 == 0:
                set_nice(group_pids(self.pgid), 0)
                set_nice(descendants(os.getpid(), self.pgid), self.client_nice)
            rounds += 1
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(5)
