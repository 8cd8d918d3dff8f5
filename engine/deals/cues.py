"""Cues read from a question: what it asks of a precedent, as the deal universe's fields.

"Find precedents for a US healthcare roll-up with an aggressive add-on strategy" is healthcare, the US, a platform
with at least six add-ons, any period. The lexicon (`lexicon.py`) reads the words; a small grammar reads years
("since 2020", "between 2010 and 2019", "pre-2008"), amounts ("EV over $500m", "half a billion") and counts of
add-ons ("10 or more add-ons"). The user may correct any cue (`CueCorrection`), as on a form: set it, or clear it.
Cues are soft: they steer candidates and features. Hard filters are `index.DealFilters`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Sequence

from ..errors import PathLensError
from ..text import STOPWORDS, normalize_name
from .lexicon import Lexicon, load_lexicon
from .model import (AGGRESSIVE_ADD_ONS, EXITS, LAST_YEAR, ORIGINS, REGIONS, ROLES, ROLL_UP_ADD_ONS, SECTOR_OF, SECTORS,
                    Criteria)

MAX_QUESTION = 2000  # characters, as every question of PathLens
OWN_AMOUNT = "the question's own amount"  # a size cue's source; ", in EUR" after it when said in another currency


@dataclass(frozen=True)
class Cue:
    """One thing read: its kind, what it means, the question's words that gave it ("" when a correction set it),
    and where the lexicon has it from."""

    kind: str  # sector, subsector, region, role, add-ons, origin, exit, period, size
    value: str
    said: str
    source: str


@dataclass(frozen=True)
class Cues:
    """What the question asks for (`criteria`), and which words said what (`read`)."""

    criteria: Criteria
    read: tuple[Cue, ...] = ()
    corrected: bool = False

    def words(self) -> str:
        """"understood as: healthcare · US · roll-up (≥ 3 add-ons) · any period"."""
        c = self.criteria
        parts = [" or ".join(c.subsectors or c.sectors) or "any sector", " or ".join(c.regions) or "any region"]
        if c.min_add_ons:
            parts.append("roll-up (≥ 3 add-ons)" if c.min_add_ons == ROLL_UP_ADD_ONS else
                         "aggressive add-on strategy (≥ 6 add-ons)" if c.min_add_ons == AGGRESSIVE_ADD_ONS else
                         f"platform with ≥ {c.min_add_ons} add-ons")
        elif c.role:
            parts.append(c.role)
        if c.origins:
            parts.append(" or ".join(c.origins))
        if c.exits:
            parts.append(" or ".join("still held" if e == "none" else "realized (any exit)" if e == "any"
                                     else f"exited by {e}" for e in c.exits))
        parts.append(period_words(c.year_from, c.year_to))
        if c.size_min is not None or c.size_max is not None:
            parts.append(size_words(c.size_min, c.size_max))
            foreign = next((r.source.removeprefix(f"{OWN_AMOUNT}, in ") for r in self.read if r.kind == "size"
                            and r.source.startswith(f"{OWN_AMOUNT}, in ")), "")
            if foreign:  # the deal list records dollars, and no rate is made up
                parts[-1] += f" (said in {foreign}, read as dollars: no exchange rate is applied)"
        return "understood as: " + " · ".join(parts)


def period_words(year_from: int | None, year_to: int | None) -> str:
    if year_from is None and year_to is None:
        return "any period"
    if year_from == year_to:
        return str(year_from)
    if year_from and year_to:
        return f"{year_from}–{year_to}"
    return f"from {year_from}" if year_from else f"up to {year_to}"


def size_words(low: float | None, high: float | None) -> str:
    def money(v: float) -> str:
        return f"${v / 1000:g}bn" if v >= 1000 else f"${v:g}m"

    if low is not None and high is not None:
        return f"EV {money(low)}–{money(high)}"
    return f"EV over {money(low)}" if low is not None else f"EV under {money(high)}"


@dataclass(frozen=True)
class CueCorrection:
    """What a user set to correct the cues; None keeps what was read, an empty value ((), "", 0) clears it."""

    sectors: tuple[str, ...] | None = None
    subsectors: tuple[str, ...] | None = None
    regions: tuple[str, ...] | None = None
    role: str | None = None
    min_add_ons: int | None = None
    origins: tuple[str, ...] | None = None
    exits: tuple[str, ...] | None = None
    year_from: int | None = None
    year_to: int | None = None
    size_min: float | None = None
    size_max: float | None = None

    def __post_init__(self) -> None:
        for name, allowed in (("sectors", SECTORS), ("subsectors", SECTOR_OF), ("regions", REGIONS),
                              ("origins", ORIGINS), ("exits", EXITS + ("any",))):
            for v in getattr(self, name) or ():
                if v not in allowed:
                    raise PathLensError(f"cue {name[:-1]}: {v!r} is not one of {', '.join(allowed)}")
        if self.role and self.role not in ROLES:
            raise PathLensError(f"cue role: {self.role!r} is not one of {', '.join(ROLES)}")
        if self.min_add_ons is not None and (isinstance(self.min_add_ons, bool) or not isinstance(self.min_add_ons, int)
                                             or not 0 <= self.min_add_ons <= 100):
            raise PathLensError(f"cue min_add_ons: must be a whole number from 0 to 100, got {self.min_add_ons!r}")
        for name in ("year_from", "year_to"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not (v == 0 or 1950 <= v <= 2100)):
                raise PathLensError(f"cue {name}: must be a year such as 2015 (or 0 to clear it), got {v!r}")
        for name in ("size_min", "size_max"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0):
                raise PathLensError(f"cue {name}: must be an EV in USD millions, 0 or more (0 clears it), got {v!r}")

    @property
    def empty(self) -> bool:
        return self == CueCorrection()


_KIND_OF = {"sectors": "sector", "subsectors": "subsector", "regions": "region", "role": "role",
            "min_add_ons": "add-ons", "origins": "origin", "exits": "exit", "year_from": "period", "year_to": "period",
            "size_min": "size", "size_max": "size"}


def correct(cues: Cues, correction: CueCorrection) -> Cues:
    """The cues with the correction's fields set or cleared; the cues a correction replaced leave `read`."""
    if correction.empty:
        return cues
    changes, kinds = {}, set()
    for f in fields(CueCorrection):
        v = getattr(correction, f.name)
        if v is None:
            continue
        kinds.add(_KIND_OF[f.name])
        changes[f.name] = None if v == 0 and f.name.startswith(("year", "size")) else v
    read = [c for c in cues.read if c.kind not in kinds]
    c = replace(cues.criteria, **changes)
    for name, kind in _KIND_OF.items():
        if name in changes and changes[name] not in (None, "", (), 0):
            values = changes[name] if isinstance(changes[name], tuple) else (changes[name],)
            read += [Cue(kind, str(v), "", "your correction") for v in values]
    return Cues(c, tuple(read), corrected=True)


