"""Long engine work (a benchmark, a sweep) in a thread of its own, watched by a page and stoppable.

Streamlit stops a page's script run whenever its user clicks anything, so work done inside the run
dies with any click, and a Cancel could not be told from a click elsewhere. A Job runs the work in a
daemon thread and hands it two hooks: `progress(step, done, total)` (as `Index.build` reports) and `should_stop()`. A page only
watches the job; its Cancel button sets the flag, and the engine stops between two questions or two
trials and returns what it finished (marked incomplete), so "cancelled after n of N" is the engine's
own count, not the page's guess.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

from .errors import PathLensError

T = TypeVar("T")
Progress = Callable[[str, int, int], None]


# an estimate waits for this share of the work and this many seconds of it: the first items carry the warm-up
# (models loading, caches filling), and a rate read off them swung from 395 s to 81 s within two seconds
SETTLE_SHARE, SETTLE_SECONDS = 0.05, 3.0
# counts of whole evaluations (a sweep's trials, a benchmark's questions) are reported as each one ends, so their
# clock starts after the first and holds no warm-up: two of them a second apart already give a rate
COARSE_STEPS = frozenset({"trials", "questions", "retrievers"})


# the rate is read over the last RECENT_SECONDS of a step (once it spans SETTLE_SECONDS), not since its start: a
# build whose encoding sped up past its first half (a cache warm, a core freed) said "about 6 min" at 51% and was
# done 2.3 min later
RECENT_SECONDS = 30.0


def seconds_left(seconds: float, done: int, total: int, coarse: bool = False,
                 since: tuple[float, int] = (0.0, 0)) -> float | None:
    """Time left at the recent rate: over the work done since `since` (the step's seconds and count at the start of
    its recent window, which a job starts past the warm-up) when that window is long enough, else since the step
    began; None until the rate has settled, while a window past the warm-up is too short, or once the count is
    complete."""
    share, wait = (0.0, 1.0) if coarse else (SETTLE_SHARE, SETTLE_SECONDS)
    if not total or not done or done >= total or done < max(share * total, 2 if coarse else 1) or seconds < wait:
        return None
    t0, d0 = since
    if seconds - t0 >= wait and done > d0 > 0:
        return (seconds - t0) / (done - d0) * (total - done)
    if not coarse and d0 >= share * total > 0:
        return None  # the window begins past the warm-up and is too short yet: the rate since the start holds it
    return seconds / done * (total - done)


class Cancelled(PathLensError):
    """Raised inside a job's work when it has been asked to stop."""


@dataclass(frozen=True)
class JobStatus:
    """How far a job is: one type for every job a page follows, an index build's included (its stages are `steps`)."""

    step: str  # what `done` counts ("questions", the index stage in flight, …); "" when nothing is in flight
    done: int
    total: int  # 0 until the work reports a count
    step_seconds: float  # time since this step's first report
    over: bool  # finished, failed or stopped
    cancelled: bool  # a stop was asked for
    error: str | None
    steps: tuple[str, ...] = ()  # a job of named steps (a build's stages), in order; () when it counts one thing
    finished: tuple[str, ...] = ()  # those of `steps` done
    since: tuple[float, int] = (0.0, 0)  # (step_seconds, done) where the recent window the rate is read over begins

    def fraction(self) -> float:
        """Share of the work done: whole steps, plus the counted part of the one in flight."""
        part = self.step_fraction()
        return min(1.0, (len(self.finished) + part) / len(self.steps)) if self.steps else part

    def step_fraction(self) -> float:
        """Share of the step in flight done: what a bar beside its count ("256 of 1,261 passages") shows."""
        return min(1.0, self.done / self.total) if self.total else 0.0

    def seconds_left(self) -> float | None:
        """Time left in the step in flight, at its recent rate; None until it has one."""
        return seconds_left(self.step_seconds, self.done, self.total, coarse=self.step in COARSE_STEPS,
                            since=self.since)


class Job(Generic[T]):
    """Runs `work(progress, should_stop)` in a daemon thread; every method may be called from any thread."""

    def __init__(self, name: str, work: Callable[[Progress, Callable[[], bool]], T]):
        self.name = name
        self._work = work
        self._lock = threading.Lock()
        self._step, self._done, self._total, self._step_started = "", 0, 0, time.perf_counter()
        self._recent: deque[tuple[float, int]] = deque()  # (time, done) of this step's reports, RECENT_SECONDS back
        self._stop = threading.Event()
        self._over = threading.Event()
        self._result: T | None = None
        self._error: str | None = None
        self._thread = threading.Thread(target=self._run, name=f"pathlens-job-{name}", daemon=True)

    def start(self) -> "Job[T]":
        _running.add(self)
        self._thread.start()
        return self

    def _progress(self, step: str, done: int, total: int) -> None:
        now = time.perf_counter()
        with self._lock:
            if step != self._step:
                self._step, self._step_started = step, now
                self._recent.clear()
            self._done, self._total = done, total
            self._recent.append((now, done))
            while len(self._recent) > 1 and now - self._recent[1][0] >= RECENT_SECONDS:
                self._recent.popleft()  # the window's start stays at least RECENT_SECONDS back
            warm = 0.0 if step in COARSE_STEPS else SETTLE_SHARE * total
            while len(self._recent) > 1 and self._recent[0][1] < warm:
                self._recent.popleft()  # nor before the warm-up's end: its slow first items swung the estimate

    def _run(self) -> None:
        try:
            self._result = self._work(self._progress, self._stop.is_set)
        except PathLensError as e:
            self._error = str(e)
        except Exception as e:  # noqa: BLE001 — reported to whoever watches the job, never lost
            self._error = f"{type(e).__name__}: {e}"
        finally:
            self._over.set()
            _running.discard(self)

    def cancel(self) -> None:
        """Ask the work to stop at its next check; it returns what it finished."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once the work is over."""
        return self._over.wait(timeout)

    def status(self) -> JobStatus:
        with self._lock:
            start, counted = self._recent[0] if self._recent else (self._step_started, 0)
            return JobStatus(self._step, self._done, self._total, time.perf_counter() - self._step_started,
                             self._over.is_set(), self._stop.is_set(), self._error,
                             since=(start - self._step_started, counted))

    def result(self) -> T:
        """The work's return value; raises PathLensError if it failed, RuntimeError if it is still running."""
        if not self._over.is_set():
            raise RuntimeError(f"job {self.name!r} is still running")
        if self._error is not None:
            raise PathLensError(self._error)
        return self._result  # type: ignore[return-value]


# Jobs whose work is in flight. At exit they are asked to stop and given a moment to: a daemon thread still inside a
# model's native code when the interpreter finalizes aborts the process ("terminate called without an active
# exception", exit status 134), which a server's shutdown or a test run's end would otherwise report as a crash.
_running: "weakref.WeakSet[Job]" = weakref.WeakSet()
EXIT_WAIT_S = 30.0


@atexit.register
def _stop_running_jobs() -> None:
    jobs = list(_running)
    for job in jobs:
        job.cancel()
    deadline = time.monotonic() + EXIT_WAIT_S
    for job in jobs:
        job.wait(max(0.0, deadline - time.monotonic()))


__all__ = ["Cancelled", "Job", "JobStatus", "Progress", "seconds_left"]

