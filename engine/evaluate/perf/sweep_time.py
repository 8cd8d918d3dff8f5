"""The full default sweep, timed: what the Scale sweep page's default run costs on this corpus."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .common import Context


@dataclass(frozen=True)
class SweepTime:
    wall_s: float
    trials: int
    sizes: list[int]

    def lines(self) -> list[str]:
        return [f"full default sweep: {self.wall_s:.1f} s for {self.trials} trials (sizes {self.sizes})"]


def applies(ctx: Context) -> bool:
    return ctx.options.include_sweep and bool(ctx.corpus.queries)


def measure(ctx: Context) -> SweepTime:
    from ..sweep import SweepConfig, default_sizes, gold_positions, run_sweep

    index = ctx.index
    t0 = time.perf_counter()
    res = run_sweep(index, SweepConfig(sizes=default_sizes(len(index.corpus), len(gold_positions(index.corpus)))))
    return SweepTime(time.perf_counter() - t0, len(res.trials), list(res.sizes))