def correction_from_pairs(pairs: Sequence[str], lexicon: Lexicon | None = None) -> CueCorrection:
    """A correction from "field=value" pairs (the CLI's --cue): "region=UK,DACH", "sector=" (clears),
    "min_add_ons=6", "year_from=2015", "exit=IPO". Words are mapped through the lexicon ("region=Germany" is DACH)."""
    lexicon = lexicon or load_lexicon()
    names = {f.name: f.name for f in fields(CueCorrection)} | {f.name[:-1]: f.name for f in fields(CueCorrection)
                                                                if f.name.endswith("s")}
    values: dict[str, object] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        name = names.get(key.strip().replace("-", "_"))
        if not sep or name is None:
            raise PathLensError(f"--cue {pair!r}: write FIELD=VALUE with a field of {', '.join(sorted(_KIND_OF))}")
        text = text.strip()
        if name in ("role",):
            values[name] = text
        elif name in ("min_add_ons", "year_from", "year_to", "size_min", "size_max"):
            try:
                values[name] = (int if name in ("min_add_ons", "year_from", "year_to") else float)(text or 0)
            except ValueError:
                raise PathLensError(f"--cue {pair!r}: {text!r} is not a number") from None
        else:
            kind = _KIND_OF[name]
            words = [w.strip() for w in text.split(",") if w.strip()]
            mapped = []
            allowed = {"sector": SECTORS, "subsector": SECTOR_OF, "region": REGIONS, "origin": ORIGINS,
                       "exit": EXITS + ("any",)}[kind]
            for w in words:
                found = (w,) if w in allowed else lexicon.map_word(kind, w)
                if not found:
                    raise PathLensError(f"--cue {pair!r}: {w!r} is not {'an' if kind[0] in 'aeiou' else 'a'} {kind} "
                                        f"the lexicon knows; {kind}s: {', '.join(allowed)}")
                mapped += found
            values[name] = tuple(dict.fromkeys(mapped))
    return CueCorrection(**values)


# ---------------------------------------------------------------- the grammar of years, amounts and counts

