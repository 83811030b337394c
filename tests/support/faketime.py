"""Sleeping under Debian's faketime with `FAKETIME_DONT_FAKE_MONOTONIC=1`, the way the test
command runs the fast tests a year ahead and a year behind (`scripts/test.sh`).

libfaketime 0.9.10 shifts the absolute deadline of `clock_nanosleep(CLOCK_MONOTONIC,
TIMER_ABSTIME)` by the fake offset even when the monotonic clock is not faked
(wolfcw/libfaketime#426), and Python 3.11's `time.sleep` sleeps exactly that way: every sleep,
and so every `subprocess` wait with a timeout, fails with EINVAL. Faking the monotonic clock as
well is no way out: then lock and event waits never return. A relative wait is left alone, so
under faketime `time.sleep` waits on `select` instead, in the test processes and (through
`faketime_site/sitecustomize.py` on PYTHONPATH) in every Python process they start."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

SITE = Path(__file__).resolve().parent / "faketime_site"


def under_faketime() -> bool:
    return "faketime" in os.environ.get("LD_PRELOAD", "")


def _relative_sleep(seconds: float) -> None:
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        select.select([], [], [], left)


def install() -> None:
    """Makes `time.sleep` work in this process and its Python children under libfaketime."""
    if not under_faketime():
        return
    time.sleep = _relative_sleep
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if str(SITE) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(SITE), *filter(None, paths)])
