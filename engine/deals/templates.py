"""Questions written in reverse from known deals, to train and test the learned ranker without an LLM.

A template family is one phrasing style with its own paraphrase lists (`phrasing`): a banker's shorthand ("US
dental roll-ups 2015+"), a full question, a comps request, an exit-focused ask, a memo line, plain English ("dentists
in America that bought lots of smaller companies"). Each question starts from one deal, takes some of its
attributes, says them in the family's words, and records them as criteria: its gold is every deal that meets all of
them, judged by attributes (the deal it started from among them).

The split: families A, B, C and E with the sectors outside `HELD_OUT_SECTORS` train; families D and F with the
held-out sectors test, so a test question's phrasing and sector were never trained on. A family's words were
written for the family, not read off the lexicon: plain English in particular says much the lexicon does not know.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from .model import LAST_YEAR, Criteria, Universe
from .phrasing import EXIT_WORDS, ORIGIN_WORDS, REGION_WORDS, SECTOR_WORDS, STRATEGY_WORDS, subsector_words

FAMILIES = ("A", "B", "C", "D", "E", "F")
TRAIN_FAMILIES = ("A", "B", "C", "E")
TEST_FAMILIES = ("D", "F")
HELD_OUT_SECTORS = ("industrials", "financial services", "education")
PER_FAMILY = 260  # questions drawn per family, before the split
MAX_GOLD = 200  # a question more than this many deals meet says too little to rank by
SEED = 62


@dataclass(frozen=True)
class TemplateQuery:
    id: str
    family: str
    text: str
    criteria: Criteria
    sector: str  # the sector of the deal it was written from: the split's unit
    split: str  # "train", "test" (held-out family and sector) or "other" (one of the two held out: unused)


def _period(rng: random.Random, family: str, year: int) -> tuple[str, int | None, int | None]:
    """Words for a period holding `year`, in the family's style, and the years they mean."""
    options = []
    if year <= 2007:
        options.append(({"A": "pre-GFC", "D": "before the financial crisis", "F": "before 2008"}.get(family, "pre-GFC"),
                        None, 2007))
    if year >= LAST_YEAR - 4:
        options.append(({"D": "recent", "F": "in the last few years"}.get(family, "recent"), LAST_YEAR - 4, None))
    if year >= LAST_YEAR - 9:
        options.append(({"D": "in the last ten years", "F": "over the past decade"}.get(family, "last ten years"),
                        LAST_YEAR - 9, None))
    start = rng.randint(max(2005, year - 4), year)
    options.append(({"A": f"{start}+", "B": f"since {start}", "D": f"from {start} onward", "E": f"vintage {start}+",
                     "F": f"since {start}"}.get(family, f"since {start}"), start, None))
    end = min(LAST_YEAR, start + rng.choice((4, 5, 9)))
    options.append(({"B": f"between {start} and {end}", "E": f"period {start}-{end}", "D": f"done {start} to {end}"}
                    .get(family, f"between {start} and {end}"), start, end))
    return rng.choice(options)


def _size(rng: random.Random, size: float | None) -> tuple[str, float | None, float | None] | None:
    if size is None:
        return None
    options = []
    if size < 100:
        options.append(("lower mid-market", None, 100.0))
    if 50 <= size <= 500:
        options.append(("mid-market", 50.0, 500.0))
    if size > 1000:
        options.append(("large-cap", 1000.0, None))
    floor = next((v for v in (1000, 500, 250, 100, 50) if size > v), None)
    if floor:
        options.append((f"EV over ${floor}m", float(floor), None))
    return rng.choice(options) if options else None


