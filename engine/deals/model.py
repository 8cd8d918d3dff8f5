"""The deal model: what a deal is, the words its fields may take, a universe of deals with its add-on links, and
criteria a deal meets or not (the gold of every evaluation is judged by them, never by text).

A deal is one acquisition by a financial sponsor: a platform (a first investment) or an add-on (bought by a
platform). A platform's add-ons are the add-on deals that name it, so "a roll-up" is a platform with at least
ROLL_UP_ADD_ONS of them and "an aggressive add-on strategy" at least AGGRESSIVE_ADD_ONS: counted from the
structure, whatever its description says.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from ..errors import PathLensError

SECTORS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "healthcare": ("dental practices", "veterinary clinics", "physician practices", "home health", "behavioral health",
                   "medical devices"),
    "software": ("vertical SaaS", "cybersecurity", "payments software", "data analytics", "HR software"),
    "industrials": ("specialty chemicals", "precision machining", "building products", "packaging",
                    "testing & inspection"),
    "consumer": ("pet products", "beauty & personal care", "fitness", "restaurants", "specialty retail"),
    "business services": ("IT services", "staffing", "facility services", "marketing services", "compliance services"),
    "financial services": ("insurance brokerage", "wealth management", "specialty lending", "fund administration"),
    "energy": ("renewables developer", "oilfield services", "energy efficiency services", "utility services"),
    "food & beverage": ("snacks", "beverages", "food ingredients", "private-label foods"),
    "logistics": ("freight brokerage", "cold storage", "last-mile delivery", "third-party logistics"),
    "education": ("K-12 schools", "vocational training", "e-learning", "childcare"),
})
SECTOR_OF: Mapping[str, str] = MappingProxyType({sub: s for s, subs in SECTORS.items() for sub in subs})
REGIONS = ("US", "Canada", "UK", "DACH", "Nordics", "France & Benelux", "APAC")
ROLES = ("platform", "add-on")
ORIGINS = ("founder-owned", "family-owned", "carve-out", "take-private", "secondary")
EXITS = ("none", "IPO", "strategic sale", "secondary buyout")
FIRST_YEAR, LAST_YEAR = 2005, 2024  # the bundled universe's years; "recent" and "last ten years" count back from LAST
ROLL_UP_ADD_ONS = 3  # "roll-up", "buy-and-build": a platform with at least this many add-ons
AGGRESSIVE_ADD_ONS = 6  # "an aggressive add-on strategy"


@dataclass(frozen=True)
class Deal:
    """One deal. `size` is enterprise value in USD millions (None: not stated); `platform` the id of the platform
    an add-on was bought by ("" for a platform); `origin` who sold it ("" unknown); `exit` the route out ("none":
    still held), with its year; `source` where it was read ("generated", "deals.csv line 14")."""

    id: str
    name: str
    sector: str
    subsector: str  # "" when unknown
    region: str
    year: int
    size: float | None
    role: str
    platform: str
    origin: str
    exit: str
    exit_year: int | None
    sponsor: str
    description: str
    source: str = "generated"

    @property
    def exited(self) -> bool:
        return self.exit != "none"


@dataclass(frozen=True, eq=False)
class Universe:
    """Deals in a fixed order (their row in every matrix), each platform's add-ons, and a name for the whole."""

    name: str
    deals: tuple[Deal, ...]
    add_ons: tuple[tuple[int, ...], ...]  # per deal: the rows of the add-ons that name it as their platform
    rows: Mapping[str, int]  # deal id → row

    def __len__(self) -> int:
        return len(self.deals)

    def add_on_count(self, row: int) -> int:
        return len(self.add_ons[row])

    def platform_of(self, row: int) -> int | None:
        """The row of an add-on's platform, None for a platform."""
        d = self.deals[row]
        return self.rows[d.platform] if d.platform else None


