"""Building and caching an index's components: each built once, under its own lock, read back from the on-disk
cache when it is there, and never changed after, so one index can serve many threads.

One lock per component, not one for the index: a question reading built components never waits on another
component's build (tested), and components depend on one another by key, never in a cycle, so no build deadlocks.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import numpy as np

from ..components import PERSISTED, check_part
from ..store.cache import DiskCache

Progress = Callable[[str, int, int], None]  # (component, done, total)


class Memo:
    """The built components of one corpus (`fingerprint`), by key, with the time each took to build or load."""

    def __init__(self, fingerprint: str, cache: DiskCache | None = None):
        self.fingerprint = fingerprint
        self.cache = cache
        self._values: dict[str, object] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._progress = threading.local()  # the progress callback of the build running in this thread
        self.timings: dict[str, float] = {}

    def get(self, key: str, build: Callable[[], object]):
        """The component `key`: built, loaded from the cache, or built now by `build()` and kept (and stored on disk
        when it is a persisted kind). Arrays are made read-only: every reader shares them. A key of a kind
        engine.components does not name is refused."""
        if key in self._values:  # built: no lock (a dict read is atomic, and values are never replaced)
            return self._values[key]
        check_part(key)
        with self._lock_for(key):
            if key not in self._values:
                t0 = time.perf_counter()
                value = self.cache.load(self.fingerprint, key) if self.cache is not None and key in PERSISTED else None
                if value is None:
                    value = build()
                    if self.cache is not None and key in PERSISTED:
                        self.cache.store(self.fingerprint, key, value)
                if isinstance(value, np.ndarray):
                    value.setflags(write=False)
                self._values[key] = value
                self.timings[key] = time.perf_counter() - t0
            return self._values[key]

    def put(self, key: str, value: object) -> None:
        """Keep a component made elsewhere (a slice of a bigger index's): what `get` will return."""
        check_part(key)
        self._values[key] = value

    def has(self, key: str) -> bool:
        return key in self._values

    def snapshot(self) -> dict[str, object]:
        """What is built now, by key (a copy: builds in other threads may add to it meanwhile)."""
        return dict(self._values)

    def stored(self, key: str) -> bool:
        """Built here, or on disk for this corpus (what a resumed build will read instead of computing)."""
        return key in self._values or (self.cache is not None and key in PERSISTED
                                       and self.cache.path(self.fingerprint, key).exists())

    @contextmanager
    def reporting(self, progress: Progress | None) -> Iterator[None]:
        """Within it, builds in this thread report their progress to `progress`."""
        self._progress.fn = progress
        try:
            yield
        finally:
            self._progress.fn = None

    def tick(self, key: str) -> Callable[[int, int], None] | None:
        """(done, total) → this thread's progress callback for component `key`; None when nobody listens."""
        progress = getattr(self._progress, "fn", None)
        return (lambda done, total: progress(key, done, total)) if progress else None

    def _lock_for(self, key: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(key, threading.Lock())


__all__ = ["Memo", "Progress"]
