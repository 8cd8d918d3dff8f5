"""What a question is about, read as an analyst means it: which company, which fiscal period, which
form, which statement, and which line items, and so which filings of the data room it is scoped to.

"What was Nike's capex in FY2018? Use the cash flow statement." is Nike (a company of the room), fiscal
2018 (its FY2018 10-K, not the 2019 one that repeats 2018 as a comparative), the statement of cash
flows, and the lexicon's capex rows. Anything the question does not say is left open, and the user can
correct any of it (`ScopeCorrection`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Mapping, Sequence

from ..errors import PathLensError
from ..text import normalize_name
from .asked import AskedPeriods, Period, read_periods
from .identity import Filing
from .lexicon import Lexicon, Term
from .names import LETTERED, Names, Room, company_names
from .periods import MONTH_NAMES, SAME_PERIOD_DAYS, fiscal_quarter_of
from .structure import STATEMENTS

COMPARATIVE_YEARS = 2  # a 10-K repeats the two years before its own: FY2020 figures also stand in FY2021's and FY2022's
FILED_WITHIN_DAYS = {"10-Q": 45, "10-K": 90}  # the SEC's deadlines after a period's end, the longest of each form
_FORMS = {"10-K": re.compile(r"\b10-?ks?\b|\bannual reports?\b", re.IGNORECASE),
          "10-Q": re.compile(r"\b10-?qs?\b|\bquarterly reports?\b", re.IGNORECASE),
          "8-K": re.compile(r"\b8-?ks?\b|\bcurrent reports?\b", re.IGNORECASE),
          "earnings release": re.compile(r"\b(?:earnings|press|news|results) releases?\b|\bearnings (?:call|report)s?\b",
                                         re.IGNORECASE),
          # "proxy solicitation", "proxy access" or "a proxy card" is a matter, not the document
          "proxy statement": re.compile(r"\bproxy(?: statement)?s?\b(?!\s+(?:solicit\w*|access|cards?|contests?|fights?"
                                        r"|vot\w*|advis\w*|rules?|holders?))|\bdef 14a\b", re.IGNORECASE)}
# what an earnings release holds and a 10-K does not: measures outside GAAP, and guidance (Regulation G; 8-K Item 2.02)
_RELEASE_MEASURES = re.compile(r"\bnon-?gaap\b|\badjusted\b|\borganic\b|\bguidance\b|\boutlook\b|\bexcluding (?:charges|items)"
                               r"|\bcore eps\b", re.IGNORECASE)
_GUIDANCE = re.compile(r"\bguidance\b|\bguid(?:e|es|ed|ing) (?:to|for)\b|\boutlook\b|\bforecast\b", re.IGNORECASE)
_SECTION = re.compile(r"\b(?:note|item)\s+\d{1,2}[a-c]?\b", re.IGNORECASE)  # "Note 9 — Fair Value …": it, not a statement
# a part of a line item (a segment's, region's, channel's) is in MD&A and the segment note: its term implies no statement
BREAKDOWN = re.compile(r"\b(?:segments?|segmental|regions?|regional|geograph\w*|divisions?|business (?:units?|lines?)"
                        r"|by (?:product|brand|channel|category|country|market|customer)|emea|apac|apj|apla|latam|"
                        r"americas|north america|latin america|europe|asia(?:[- ]pacific)?|greater china|"
                        r"international|domestic|wholesale|direct[- ]to[- ]consumer|offerings?|(?:product|service) lines?)\b"
                        r"|(?<![\w.])(?:u\.s\.|united states)(?!\s*(?:gaap|federal|dollars?|treasury|government|tax))", re.I)
DRIVERS = re.compile(  # why a figure moved: MD&A's and a release's words, not a statement's: it implies none
    r"\b(?:drove|driv(?:er|ers|en|ing)|why (?:did|was|were|has|have)|what caused|reasons?|explain|attribut|due to"
    r"|contribut|factors?|behind)\b", re.IGNORECASE)


def form_named(text: str) -> str:
    """A form as a user writes it ("10q", "10-Q", "release") in the one spelling filings are labelled with."""
    said = " ".join(text.split())
    for form, pattern in _FORMS.items():
        if pattern.fullmatch(said) or said.lower() == form.lower():
            return form
    if said.lower() in ("release", "earnings", "press release"):
        return "earnings release"
    raise PathLensError(f"form: {text!r} is not a form; choose 10-K, 10-Q, 8-K or earnings release")


@dataclass(frozen=True)
class ScopeCorrection:
    """What a user set to correct the scope read off the question; None leaves that part as read."""

    company: str | None = None  # a company's name or ticker; "" clears it
    year: int | None = None  # fiscal year; 0 clears it
    form: str | None = None  # "10-K", "8-K", …; "" clears it
    statement: str | None = None  # a key of structure.STATEMENTS; "" clears it
    everywhere: bool = False  # search every filing even when the question names a company the room lacks
    quarter: int | None = None  # fiscal quarter 1-4 (with the year read or set); 0 clears it

    def __post_init__(self) -> None:
        if self.statement and self.statement not in STATEMENTS:
            raise PathLensError(f"statement: unknown statement {self.statement!r}; choose from {', '.join(STATEMENTS)}")
        if self.year is not None and (isinstance(self.year, bool) or not isinstance(self.year, int)
                                      or not (self.year == 0 or 1950 <= self.year <= 2100)):
            raise PathLensError(f"fiscal year must be a year such as 2022 (or 0 to clear it), got {self.year!r}")
        if self.form:
            object.__setattr__(self, "form", form_named(self.form))  # "10q" is the 10-Q
        if self.quarter is not None and (isinstance(self.quarter, bool) or not isinstance(self.quarter, int)
                                         or not 0 <= self.quarter <= 4):
            raise PathLensError(f"fiscal quarter must be 1, 2, 3 or 4 (or 0 to clear it), got {self.quarter!r}")

    @property
    def empty(self) -> bool:
        return self == ScopeCorrection()


@dataclass(frozen=True)
class Scope:
    text: str  # the question without its instruction text: what dense, BM25 and the entity seeds read
    companies: tuple[str, ...]  # company display names the question names
    company_keys: tuple[str, ...]  # their first names (node refs)
    year: int | None  # the fiscal year of the first period asked about (the latest of a range), else None
    quarter: int | None
    form: str
    statements: tuple[str, ...]  # statement kinds named, or implied by the terms
    terms: tuple[tuple[str, Term], ...]  # (phrase used, lexicon term)
    filings: tuple[str, ...]  # the doc ids the question is scoped to; () when nothing scopes it
    corrected: bool = False  # a user's correction changed something
    notes: tuple[str, ...] = ()  # what the scope could not do as asked, in words: an unknown name, no such period
    stop: str = ""  # why nothing in the room can answer (a company it lacks), offering what it holds; "" answers
    span: tuple[int, ...] = ()  # fiscal years a question spanning several asks about ("from FY2015 to FY2016")
    periods: tuple[Period, ...] = ()  # every period that chose filings, as read
    form_why: str = ""  # the form the question implies, and why ("earnings release (a non-GAAP measure or guidance)")

    def words(self, filings: Mapping[str, Filing]) -> str:
        """"Nike · FY2018 · 10-K · Statement of cash flows → Nike FY2018 10-K", then any note."""
        if self.stop:
            return self.stop
        years = self.span and all(p.kind == "year" and not p.calendar for p in self.periods)
        period = ("–".join(f"FY{y}" for y in (self.span[0], self.span[-1])) if years
                  else ", ".join(p.words() for p in self.periods) or "any period")
        parts = [", ".join(self.companies) or "any company", period]
        if self.form or self.form_why:
            parts.append(self.form or self.form_why)
        if self.statements:
            parts.append(", ".join(STATEMENTS[s][0] for s in self.statements))
        scoped = ", ".join(filings[d].label for d in self.filings if d in filings)
        if not scoped:  # no scope, or one that holds the whole room: a room of one filing names it
            scoped = f"{next(iter(filings.values())).label}, the room's only filing" if len(filings) == 1 else "every filing"
        return " · ".join(parts) + f" → {scoped}" + "".join(f". {n}" for n in self.notes)


def _figure_follows(question: str, name: str, lexicon: Lexicon) -> bool:
    """Whether the question goes on from `name` with a figure's name ("Costco net income FY22", not "Summarise each
    8-K …"): what makes a bare opening word a company."""
    rest = normalize_name(question[question.index(name) + len(name):]).split()  # within its first three words
    heads = {" ".join(rest[i:]) for i in range(min(3, len(rest)))}
    return any(h == said or h.startswith(said + " ") for said, _ in lexicon.terms_in(" ".join(rest)) for h in heads)