_Y = r"(19[5-9]\d|20\d\d)"
_BETWEEN = re.compile(rf"\bbetween\s+{_Y}\s+and\s+{_Y}\b|\b{_Y}\s*(?:-|–|to|through|until)\s*{_Y}\b")
_FROM = re.compile(rf"\b(since|from|after|post|starting|beginning)\s+(?:in\s+)?{_Y}\b"
                   rf"|\b{_Y}\s*(?:onwards?|and later|or later|and after|\+)")
_TO = re.compile(rf"\b(before|prior to|until|through|up to|by|pre)[\s-]+{_Y}\b")
_DECADE = re.compile(r"\b(19[5-9]0|20[0-4]0)s\b")
_YEAR = re.compile(rf"(?<![\w$.,-]){_Y}(?![\w,.]\d)")
# an amount stands alone: "B2B" and "P2P" hold no $2bn (a walk-through's question read as EV $1.3–3bn)
_SIGN = r"(?:\$|€|£|¥|\b(?:usd|eur|gbp|chf)\s*)"  # a currency's sign or code before an amount
_MONEY = _SIGN + r"?\s*(?<![a-z])(\d+(?:\.\d+)?)\s*(bn|b|billion|m|mm|mn|million)\b"
_AMOUNT = re.compile(r"(?:(over|above|more than|greater than|north of|at least|exceeding|in excess of|upwards of|>=?|"
                     r"under|below|less than|south of|up to|at most|<=?|around|about|roughly|~)\s*)?"
                     r"(?:an?\s+)?(?:ev\s+(?:of\s+)?)?" + _MONEY)
_RANGE = re.compile(r"(?:between\s+)?" + _SIGN + r"\s*(\d+(?:\.\d+)?)\s*(bn|b|billion|m|mm|mn|million)?\s*"
                    r"(?:-|–|to|and)\s*" + _MONEY)
_WORD_AMOUNTS = ((re.compile(r"\bhalf a billion\b"), "$500m"), (re.compile(r"\b(?:a|one) billion\b"), "$1bn"),
                 (re.compile(r"\bquarter of a billion\b"), "$250m"))
_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                       "fourteen fifteen".split())}
_NUMBERS |= {"twenty": 20, "dozen": 12, "a dozen": 12, "half a dozen": 6, "two dozen": 24, "a couple of": 2}
_COUNT = re.compile(r"(?:\b(at least|minimum of|a minimum of|more than|over|upwards of)\s+)?\b(\d+|"
                    + "|".join(sorted(_NUMBERS, key=lambda w: (-len(w), w)))  # "half a dozen" before "a dozen"
                    + r")\s+(?:or more\s+|plus\s+)?(?:add ons?|addons?|bolt ons?|tuck ins?|acquisitions)\b")


def _millions(number: str, unit: str | None) -> float:
    return float(number) * (1000 if unit in ("bn", "b", "billion") else 1)


def _years(text: str) -> tuple[int | None, int | None, str]:
    low = text.lower()
    if m := _BETWEEN.search(low):
        a, b = [int(g) for g in m.groups() if g]
        return min(a, b), max(a, b), m.group(0)
    if m := _DECADE.search(low):
        return int(m.group(1)), int(m.group(1)) + 9, m.group(0)
    start = end = None
    said = []
    if m := _FROM.search(low):
        word, y = m.group(1), int(m.group(2) or m.group(3))
        start = y + 1 if word in ("after", "post") else y
        said.append(m.group(0))
    if m := _TO.search(low):
        word, y = m.group(1), int(m.group(2))
        end = y - 1 if word in ("before", "prior to", "pre") else y
        said.append(m.group(0))
    if start is None and end is None and (years := _YEAR.findall(low)):
        y = int(years[0])
        return y, y, years[0]
    return start, end, " … ".join(said)


# a currency other than the dollar, just before an amount or just after it: the deal list's sizes are in US dollars
_CURRENCY_BEFORE = re.compile(r"(€|£|¥|\b(?:eur|euros?|gbp|chf|sek|nok|dkk|jpy|cad|aud|cny)\b)\s*(?:an?\s+)?"
                              r"(?:ev\s+(?:of\s+)?)?(?:\d|$)")
_CURRENCY_AFTER = re.compile(r"^\s*(euros?|pounds?|swiss francs?|kronor|kroner|yen|eur|gbp|chf|sek|nok|dkk)\b")
_CURRENCY_CODES = (("€", "EUR"), ("euro", "EUR"), ("£", "GBP"), ("pound", "GBP"), ("¥", "JPY"), ("yen", "JPY"),
                   ("swiss franc", "CHF"), ("kronor", "SEK"), ("kroner", "DKK"))  # else the code said ("chf")