def make_universe(name: str, deals: Sequence[Deal]) -> Universe:
    """A universe of `deals`, checked: unique ids, known words, and every add-on naming a platform of the universe."""
    rows: dict[str, int] = {}
    for i, d in enumerate(deals):
        if d.id in rows:
            raise PathLensError(f"{d.source}: deal id {d.id!r} is used twice")
        rows[d.id] = i
        check_deal(d)
    add_ons: list[list[int]] = [[] for _ in deals]
    for i, d in enumerate(deals):
        if d.role == "add-on":
            p = rows.get(d.platform)
            if p is None or deals[p].role != "platform":
                raise PathLensError(f"{d.source}: add-on {d.name!r} names {d.platform!r}, which is no platform here")
            add_ons[p].append(i)
    return Universe(name, tuple(deals), tuple(tuple(a) for a in add_ons), MappingProxyType(rows))


def check_deal(d: Deal) -> None:
    """Every field in its vocabulary; the generator and the importer both build deals through it."""
    for field, value, allowed in (("sector", d.sector, SECTORS), ("region", d.region, REGIONS),
                                  ("role", d.role, ROLES), ("exit", d.exit, EXITS)):
        if value not in allowed:
            raise PathLensError(f"{d.source}: field {field!r}: {value!r} is not one of {', '.join(allowed)}")
    if d.subsector and SECTOR_OF.get(d.subsector) != d.sector:
        raise PathLensError(f"{d.source}: field 'subsector': {d.subsector!r} is not a subsector of {d.sector}")
    if d.origin and d.origin not in ORIGINS:
        raise PathLensError(f"{d.source}: field 'origin': {d.origin!r} is not one of {', '.join(ORIGINS)}")
    if (d.role == "add-on") != bool(d.platform):
        raise PathLensError(f"{d.source}: an add-on names its platform and a platform names none")


# ---------------------------------------------------------------- criteria: what makes a deal relevant


@dataclass(frozen=True)
class Criteria:
    """What a question asks for, as attributes; a deal is relevant when it meets every one that is set. Lists are
    alternatives ("UK or DACH"); `exits` may hold "any" (realized: any route but none)."""

    sectors: tuple[str, ...] = ()
    subsectors: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    role: str = ""
    origins: tuple[str, ...] = ()
    min_add_ons: int = 0
    exits: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    size_min: float | None = None
    size_max: float | None = None

    def __post_init__(self) -> None:
        for field, values, allowed in (("sector", self.sectors, SECTORS), ("subsector", self.subsectors, SECTOR_OF),
                                       ("region", self.regions, REGIONS), ("origin", self.origins, ORIGINS),
                                       ("exit", self.exits, EXITS + ("any",))):
            for v in values:
                if v not in allowed:
                    raise PathLensError(f"criteria field {field!r}: {v!r} is not one of {', '.join(allowed)}")
        if self.role and self.role not in ROLES:
            raise PathLensError(f"criteria field 'role': {self.role!r} is not one of {', '.join(ROLES)}")

    def meets(self, u: Universe, row: int) -> bool:
        d = u.deals[row]
        if self.sectors and d.sector not in self.sectors:
            return False
        if self.subsectors and d.subsector not in self.subsectors:
            return False
        if self.regions and d.region not in self.regions:
            return False
        if self.role and d.role != self.role:
            return False
        if self.origins and d.origin not in self.origins:
            return False
        if self.min_add_ons and u.add_on_count(row) < self.min_add_ons:
            return False
        if self.exits and not (d.exit in self.exits or ("any" in self.exits and d.exited)):
            return False
        if self.year_from is not None and d.year < self.year_from:
            return False
        if self.year_to is not None and d.year > self.year_to:
            return False
        if self.size_min is not None and (d.size is None or d.size < self.size_min):
            return False
        if self.size_max is not None and (d.size is None or d.size > self.size_max):
            return False
        return True

    def mask(self, u: Universe) -> np.ndarray:
        """`meets` for every deal at once, as a bool array (tests check the two agree)."""
        f = fields_of(u)
        ok = np.ones(len(u), dtype=bool)
        for name, values in (("sector", self.sectors), ("subsector", self.subsectors), ("region", self.regions),
                             ("origin", self.origins)):
            if values:
                ok &= np.isin(f[name], values)
        if self.role:
            ok &= f["role"] == self.role
        if self.min_add_ons:
            ok &= f["add_ons"] >= self.min_add_ons
        if self.exits:
            ok &= np.isin(f["exit"], self.exits) | (("any" in self.exits) & (f["exit"] != "none"))
        if self.year_from is not None:
            ok &= f["year"] >= self.year_from
        if self.year_to is not None:
            ok &= f["year"] <= self.year_to
        if self.size_min is not None:
            ok &= f["size"] >= self.size_min  # NaN (not stated) compares False: unmet, as in `meets`
        if self.size_max is not None:
            ok &= f["size"] <= self.size_max
        return ok

    def relevant(self, u: Universe) -> frozenset[str]:
        """The ids of the deals that meet every criterion."""
        return frozenset(u.deals[i].id for i in np.flatnonzero(self.mask(u)))