def read_scope(question: str, room: Room | Mapping[str, Filing], lexicon: Lexicon,
               correction: ScopeCorrection = ScopeCorrection()) -> Scope:
    """The scope of a question over a room's filings, with a user's correction applied: each company it names with
    each period it asks about (`filings_for`), a company the room lacks stopping the answer."""
    room = room if isinstance(room, Room) else Room(room)
    filings = room.filings
    text = lexicon.strip_instructions(question)
    spelled, slips = lexicon.spelled(question, room.printed)  # "divdends": a slip of the hand, read as "dividends"
    named = company_names(spelled, room)  # "Aeronautcs segment net sales": a slip, not a company the room lacks
    if named.leading and _figure_follows(question, named.leading, lexicon):
        named = replace(named, unknown=(*named.unknown, named.leading),
                        unplaced=tuple(w for w in named.unplaced if w != named.leading))
    asked = read_periods(question)
    periods = list(asked.asked)
    form = next((f for f, pattern in _FORMS.items() if pattern.search(question)), "")
    release = bool(_RELEASE_MEASURES.search(question))
    terms = tuple(lexicon.terms_in(spelled))
    statements = lexicon.statements_named(question)
    if not statements and not any(p.search(text) for p in (BREAKDOWN, DRIVERS, _SECTION)):  # a term implies
        statements = [t.statement for _, t in terms if t.statement]  # its statement: none named, nor a part or a why
    statements, corrected = list(dict.fromkeys(statements)), False
    if correction.company is not None:
        named = company_names(correction.company, room) if correction.company else Names(())
        if correction.company and not named.keys:
            raise PathLensError(f"company: no filing of the data room is by {correction.company!r}; companies: "
                                + ", ".join(sorted({f.company for f in filings.values() if f.company})))
        corrected = True
    if correction.year is not None or correction.quarter is not None:
        year = correction.year if correction.year is not None else next((p.year for p in periods if p.year), None)
        quarter = correction.quarter if correction.quarter is not None else next((p.quarter for p in periods), None)
        periods = [Period(year or None, quarter or None, kind="quarter" if quarter else "year")] if year or quarter else []
        corrected = True
    if correction.form is not None:
        form, corrected = correction.form, True
    if correction.statement is not None:
        statements, corrected = ([correction.statement] if correction.statement else []), True
    keys = list(named.keys)
    display = {f.names[0]: f.company for f in filings.values() if f.names}
    docs: list[str] = []
    notes: list[str] = []
    for key in keys or [None]:
        got, said = filings_for(room, key, periods, form, release, guidance=bool(_GUIDANCE.search(question)))
        docs += got
        notes += said
    docs = sorted(set(docs))
    form_why = "earnings release (a non-GAAP measure or guidance)" if release and not form and any(
        filings[d].form == "earnings release" for d in docs) else ""
    stop = ""
    held = sorted({f.company for f in filings.values() if f.company}, key=str.casefold)
    if not held:  # a room of no filings (memos, articles): no name can be checked against a filer
        named = Names(tuple(keys), (), named.ambiguous, named.unplaced)
    if named.unknown and not keys and not correction.everywhere:
        stop = (" and ".join(f"“{n}”" for n in named.unknown)
                + (" names no company" if len(named.unknown) == 1 else " name no company") + " of this data room, so no page "
                "of it answers. The room holds filings of " + ", ".join(held)
                + ". Ask about one of them, or search every filing.")
    lead = [f"Read “{a}” as “{b}”" for a, b in slips] + [f"“{n}” names no company of this data room; searching every "
                                                           "filing" for n in named.unknown if not keys and correction.everywhere]
    lead += [f"“{n}” names no company of this data room" for n in named.unknown if keys]
    lead += [f"Read “{said}” as {display[k]}, whose name holds its letters" for said, k, r in named.how if r == LETTERED]
    lead += [f"“{said}” could be {' or '.join(which)}; both are kept" for said, which in named.ambiguous]
    read = {said for said, _ in terms}  # a word the lexicon reads ("SG&A", "FCF") is searched by what filings print
    lead += [f"“{w}” is not printed on this data room's pages; answered without it" for w in named.unplaced
             if normalize_name(w) not in read]
    if not keys and not named.unknown and len(held) > 1:  # an answer from any filer: say so (second walk-through)
        lead.append("It names no company, so pages of any of the room's " + ", ".join(held) + " may answer; name one, "
                    "or choose it under Scope")
    if keys and not periods and len(docs) == len(filings):
        docs = []
    scoped = () if stop or len(docs) >= len(filings) else tuple(docs)
    years = sorted({p.year for p in periods if p.year and not p.calendar and p.end is None})
    first = periods[0] if periods else None
    return Scope(text, tuple(display[k] for k in keys), tuple(keys), max(years) if years else first.year if first else None,
                 first.quarter if first else None, form, tuple(statements), terms, scoped, corrected,
                 tuple(lead + notes), stop, tuple(range(years[0], years[-1] + 1)) if len(years) > 1 and asked.spans
                 else tuple(years) if len(years) > 1 else (), tuple(periods), form_why)


