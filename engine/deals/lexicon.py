"""The deal lexicon: a deal team's words for sectors, subsectors, regions, strategies, origins, exits, periods and
sizes, each entry citing its public source (`lexicon.json` beside this file).

Phrases are matched as folded keys (`text.normalize_name`) on word boundaries, longest first, with a plural "s" or
"es" allowed on the last word ("carve-outs", "P2Ps"); `exact` phrases are matched case-sensitively in the raw text,
so the pronoun "us" is not the US and "it" is not IT.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from ..errors import PathLensError
from ..ingest.textfiles import read_json_object, read_text
from ..text import normalize_name
from .model import EXITS, ORIGINS, REGIONS, ROLES, SECTOR_OF, SECTORS

BUNDLED = Path(__file__).with_name("lexicon.json")
TABLES = ("sectors", "subsectors", "regions", "region_groups", "roles", "strategies", "origins", "exits", "periods",
          "sizes")
KIND = {"sectors": "sector", "subsectors": "subsector", "regions": "region", "region_groups": "region",
        "roles": "role", "strategies": "strategy", "origins": "origin", "exits": "exit", "periods": "period",
        "sizes": "size"}


@dataclass(frozen=True)
class Entry:
    """One lexicon entry: what it means (`kind`, `value`), where it comes from, and what it sets."""

    kind: str  # sector, subsector, region, role, strategy, origin, exit, period, size
    value: str  # the entry's name: "healthcare", "North America", "roll-up", "pre-GFC"
    source: str
    regions: tuple[str, ...] = ()  # a region or group: the universe's regions it covers
    min_add_ons: int = 0  # a strategy
    modifier: bool = False  # a strategy word that only strengthens another ("aggressive")
    year_from: int | None = None  # a period: absolute first year
    from_last: int | None = None  # a period: years back from the universe's last year
    year_to: int | None = None
    size_min: float | None = None
    size_max: float | None = None


@dataclass(frozen=True, eq=False)
class Lexicon:
    entries: tuple[Entry, ...]
    phrases: Mapping[str, int]  # folded phrase → entry index
    starts: Mapping[str, tuple[int, ...]]  # a phrase's first word → the lengths (in words) of its phrases, longest first
    exact: re.Pattern | None  # the case-sensitive phrases
    exact_entry: Mapping[str, int]  # exact phrase → entry index
    exit_words: frozenset[str]  # words that make "secondary" an exit, not an origin
    sources: Mapping[str, str]

    def _key(self, gram: str) -> str | None:
        if gram in self.phrases:
            return gram
        for suffix in ("s", "es"):  # a plural on the last word: "carve outs", "p2ps", "buy and builds"
            if gram.endswith(suffix) and gram[:-len(suffix)] in self.phrases:
                return gram[:-len(suffix)]
        return None

    def find(self, text: str, folded: str | None = None) -> list[tuple[str, Entry, int]]:
        """(the words matched, their entry, the position of their first word among the folded words) for every
        phrase in `text`, left to right, longest first where phrases overlap. Looked up as word n-grams, not as one
        regular expression of every phrase: a description is read in microseconds, so a list of thousands is too."""
        words = (normalize_name(text) if folded is None else folded).split()
        out: list[tuple[str, Entry, int]] = []
        i = 0
        while i < len(words):
            w = words[i]
            lengths = self.starts.get(w) or self.starts.get(w[:-1] if w.endswith("s") else "", ())
            for n in lengths:
                key = self._key(" ".join(words[i:i + n])) if i + n <= len(words) else None
                if key is not None:
                    out.append((key, self.entries[self.phrases[key]], i))
                    i += n
                    break
            else:
                i += 1
        if self.exact is not None:
            taken = {j for w, _, at in out for j in range(at, at + len(w.split()))}
            for m in self.exact.finditer(text):
                at = len(normalize_name(text[:m.start()]).split())
                if at not in taken:
                    out.append((m.group(0), self.entries[self.exact_entry[m.group(0)]], at))
        return sorted(out, key=lambda t: t[2])

    def map_word(self, kind: str, word: str) -> tuple[str, ...]:
        """What a lone word means as a `kind` ("Germany" as a region → ("DACH",), "Health Care Services" as a sector
        → ("healthcare",)); () when the lexicon reads nothing of that kind in it, several when it is ambiguous."""
        word = word.strip()
        if kind == "region" and word in REGIONS or kind == "sector" and word in SECTORS \
                or kind == "subsector" and word in SECTOR_OF:
            return (word,)
        found = [e for _, e, _ in self.find(word)]
        if kind == "region":
            return tuple(dict.fromkeys(r for e in found if e.kind == "region" for r in e.regions))
        return tuple(dict.fromkeys(e.value for e in found if e.kind == kind))


def _phrases(obj: dict, key: str, where: str) -> list[str]:
    v = obj.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise PathLensError(f"{where}: field {key!r} must be a list of phrases")
    return v


def _number(obj: dict, key: str, where: str) -> float | None:
    v = obj.get(key)
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
        raise PathLensError(f"{where}: field {key!r} must be a number")
    return v


def parse_lexicon(data: dict, where: str) -> Lexicon:
    """A lexicon from its JSON object; a wrong shape names the file, the entry and the field."""
    allowed = {"sectors": SECTORS, "subsectors": SECTOR_OF, "regions": REGIONS, "roles": ROLES, "origins": ORIGINS,
               "exits": EXITS + ("any",)}
    sources = data.get("sources")
    if not isinstance(sources, dict):
        raise PathLensError(f"{where}: field 'sources' must be an object of source names")
    entries: list[Entry] = []
    folded: dict[str, int] = {}
    exact: dict[str, int] = {}
    for table in TABLES:
        rows = data.get(table)
        if not isinstance(rows, dict):
            raise PathLensError(f"{where}: field {table!r} must be an object")
        for value, obj in rows.items():
            at = f"{where}: {table}.{value}"
            if not isinstance(obj, dict):
                raise PathLensError(f"{at}: must be an object")
            if table in allowed and value not in allowed[table]:
                raise PathLensError(f"{at}: {value!r} is not one of {', '.join(allowed[table])}")
            source = obj.get("source")
            if not isinstance(source, str) or not any(k in source for k in sources):
                raise PathLensError(f"{at}: field 'source' must name one of the sources ({', '.join(sources)})")
            regions = (value,) if table == "regions" else tuple(_phrases(obj, "regions", at))
            if any(r not in REGIONS for r in regions):
                raise PathLensError(f"{at}: field 'regions' names a region that is not one of {', '.join(REGIONS)}")
            entries.append(Entry(KIND[table], value, source, regions, int(obj.get("min_add_ons", 0)),
                                 bool(obj.get("modifier", False)), _number(obj, "from", at),
                                 _number(obj, "from_last", at), _number(obj, "to", at), _number(obj, "min", at),
                                 _number(obj, "max", at)))
            for phrase in _phrases(obj, "say", at):
                key = normalize_name(phrase)
                if key in folded and entries[folded[key]].kind == KIND[table] and entries[folded[key]].value != value:
                    raise PathLensError(f"{at}: phrase {phrase!r} also means {entries[folded[key]].value!r}")
                folded.setdefault(key, len(entries) - 1)
            for phrase in _phrases(obj, "exact", at):
                exact[phrase] = len(entries) - 1
    words = data.get("exit_words", [])
    if not isinstance(words, list):
        raise PathLensError(f"{where}: field 'exit_words' must be a list of words")
    exact_pattern = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(exact, key=lambda k: -len(k)))
                               + r")(?![\w])") if exact else None
    starts: dict[str, set[int]] = {}
    for k in folded:
        first = k.split()
        starts.setdefault(first[0], set()).add(len(first))
        if len(first) == 1:  # a one-word phrase in the plural starts with a word of its own: "p2ps"
            for suffix in ("s", "es"):
                starts.setdefault(first[0] + suffix, set()).add(1)
    return Lexicon(tuple(entries), folded, {w: tuple(sorted(n, reverse=True)) for w, n in starts.items()},
                   exact_pattern, exact, frozenset(normalize_name(w) for w in words), dict(sources))


@lru_cache(maxsize=4)
def load_lexicon(path: str | Path = BUNDLED) -> Lexicon:
    """The lexicon at `path` (the bundled one by default), read once."""
    path = Path(path)
    return parse_lexicon(read_json_object(read_text(path), str(path), "a lexicon object"), str(path.name))


def lexicon_without(phrases: frozenset[str], path: str | Path = BUNDLED) -> Lexicon:
    """The lexicon at `path` without some of its phrases (`say` or `exact`): how much a result owes to them."""
    path = Path(path)
    data = read_json_object(read_text(path), str(path), "a lexicon object")
    unknown = set(phrases)
    for table in TABLES:
        for obj in (data.get(table) or {}).values():
            for key in ("say", "exact"):
                if isinstance(obj, dict) and isinstance(obj.get(key), list):
                    unknown -= set(obj[key])
                    obj[key] = [x for x in obj[key] if x not in phrases]
    if unknown:
        raise PathLensError(f"{path.name}: no entry says {', '.join(repr(x) for x in sorted(unknown))}")
    return parse_lexicon(data, path.name)


__all__ = ["BUNDLED", "Entry", "Lexicon", "lexicon_without", "load_lexicon", "parse_lexicon"]
