"""A universe made searchable, its hard filters, and the candidates a question gets.

`DealIndex` holds what a question reads: each deal's text and its vector, BM25 over the texts, the typed graph, and
what each description itself says (its cues, for the text–graph alignment feature). Candidates come from three
sources over the deals the filters keep, each taking its top `per_source`: dense similarity to the question, BM25,
and the walk seeded on the cues. Filters are applied first, to the rows each source scores (the walk runs on the
graph without the filtered-out deals), never to a finished ranking, and a filter that leaves nothing stops the
search with what each filter alone would keep: fail loudly, never silently degrade.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import PathLensError
from ..retrieve.bm25_retriever import BM25Retriever
from ..store.cache import DiskCache
from ..text import tokenize
from .cues import Cues, description_cues, period_words
from .graph import DealGraph, Walk, build_graph, seed_groups, walk
from .lexicon import Lexicon, load_lexicon
from .model import EXITS, ORIGINS, REGIONS, ROLES, SECTOR_OF, SECTORS, Criteria, Deal, Universe
from .vectors import text_vectors

PER_SOURCE = 100  # candidates each source adds: 98% of the tune half's gold deals are among them (docs/precedents.md)


def deal_text(d: Deal) -> str:
    """What dense and BM25 read of a deal: its description, led by its name when the description lacks it."""
    if not d.description:
        return d.name
    return d.description if d.name in d.description else f"{d.name}: {d.description}"


@dataclass(frozen=True, eq=False)
class DealArrays:
    """The universe's fields as arrays (codes index the model's word lists), so features are computed for hundreds
    of candidates in a few array operations rather than a loop over deals."""

    sector: np.ndarray  # code in SECTORS
    subsector: np.ndarray  # code in SECTOR_OF, -1 when unknown
    region: np.ndarray
    origin: np.ndarray  # -1 when unknown
    exit: np.ndarray  # code in EXITS (0: none)
    platform: np.ndarray  # bool
    year: np.ndarray
    size: np.ndarray  # NaN when not stated
    add_ons: np.ndarray
    degree: np.ndarray  # the deal node's edges
    sector_share: np.ndarray  # the share of the universe's deals in the deal's sector (its sector node's degree)
    region_share: np.ndarray
    said: dict[str, np.ndarray]  # what each description states: per kind, a deal × word-list bool matrix


def deal_arrays(u: Universe, g: DealGraph, said: Sequence[Criteria]) -> DealArrays:
    sectors, subs = list(SECTORS), list(SECTOR_OF)
    degree = g.degree
    n = max(len(u), 1)

    def code(words: Sequence[str], value: str) -> int:
        return words.index(value) if value else -1

    def matrix(words: Sequence[str], of) -> np.ndarray:
        m = np.zeros((len(u), len(words)), dtype=bool)
        for i, c in enumerate(said):
            m[i, [words.index(v) for v in of(c)]] = True
        return m

    return DealArrays(
        np.array([code(sectors, d.sector) for d in u.deals]), np.array([code(subs, d.subsector) for d in u.deals]),
        np.array([code(REGIONS, d.region) for d in u.deals]), np.array([code(ORIGINS, d.origin) for d in u.deals]),
        np.array([code(EXITS, d.exit) for d in u.deals]), np.array([d.role == "platform" for d in u.deals]),
        np.array([d.year for d in u.deals], dtype=np.float64),
        np.array([np.nan if d.size is None else d.size for d in u.deals], dtype=np.float64),
        np.array([u.add_on_count(i) for i in range(len(u))], dtype=np.float64), degree[:len(u)].copy(),
        np.array([degree[g.index[("sector", d.sector)]] / n for d in u.deals]),
        np.array([degree[g.index[("region", d.region)]] / n for d in u.deals]),
        {"sector": matrix(sectors, lambda c: set(c.sectors) | {SECTOR_OF[s] for s in c.subsectors}),
         "subsector": matrix(subs, lambda c: c.subsectors), "region": matrix(REGIONS, lambda c: c.regions),
         "origin": matrix(ORIGINS, lambda c: c.origins), "exit": matrix(EXITS + ("any",), lambda c: c.exits),
         "add_ons": np.array([c.min_add_ons for c in said], dtype=np.float64)[:, None],
         "role": matrix(ROLES, lambda c: (c.role,) if c.role else ())})


@dataclass(frozen=True, eq=False)
class DealIndex:
    universe: Universe
    texts: tuple[str, ...]
    vectors: np.ndarray  # (deals, 384) float32, unit rows
    bm25: BM25Retriever
    graph: DealGraph
    said: tuple[Criteria, ...]  # what each description states, read as a question's cues are
    lexicon: Lexicon
    arrays: DealArrays


def build_index(u: Universe, cache: DiskCache | None = None, lexicon: Lexicon | None = None,
                on_batch=None, vectors: np.ndarray | None = None) -> DealIndex:
    """The index of a universe; its vectors given, else from the cache, else encoded (slow once: `vectors`)."""
    lexicon = lexicon or load_lexicon()
    texts = tuple(deal_text(d) for d in u.deals)
    if vectors is None:
        vectors = text_vectors(texts, cache, on_batch)
    elif vectors.shape != (len(u), text_vectors([], cache).shape[1]):
        raise PathLensError(f"vectors of shape {vectors.shape} do not fit {len(u)} deals")
    bm25 = BM25Retriever([d.id for d in u.deals], [tokenize(t) for t in texts])
    said = tuple(description_cues(d.description, lexicon) if d.description else Criteria() for d in u.deals)
    graph = build_graph(u)
    return DealIndex(u, texts, vectors, bm25, graph, said, lexicon, deal_arrays(u, graph, said))


_BUNDLED: dict[int, DealIndex] = {}


def bundled_index(cache: DiskCache | None = None, on_batch=None) -> DealIndex:
    """The bundled universe's index, built once a process (the page, the CLI and the tests share it)."""
    from .generator import DEFAULT_SEED, bundled_universe

    if DEFAULT_SEED not in _BUNDLED:
        _BUNDLED[DEFAULT_SEED] = build_index(bundled_universe(DEFAULT_SEED), cache, on_batch=on_batch)
    return _BUNDLED[DEFAULT_SEED]


