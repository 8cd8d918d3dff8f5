"""The acquisitions reader (`engine.deals.acquisitions`) against a list of deals written by hand from the filings
themselves (`tests/data/acquisitions.hand.jsonl`): precision and recall of (filing, target), then, over the deals
both found, the page cited, the date and the consideration where both state one. `python -m
engine.deals.acquisition_measure --measure` prints them by half of the rooms."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import PathLensError
from .acquisitions import Acquisition, folder_acquisitions
from .acquisition_words import target_key

ROOT = Path(__file__).resolve().parents[2]
HAND_LIST = ROOT / "tests" / "data" / "acquisitions.hand.jsonl"
SHARED_DATA = ROOT.parent / "shared" / "data"
# The rooms the hand list covers, in halves: the rules were written while reading the tuning half's filings; the test
# half's were read to write the hand list, and its first measure is said beside today's in docs/precedents.md.
HALVES: Mapping[str, tuple[str, ...]] = {"tune": ("filings_dev", "filings"), "test": ("financebench_dev",)}

@dataclass(frozen=True)
class HandDeal:
    """One deal of the hand list: the filing, the page that states it (and others that do), the target and the names
    it goes by, the date and consideration as the filing states them."""

    doc: str
    page: int
    acquirer: str
    target: str
    date: str
    consideration: str
    consideration_usd_m: float | None
    aliases: tuple[str, ...] = ()
    other_pages: tuple[int, ...] = ()
    status: str = "completed"


def load_hand(path: Path | str = HAND_LIST) -> tuple[HandDeal, ...]:
    """The hand list, one JSON object a line; a bad line is named by number and field."""
    out = []
    path = Path(path)
    for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}, line {n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise PathLensError(f"{where}: not JSON ({e.msg})") from None
        for name, kind in (("doc", str), ("page", int), ("acquirer", str), ("target", str), ("date", str),
                           ("consideration", str)):
            if not isinstance(row.get(name), kind) or (kind is str and name in ("doc", "target") and not row[name]):
                raise PathLensError(f"{where}: field {name!r} must be {'a number' if kind is int else 'text'}")
        usd = row.get("consideration_usd_m")
        if usd is not None and (isinstance(usd, bool) or not isinstance(usd, (int, float))):
            raise PathLensError(f"{where}: field 'consideration_usd_m' must be a number or null")
        if row["date"] and not re.fullmatch(r"(?:19|20)\d\d(?:-\d\d(?:-\d\d)?)?", row["date"]):
            raise PathLensError(f"{where}: field 'date' must be YYYY-MM-DD, YYYY-MM, YYYY or empty")
        out.append(HandDeal(row["doc"], row["page"], row["acquirer"], row["target"], row["date"], row["consideration"],
                            usd, tuple(row.get("aliases", ())), tuple(row.get("other_pages", ())),
                            row.get("status", "completed")))
    return tuple(out)


@dataclass(frozen=True)
class Measurement:
    """What the reader got right against the hand list: deals by (filing, target), and, over the deals both found,
    the page cited, the date and the consideration where both state one."""

    hand: int
    found: int
    matched: int
    pages_right: int
    dates_both: int
    dates_right: int
    usd_both: int
    usd_right: int
    missed: tuple[tuple[str, str], ...] = ()  # (doc, target) of hand deals not found
    extra: tuple[tuple[str, str], ...] = ()  # (doc, target) found and not on the hand list
    wrong: tuple[tuple[str, str, str, str, str], ...] = field(default=())  # (doc, target, field, hand, read)

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.hand if self.hand else 0.0

    @property
    def page_accuracy(self) -> float:
        return self.pages_right / self.matched if self.matched else 0.0

    @property
    def date_accuracy(self) -> float:
        return self.dates_right / self.dates_both if self.dates_both else 0.0

    @property
    def usd_accuracy(self) -> float:
        return self.usd_right / self.usd_both if self.usd_both else 0.0


def _match_score(found: Acquisition, deal: HandDeal) -> int:
    """3: the same name; 2: the found name holds one of the deal's names whole ("Los Cururos wind farm and
    transmission lines" holds "Los Cururos wind farm"); 1: the found name is most (60%) of one of the deal's names;
    0: not this deal."""
    key = target_key(found.target)
    best = 0
    for name in (deal.target, *deal.aliases):
        k = target_key(name)
        if not k or not key:
            continue
        if k == key:
            return 3
        if re.search(r"\b" + re.escape(k) + r"\b", key):
            best = max(best, 2)
        elif re.search(r"\b" + re.escape(key) + r"\b", k) and len(key.split()) >= 0.6 * len(k.split()):
            best = max(best, 1)
    return best


def _same_usd(a: float, b: float) -> bool:
    return abs(a - b) <= max(0.5, 0.02 * abs(b))


def measure(found: Sequence[Acquisition], hand: Sequence[HandDeal]) -> Measurement:
    """Precision and recall of (filing, target) against the hand list, each found deal matched to at most one hand
    deal (the best name match first; a date that agrees breaks a tie); then, over the matched pairs, the page (the
    hand page or another page the hand list says states the deal), the date (the same string) and the consideration
    in USD millions (within 2%) where both have one."""
    pairs = []
    for i, f in enumerate(found):
        for j, h in enumerate(hand):
            if f.doc == h.doc:
                score = _match_score(f, h)
                if score:
                    pairs.append((score, f.date == h.date and bool(h.date), -abs(f.page - h.page), i, j))
    used_f: set[int] = set()
    used_h: set[int] = set()
    matched: list[tuple[Acquisition, HandDeal]] = []
    for *_, i, j in sorted(pairs, reverse=True):
        if i not in used_f and j not in used_h:
            used_f.add(i)
            used_h.add(j)
            matched.append((found[i], hand[j]))
    pages = sum(f.page in (h.page, *h.other_pages) for f, h in matched)
    dated = [(f, h) for f, h in matched if f.date and h.date]
    priced = [(f, h) for f, h in matched if f.consideration_usd_m is not None and h.consideration_usd_m is not None]
    wrong = [(h.doc, h.target, "date", h.date, f.date) for f, h in dated if f.date != h.date]
    wrong += [(h.doc, h.target, "consideration_usd_m", str(h.consideration_usd_m), str(f.consideration_usd_m))
              for f, h in priced if not _same_usd(f.consideration_usd_m, h.consideration_usd_m)]
    wrong += [(h.doc, h.target, "page", str(h.page), str(f.page)) for f, h in matched
              if f.page not in (h.page, *h.other_pages)]
    return Measurement(len(hand), len(found), len(matched), pages, len(dated),
                       sum(f.date == h.date for f, h in dated), len(priced),
                       sum(_same_usd(f.consideration_usd_m, h.consideration_usd_m) for f, h in priced),
                       tuple((h.doc, h.target) for j, h in enumerate(hand) if j not in used_h),
                       tuple((f.doc, f.target) for i, f in enumerate(found) if i not in used_f), tuple(wrong))


def measure_rooms(data: Path | str = SHARED_DATA, hand_path: Path | str = HAND_LIST,
                  halves: Mapping[str, Sequence[str]] = HALVES) -> dict[str, Measurement]:
    """The measure on each half of the rooms the hand list covers ("tune", "test") and on all of them ("all"). A
    found deal's doc is its room and file name ("filings_dev/AES_2021_10K.pdf"), as the hand list names it."""
    data = Path(data)
    hand = load_hand(hand_path)
    found: dict[str, list[Acquisition]] = {}
    for rooms in halves.values():
        for room in rooms:
            if not (data / room).is_dir():
                raise PathLensError(f"{data / room} is not a folder: the shared filings are not here")
            found[room] = [replace(a, doc=f"{room}/{a.doc}") for a in folder_acquisitions(data / room)]
    out = {}
    for half, rooms in halves.items():
        out[half] = measure([a for r in rooms for a in found[r]], [h for h in hand if h.doc.split("/")[0] in rooms])
    out["all"] = measure([a for r in found for a in found[r]], [h for h in hand if h.doc.split("/")[0] in found])
    return out


