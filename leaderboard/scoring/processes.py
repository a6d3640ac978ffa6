"""Local processes of a scoring attempt: who it is, whether it still runs, how to stop it.

A scoring attempt runs in rq's work-horse, a child of the `rqworker` process in a process group
of its own (rq calls setpgrp). Its TLC JVMs run in sessions of their own (the sandbox), so
stopping an attempt kills the groups of the horse's descendants first, then the horse's group.
A pid alone can be reused; the process start time (field 22 of /proc/<pid>/stat) makes the
identity unique.
"""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

PROC = Path("/proc")


def identity() -> dict:
    """This process as the reaper will look for it: host, pid, process group, start time."""
    pid = os.getpid()
    return {
        "host": socket.gethostname(),
        "pid": pid,
        "pgid": os.getpgrp(),
        "start": start_time(pid),
    }


def start_time(pid: int) -> int | None:
    """Clock ticks since boot when `pid` started; None when it does not exist (or is a zombie)."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # fields[0] is the state (field 3); the start time is field 22.
    return None if fields[0] == "Z" else int(fields[19])


def is_local(who: dict) -> bool:
    return who.get("host") == socket.gethostname()


def alive(who: dict) -> bool:
    """Whether the process `identity()` described still runs (same host only). A process that
    was SIGKILLed but has not finished exiting is not: on a busy machine the kernel may take
    seconds to tear a large work-horse down, and it can never run another line of its own."""
    started = who.get("start")
    pid = int(who["pid"])
    return started is not None and start_time(pid) == started and not dying(pid)


# Field 9 of /proc/<pid>/stat: the kernel sets PF_EXITING once the process has begun to exit.
PF_EXITING = 0x4
SIGKILL_BIT = 1 << (signal.SIGKILL - 1)


def dying(pid: int) -> bool:
    """Whether `pid` has begun to exit or has a SIGKILL pending (which nothing can block)."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        status = (PROC / str(pid) / "status").read_text()
    except (OSError, IndexError):
        return True
    if int(fields[6]) & PF_EXITING:
        return True
    pending = (
        int(line.split(":", 1)[1], 16)
        for line in status.splitlines()
        if line.startswith(("SigPnd:", "ShdPnd:"))
    )
    return any(mask & SIGKILL_BIT for mask in pending)


def stop(who: dict) -> list[int]:
    """SIGKILL the attempt `who` describes and everything it started; the groups killed."""
    if not (is_local(who) and alive(who)):
        return []
    groups = []
    for pid in descendants(int(who["pid"])):
        try:
            groups.append(os.getpgid(pid))
        except ProcessLookupError:
            pass
    groups.append(int(who["pgid"]))
    killed = []
    for group in dict.fromkeys(groups):
        if group == os.getpgrp():  # never this process's own group (a reaper run by hand)
            continue
        try:
            os.killpg(group, signal.SIGKILL)
            killed.append(group)
        except (ProcessLookupError, PermissionError):
            pass
    return killed


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not (entry.name.isascii() and entry.name.isdigit()):
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
