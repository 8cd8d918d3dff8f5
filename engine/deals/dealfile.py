"""A user's deal list: CSV (a header row) or JSON Lines (one object a line), read into a universe.

Columns, by their exact names (docs/precedents.md has the table):
- required: `name` (unique in the file), `sector` (or a `subsector` that names it), `region`, `year`;
- optional: `id`, `subsector`, `size` (EV in USD millions: "250", "$250m", "1.2bn"), `role` (platform or add-on),
  `platform_of` (for an add-on: its platform's `name`, a row of the same file), `origin`, `exit` (none, IPO,
  strategic sale, secondary buyout; blank: none), `exit_year`, `sponsor`, `description`.

Words are mapped through the deal lexicon, so "Health Care", "Germany" or "trade sale" load as healthcare, DACH and
strategic sale (each mapping is reported). A bad row is named by line and field and left out ("deals.csv line 14,
field 'year': 'twenty' is not a year"); the rest loads. A file that cannot be read at all, or loads no row, is a
`PathLensError`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import PathLensError
from ..ingest.documents import SourceFile
from ..ingest.textfiles import decode_text, source_file
from .lexicon import Lexicon, load_lexicon
from .model import EXITS, ORIGINS, REGIONS, ROLES, SECTOR_OF, SECTORS, Deal, Universe, make_universe

REQUIRED = ("name", "region", "year")
COLUMNS = ("id", "name", "sector", "subsector", "region", "year", "size", "role", "platform_of", "origin", "exit",
           "exit_year", "sponsor", "description")
_SIZE = re.compile(r"^\$?\s*(\d+(?:[.,]\d+)*)\s*(bn|b|billion|m|mm|mn|million)?$", re.IGNORECASE)


@dataclass(frozen=True)
class Problem:
    """A row left out, or a word read as another: the line, the field, and the whole sentence."""

    line: int
    field: str
    message: str


@dataclass(frozen=True, eq=False)
class DealImport:
    """What a file gave: its universe, the rows read, the rows left out (`problems`) and the words mapped."""

    universe: Universe
    rows: int
    problems: tuple[Problem, ...]
    mapped: tuple[Problem, ...]


class _RowError(Exception):
    def __init__(self, field: str, text: str):
        super().__init__(text)
        self.field, self.text = field, text


def _records(source: SourceFile) -> list[tuple[int, dict]]:
    """(line, {column: text}) for each record; a file of another shape is refused whole."""
    text = decode_text(source)
    if not text.strip():
        raise PathLensError(f"{source.name} is empty")
    if source.name.lower().endswith((".jsonl", ".json", ".ndjson")):
        out = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                out.append((n, {"\0": f"not valid JSON ({e.msg})"}))
                continue
            if not isinstance(obj, dict):
                out.append((n, {"\0": "not a JSON object"}))
                continue
            out.append((n, {str(k): ("" if v is None else v) for k, v in obj.items()}))
        return out
    if not source.name.lower().endswith((".csv", ".txt")):
        raise PathLensError(f"{source.name}: a deal list is a .csv file with a header row or a .jsonl file")
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise PathLensError(f"{source.name}, line 1: the header lacks the column{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(repr(m) for m in missing)}; columns: {', '.join(COLUMNS)}")
    reader.fieldnames = header
    out, start = [], 2
    for row in reader:
        out.append((start, {k: v for k, v in row.items() if k is not None}))
        start = reader.line_num + 1
    return out


def _text(row: dict, key: str) -> str:
    v = row.get(key, "")
    if isinstance(v, (dict, list, bool)):
        raise _RowError(key, f"{v!r} is not text")
    return str(v).strip()


def _word(lexicon: Lexicon, row: dict, key: str, kind: str, allowed, mapped: list[tuple[str, str]]) -> str:
    """A field's word, as the universe's own word; lexicon words are mapped and the mapping noted."""
    raw = _text(row, key)
    if not raw or raw in allowed:
        return raw
    found = lexicon.map_word(kind, raw)
    if kind == "sector" and not found:  # a subsector's words name its sector ("dental")
        found = tuple(dict.fromkeys(SECTOR_OF[s] for s in lexicon.map_word("subsector", raw)))
    if len(found) == 1:
        mapped.append((key, f"{raw!r} read as {found[0]}"))
        return found[0]
    if found:
        raise _RowError(key, f"{raw!r} could be {' or '.join(found)}; write one")
    raise _RowError(key, f"{raw!r} is not a {kind} the lexicon knows; {kind}s: {', '.join(allowed)}")


def _year(row: dict, key: str) -> int | None:
    raw = _text(row, key)
    if not raw:
        return None
    try:
        y = int(float(raw)) if re.fullmatch(r"\d{4}(\.0)?", raw) else int(raw)
    except ValueError:
        raise _RowError(key, f"{raw!r} is not a year") from None
    if not 1950 <= y <= 2100:
        raise _RowError(key, f"{raw!r} is not a year from 1950 to 2100")
    return y


def _size(row: dict) -> float | None:
    raw = _text(row, "size")
    if not raw:
        return None
    m = _SIZE.match(raw.replace(" ", ""))
    if not m:
        raise _RowError("size", f"{raw!r} is not an EV in USD millions (e.g. 250, $250m, 1.2bn)")
    value = float(m.group(1).replace(",", "")) * (1000 if (m.group(2) or "").lower() in ("bn", "b", "billion") else 1)
    return round(value, 3)


def _deal(lexicon: Lexicon, line: int, row: dict, where: str, mapped: list[tuple[str, str]]) -> tuple[Deal, str]:
    """A deal from one record, its platform's name still unresolved (returned beside it)."""
    if "\0" in row:
        raise _RowError("", row["\0"])
    name = _text(row, "name")
    if not name:
        raise _RowError("name", "is empty; every deal needs a name")
    sub = _word(lexicon, row, "subsector", "subsector", SECTOR_OF, mapped)
    sector = _word(lexicon, row, "sector", "sector", SECTORS, mapped) or SECTOR_OF.get(sub, "")
    if not sector:
        raise _RowError("sector", "is empty; name the sector (or a subsector that names it)")
    if sub and SECTOR_OF[sub] != sector:
        raise _RowError("subsector", f"{sub!r} is a subsector of {SECTOR_OF[sub]}, not of {sector}")
    region = _word(lexicon, row, "region", "region", REGIONS, mapped)
    if not region:
        raise _RowError("region", "is empty; name the region")
    year = _year(row, "year")
    if year is None:
        raise _RowError("year", "is empty; name the deal's year")
    platform = _text(row, "platform_of")
    role = _text(row, "role").lower() or ("add-on" if platform else "platform")
    if role not in ROLES:
        raise _RowError("role", f"{role!r} is not one of {', '.join(ROLES)}")
    if role == "add-on" and not platform:
        raise _RowError("platform_of", "is empty; an add-on names its platform")
    if role == "platform" and platform:
        raise _RowError("role", "says platform, but platform_of names a platform: an add-on's field")
    origin = _word(lexicon, row, "origin", "origin", ORIGINS, mapped)
    exit_ = _text(row, "exit")
    exit_ = "none" if exit_.lower() in ("", "none", "no", "held") else _word(lexicon, row, "exit", "exit", EXITS, mapped)
    if exit_ == "any":
        raise _RowError("exit", f"{_text(row, 'exit')!r} does not say the route; write IPO, strategic sale or "
                                "secondary buyout")
    exit_year = _year(row, "exit_year")
    if exit_year is not None and exit_year < year:
        raise _RowError("exit_year", f"{exit_year} is before the deal's year {year}")
    deal_id = _text(row, "id") or f"line-{line}"
    return Deal(deal_id, name, sector, sub, region, year, _size(row), role, "", origin, exit_,
                exit_year if exit_ != "none" else None, _text(row, "sponsor"), _text(row, "description"),
                f"{where} line {line}"), platform


