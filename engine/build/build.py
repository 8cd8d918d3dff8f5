"""Index builds that run in the background, shared, with progress inside each stage.

A build of a 4,000-passage corpus takes about a minute. Run in the thread that serves a page, it
would die with that page's script run the moment its user clicks elsewhere, and a second user of
the same corpus would start it again. So a build runs in a thread of its own, registered per
(index, stages): whoever asks for the same components gets the same job and reads its progress.
The job outlives the page that started it; a killed process loses only the stage in flight, since
each finished stage is on disk (see engine.store.cache) and the next build reads it back.
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass
from typing import Sequence

from ..errors import PathLensError
from .index import Index
from ..jobs import seconds_left


@dataclass(frozen=True)
class BuildStatus:
    stages: tuple[str, ...]
    finished: tuple[str, ...]  # stages done, in order
    stage: str | None  # the stage in flight, or None when none is
    done: int  # items (passages) of the stage in flight done so far, when the stage reports them
    total: int  # …of this many; 0 when the stage does not report progress
    stage_seconds: float  # time spent on the stage in flight
    error: str | None
    complete: bool  # every stage built, or the build stopped on an error

    def fraction(self) -> float:
        """Share of the build done: whole stages, plus the reported part of the one in flight."""
        part = self.done / self.total if self.total else 0.0
        return min(1.0, (len(self.finished) + part) / max(1, len(self.stages)))

    def seconds_left(self) -> float | None:
        """Time left in the stage in flight, from its rate so far; None until it has a rate."""
        return seconds_left(self.stage_seconds, self.done, self.total)


class BuildJob:
    """Builds `stages` of `index` in a daemon thread; `status()` may be read from any thread."""

    def __init__(self, index: Index, stages: Sequence[str]):
        self._index: Index | None = index  # dropped when done, so a finished job does not keep an index alive
        self.stages = tuple(stages)
        self._lock = threading.Lock()
        self._finished: list[str] = []
        self._stage: str | None = None
        self._started = 0.0
        self._done = self._total = 0
        self._error: str | None = None
        self._complete = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"pathlens-build-{index.corpus.name}", daemon=True)

    def start(self) -> "BuildJob":
        self._thread.start()
        return self

    def _progress(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            if stage == self._stage:
                self._done, self._total = done, total

    def _run(self) -> None:
        try:
            index = self._index
            for stage in self.stages:
                with self._lock:
                    self._stage, self._started, self._done, self._total = stage, time.perf_counter(), 0, 0
                index.build(stage, progress=self._progress)
                with self._lock:
                    self._finished.append(stage)
                    self._stage = None
        except PathLensError as e:
            self._error = str(e)
        except Exception as e:  # noqa: BLE001 — reported to every reader of the job, never lost
            self._error = f"{type(e).__name__}: {e}"
        finally:
            self._index = None
            self._complete.set()

    def status(self) -> BuildStatus:
        with self._lock:
            return BuildStatus(self.stages, tuple(self._finished), self._stage, self._done, self._total,
                               time.perf_counter() - self._started if self._stage else 0.0, self._error,
                               self._complete.is_set())

    def wait(self, timeout: float | None = None) -> bool:
        """True once the build is over (built or failed)."""
        return self._complete.wait(timeout)


# per index (weakly: an index the app has dropped takes its jobs with it), per stages
_jobs: "weakref.WeakKeyDictionary[Index, dict[tuple[str, ...], BuildJob]]" = weakref.WeakKeyDictionary()
_jobs_lock = threading.Lock()


def build_in_background(index: Index, stages: Sequence[str]) -> BuildJob:
    """The running or finished job building `stages` of `index`, started if there is none.

    A job that failed is replaced by a new one when asked again, so a transient error (a full
    disk) can be retried by reloading the page."""
    key = tuple(stages)
    with _jobs_lock:
        jobs = _jobs.setdefault(index, {})
        job = jobs.get(key)
        if job is None or job.status().error is not None:
            job = jobs[key] = BuildJob(index, key).start()
        return job


__all__ = ["BuildJob", "BuildStatus", "build_in_background"]