def filings_for(room: Room, company: str | None, periods: Sequence[Period], form: str = "", release: bool = False,
                guidance: bool = False) -> tuple[list[str], list[str]]:
    """(the filings a company's periods are answered from, notes on what was chosen or is missing); `company`
    None: every company of the room, each for the periods it holds, with no fallback.

    A fiscal year: its 10-K, else the nearest later 10-K that repeats it as a comparative, else the year's other
    filings. A quarter (or a half, or a year to date): that fiscal quarter's 10-Q and release; Q4 its release, else the
    year's 10-K; missing, the year's filings. A date: the filings whose period ends then (within a week), else the
    first 10-K after it. A calendar year: each fiscal year it overlaps, by the company's own calendar. A named form
    keeps that form, unless the company has none of it (said). A non-GAAP measure or guidance prefers the release."""
    filings = room.filings
    companies = [company] if company else sorted({f.names[0] for f in filings.values() if f.names})
    out: list[str] = []
    notes: list[str] = []
    for key in companies:
        own = [d for d, f in filings.items() if f.names and f.names[0] == key]
        if not own:
            continue
        who = filings[own[0]].company
        docs = own
        if form:
            of_form = [d for d in own if filings[d].form == form]
            if of_form:
                docs = of_form
            elif company:
                notes.append(f"No {who} {form} in the room; showing its other filings")
            else:
                continue  # "the Q2 earnings releases": only companies that have one
        if not periods:
            out += docs if form or company else []
            continue
        chosen: list[str] = []
        for period in periods:
            got, note = _for_period(room, key, docs, period, fallback=company is not None, release=release,
                                    guidance=guidance, form=form)
            chosen += got
            if note and company:
                notes.append(note.format(who=who))
        out += chosen
    if not company and periods and not out:
        notes.append("No filing of the room is for " + ", ".join(p.words() for p in periods) + "; searching every filing")
    # one note for the periods a company lacks, not five alike ("FY2023–FY2027": a walk-through)
    lacking = [m for n in notes if (m := _LACKS.fullmatch(n))]
    if len(lacking) > 1:
        said = " or ".join([", ".join(m[2] for m in lacking[:-1]), lacking[-1][2]])
        notes = [n for n in notes if not _LACKS.fullmatch(n)] + [f"No {lacking[0][1]} filing for {said}{_EVERY}"]
    return list(dict.fromkeys(out)), list(dict.fromkeys(notes))