def _write(rng: random.Random, family: str, u: Universe, row: int) -> tuple[str, Criteria] | None:
    """One question in `family`'s style from deal `row`, and its criteria; None when the deal does not suit it."""
    d = u.deals[row]
    add_ons = u.add_on_count(row)
    c = Criteria()
    use_sub = rng.random() < 0.6
    what = subsector_words(rng, family, d.subsector) if use_sub else rng.choice(SECTOR_WORDS[family][d.sector])
    c = replace(c, subsectors=(d.subsector,)) if use_sub else replace(c, sectors=(d.sector,))
    region = ""
    if rng.random() < {"A": 0.7, "B": 0.6, "C": 0.8, "D": 0.5, "E": 0.8, "F": 0.7}[family]:
        region = rng.choice(REGION_WORDS[family][d.region])
        c = replace(c, regions=(d.region,))
    strategy = ""
    if d.role == "platform" and add_ons >= 3 and family in "ABCEF" and rng.random() < 0.6:
        n = 6 if add_ons >= 6 and rng.random() < 0.4 else 3
        strategy = rng.choice(STRATEGY_WORDS[family]["roll-up" if n == 3 else "aggressive"]).format(n=n)
        c = replace(c, role="platform", min_add_ons=n)
    elif d.role == "platform" and family in "ABCEF" and rng.random() < 0.35:
        strategy = rng.choice(STRATEGY_WORDS[family]["platform"])
        c = replace(c, role="platform")
    elif d.role == "add-on" and family in "ABCF" and rng.random() < 0.5:
        strategy = rng.choice(STRATEGY_WORDS[family]["add-on"])
        c = replace(c, role="add-on")
    origin = ""
    if d.origin and family in "ACEF" and rng.random() < (0.7 if family in "CE" else 0.4):
        origin = rng.choice(ORIGIN_WORDS[family][d.origin])
        c = replace(c, origins=(d.origin,))
    exit_ = ""
    if family in "BDF" and d.role == "platform" and rng.random() < (0.9 if family == "D" else 0.35):
        route = d.exit if rng.random() < 0.75 else ("any" if d.exited else "none")
        exit_ = rng.choice(EXIT_WORDS[family][route])
        c = replace(c, exits=(route,))
    if family == "D" and not exit_:
        return None
    period = ""
    if family in "ABDEF" and rng.random() < 0.35:
        period, start, end = _period(rng, family, d.year)
        c = replace(c, year_from=start, year_to=end)
    size = ""
    if family in "CE" and rng.random() < 0.4 and (got := _size(rng, d.size)):
        size, low, high = got
        c = replace(c, size_min=low, size_max=high)
    if family == "A":
        text = " ".join(w for w in (region, what, origin, strategy, period) if w)
    elif family == "B":
        text = (f"Which {what} deals" + (f" in {region}" if region else "") + (f" {strategy}" if strategy else "")
                + (f" {exit_}" if exit_ else "") + (f" {period}" if period else "") + "?")
    elif family == "C":
        text = (f"We're looking at {what}" + (f" {region}" if region else "") + (f" {origin}" if origin else "")
                + (f", {size}" if size else "") + (f", {strategy}" if strategy else "") + " - any comparable deals?")
    elif family == "D":
        text = f"{what} deals" + (f" in {region}" if region else "") + f" {exit_}" + (f", {period}" if period else "")
    elif family == "E":
        text = "Precedent transactions: " + "; ".join(w for w in (what, region, origin, strategy, period, size) if w)
    else:
        text = ("Show me " + what + (f" {region}" if region else "") + (f" {origin}" if origin else "")
                + (f" {strategy}" if strategy else "") + (f" {exit_}" if exit_ else "") + (f", {period}" if period else ""))
    return " ".join(text.split()), c


def reverse_queries(u: Universe, seed: int = SEED, per_family: int = PER_FAMILY) -> tuple[TemplateQuery, ...]:
    """Every family's questions, each with its criteria and its split; the same seed and universe, the same
    questions."""
    rng = random.Random(seed)
    by_role = {role: [i for i, d in enumerate(u.deals) if d.role == role] for role in ("platform", "add-on")}
    out: list[TemplateQuery] = []
    seen: set[str] = set()
    for family in FAMILIES:
        made = 0
        attempts = 0
        while made < per_family and attempts < per_family * 20:
            attempts += 1
            # platforms and add-ons in equal numbers: two deals in three are add-ons, but a deal team asks
            # about platforms at least as often
            row = rng.choice(by_role["platform" if rng.random() < 0.5 else "add-on"])
            got = _write(rng, family, u, row)
            if got is None or got[0] in seen:
                continue
            text, c = got
            gold = int(c.mask(u).sum())
            if not 1 <= gold <= MAX_GOLD:
                continue
            seen.add(text)
            sector = u.deals[row].sector
            held = sector in HELD_OUT_SECTORS
            split = "train" if family in TRAIN_FAMILIES and not held else \
                "test" if family in TEST_FAMILIES and held else "other"
            out.append(TemplateQuery(f"{family}{made + 1:03d}", family, text, c, sector, split))
            made += 1
    return tuple(out)


__all__ = ["FAMILIES", "HELD_OUT_SECTORS", "TEST_FAMILIES", "TRAIN_FAMILIES", "TemplateQuery", "reverse_queries"]
