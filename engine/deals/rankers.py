"""Four rankers of a question's candidates, one interface, and the precedents they find.

Every ranker turns the candidates into `rank.learned.Parts`: a score per deal that is exactly its base plus the sum
of its named parts.
- learned: the gradient-boosted LambdaRank model trained on reverse queries (`training`), parts by TreeSHAP;
- hand: DealGraph's hand weights (`HandWeights`), each part a weight times a feature scaled to [0, 1];
- dense: the description's cosine with the question, one part;
- walk: the walk's score, one part per kind of cue it started from (PPR is linear in its seeds).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import PathLensError
from ..rank.learned import Parts, Ranker, load
from ..retrieve.retrievers import check_k, check_query
from .cues import CueCorrection, Cues, period_words, read_cues, size_words, unread_words
from .features import FEATURES, NAMES, FeatureTable, build_features, feature_words
from .graph import seed_groups
from .index import PER_SOURCE, Candidates, DealFilters, DealIndex, candidates, filtered_rows
from .model import Deal
from .vectors import question_vector

RANKERS = ("learned", "hand", "dense", "walk")
MODEL = Path(__file__).with_name("precedents_ranker.json")


@dataclass(frozen=True)
class HandWeights:
    """DealGraph's hand weights: text 0.4, sector 0.2, region 0.15, add-ons 0.1 as it gives them; the other 0.15
    split evenly over has an exit, is a platform and recency, the three other features it names that say what a
    precedent is rather than how the graph is shaped. Add-ons count up to 10 (10 or more is 1)."""

    text: float = 0.4
    sector: float = 0.2
    region: float = 0.15
    add_ons: float = 0.1
    exit: float = 0.05
    platform: float = 0.05
    recency: float = 0.05

    def __post_init__(self) -> None:
        values = [getattr(self, f.name) for f in fields(self)]
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1 for v in values):
            raise PathLensError(f"hand weights must be numbers from 0 to 1, got {values}")
        if abs(sum(values) - 1) > 1e-9:
            raise PathLensError(f"hand weights must sum to 1, got {sum(values):g}")


def hand_parts(table: FeatureTable, weights: HandWeights = HandWeights()) -> Parts:
    names = tuple(f.name for f in fields(weights))
    scaled = {"add_ons": np.minimum(table.column("add_ons"), 10) / 10}
    x = np.column_stack([scaled.get(n, table.column(n)) for n in names]) if len(table.rows) else np.zeros((0, len(names)))
    parts = x * np.array([getattr(weights, n) for n in names])
    return Parts(names, 0.0, parts, parts.sum(axis=1))


def dense_parts(table: FeatureTable) -> Parts:
    parts = table.column("text")[:, None].copy()
    return Parts(("text",), 0.0, parts, parts.sum(axis=1))


def walk_parts(cands: Candidates) -> Parts:
    names = tuple(f"walk:{g.label}" for g in cands.walk.groups)
    return Parts(names, 0.0, cands.walk.parts, cands.walk.parts.sum(axis=1))


@lru_cache(maxsize=4)
def learned_model(path: str | Path = MODEL) -> Ranker:
    """The saved learned ranker; one trained on other features is refused, naming the file."""
    model = load(path)
    if model.features != NAMES:
        raise PathLensError(f"{Path(path).name}: the ranker was trained on features {list(model.features)}, not "
                            f"today's {list(NAMES)}; remake it with `python -m engine train-precedents`")
    return model


def rank_parts(ranker: str, table: FeatureTable, cands: Candidates, model: Ranker | None = None) -> Parts:
    """The one interface: any ranker's scores and parts for the candidates."""
    if ranker == "learned":
        return (model or learned_model()).parts(table.x)
    if ranker == "hand":
        return hand_parts(table)
    if ranker == "dense":
        return dense_parts(table)
    if ranker == "walk":
        return walk_parts(cands)
    raise PathLensError(f"ranker: {ranker!r} is not one of {', '.join(RANKERS)}")


@dataclass(frozen=True)
class Part:
    feature: str  # a feature's key, "walk:<cue>" or "base"
    words: str  # in a deal team's words, with the deal's value: "sector matches (healthcare)"
    value: float  # its share of the score