def read_deals(source: SourceFile, lexicon: Lexicon | None = None) -> DealImport:
    """The deals of one file (its name says CSV or JSON Lines); bad rows named and left out."""
    lexicon = lexicon or load_lexicon()
    where = Path(source.name).name
    records = _records(source)
    problems: list[Problem] = []
    notes: list[Problem] = []
    deals: list[tuple[Deal, str]] = []
    names: dict[str, int] = {}
    ids: dict[str, int] = {}
    left_out: dict[str, int] = {}  # the names of rows left out, so an add-on naming one says why it is left out too
    for line, row in records:
        mapped: list[tuple[str, str]] = []
        try:
            deal, platform = _deal(lexicon, line, row, where, mapped)
            if deal.name in names:
                raise _RowError("name", f"{deal.name!r} is already the name of line {names[deal.name]}")
            if deal.id in ids:
                raise _RowError("id", f"{deal.id!r} is already the id of line {ids[deal.id]}")
        except _RowError as e:
            field = f", field {e.field!r}" if e.field else ""
            problems.append(Problem(line, e.field, f"{where} line {line}{field}: {e.text}"))
            if isinstance(row.get("name"), str) and row["name"].strip():
                left_out.setdefault(row["name"].strip(), line)
            continue
        names[deal.name] = line
        ids[deal.id] = line
        deals.append((deal, platform))
        notes += [Problem(line, f, f"{where} line {line}, field {f!r}: {text}") for f, text in mapped]
    by_name = {d.name: d for d, _ in deals}
    kept: list[Deal] = []
    for deal, platform in deals:
        line = int(deal.source.rsplit(" ", 1)[1])
        if platform:
            p = by_name.get(platform)
            if p is None or p.role != "platform":
                why = (f"is the name of line {left_out[platform]}, which was left out" if p is None and platform in
                       left_out else "is an add-on, not a platform" if p is not None else
                       "is not the name of a platform in this file")
                problems.append(Problem(line, "platform_of", f"{where} line {line}, field 'platform_of': "
                                                             f"{platform!r} {why}"))
                continue
            deal = Deal(deal.id, deal.name, deal.sector, deal.subsector, deal.region, deal.year, deal.size, deal.role,
                        p.id, deal.origin, deal.exit, deal.exit_year, deal.sponsor, deal.description, deal.source)
        kept.append(deal)
    if not kept:
        shown = "; ".join(p.message for p in problems[:3])
        raise PathLensError(f"{where}: no deal loaded from {len(records)} rows" + (f" ({shown})" if shown else ""))
    problems.sort(key=lambda p: p.line)
    return DealImport(make_universe(where, kept), len(records), tuple(problems), tuple(notes))


def load_deal_file(path: str | Path, lexicon: Lexicon | None = None) -> DealImport:
    """`read_deals` of a file on disk (refused when missing, over 50 MB, binary or not UTF-8)."""
    path = Path(path)
    if not path.is_file():
        raise PathLensError(f"{path}: no such file")
    return read_deals(source_file(path, path.name), lexicon)


__all__ = ["COLUMNS", "DealImport", "Problem", "REQUIRED", "load_deal_file", "read_deals"]
