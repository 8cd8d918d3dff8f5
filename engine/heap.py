"""Keep process-lifetime models out of the cyclic garbage collector's full passes."""

from __future__ import annotations

import gc
import threading
from functools import lru_cache, wraps
from typing import Callable, TypeVar

T = TypeVar("T")

_lock = threading.Lock()


def settle() -> None:
    """Collect once, then freeze every object alive now, so full collections stop walking them.

    Called right after loading spaCy's pipeline and the sentence-transformers model, which live
    as long as the process: spaCy alone is ~200k tracked objects, and every full collection that
    walked them paused a query by ~0.15–0.2 s (measured on MuSiQue's pooled corpus). Whatever else
    is alive at that moment is frozen too and, should it later become cyclic garbage, is never
    reclaimed; that is bounded to the two loads per process.
    """
    with _lock:
        gc.collect()
        gc.freeze()


def load_once(load: Callable[..., T]) -> Callable[..., T]:
    """`load`, cached per process for each set of arguments, and run once however many threads ask at once.

    Why not `lru_cache` alone: it lets every thread that misses at the same moment run the load. Eight
    sessions opening on a fresh server each loaded spaCy's pipeline and the encoder (a profile of eight rooms
    built at once: 56% of the server's time in those loads), with eight copies alive until the last was
    replaced. One lock for all arguments: loads are rare, and a second one may as well wait."""
    cached = lru_cache(maxsize=None)(load)
    lock = threading.Lock()

    @wraps(load)
    def loaded(*args, **kwargs) -> T:
        with lock:
            return cached(*args, **kwargs)

    return loaded
