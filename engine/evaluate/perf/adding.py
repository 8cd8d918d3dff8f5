"""A data room that grows: the room built without one of its documents, then that document added, against a cold
build of the whole room, in one run, each in a fresh interpreter (perf.child, as the cold build section). The grown
cache must equal the cold one file for file; the section fails otherwise."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from ...errors import PathLensError
from ...ingest.corpus import CORPUS_SUFFIXES
from .common import Context, run_json


@dataclass(frozen=True)
class AddDocument:
    added: str  # the document added to the room built without it
    documents: int  # in the whole room
    cold_s: float  # a cold build of the whole room (fresh process, empty cache)
    without_s: float  # the room without the document, built cold (not part of the ratio)
    add_s: float  # then the whole room on that cache: the added document's work, and rebuilding the rest from parts
    identical_files: int  # component files of the grown cache, each equal byte for byte to the cold build's
    add_stages_s: dict[str, float]  # where the add's time went, stage by stage (the rest: start-up and reading)

    @property
    def ratio(self) -> float:
        return self.add_s / self.cold_s

    def lines(self) -> list[str]:
        return [f"adding {self.added} to the built room of the {self.documents - 1} other documents: {self.add_s:.1f} s "
                f"against {self.cold_s:.1f} s for a cold build of all {self.documents}, a ratio of {self.ratio:.2f} "
                f"(the room without it built in {self.without_s:.1f} s); the grown cache equals the cold one, "
                f"{self.identical_files} component files byte for byte",
                "  the add (s): " + ", ".join(f"{k} {v:.1f}" for k, v in self.add_stages_s.items() if v >= 0.05)
                + f"; start-up and reading the files {self.add_s - sum(self.add_stages_s.values()):.1f}"]


def _documents(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in CORPUS_SUFFIXES)


def applies(ctx: Context) -> bool:
    return Path(ctx.spec).is_dir() and len(_documents(Path(ctx.spec))) >= 2


def measure(ctx: Context) -> AddDocument:
    return add_document(Path(ctx.spec), ctx.options.add_document)


def _build(folder: Path, cache_dir: Path) -> dict:
    return run_json("the build process", "engine.evaluate.perf.child", "build", str(folder), str(cache_dir))


def _room(where: Path, docs: list[Path]) -> Path:
    """A folder of links to `docs`: the same file names (a passage's id is its file's), no copies."""
    where.mkdir()
    for d in docs:
        (where / d.name).symlink_to(d.resolve())
    return where


def add_document(folder: Path, name: str = "") -> AddDocument:
    docs = _documents(folder)
    added = next((d for d in docs if d.name == name), None) if name else docs[-1]
    if added is None:
        raise PathLensError(f"--add-document: no document {name!r} in {folder}; choose from "
                            + ", ".join(d.name for d in docs))
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as tmp:
        tmp = Path(tmp)
        whole, without = _room(tmp / "room", docs), _room(tmp / "room-without", [d for d in docs if d != added])
        cold_cache, grown_cache = tmp / "cold-cache", tmp / "grown-cache"
        cold = _build(whole, cold_cache)
        without = _build(without, grown_cache)
        add = _build(whole, grown_cache)
        files = {p.name: p.read_bytes() for p in cold_cache.glob("*.cache")}
        different = sorted(n for n, b in files.items() if not (grown_cache / n).exists()
                           or (grown_cache / n).read_bytes() != b)
        if not files or different:
            raise PathLensError("the grown cache differs from the cold build's: " + ", ".join(different or ["empty"]))
    return AddDocument(added.name, len(docs), cold["total_s"], without["total_s"], add["total_s"], len(files),
                       {k: round(v, 2) for k, v in add["stages_s"].items()})


__all__ = ["AddDocument", "add_document"]
