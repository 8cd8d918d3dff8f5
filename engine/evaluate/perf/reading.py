"""Reading a folder's documents in worker processes (engine.ingest.isolated, what ingestion does) against reading
them in this process (no time limit, no memory cap, one PDF at a time): the price of isolation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import PathLensError
from .common import Context, median_time


@dataclass(frozen=True)
class ReadIsolation:
    files: int
    in_process_s: float
    isolated_s: float

    def lines(self) -> list[str]:
        return [f"reading {self.files} documents: {self.in_process_s:.2f} s in this process, {self.isolated_s:.2f} s in "
                f"worker processes (limits on, one per core); the isolation costs "
                f"{self.isolated_s - self.in_process_s:+.2f} s"]


def applies(ctx: Context) -> bool:
    return Path(ctx.spec).is_dir()  # a folder of documents (a bundled corpus is Markdown, read in process)


def measure(ctx: Context) -> ReadIsolation:
    return read_isolation(ctx.spec)


def read_isolation(spec: str, repeats: int = 3) -> ReadIsolation:
    from ...ingest.documents import SourceFile, read_document
    from ...ingest.isolated import ReadLimits, read_many

    folder = Path(spec)
    if not folder.is_dir():
        raise PathLensError(f"read_isolation reads a folder of documents; {spec!r} is not one")
    sources = [SourceFile(p.name, p.read_bytes()) for p in sorted(folder.iterdir())
               if p.suffix.lower() in (".pdf", ".docx", ".html", ".htm")]
    return ReadIsolation(files=len(sources),
                         in_process_s=median_time(lambda: [read_document(s) for s in sources], repeats),
                         isolated_s=median_time(lambda: read_many(sources, ReadLimits()), repeats))
