"""What the commands share: opening a corpus and its index, and printing tables and progress."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from ..indexing.index import Index
from ..ingest.corpus import load_corpus
from .options import CLI_DEFAULT_CORPUS


def open_index(corpus, cache_dir: str | None = None, compute=None) -> Index:
    """An index that reads and writes the on-disk cache (`cache_dir`, else the default); rejected
    cache files are reported. `compute`: where extraction and encoding run (default: this machine)."""
    from ..indexing.compute import LocalCompute
    from ..store.cache import DiskCache

    def report(event) -> None:
        if event.kind == "rejected":
            print(f"note: cache {event.component}: {event.detail}", file=sys.stderr)

    cache = DiskCache(Path(cache_dir) if cache_dir else None, on_event=report)
    return Index(corpus, cache=cache, compute=compute or LocalCompute())



def snippet(text: str, n: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"



def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)



def load(spec: str | None, queries: str | None = None):
    """Load a corpus and say on stderr what was left out of it (files, pages, running headers)."""
    corpus = load_corpus(spec or CLI_DEFAULT_CORPUS, queries=queries)
    for problem in corpus.report.skipped:
        print(f"note: skipped {problem}", file=sys.stderr)
    for problem in corpus.report.questions_left_out:
        print(f"note: left out a labeled question: {problem}", file=sys.stderr)
    for line in corpus.report.dropped:
        print(f"note: {line.file}: dropped the running line {line.example!r} from {line.pages} pages", file=sys.stderr)
    return corpus



def print_eval(result, title: str) -> None:
    metrics = list(next(iter(result.results.values())).means)
    print(title)
    print(table(["retriever"] + metrics, [[n] + [r.means[m] for m in metrics] for n, r in result.results.items()]))



def progress_line():
    """`progress(step, done, total)` printed on one stderr line per step."""
    last = [""]

    def show(step: str, done: int, total: int) -> None:
        if last[0] and step != last[0]:
            print(file=sys.stderr)
        last[0] = step
        print(f"\r{step}: {done:,}/{total:,}", end="", file=sys.stderr, flush=True)

    return show



def progress_bars():
    """`progress(stage, done, total)` as one tqdm bar per stage on stderr, and a function closing them."""
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def show(stage: str, done: int, total: int) -> None:
        if stage not in bars:
            for bar in bars.values():
                bar.close()
            bars[stage] = tqdm(total=total, desc=stage, unit="passage", file=sys.stderr, mininterval=0.5,
                               dynamic_ncols=True)
        bars[stage].update(done - bars[stage].n)

    def close() -> None:
        for bar in bars.values():
            bar.close()

    return show, close
