"""`python -m engine build` that stops itself at a named point and waits there to be killed.

    python -m tests.killable_build POINT -- BUILD-ARGS…

POINT is where the build holds, with half of that step's work done in memory:
- extraction: after extracting the first half of the passages;
- encoding: after encoding the first half of the passages;
- cache-write: after writing the first half of a cache file's bytes (the embeddings').
Once there it prints "at POINT" and sleeps, so the test (tests/test_kill_restart.py) kills it at
a moment it knows, not one a timer hopes for.
"""

from __future__ import annotations

import sys
import time

from engine import cli
from engine.indexing import compute as compute_module
from engine.store import cache as cache_module
from engine.store import dense


def hold(point: str) -> None:
    print(f"at {point}", flush=True)
    time.sleep(3600)


def arm(point: str) -> None:
    if point == "extraction":
        real_extract = compute_module.extract

        def extract(builder, texts, on_batch=None):
            real_extract(builder, texts[: len(texts) // 2])
            hold(point)

        compute_module.extract = extract
    elif point == "encoding":
        real_encode = dense.encode

        def encode(texts, on_batch=None, **kw):
            real_encode(texts[: len(texts) // 2], **kw)
            hold(point)

        dense.encode = encode
    elif point == "cache-write":
        real_store, real_write = cache_module.DiskCache.store, cache_module._write_all
        writing = [""]

        def store(self, fingerprint, component, value):
            writing[0] = component
            return real_store(self, fingerprint, component, value)

        def write_all(f, blob):
            if writing[0] != "embeddings":
                return real_write(f, blob)
            f.write(blob[: len(blob) // 2])
            f.flush()
            hold(point)

        cache_module.DiskCache.store, cache_module._write_all = store, write_all
    else:
        raise SystemExit(f"unknown point {point!r}")


if __name__ == "__main__":
    point, sep, *args = sys.argv[1:]
    assert sep == "--", "usage: python -m tests.killable_build POINT -- BUILD-ARGS…"
    arm(point)
    sys.exit(cli.main(["build", *args]))