_EVERY = "; searching every filing of the company"
_LACKS = re.compile(r"No (.+?) filing for (.+)" + re.escape(_EVERY))


def _for_period(room: Room, key: str, docs: list[str], period: Period, fallback: bool, release: bool, guidance: bool,
                form: str) -> tuple[list[str], str]:
    filings = room.filings
    if period.kind in ("trailing twelve months", "year to date") and not period.quarter and period.end is None:
        # the latest filing (of the year, when one is named): its statements run to date
        of_year = [d for d in docs if period.year is None or filings[d].fiscal_year == period.year] or docs
        latest = max(of_year, key=lambda d: (filings[d].period_end or "", d))
        return [latest], ""
    if period.end is not None:
        return _for_date(room, key, docs, period, fallback)
    if period.calendar and period.year:
        return _for_calendar_year(room, key, docs, period.year, fallback, release, form)
    if period.quarter:
        return _for_quarter(filings, docs, period.year, period.quarter, fallback, release, guidance, form)
    if period.year:
        return _for_year(filings, docs, period.year, fallback, release, form)
    return [], ""


def _labels(filings: Mapping[str, Filing], docs: Sequence[str]) -> str:
    return ", ".join(filings[d].label for d in docs)


def _prefer_release(filings: Mapping[str, Filing], docs: list[str], release: bool) -> list[str]:
    releases = [d for d in docs if filings[d].form == "earnings release"] if release else []
    return releases or docs