@dataclass(frozen=True)
class RankedDeal:
    rank: int  # 1 = best of the candidates
    deal: Deal
    add_ons: int
    score: float  # == sum of the parts' values (within float error: tested to 1e-9)
    parts: tuple[Part, ...]  # largest in size first; the base last when the ranker has one


@dataclass(frozen=True, eq=False)
class Precedents:
    """A question's answer: what was read, what was searched, and the ranked deals."""

    question: str
    ranker: str
    universe: str
    cues: Cues
    filters: DealFilters
    deals: tuple[RankedDeal, ...]  # the top k
    picked: tuple[RankedDeal, ...]  # deals asked for by id (`include`), wherever they rank
    candidates: int  # deals ranked
    kept: int  # deals the filters kept
    sources: tuple[tuple[str, int], ...]  # (dense / bm25 / walk, deals it added to the candidates)
    seeds: tuple[str, ...]  # the walk's seed groups, in words
    notes: tuple[str, ...]


def _ranked(index: DealIndex, table: FeatureTable, p: Parts, i: int, rank: int, ranker: str) -> RankedDeal:
    row = int(table.rows[i])
    named = []
    for j, name in enumerate(p.features):
        if name.startswith("walk:"):
            words = f"the walk from {name[5:]}"
        else:
            words = feature_words(index, table, i, name) if name in FEATURES else name
        named.append(Part(name, words, float(p.parts[i, j])))
    named.sort(key=lambda x: -abs(x.value))
    if ranker == "learned":
        named.append(Part("base", "the model's average score (every deal's start)", float(p.base)))
    return RankedDeal(rank, index.universe.deals[row], index.universe.add_on_count(row), float(p.scores[i]),
                      tuple(named))


def check_request(question: str, index: DealIndex, ranker: str, filters: DealFilters = DealFilters(),
                  correction: CueCorrection = CueCorrection()) -> Cues:
    """The question's cues, once everything that can fail without the encoder has been checked: the question, the
    ranker, filters that leave nothing, a walk with nowhere to start."""
    check_query(question)
    if ranker not in RANKERS:
        raise PathLensError(f"ranker: {ranker!r} is not one of {', '.join(RANKERS)}")
    cues = read_cues(question, index.lexicon, correction)
    filtered_rows(index.universe, filters)
    if ranker == "walk" and not seed_groups(index.graph, cues.criteria):
        raise PathLensError(f"the walk has nowhere to start: the question names no sector, subsector, region, origin or "
                            f"exit route ({cues.words()}); set one as a cue, or rank with another ranker")
    return cues


def precedence(table: FeatureTable, p: Parts) -> tuple[list[int], list[int]]:
    """(offered, left out): the candidates' indices in the order the page offers them, and those it does not.

    A deal in the asked sector (subsector, where one is asked) comes first, a banker's first test of a precedent;
    then a deal meeting more of the asked cues, its score ordering deals that meet as many. The learned order among
    partial matches is weak (its gold meets every cue): it put a specialty lender meeting 1 of 6 cues above European
    industrial carve-outs meeting 4, and restaurant chains meeting the region and the size above a cybersecurity
    deal (walk-throughs). A deal meeting none of the asked cues is no precedent while others meet some: it is left
    out (a UK pet-products deal, still held, was first for a US renewables IPO). Ties go by universe order."""
    met = table.column("cues_met")
    c = table.cues.criteria
    kind = "subsector" if c.subsectors else "sector" if c.sectors else ""
    sector = table.column(kind) if kind else np.zeros(len(table.rows))
    order = sorted(range(len(table.rows)), key=lambda i: (-sector[i], -met[i], -p.scores[i], int(table.rows[i])))
    offered = [i for i in order if met[i] > 0] or order
    return offered, [i for i in order if met[i] <= 0] if len(offered) < len(order) else []