def _currency(low: str, m: re.Match) -> str:
    """The currency said with an amount, when it is not the dollar ("EUR", "GBP"), else ""."""
    said = (None if "$" in m.group(0) or "usd" in m.group(0) else
            _CURRENCY_BEFORE.search(low[max(0, m.start() - 12):m.end()]) or _CURRENCY_AFTER.search(low[m.end():]))
    word = said.group(1) if said else ""
    return next((code for name, code in _CURRENCY_CODES if word.startswith(name)), word.upper())


def _sizes(text: str) -> tuple[float | None, float | None, str, str]:
    """(lowest, highest in $m, the words said, a currency other than the dollar they were said in)."""
    low = text.lower()
    for pattern, words in _WORD_AMOUNTS:
        low = pattern.sub(words, low)
    if m := _RANGE.search(low):
        a, b = _millions(m.group(1), m.group(2) or m.group(4)), _millions(m.group(3), m.group(4))
        bounds = min(a, b), max(a, b)
    elif m := _AMOUNT.search(low):
        op, v = m.group(1) or "around", _millions(m.group(2), m.group(3))
        bounds = ((None, v) if op in ("under", "below", "less than", "south of", "up to", "at most", "<", "<=") else
                  (round(v / 1.5, 1), round(v * 1.5, 1)) if op in ("around", "about", "roughly", "~") else (v, None))
    else:
        return None, None, "", ""
    return *bounds, m.group(0).strip(), _currency(low, m)


def _count(folded: str) -> tuple[int, str]:
    if m := _COUNT.search(folded):
        n = int(m.group(2)) if m.group(2).isdigit() else _NUMBERS[m.group(2)]
        return n + 1 if m.group(1) in ("more than", "over") else n, m.group(0)
    return 0, ""


# ---------------------------------------------------------------- reading


def read_cues(question: str, lexicon: Lexicon | None = None, correction: CueCorrection = CueCorrection(),
              last_year: int = LAST_YEAR) -> Cues:
    """The cues of `question`, then the correction over them. `last_year` anchors "recent" and "last ten years"."""
    if not isinstance(question, str):
        raise PathLensError("the question must be text")
    if len(question) > MAX_QUESTION:
        raise PathLensError(f"This question is {len(question):,} characters long; questions can be up to "
                            f"{MAX_QUESTION:,} characters. Shorten it to search.")
    return correct(_read(question, lexicon or load_lexicon(), last_year, numbers=True), correction)


def description_cues(text: str, lexicon: Lexicon | None = None) -> Criteria:
    """What a deal's description itself states, read as a question's words are (no grammar of years, amounts or
    counts: a description's years and amounts are facts of the deal, not what it asks), whatever its length."""
    return _read(text, lexicon or load_lexicon(), LAST_YEAR, numbers=False).criteria


