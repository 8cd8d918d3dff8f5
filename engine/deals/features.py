"""Each candidate's features, and each feature in the words a deal team reads.

DealGraph's ten (text similarity, sector match, region match, add-ons, has an exit, degree, is a platform, sector
degree, region degree, text–graph alignment), then recency and size fit, then what the cues ask of the deal beyond
sector and region (subsector, origin, exit route, role, add-ons asked, the period, the share of cues met), then
BM25 and the walk. Values are plain numbers; scaled ones say how (`FEATURES`). A cue the question does not ask
gives 0 on a match feature ("no region asked"), and 1 on a fit (period, size): nothing asked, nothing missed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cues import Cues, period_words, size_words
from .index import Candidates, DealIndex
from .model import EXITS, FIRST_YEAR, LAST_YEAR, ORIGINS, REGIONS, ROLES, SECTOR_OF, SECTORS, Criteria

# key → what it is, in a deal team's words (the words of one deal's value: `feature_words`)
FEATURES = {
    "text": "description reads like the question (cosine)",
    "sector": "sector matches",
    "region": "region matches",
    "add_ons": "add-ons made",
    "exit": "has an exit",
    "degree": "links in the deal graph",
    "platform": "is a platform",
    "sector_degree": "how common its sector is among the deals",
    "region_degree": "how common its region is among the deals",
    "alignment": "description and record agree on the cues",
    "recency": "how recent (0 = first year, 1 = last)",
    "size_fit": "size fits the size asked",
    "subsector": "subsector matches",
    "origin": "origin matches",
    "exit_route": "exit matches",
    "role": "role matches",
    "add_ons_fit": "add-ons made against the add-ons asked",
    "period": "year fits the period asked",
    "cues_met": "share of the asked cues it meets",
    "bm25": "shares the question's words (BM25, against the best candidate)",
    "walk": "reached from the cues in the deal graph (against the best candidate)",
}
NAMES = tuple(FEATURES)


@dataclass(frozen=True, eq=False)
class FeatureTable:
    """One row per candidate (`rows`: deal rows), one column per feature of `NAMES`."""

    rows: np.ndarray
    x: np.ndarray  # (candidates, features), float64
    cues: Cues

    def column(self, name: str) -> np.ndarray:
        return self.x[:, NAMES.index(name)]


def _asked_sectors(c: Criteria) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c.sectors + tuple(SECTOR_OF[s] for s in c.subsectors)))


def _kinds(c: Criteria) -> list[str]:
    """The kinds of cue a question asks, as the alignment feature counts them."""
    kinds = [k for k, v in (("sector", c.sectors or c.subsectors), ("region", c.regions), ("origin", c.origins),
                            ("exit", c.exits)) if v]
    return kinds + (["strategy"] if c.min_add_ons or c.role else [])


def _codes(words, values) -> list[int]:
    return [list(words).index(v) for v in values]


def _fit(values: np.ndarray, low: float | None, high: float | None, log: bool) -> np.ndarray:
    """1 inside [low, high]; outside, e^-distance, the distance in doublings for sizes and in years halved else."""
    gap = np.zeros(len(values))
    if low is not None:
        below = values < low
        gap[below] = (np.log2(low / values[below]) if log else (low - values[below]) / 2)
    if high is not None:
        above = values > high
        gap[above] = (np.log2(values[above] / high) if log else (values[above] - high) / 2)
    return np.exp(-gap)


def build_features(index: DealIndex, cands: Candidates, cues: Cues) -> FeatureTable:
    """The feature table of a question's candidates."""
    c = cues.criteria
    a = index.arrays
    r = cands.rows
    no = np.zeros(len(r), dtype=bool)
    sector_ok = np.isin(a.sector[r], _codes(SECTORS, _asked_sectors(c)))
    sub_ok = np.isin(a.subsector[r], _codes(SECTOR_OF, c.subsectors))
    region_ok = np.isin(a.region[r], _codes(REGIONS, c.regions))
    origin_ok = np.isin(a.origin[r], _codes(ORIGINS, c.origins))
    routes = [e for e in c.exits if e != "any"]
    exit_ok = np.isin(a.exit[r], _codes(EXITS, routes)) | (("any" in c.exits) & (a.exit[r] != 0))
    role_ok = (a.platform[r] == (c.role == "platform")) if c.role else no
    platform = a.platform[r]
    add_ons = a.add_ons[r]
    period_asked = c.year_from is not None or c.year_to is not None
    size_asked = c.size_min is not None or c.size_max is not None
    period = _fit(a.year[r], c.year_from, c.year_to, log=False)
    sizes = a.size[r]
    size = np.ones(len(r)) if not size_asked else np.where(np.isnan(sizes), 0.5, _fit(np.nan_to_num(sizes, nan=1.0),
                                                                                       c.size_min, c.size_max, log=True))
    made = (add_ons >= c.min_add_ons) & platform if c.min_add_ons else no
    # alignment: the cues both the description states and the record confirms, of the cues asked
    said = {k: m[r] for k, m in a.said.items()}
    says = {"sector": said["subsector"][:, _codes(SECTOR_OF, c.subsectors)].any(axis=1) if c.subsectors else
            said["sector"][:, _codes(SECTORS, c.sectors)].any(axis=1),
            "region": said["region"][:, _codes(REGIONS, c.regions)].any(axis=1),
            "origin": said["origin"][:, _codes(ORIGINS, c.origins)].any(axis=1),
            "exit": said["exit"][:, _codes(EXITS, routes if "any" not in c.exits else set(routes) | set(EXITS[1:]))]
            .any(axis=1) | (("any" in c.exits) & said["exit"].any(axis=1)),
            "strategy": (said["add_ons"][:, 0] >= c.min_add_ons) if c.min_add_ons else
            said["role"][:, _codes(ROLES, [c.role] if c.role else [])].any(axis=1)}
    record = {"sector": sub_ok if c.subsectors else sector_ok, "region": region_ok, "origin": origin_ok,
              "exit": exit_ok, "strategy": made if c.min_add_ons else role_ok}
    kinds = _kinds(c)
    agree = sum((record[k] & says[k]).astype(np.float64) for k in kinds) if kinds else np.zeros(len(r))
    asked = sum(bool(v) for v in (c.sectors, c.subsectors, c.regions, c.role, c.origins, c.min_add_ons, c.exits)) \
        + period_asked + size_asked
    met = (sector_ok & bool(c.sectors)).astype(np.float64) + (sub_ok & bool(c.subsectors)) + region_ok + role_ok \
        + origin_ok + made + exit_ok + ((period == 1.0) & period_asked) + ((size == 1.0) & size_asked)
    best_bm25 = float(cands.bm25.max(initial=0.0)) or 1.0
    best_walk = float(cands.walk.scores.max(initial=0.0)) or 1.0
    columns = {
        "text": cands.dense, "sector": sector_ok, "region": region_ok, "add_ons": add_ons, "exit": a.exit[r] != 0,
        "degree": a.degree[r], "platform": platform, "sector_degree": a.sector_share[r],
        "region_degree": a.region_share[r], "alignment": agree / len(kinds) if kinds else np.zeros(len(r)),
        "recency": (a.year[r] - FIRST_YEAR) / (LAST_YEAR - FIRST_YEAR), "size_fit": size, "subsector": sub_ok,
        "origin": origin_ok, "exit_route": exit_ok, "role": role_ok,
        "add_ons_fit": np.minimum(1.0, add_ons / c.min_add_ons) if c.min_add_ons else np.zeros(len(r)),
        "period": period, "cues_met": met / asked if asked else np.zeros(len(r)),
        "bm25": cands.bm25 / best_bm25, "walk": cands.walk.scores / best_walk}
    x = np.column_stack([np.asarray(columns[n], dtype=np.float64) for n in NAMES]) if len(r) else \
        np.zeros((0, len(NAMES)))
    return FeatureTable(cands.rows, x, cues)


