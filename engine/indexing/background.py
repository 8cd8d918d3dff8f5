"""Index builds that run in the background, shared, with progress inside each stage.

A build of a 4,000-passage corpus takes about a minute. Run in the thread that serves a page, it
would die with that page's script run the moment its user clicks elsewhere, and a second user of
the same corpus would start it again. So a build runs in a thread of its own, registered per
(index, stages): whoever asks for the same components gets the same job and reads its progress.
The job outlives the page that started it; a killed process loses only the stage in flight, since
each finished stage is on disk (see engine.store.cache) and the next build reads it back.

A job may hold a lease: whoever watches it renews it (`touch`), and once nobody has for `lease`
seconds (every tab that watched it was closed) it stops at its next progress report, killing its
worker processes, instead of spending the machine on an index nobody is waiting for.
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import replace
from typing import Sequence

from .compute import Priority
from .index import Index
from ..jobs import Cancelled, Job, JobStatus


class BuildJob:
    """Builds `stages` of `index` as a background `jobs.Job`; `status()` may be read from any thread."""

    def __init__(self, index: Index, stages: Sequence[str], lease: float | None = None, first: Sequence[str] = ()):
        self.stages = tuple(stages)
        self.passages = len(index.corpus)  # the room's size, which a stage's count of distinct texts is said against
        self.priority = Priority(first)  # documents whose passages are encoded next (the question's filings)
        self.lease = lease
        self._touched = time.monotonic()
        self._finished: list[str] = []  # appended by the job's thread only; read as a snapshot
        held = [index]  # emptied when the work starts, so a finished job does not keep its index alive
        name = index.corpus.name

        def work(progress, should_stop) -> None:
            index = held.pop()

            def report(stage: str, done: int, total: int) -> None:
                if should_stop():
                    raise Cancelled(f"the build of {name} was stopped")
                if self.lapsed():
                    self._job.cancel()
                    raise Cancelled(f"the build of {name} was stopped: nobody watched it for {self.lease:g} s")
                progress(stage, done, total)

            for stage in self.stages:
                report(stage, 0, 0)  # the stage is in flight from here, whether or not it reports counts
                index.build(stage, progress=report, first=self.priority)
                self._finished.append(stage)

        self._job = Job(f"build-{index.corpus.name}", work)

    def start(self) -> "BuildJob":
        self._job.start()
        return self

    def status(self) -> JobStatus:
        """The job's status with the build's stages as its steps: `step` the stage in flight ("" when none)."""
        s = self._job.status()
        finished = tuple(self._finished)
        in_flight = "" if s.over or len(finished) == len(self.stages) else self.stages[len(finished)]
        counting = bool(in_flight) and s.step == in_flight  # counts of a stage just finished are not its successor's
        return replace(s, step=in_flight, done=s.done if counting else 0, total=s.total if counting else 0,
                       step_seconds=s.step_seconds if counting else 0.0, since=s.since if counting else (0.0, 0),
                       steps=self.stages, finished=finished)

    def wait(self, timeout: float | None = None) -> bool:
        """True once the build is over (built, failed or stopped)."""
        return self._job.wait(timeout)

    def touch(self) -> None:
        """Renew the lease: somebody is still watching."""
        self._touched = time.monotonic()

    def lapsed(self) -> bool:
        return self.lease is not None and time.monotonic() - self._touched > self.lease


# per index (weakly: an index the app has dropped takes its jobs with it), per stages
_jobs: "weakref.WeakKeyDictionary[Index, dict[tuple[str, ...], BuildJob]]" = weakref.WeakKeyDictionary()
_jobs_lock = threading.Lock()


def build_in_background(index: Index, stages: Sequence[str], lease: float | None = None,
                        first: Sequence[str] = ()) -> BuildJob:
    """The running or finished job building `stages` of `index`, started if there is none; asking
    for it renews its lease. `lease`: stop the job once nobody has asked for this long (seconds).
    `first`: documents whose passages the job encodes next, ahead of the rest: a running job takes them from its
    next block on (a later question over other filings).

    A job that failed or was stopped is replaced by a new one when asked again, so a transient error
    (a full disk) can be retried by reloading the page, and a build whose tab was closed starts again
    (from the stages it had finished, which are on disk) when a tab asks for it."""
    key = tuple(stages)
    with _jobs_lock:
        jobs = _jobs.setdefault(index, {})
        job = jobs.get(key)
        if job is None or job.status().error is not None:
            job = jobs[key] = BuildJob(index, key, lease, first).start()
        elif first and not job.status().over:
            job.priority.prefer(first)
        job.touch()
        return job


def stopped(index: Index, followed: Sequence[BuildJob]) -> tuple[BuildJob, ...]:
    """The builds of `index` among `followed` that were stopped (a lease that lapsed) and not started again: asking
    for their stages starts each again from the stages on disk. A tab that still watches a room renews its builds
    from reruns a second apart; on a loaded server a rerun came late, the build stopped, and a walk-through's room
    stood still on the Corpus page for 9.5 minutes, until the Query page asked again."""
    with _jobs_lock:
        return tuple(job for job in _jobs.get(index, {}).values() if job in followed and job.status().cancelled)


def running(index: Index) -> tuple[BuildJob, ...]:
    """The builds of `index` still under way (what the Corpus page follows, whoever started them)."""
    with _jobs_lock:
        return tuple(job for job in _jobs.get(index, {}).values() if not job.status().over)


__all__ = ["BuildJob", "build_in_background", "running", "stopped"]