def _for_year(filings: Mapping[str, Filing], docs: list[str], year: int, fallback: bool, release: bool,
              form: str) -> tuple[list[str], str]:
    of_year = [d for d in docs if filings[d].fiscal_year == year]
    if release and not form:
        q4 = [d for d in of_year if filings[d].form == "earnings release" and filings[d].quarter == 4]
        if q4:
            return q4, ""
    annual = [d for d in of_year if filings[d].form == "10-K"]
    if annual:
        rest = [d for d in of_year if d not in annual]
        return annual, "" if not rest or form else (f"FY{year}: the 10-K ({_labels(filings, annual)}), not "
                                                    f"{_labels(filings, rest)}")
    if not fallback or (of_year and all(filings[d].form == form for d in of_year)):  # the form asked for, not a 10-K
        return of_year, ""
    later = sorted((filings[d].fiscal_year, d) for d in docs if filings[d].form == "10-K" and filings[d].fiscal_year
                   and year < filings[d].fiscal_year <= year + COMPARATIVE_YEARS)
    if later:
        nearest = [d for y, d in later if y == later[0][0]]
        return nearest, (f"No {{who}} filing for FY{year}; showing {_labels(filings, nearest)}, the nearest 10-K after "
                         "it, which repeats it")
    if of_year:  # a quarter's filings: a Q4 release gives the year's figures, a 10-Q only its part (a walk's major)
        got = _prefer_release(filings, of_year, release)
        return got, "" if any(filings[d].quarter == 4 for d in got) else (f"No {{who}} 10-K for FY{year}; showing "
                                                                         f"{_labels(filings, got)} (part of that year only)")
    return docs, f"No {{who}} filing for FY{year}; searching every filing of the company"


def _for_quarter(filings: Mapping[str, Filing], docs: list[str], year: int | None, quarter: int, fallback: bool,
                 release: bool, guidance: bool, form: str) -> tuple[list[str], str]:
    of_quarter = [d for d in docs if filings[d].quarter == quarter and (year is None or filings[d].fiscal_year == year)]
    if of_quarter:
        return _prefer_release(filings, of_quarter, release), ""
    if quarter == 4:
        annual = [d for d in docs if filings[d].form == "10-K" and (year is None or filings[d].fiscal_year == year)]
        if annual:  # its figures are the year's less the first three quarters', seldom printed alone
            return annual, (f"No {{who}} filing for Q4 FY{year} alone; showing {_labels(filings, annual)}, whose year "
                            "includes it") if year else ""
    if not fallback or year is None:
        return [], ""
    of_year = [d for d in docs if filings[d].fiscal_year == year]
    if before := [d for d in of_year if (filings[d].quarter or 4) < quarter] if guidance else []:  # given ahead of it
        got = [max(before, key=lambda d: (filings[d].quarter, filings[d].form == "earnings release", d))]
        return got, f"Guidance for Q{quarter} FY{year} is given before it: showing {_labels(filings, got)}"
    if of_year:
        got = _prefer_release(filings, of_year, release or guidance)  # an 8-K's date may fall in the quarter:
        return got, (f"No {{who}} 10-Q, 10-K or earnings release for Q{quarter} FY{year}; showing {_labels(filings, got)}"
                     if all(filings[d].form == "8-K" for d in got) else  # it reports an event, not the quarter
                     f"No {{who}} filing for Q{quarter} FY{year}; showing {_labels(filings, of_year)}")
    got, note = _for_year(filings, docs, year, fallback, release, form)
    return got, note or f"No {{who}} filing for Q{quarter} FY{year}"