def unmet_by_all(table: FeatureTable, shown: Sequence[int]) -> list[str]:
    """Each asked cue that none of the `shown` candidates meets, in words ("add-ons ≥ 12, the most made 9; 7 other
    candidates meet it, missing more of the other cues"): a deal team should know which cue no offered precedent
    meets, and whether any candidate does."""
    c, rows = table.cues.criteria, np.asarray(shown, dtype=np.int64)
    period = c.year_from is not None or c.year_to is not None
    sized = c.size_min is not None or c.size_max is not None
    asked = (("subsector" if c.subsectors else "sector", " or ".join(c.subsectors or c.sectors)),
             ("region", " or ".join(c.regions)), ("origin", " or ".join(c.origins)), ("exit", " or ".join(c.exits)),
             ("role", c.role or ""), ("add-ons", f"≥ {c.min_add_ons}" if c.min_add_ons else ""),
             ("period", period_words(c.year_from, c.year_to) if period else ""),
             ("size", size_words(c.size_min, c.size_max) if sized else ""))
    column = {"exit": "exit_route", "add-ons": "add_ons_fit", "size": "size_fit"}  # else the cue's own name
    out = []
    for name, words in asked:
        met = table.column(column.get(name, name)) >= 1
        if words and len(rows) and not met[rows].any():
            most = f", the most made {int(table.column('add_ons')[rows].max())}" if name == "add-ons" else ""
            others = int(met.sum())
            elsewhere = (f"; {others} other candidate{'s' if others != 1 else ''} meet{'s' if others == 1 else ''} it, "
                         "missing more of the other cues" if others else "; no candidate does")
            out.append(f"{name} {words}{most}{elsewhere}")
    return out


def find_precedents(question: str, index: DealIndex, ranker: str = "learned", k: int = 10,
                    filters: DealFilters = DealFilters(), correction: CueCorrection = CueCorrection(),
                    include: Sequence[str] = (), per_source: int = PER_SOURCE, model: Ranker | None = None,
                    q: np.ndarray | None = None) -> Precedents:
    """Precedents for `question` among `index`'s deals: cues read (and corrected), candidates from the rows the
    filters keep, features, and the top `k` by `ranker`, each with parts summing to its score. `include` names
    deals (by id) to score wherever they rank ("why not this one"); `q` a question vector already computed."""
    k = check_k(k)
    cues = check_request(question, index, ranker, filters, correction)
    q = question_vector(question) if q is None else q
    cands = candidates(index, question, q, cues, filters, per_source, include)
    if ranker == "walk" and not cands.walk.groups:
        raise PathLensError(f"the walk has nowhere to start among the deals the filters keep ({filters.words()}): no "
                            "exit of the route asked is among them; loosen a filter, or rank with another ranker")
    table = build_features(index, cands, cues)
    p = rank_parts(ranker, table, cands, model)
    offered, unmet = precedence(table, p)
    order = offered + unmet
    rank_of = {i: r for r, i in enumerate(order, start=1)}
    top = tuple(_ranked(index, table, p, i, r, ranker) for r, i in enumerate(offered[:k], start=1))
    wanted = {index.universe.rows[d] for d in include}
    picked = tuple(_ranked(index, table, p, i, rank_of[i], ranker) for i in range(len(cands.rows))
                   if int(cands.rows[i]) in wanted)
    notes = []
    if unread := unread_words(question, index.lexicon, cues):
        notes.append("not read as any cue, so counted only by the description search: "
                     + ", ".join(f"“{w}”" for w in unread))
    if missed := unmet_by_all(table, offered[:k]):
        notes.append("no deal offered meets " + " · ".join(missed))
    if unmet:
        notes.append(f"{len(unmet)} of the {len(order)} candidates meet none of the asked cues "
                     f"({cues.words().removeprefix('understood as: ')}) and are not offered as precedents")
    if k > len(offered):
        held = (f"the candidates hold {len(order)}" if len(offered) == len(order)
                else f"{len(offered)} candidates meet an asked cue")
        notes.append(f"{k} deals were asked for; {held}, so all are shown")
    if not cands.walk.groups:
        notes.append("the walk had nowhere to start (no sector, region, origin or exit route was read), so it added "
                     "no candidate and its feature is 0 for every deal")
    return Precedents(question, ranker, index.universe.name, cues, filters, top, picked, len(cands.rows), cands.kept,
                      cands.sources, tuple(g.label for g in cands.walk.groups), tuple(notes))


__all__ = ["HandWeights", "MODEL", "Part", "Precedents", "RANKERS", "RankedDeal", "check_request", "dense_parts",
           "find_precedents", "hand_parts", "learned_model", "precedence", "rank_parts", "walk_parts"]