@dataclass(frozen=True)
class DealFilters:
    """Hard filters: a deal outside them is never scored. Empty: no filter on that field."""

    sectors: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None

    def __post_init__(self) -> None:
        for name, values, allowed in (("sector", self.sectors, SECTORS), ("region", self.regions, REGIONS)):
            for v in values:
                if v not in allowed:
                    raise PathLensError(f"filter {name}: {v!r} is not one of {', '.join(allowed)}")
        for name in ("year_from", "year_to"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not 1950 <= v <= 2100):
                raise PathLensError(f"filter {name}: must be a year such as 2015, got {v!r}")
        if self.year_from is not None and self.year_to is not None and self.year_from > self.year_to:
            raise PathLensError(f"filter years: {self.year_from} is after {self.year_to}")

    @property
    def empty(self) -> bool:
        return self == DealFilters()

    def words(self) -> str:
        if self.empty:
            return "no filter"
        parts = [" or ".join(v) for v in (self.sectors, self.regions) if v]
        if self.year_from is not None or self.year_to is not None:
            parts.append(period_words(self.year_from, self.year_to))
        return " · ".join(parts)

    def keeps(self, d: Deal) -> bool:
        return ((not self.sectors or d.sector in self.sectors) and (not self.regions or d.region in self.regions)
                and (self.year_from is None or d.year >= self.year_from)
                and (self.year_to is None or d.year <= self.year_to))


def _keeps(u: Universe, f: DealFilters) -> np.ndarray:
    return Criteria(sectors=f.sectors, regions=f.regions, year_from=f.year_from, year_to=f.year_to).mask(u)