def figures_table(figures: Mapping[str, Measurement]) -> str:
    """The figures as a text table, one row a half."""
    rows = ["half   hand found matched precision recall  page  date (both)   consideration (both)"]
    for half, m in figures.items():
        rows.append(f"{half:<6} {m.hand:>4} {m.found:>5} {m.matched:>7} {m.precision:>9.3f} {m.recall:>6.3f} "
                    f"{m.page_accuracy:>5.3f} {m.date_accuracy:>5.3f} ({m.dates_both:>2})   "
                    f"{m.usd_accuracy:>5.3f} ({m.usd_both:>2})")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.deals.acquisition_measure",
                                     description="Acquisitions read from filings (8-K Item 2.01, acquisitions notes).")
    parser.add_argument("folder", nargs="?", help="a folder of filings: list the acquisitions they state")
    parser.add_argument("--measure", action="store_true", help="measure against tests/data/acquisitions.hand.jsonl")
    parser.add_argument("--data", default=str(SHARED_DATA), help="the folder of the rooms (default ../shared/data)")
    parser.add_argument("--details", action="store_true", help="with --measure: each deal missed, extra or wrong")
    parser.add_argument("--json", action="store_true", help="JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        if args.measure:
            figures = measure_rooms(args.data)
            if args.json:
                print(json.dumps({h: {"hand": m.hand, "found": m.found, "matched": m.matched,
                                      "precision": round(m.precision, 3), "recall": round(m.recall, 3),
                                      "page": round(m.page_accuracy, 3), "date": round(m.date_accuracy, 3),
                                      "dates_both": m.dates_both, "consideration": round(m.usd_accuracy, 3),
                                      "considerations_both": m.usd_both} for h, m in figures.items()}, indent=1))
            else:
                print(figures_table(figures))
            if args.details:
                for half, m in figures.items():
                    if half == "all":
                        continue
                    for doc, target in m.missed:
                        print(f"{half} missed  {doc}: {target}")
                    for doc, target in m.extra:
                        print(f"{half} extra   {doc}: {target}")
                    for doc, target, name, hand, read in m.wrong:
                        print(f"{half} wrong   {doc}: {target}: {name} hand {hand!r} read {read!r}")
            return 0
        if not args.folder:
            parser.error("give a folder of filings, or --measure")
        found = folder_acquisitions(args.folder)
        if args.json:
            print(json.dumps([a.__dict__ for a in found], indent=1, ensure_ascii=False))
        else:
            for a in found:
                usd = f"${a.consideration_usd_m:,.0f}m" if a.consideration_usd_m is not None else ""
                print(f"{a.doc} p.{a.page}\t{a.acquirer} → {a.target}\t{a.date or '—'}\t{a.status}\t{usd}\t"
                      f"{a.consideration}")
        return 0
    except PathLensError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
