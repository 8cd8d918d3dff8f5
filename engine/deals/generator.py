"""The bundled deal universe: the data room's world grown with deals, drawn from one seed.

Sponsors are the data room's fund families (`ingest.worldgen`'s name pools, "Aspen Ridge Capital Partners III");
each buys platforms, and a platform buys add-ons, the more often in fragmented markets (`CONSOLIDATING`). Every
deal has a sector and subsector, a region, a year, a size, an origin, an exit and a description.

The descriptions are written so that text alone is not enough, as in real deal databases:
- explicit: they state some of the facts (the subsector, the country, the origin, the add-ons, the exit), each
  only sometimes;
- vague: a neutral name and no sector, strategy or origin word at all, more often for the platforms with many
  add-ons (the structure is strong while the text says nothing);
- misleading-ish: "consolidation platform" words on a platform that made no add-on.

Generation takes ~0.1 s, so the universe is generated when first needed rather than shipped as a file: the code
is the one source of the data, and a test checks the seed gives the same deals (`test_deals.py`).
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

from ..ingest.worldgen import COMPANY_A, PREFIXES, STEMS
from .model import SECTORS, Deal, Universe, make_universe
from .prose import CITIES, NAME_WORDS, NEUTRAL_NOUNS, SUBSECTOR_NOUNS, add_on_text, platform_text

DEFAULT_SEED = 62
PLATFORMS = 1200  # with their add-ons, about 3,700 deals
# fragmented markets where sponsors typically buy and build (physician groups, agencies, brokers, services)
CONSOLIDATING = frozenset({
    "dental practices", "veterinary clinics", "physician practices", "home health", "behavioral health",
    "vertical SaaS", "HR software", "testing & inspection", "IT services", "facility services", "marketing services",
    "compliance services", "insurance brokerage", "wealth management", "fund administration", "third-party logistics",
    "cold storage", "childcare", "K-12 schools", "pet products", "energy efficiency services"})
SECTOR_WEIGHTS = {"healthcare": 14, "software": 14, "industrials": 12, "consumer": 10, "business services": 12,
                  "financial services": 8, "energy": 7, "food & beverage": 8, "logistics": 8, "education": 7}
REGION_WEIGHTS = {"US": 40, "Canada": 8, "UK": 12, "DACH": 10, "Nordics": 9, "France & Benelux": 10, "APAC": 11}
ORIGIN_WEIGHTS = {"founder-owned": 27, "family-owned": 22, "carve-out": 17, "secondary": 23, "take-private": 11}
ADD_ON_ORIGINS = {"founder-owned": 50, "family-owned": 35, "carve-out": 15}
MEDIAN_SIZE = {"founder-owned": 70, "family-owned": 110, "carve-out": 260, "secondary": 320, "take-private": 1300}
ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII")


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _size(rng: random.Random, median: float, sigma: float, low: float = 5.0, high: float = 5000.0) -> float:
    """Enterprise value in USD millions, log-normal around `median`, clipped and rounded to a tenth."""
    return round(min(high, max(low, rng.lognormvariate(math.log(median), sigma))), 1)


def _add_on_count(rng: random.Random, subsector: str) -> int:
    """0–15, skewed low: most platforms make none to two; buy-and-builds three or more, a few past ten."""
    if rng.random() < (0.5 if subsector in CONSOLIDATING else 0.2):
        n = 3
        while n < 15 and rng.random() < 0.7:
            n += 1
        return n
    return rng.choices((0, 1, 2), weights=(55, 30, 15))[0]


class _Names:
    """Unique company names: a place-like word and a noun that names the subsector (or a neutral one)."""

    def __init__(self, rng: random.Random):
        self.rng, self.used = rng, set()

    def draw(self, subsector: str, neutral: bool) -> str:
        nouns = NEUTRAL_NOUNS if neutral else SUBSECTOR_NOUNS[subsector]
        for attempt in range(50):
            first = self.rng.choice(NAME_WORDS)
            if attempt >= 20:  # the pool is crowded: a second word
                first = f"{first} {self.rng.choice(COMPANY_A)}"
            name = f"{first} {self.rng.choice(nouns)}"
            if name not in self.used:
                self.used.add(name)
                return name
        raise AssertionError("name pool exhausted")  # 50 draws from thousands of names: never


def _sponsor(rng: random.Random, families: list[str], year: int) -> str:
    return f"{rng.choice(families)} Capital Partners {ROMAN[min(len(ROMAN) - 1, (year - 2003) // 3)]}"


def generate_deals(seed: int = DEFAULT_SEED, platforms: int = PLATFORMS) -> list[Deal]:
    """The deals drawn from `seed`: `platforms` platforms, each followed by its add-ons."""
    rng = random.Random(seed)
    families = sorted({f"{p} {s}" for p in PREFIXES for s in STEMS})
    rng.shuffle(families)
    families = families[:60]
    names = _Names(rng)
    years = list(range(2005, 2025))
    year_weights = [1 + 0.08 * (y - 2005) for y in years]
    out: list[Deal] = []
    for _ in range(platforms):
        sector = _pick(rng, SECTOR_WEIGHTS)
        subsector = rng.choice(SECTORS[sector])
        region = _pick(rng, REGION_WEIGHTS)
        year = rng.choices(years, weights=year_weights)[0]
        origin = _pick(rng, ORIGIN_WEIGHTS)
        size = _size(rng, MEDIAN_SIZE[origin], 0.9)
        exit_, exit_year = "none", None
        hold = rng.choice((3, 4, 4, 5, 5, 5, 6, 6, 7, 8))
        if year + hold <= 2024 and rng.random() < 0.85:
            exit_year = year + hold
            exit_ = rng.choices(("IPO", "strategic sale", "secondary buyout"),
                                weights=(30 if size > 500 else 12, 46, 42))[0]
        end = exit_year or 2024
        count = min(_add_on_count(rng, subsector), 3 * (end - year + 1))
        style = rng.choices(("explicit", "vague", "misleading"),
                            weights=(60, 40, 0) if count >= 3 else (75, 25, 0) if count else (55, 15, 30))[0]
        sponsor = _sponsor(rng, families, year)
        name = names.draw(subsector, neutral=style == "vague" or rng.random() < 0.35)
        city = rng.choice(CITIES[region])
        pid = f"D{len(out) + 1:04d}"
        platform_at = len(out)
        out.append(Deal(pid, name, sector, subsector, region, year, size, "platform", "", origin, exit_, exit_year,
                        sponsor, ""))
        for y in sorted(rng.randint(year, end) for _ in range(count)):
            a_region = region if rng.random() < 0.85 else _pick(rng, REGION_WEIGHTS)
            a_sub = subsector if rng.random() < 0.8 else rng.choice(SECTORS[sector])
            a_origin = _pick(rng, ADD_ON_ORIGINS)
            vague = rng.random() < 0.4
            a_name = names.draw(a_sub, neutral=vague or rng.random() < 0.35)
            a_size = _size(rng, 20, 0.8, high=max(5.0, size * 0.6))
            text = add_on_text(rng, a_name, name, a_sub, a_region, rng.choice(CITIES[a_region]), y, a_origin, vague)
            out.append(Deal(f"D{len(out) + 1:04d}", a_name, sector, a_sub, a_region, y, a_size, "add-on", pid, a_origin,
                            "none", None, sponsor, text))
        text = platform_text(rng, style, name, sponsor, subsector, region, city, year, origin, count, exit_, exit_year,
                             size)
        p = out[platform_at]
        out[platform_at] = Deal(p.id, p.name, p.sector, p.subsector, p.region, p.year, p.size, p.role, p.platform,
                                p.origin, p.exit, p.exit_year, p.sponsor, text)
    return out


@lru_cache(maxsize=2)
def bundled_universe(seed: int = DEFAULT_SEED) -> Universe:
    """The bundled universe (memoised: every page and command shares one)."""
    return make_universe(f"bundled deal universe (seed {seed})", generate_deals(seed))


__all__ = ["CONSOLIDATING", "DEFAULT_SEED", "PLATFORMS", "bundled_universe", "generate_deals"]