def filtered_rows(u: Universe, f: DealFilters) -> np.ndarray:
    """The rows the filters keep; none is a PathLensError saying what each filter alone keeps."""
    if f.empty:
        return np.arange(len(u))
    rows = np.flatnonzero(_keeps(u, f))
    if len(rows) == 0:
        alone = []
        for part, label in ((DealFilters(sectors=f.sectors), " or ".join(f.sectors)),
                            (DealFilters(regions=f.regions), " or ".join(f.regions)),
                            (DealFilters(year_from=f.year_from, year_to=f.year_to),
                             period_words(f.year_from, f.year_to))):
            if not part.empty:
                alone.append(f"{label}: {int(_keeps(u, part).sum()):,}")
        raise PathLensError(f"the filters ({f.words()}) leave no deal of {u.name} to rank; each alone keeps "
                            f"{'; '.join(alone)} of {len(u):,} deals. Loosen a filter.")
    return rows


@dataclass(frozen=True, eq=False)
class Candidates:
    """The deals a question ranks, with what each source said of them (aligned with `rows`)."""

    rows: np.ndarray  # deal rows, ascending
    dense: np.ndarray  # cosine of the deal's text with the question
    bm25: np.ndarray  # BM25 score of the deal's text (0: no shared word)
    walk: Walk  # the walk's scores and parts, for `rows`
    kept: int  # deals the filters kept (the pool every source scored)
    sources: tuple[tuple[str, int], ...]  # (source, deals it added)


def candidates(index: DealIndex, question: str, q: np.ndarray, cues: Cues, filters: DealFilters = DealFilters(),
               per_source: int = PER_SOURCE, include: Sequence[str] = ()) -> Candidates:
    """Dense, BM25 and the walk over the rows the filters keep, each adding its top `per_source`; the deals
    `include` names (ids) are candidates too, wherever they rank (a deal the filters leave out is an error)."""
    if per_source < 1:
        raise PathLensError(f"per_source must be at least 1, got {per_source}")
    u = index.universe
    rows = filtered_rows(u, filters)
    wanted = []
    for deal_id in include:
        if deal_id not in u.rows:
            raise PathLensError(f"deal {deal_id!r} is not a deal of {u.name}")
        if not filters.keeps(u.deals[u.rows[deal_id]]):
            raise PathLensError(f"deal {deal_id!r} ({u.deals[u.rows[deal_id]].name}) is outside the filters "
                                f"({filters.words()})")
        wanted.append(u.rows[deal_id])
    dense = index.vectors[rows] @ np.asarray(q, dtype=np.float32)
    counts = Counter(t for t in tokenize(question) if t in index.bm25.vocab)
    qv = np.zeros(index.bm25.weights.shape[1])
    for term, n in counts.items():
        qv[index.bm25.vocab[term]] = n
    bm25 = np.asarray(index.bm25.weights[rows] @ qv).ravel()
    w = walk(index.graph, seed_groups(index.graph, cues.criteria), None if filters.empty else rows)
    chosen = np.zeros(len(rows), dtype=bool)
    sources = []
    for name, scores in (("dense", dense), ("bm25", bm25), ("walk", w.scores)):
        top = np.argsort(-scores, kind="stable")[:per_source]
        top = top[scores[top] > 0] if name != "dense" else top
        sources.append((name, int((~chosen[top]).sum())))
        chosen[top] = True
    chosen[np.searchsorted(rows, wanted)] = True
    pick = np.flatnonzero(chosen)
    part = Walk(w.rows[pick], w.scores[pick], w.parts[pick], w.groups)
    return Candidates(rows[pick], dense[pick].astype(np.float64), bm25[pick], part, len(rows), tuple(sources))


__all__ = ["Candidates", "DealFilters", "DealIndex", "PER_SOURCE", "build_index", "bundled_index", "candidates",
           "deal_text", "filtered_rows"]