def _read(question: str, lexicon: Lexicon, last_year: int, numbers: bool) -> Cues:
    folded = f" {normalize_name(question)} "
    words_at = folded.split()
    read: list[Cue] = []
    found = lexicon.find(question, folded)
    by = {k: [] for k in ("sector", "subsector", "region", "role", "strategy", "origin", "exit", "period", "size")}
    for words, e, at in found:
        if e.kind == "origin" and e.value == "secondary" and lexicon.exit_words & set(words_at[max(0, at - 8):at]):
            # "sold in a secondary buyout", "exits to another PE firm in a secondary buyout" (a walk-through): an exit
            by["exit"].append((words, "secondary buyout", e.source))
            continue
        by[e.kind].append((words, e, e.source))
    c: dict[str, object] = {}
    subs = [(w, e) for w, e, _ in by["subsector"]]
    c["subsectors"] = tuple(dict.fromkeys(e.value for _, e in subs))
    # a subsector names its sector: a sector word beside it adds nothing, and one that differs ("healthcare IT
    # services") describes the subsector's customers, so the subsector decides
    c["sectors"] = () if subs else tuple(dict.fromkeys(e.value for _, e, _ in by["sector"]))
    read += [Cue("subsector", e.value, w, e.source) for w, e in subs]
    read += [Cue("sector", e.value, w, e.source) for w, e, _ in by["sector"] if not subs]
    regions = [(w, r, e.source) for w, e, _ in by["region"] for r in e.regions]
    c["regions"] = tuple(dict.fromkeys(r for _, r, _ in regions))
    read += [Cue("region", r, w, s) for w, r, s in regions]
    c["origins"] = tuple(dict.fromkeys(e.value for _, e, _ in by["origin"]))
    read += [Cue("origin", e.value, w, e.source) for w, e, _ in by["origin"]]
    exits = [(w, e if isinstance(e, str) else e.value, s) for w, e, s in by["exit"]]
    routes = [x for x in exits if x[1] != "any"] or exits  # "exited via IPO": the route, not just "an exit"
    c["exits"] = tuple(dict.fromkeys(v for _, v, _ in routes))
    read += [Cue("exit", v, w, s) for w, v, s in routes]
    # strategy: a roll-up word, an "aggressive" that strengthens one, a count of add-ons; add-on words then speak
    # of the add-ons a platform made, not of the deal's own role
    strategies = [(w, e) for w, e, _ in by["strategy"] if not e.modifier]
    modifiers = [(w, e) for w, e, _ in by["strategy"] if e.modifier]
    count, count_said = _count(folded) if numbers else (0, "")
    add_on_words = [(w, e) for w, e, _ in by["role"] if e.value == "add-on"]
    platform_words = [(w, e) for w, e, _ in by["role"] if e.value == "platform"]
    first = next((e.value for _, e, _ in by["role"]), "")
    if add_on_words and platform_words and first == "add-on":
        platform_words = []  # "a tuck-in for our platform": the deal is the add-on; the platform is its buyer
    least = max([e.min_add_ons for _, e in strategies] + [0])
    if modifiers and (strategies or add_on_words or count):
        least = max(least, modifiers[0][1].min_add_ons)
        read.append(Cue("add-ons", f"≥ {modifiers[0][1].min_add_ons}", modifiers[0][0], modifiers[0][1].source))
    if count:
        least = count
        read.append(Cue("add-ons", f"≥ {count}", count_said.strip(), "the question's own count"))
    read += [Cue("add-ons", f"≥ {e.min_add_ons}", w, e.source) for w, e in strategies]
    c["min_add_ons"] = least
    if least or platform_words:
        c["role"] = "platform"
        read += [Cue("role", "platform", w, e.source) for w, e in platform_words]
    elif add_on_words:
        c["role"] = "add-on"
        read += [Cue("role", "add-on", w, e.source) for w, e in add_on_words]
    start, end, said = _years(question) if numbers else (None, None, "")
    if start is None and end is None:
        for w, e, _ in by["period"]:
            start = e.year_from if e.year_from is not None else (last_year - e.from_last if e.from_last is not None
                                                                 else start)
            end = e.year_to if e.year_to is not None else end
            read.append(Cue("period", period_words(start, end), w, e.source))
    else:
        read.append(Cue("period", period_words(start, end), said, "the question's own years"))
    c["year_from"], c["year_to"] = start, end
    low, high, said, currency = _sizes(question) if numbers else (None, None, "", "")
    for w, e, _ in by["size"]:
        low = max(v for v in (low, e.size_min) if v is not None) if (low, e.size_min) != (None, None) else None
        high = min(v for v in (high, e.size_max) if v is not None) if (high, e.size_max) != (None, None) else None
        read.append(Cue("size", e.value, w, e.source))
    if said:
        read.append(Cue("size", size_words(low, high), said,
                        f"{OWN_AMOUNT}, in {currency}" if currency else OWN_AMOUNT))
    c["size_min"], c["size_max"] = low, high
    return Cues(Criteria(**c), tuple(read))


# the words of the ask itself, not of the deal: never said to be unread
_ASK = frozenset("""find show list give get me us our we i want looking precedents precedent comps comparable
comparables deals deal transactions transaction like similar company companies business businesses firm firms one ones
some any about around roughly approximately near pe private equity sponsor sponsors sponsored backed ev enterprise
value buyer buyers sold sale exit exited later then""".split())


def unread_words(question: str, lexicon: Lexicon, cues: Cues) -> tuple[str, ...]:
    """The question's words that no cue was read from ("buying", "startup", "cash"): they count only through the
    description search, and a deal team should know ("in cash", a buyer's type: the universe records neither)."""
    said = set(normalize_name(" ".join([*(c.said for c in cues.read),
                                        *(words for words, _, _ in lexicon.find(question))])).split())
    out = [w for w in re.findall(r"(?<![\w$.])[A-Za-z][A-Za-z&'’-]*", question)
           if (f := normalize_name(w)) and f not in STOPWORDS and f not in _ASK
           and not all(p in said or p.rstrip("s") in said for p in f.split())]
    return tuple(dict.fromkeys(out))


__all__ = ["Cue", "CueCorrection", "Cues", "correct", "correction_from_pairs", "description_cues", "period_words",
           "read_cues", "size_words", "unread_words"]