@lru_cache(maxsize=8)
def fields_of(u: Universe) -> dict[str, np.ndarray]:
    """A universe's fields as arrays (a universe is immutable, so they are made once)."""
    return {"sector": np.array([d.sector for d in u.deals], dtype=object),
            "subsector": np.array([d.subsector for d in u.deals], dtype=object),
            "region": np.array([d.region for d in u.deals], dtype=object),
            "origin": np.array([d.origin for d in u.deals], dtype=object),
            "role": np.array([d.role for d in u.deals], dtype=object),
            "exit": np.array([d.exit for d in u.deals], dtype=object),
            "add_ons": np.array([len(a) for a in u.add_ons]), "year": np.array([d.year for d in u.deals]),
            "size": np.array([np.nan if d.size is None else d.size for d in u.deals], dtype=np.float64)}


def criteria_from_json(obj: object, where: str) -> Criteria:
    """Criteria as the question files write them: sector, subsector, region, origin (lists), role, min_add_ons,
    exit (a list or "any"), year_from, year_to, size_min, size_max; an error names `where` and the field."""
    if not isinstance(obj, dict):
        raise PathLensError(f"{where}: field 'criteria' must be an object")
    known = {"sector", "subsector", "region", "role", "origin", "min_add_ons", "exit", "year_from", "year_to",
             "size_min", "size_max"}
    if unknown := sorted(set(obj) - known):
        raise PathLensError(f"{where}: field 'criteria.{unknown[0]}' is not a criterion; criteria: "
                            f"{', '.join(sorted(known))}")

    def words(key: str) -> tuple[str, ...]:
        v = obj.get(key, [])
        v = [v] if isinstance(v, str) else v
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise PathLensError(f"{where}: field 'criteria.{key}' must be a word or a list of words")
        return tuple(v)

    def number(key: str, kind: type) -> float | int | None:
        v = obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (kind is int and v != int(v)):
            raise PathLensError(f"{where}: field 'criteria.{key}': {v!r} is not a {'whole ' if kind is int else ''}number")
        return kind(v)

    role = obj.get("role", "")
    if not isinstance(role, str):
        raise PathLensError(f"{where}: field 'criteria.role' must be a word")
    try:
        return Criteria(words("sector"), words("subsector"), words("region"), role, words("origin"),
                        number("min_add_ons", int) or 0, words("exit"), number("year_from", int),
                        number("year_to", int), number("size_min", float), number("size_max", float))
    except PathLensError as e:
        raise PathLensError(f"{where}: {e}") from None


__all__ = ["AGGRESSIVE_ADD_ONS", "Criteria", "Deal", "EXITS", "FIRST_YEAR", "LAST_YEAR", "ORIGINS", "REGIONS",
           "ROLES", "ROLL_UP_ADD_ONS", "SECTORS", "SECTOR_OF", "Universe", "check_deal", "criteria_from_json",
           "fields_of", "make_universe"]