def feature_words(index: DealIndex, table: FeatureTable, i: int, name: str) -> str:
    """One candidate's value of one feature, as a sentence fragment: "sector matches (healthcare)"."""
    u, c = index.universe, table.cues.criteria
    row = int(table.rows[i])
    d = u.deals[row]
    v = table.x[i, NAMES.index(name)]

    def match(label: str, asked: bool, value: str) -> str:
        return f"no {label} asked" if not asked else f"{label} {'matches' if v else 'differs'} ({value or 'not stated'})"

    if name == "text":
        return f"description reads like the question ({v:.2f})"
    if name == "sector":
        return match("sector", bool(c.sectors or c.subsectors), d.sector)
    if name == "subsector":
        return match("subsector", bool(c.subsectors), d.subsector)
    if name == "region":
        return match("region", bool(c.regions), d.region)
    if name == "origin":
        return match("origin", bool(c.origins), d.origin)
    if name == "role":
        return match("role", bool(c.role), d.role)
    if name == "exit_route":
        return match("exit", bool(c.exits), "still held" if d.exit == "none" else f"{d.exit} {d.exit_year or ''}".strip())
    if name == "add_ons":
        return f"add-ons made ({int(v)})"
    if name == "add_ons_fit":
        return f"add-ons: {u.add_on_count(row)} made, ≥ {c.min_add_ons} asked" if c.min_add_ons else "no add-ons asked"
    if name == "exit":
        return f"has an exit ({d.exit} {d.exit_year or ''})".replace(" )", ")") if v else "no exit yet"
    if name == "degree":
        return f"links in the deal graph ({int(v)})"
    if name == "platform":
        return "is a platform" if v else "is an add-on"
    if name in ("sector_degree", "region_degree"):
        field = d.sector if name == "sector_degree" else d.region
        # a common sector makes a match say less: the ranker may weigh it down, and the words say why
        return f"how common its {name.split('_')[0]} is ({field}: {v:.0%} of the deals)"
    if name == "alignment":
        kinds = _kinds(c)
        return (f"description and record agree on {round(v * len(kinds))} of {len(kinds)} cues" if kinds
                else "no cue to agree on")
    if name == "recency":
        return f"how recent ({d.year})"
    if name == "period":
        if c.year_from is None and c.year_to is None:
            return "no period asked"
        return f"year {'fits' if v == 1 else 'outside'} the period ({d.year}; {period_words(c.year_from, c.year_to)})"
    if name == "size_fit":
        if c.size_min is None and c.size_max is None:
            return "no size asked"
        stated = f"${d.size:,.0f}m" if d.size is not None else "not stated"
        return f"size {'fits' if v == 1 else 'outside' if d.size is not None else 'unknown'} ({stated}; " \
               f"{size_words(c.size_min, c.size_max)})"
    if name == "cues_met":
        return f"meets {v:.0%} of the asked cues"
    if name == "bm25":
        return f"shares the question's words ({v:.2f} of the best)"
    if name == "walk":
        return f"reached from the cues in the deal graph ({v:.2f} of the best)"
    raise KeyError(name)


__all__ = ["FEATURES", "FeatureTable", "NAMES", "build_features", "feature_words"]
