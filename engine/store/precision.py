"""What passages are encoded in: bfloat16 where the CPU multiplies it natively, float32 elsewhere or when asked
(engine.store.dense runs both; engine.store.cache keys every embedding by it)."""

from __future__ import annotations

import os
from pathlib import Path

PRECISIONS = ("bfloat16", "float32")
PRECISION_ENV = "PATHLENS_ENCODER_PRECISION"


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX-512 BF16 or AMX), read from /proc/cpuinfo;
    False where there is none to read (not Linux): there the float32 path is the fast one."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return any(f in flags.split() for f in ("avx512_bf16", "amx_bf16"))


def passage_precision() -> str:
    """What passages are encoded in: PATHLENS_ENCODER_PRECISION when set, else bfloat16 where the CPU has it.
    Part of every embedding's cache key (engine.store.cache.versions), so the two never mix in one index."""
    forced = os.environ.get(PRECISION_ENV, "").strip()
    if forced:
        if forced not in PRECISIONS:
            from ..errors import PathLensError

            raise PathLensError(f"{PRECISION_ENV}={forced!r}: choose one of {', '.join(PRECISIONS)}")
        return forced
    return "bfloat16" if cpu_has_bf16() else "float32"


__all__ = ["PRECISIONS", "PRECISION_ENV", "cpu_has_bf16", "passage_precision"]