def _ends(filing: Filing, end: tuple[int, int, int]) -> bool:
    """Whether a filing's period ends on that day (within a week), or, day 0, at that month's end; year 0: any year."""
    if not filing.period_end:
        return False
    y, m, d = (int(x) for x in filing.period_end.split("-"))
    target_year = end[0] or y
    if end[2]:
        target = date(target_year, end[1], end[2])
    else:  # the month's last day
        target = date(target_year + end[1] // 12, end[1] % 12 + 1, 1) - timedelta(days=1)
    return abs((date(y, m, d) - target).days) <= SAME_PERIOD_DAYS


def _for_date(room: Room, key: str, docs: list[str], period: Period, fallback: bool) -> tuple[list[str], str]:
    filings, end = room.filings, period.end
    ending = [d for d in docs if _ends(filings[d], end)]
    if period.kind == "report date":
        return (ending or ([] if not fallback else docs)), ""
    if ending or not fallback or not end[0]:
        return ending, ""
    if period.kind in ("quarter", "year to date"):  # the fiscal quarter the date ends, by the company's calendar
        year, quarter = fiscal_quarter_of(end, room.year_ends.get(key, (12, 31)))
        got, note = _for_quarter(filings, docs, year, quarter, fallback, False, False, "")
        if got:
            return got, note
    day = date(end[0], end[1], end[2] or 28)
    # a day within a report's filing deadline after its period's end is on its cover ("as of July 21, 2023": June's 10-Q)
    since = sorted((f.period_end, d) for d in docs if (f := filings[d]).form in FILED_WITHIN_DAYS and f.period_end
                   and 0 < (day - date.fromisoformat(f.period_end)).days <= FILED_WITHIN_DAYS[f.form])
    if since:
        got, why = [d for p, d in since if p == since[-1][0]], "whose cover and later events are dated after its end"
    elif after := sorted((f.period_end, d) for d in docs if (f := filings[d]).form == "10-K" and f.period_end and day
                         < date.fromisoformat(f.period_end) <= day + timedelta(days=366 * COMPARATIVE_YEARS)):
        got, ended = [d for p, d in after if p == after[0][0]], date.fromisoformat(after[0][0])
        why = (f"whose fiscal year it falls in, ended {ended.day} {ended:%b %Y}" if (ended - day).days < 365
               else "the first 10-K after it")  # walk 23: Nike's FY2023 (to May 2023) holds December 2022
    else:
        return docs, f"No {{who}} filing for {period.words()}; searching every filing of the company"
    return got, f"No {{who}} filing ends on {period.words()}; showing {', '.join(filings[d].label for d in got)}, {why}"


def _for_calendar_year(room: Room, key: str, docs: list[str], year: int, fallback: bool, release: bool,
                       form: str) -> tuple[list[str], str]:
    """A calendar year through the company's fiscal calendar: the fiscal years it overlaps, each by `_for_year`."""
    month, day = room.year_ends.get(key, (12, 31))
    ends_in_december = month == 12 or (month == 1 and day <= 7)
    years = [year] if ends_in_december else [year, year + 1]
    out = [d for y in years for d in _for_year(room.filings, docs, y, fallback, release, form)[0]]
    note = "" if ends_in_december else (
        f"calendar {year} is {{who}}'s FY{year} and FY{year + 1} (its fiscal year ends in {MONTH_NAMES[month - 1]})")
    return list(dict.fromkeys(out)), note


__all__ = ["COMPARATIVE_YEARS", "Scope", "ScopeCorrection", "filings_for", "read_scope"]
