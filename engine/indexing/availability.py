"""Which retrievers can answer now, while an index is still being built.

A room's cheap stages (reading, tokens, BM25, the filings' structure, the regex graph) take seconds; the slow
ones (encoding, spaCy NER) take minutes. Each retriever is ready once its own stages are, and one whose slow
stages are still to come is answered by its catalog stand-in (`RetrieverSpec.stand_in`: filing → filing-graph,
hybrid → bm25, ppr-ner → ppr-regex), which needs none. The Query page, the Corpus page and `engine build` read
this module; it decides nothing about building.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ..catalog import CATALOG, spec, stages_for
from ..components import COMPONENTS, PERSISTED, available, label, parse
from ..retrieve.rrf_retriever import RRFConfig

Stored = Callable[[str], bool]  # whether a stage is built, or on disk for this corpus (`Index.stored`)


def slow_missing(name: str, stored: Stored, rrf_members: Iterable[str] = ()) -> tuple[str, ...]:
    """The slow stages (a model over every passage) `name` still waits for."""
    return tuple(s for s in stages_for([name], tuple(rrf_members) or RRFConfig().members)
                 if COMPONENTS[s].slow and not stored(s))


@dataclass(frozen=True)
class Answerer:
    """Who answers a question asked of `wanted` now."""

    wanted: str
    name: str  # `wanted` when its stages are ready or have no stand-in, else its stand-in
    waiting_on: tuple[str, ...]  # the slow stages `wanted` still needs ("embeddings", "extraction:ner")

    @property
    def standing_in(self) -> bool:
        return self.name != self.wanted

    def words(self) -> str:
        """"dense embeddings (all-MiniLM-L6-v2)", joined with "and"."""
        return " and ".join(label(s) for s in self.waiting_on)


def answerer(wanted: str, stored: Stored, rrf_members: Iterable[str] = ()) -> Answerer:
    """`wanted` if its slow stages are stored, else its stand-in when that needs no slow stage still to come."""
    waiting = slow_missing(wanted, stored, rrf_members)
    stand_in = spec(wanted).stand_in
    if waiting and stand_in is not None and not slow_missing(stand_in, stored):
        return Answerer(wanted, stand_in, waiting)
    return Answerer(wanted, wanted, waiting)


def ready(stored: Stored, names: Iterable[str] = CATALOG) -> tuple[str, ...]:
    """The retrievers whose every stage is stored, in catalog order (RRF with its default members)."""
    return tuple(n for n in names if all(available(s, stored) for s in stages_for([n], RRFConfig().members)))


def cost_order(stage: str) -> int:
    """Cheap stages first, then encoding (the default retrievers' slow stage), then NER's: each retriever is
    ready as early as its own stages allow (a room of filings answers with filing-graph in seconds, filing after
    encoding)."""
    return 2 if parse(stage)[1] == "ner" else 1 if stage in ("embeddings", "ann") else 0


def room_stages() -> list[str]:
    """Every kept stage the catalog's retrievers read, in the order a room is built (`cost_order`)."""
    return sorted((s for s in stages_for(list(CATALOG), RRFConfig().members) if s in PERSISTED), key=cost_order)


__all__ = ["Answerer", "answerer", "cost_order", "ready", "room_stages", "slow_missing"]
