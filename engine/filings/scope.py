"""What a question is about, read as an analyst means it: which company, which fiscal period, which
form, which statement, and which line items, and so which filings of the data room it is scoped to.

"What was Nike's capex in FY2018? Use the cash flow statement." is Nike (a company of the room), fiscal
2018 (its FY2018 10-K, not the 2019 one that repeats 2018 as a comparative), the statement of cash
flows, and the lexicon's capex rows. Anything the question does not say is left open, and the user can
correct any of it (`ScopeCorrection`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from ..errors import PathLensError
from ..text import STOPWORDS, normalize_name
from .lexicon import Lexicon, Term
from .identity import Filing
from .structure import STATEMENTS

COMPARATIVE_YEARS = 2  # a 10-K repeats the two years before its own: FY2020 figures also stand in FY2021's and FY2022's
# A year, by grammar: four digits, or two after "FY", "fiscal" or an apostrophe ("FY22", "fiscal 22", "Q2 '23").
# Never a year: a form ("10-K", "8-K"), a duration ("12 months", "2023 days"), a figure ("$2,021", "2021.5").
_NOT_AFTER = r"(?![\w,.]\d)(?!\s*-\s*[a-z])(?!\s*(?:months?|days?|weeks?|years?|quarters?|hours?)\b)"
_YEAR_WORD = (r"(?:\b(?:fy|fiscal(?:\s+year)?)\s*'?(?P<fy>\d{4}|\d{2})" + _NOT_AFTER
              + r"|(?<!\w)'(?P<short>\d{2})" + _NOT_AFTER + r"|(?<![\w$.,\-])(?P<bare>19[5-9]\d|20[0-4]\d)" + _NOT_AFTER + ")")
_YEAR_MENTION = re.compile(_YEAR_WORD, re.IGNORECASE)
_QUARTER = re.compile(r"\b(?:q([1-4])|(first|second|third|fourth) quarter)\b", re.IGNORECASE)
_FORMS = {"10-K": re.compile(r"\b10-?k\b|\bannual report\b", re.IGNORECASE),
          "10-Q": re.compile(r"\b10-?q\b|\bquarterly report\b", re.IGNORECASE),
          "8-K": re.compile(r"\b8-?k\b|\bcurrent report\b", re.IGNORECASE),
          "earnings release": re.compile(r"\b(?:earnings|press|news) release\b|\bearnings (?:call|report)\b"
                                         r"|\bresults release\b", re.IGNORECASE)}
# words in capitals that name no company: units, metrics, accounting terms, periods
_NOT_TICKERS = frozenset("""USD EUR GBP FY FQ YOY YTD QOQ CEO CFO COO CTO CODM EPS GAAP IFRS EBIT EBITDA EBITDAR ROA ROE ROIC
ROI ROCE FCF OCF CAPEX OPEX SGA SG R&D PPE PP&E P&L D&A DSO DPO DIO COGS NOL ETR AR AP AI ESG SEC US USA UK EU NYSE
NASDAQ LLC INC CORP LP PLC MD&A MDA TTM LTM NPV IRR WACC CAGR BPS HR IT IP Q1 Q2 Q3 Q4 H1 H2 II III IV ASC ASU FASB
PCAOB IRS OK NA LIFO FIFO""".split())
# a capitalised name an analyst writes before "'s" or a corporate suffix: "Nike's", "Acme Corp"
_NAMED = re.compile(r"\b((?:[A-Z][\w&.\-]*\s+){0,3}[A-Z][\w&.\-]*)(?:['’]s\b|,?\s+(?:Inc|Corp|Corporation|Company|Co)\b)")
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}


@dataclass(frozen=True)
class ScopeCorrection:
    """What a user set to correct the scope read off the question; None leaves that part as read."""

    company: str | None = None  # a company's name or ticker; "" clears it
    year: int | None = None  # fiscal year; 0 clears it
    form: str | None = None  # "10-K", "8-K", …; "" clears it
    statement: str | None = None  # a key of structure.STATEMENTS; "" clears it
    everywhere: bool = False  # search every filing even when the question names a company the room lacks

    def __post_init__(self) -> None:
        if self.statement and self.statement not in STATEMENTS:
            raise PathLensError(f"statement: unknown statement {self.statement!r}; choose from {', '.join(STATEMENTS)}")
        if self.year is not None and (isinstance(self.year, bool) or not isinstance(self.year, int)
                                      or not (self.year == 0 or 1950 <= self.year <= 2100)):
            raise PathLensError(f"fiscal year must be a year such as 2022 (or 0 to clear it), got {self.year!r}")

    @property
    def empty(self) -> bool:
        return self == ScopeCorrection()


@dataclass(frozen=True)
class Scope:
    text: str  # the question without its instruction text: what dense, BM25 and the entity seeds read
    companies: tuple[str, ...]  # company display names the question names
    company_keys: tuple[str, ...]  # their first names (node refs)
    year: int | None  # the fiscal year asked about: the one the question anchors ("as of FY2021"), else the latest
    quarter: int | None
    form: str
    statements: tuple[str, ...]  # statement kinds named, or implied by the terms
    terms: tuple[tuple[str, Term], ...]  # (phrase used, lexicon term)
    filings: tuple[str, ...]  # the doc ids the question is scoped to; () when nothing scopes it
    corrected: bool = False  # a user's correction changed something
    notes: tuple[str, ...] = ()  # what the scope could not do as asked, in words: an unknown name, no such period
    stop: str = ""  # why nothing in the room can answer (a company it lacks), offering what it holds; "" answers
    span: tuple[int, ...] = ()  # fiscal years a question spanning several asks about ("from FY2015 to FY2016")

    def words(self, filings: Mapping[str, Filing]) -> str:
        """"Nike · FY2018 · 10-K · Statement of cash flows → Nike FY2018 10-K", then any note."""
        if self.stop:
            return self.stop
        parts = [", ".join(self.companies) or "any company",
                 "–".join(f"FY{y}" for y in (self.span[0], self.span[-1])) if self.span
                 else f"FY{self.year}" if self.year else "any period"]
        if self.quarter:
            parts.append(f"Q{self.quarter}")
        if self.form:
            parts.append(self.form)
        if self.statements:
            parts.append(", ".join(STATEMENTS[s][0] for s in self.statements))
        scoped = ", ".join(filings[d].label for d in self.filings if d in filings)
        if not scoped:  # no scope, or one that holds the whole room: a room of one filing names it
            scoped = f"{next(iter(filings.values())).label}, the room's only filing" if len(filings) == 1 else "every filing"
        return " · ".join(parts) + f" → {scoped}" + "".join(f". {n}" for n in self.notes)


# "as of FY2021", "in the FY2021 10-K", "FY2021 annual report": the year that chooses the filing; another year in the
# same question ("the payment expected in 2024") is a figure inside that filing
_ANCHOR = re.compile(r"\b(?:as of|as at|according to|per|in|from|based on|for)\s+(?:the\s+|its\s+|their\s+)?(?:year\s+)?"
                     + _YEAR_WORD.replace("?P<", "?P<a_")
                     + r"|" + _YEAR_WORD.replace("?P<", "?P<b_") + r"\s+(?:10-?k|10-?q|annual report|filing|report)\b",
                     re.IGNORECASE)
# "from FY2015 to FY2016", "between 2021 and 2022", "FY2021 vs FY2022", "2020-2021": two fiscal years at once
_SPAN = re.compile(_YEAR_WORD.replace("?P<", "?P<x_") + r"\s*(?:to|and|vs\.?|versus|through|–|-)\s*"
                   + _YEAR_WORD.replace("?P<", "?P<y_"), re.IGNORECASE)
_QUARTER_OF = re.compile(r"\b(?:q([1-4])|(first|second|third|fourth)[- ]quarter)\s*(?:of\s+)?(?:the\s+)?(?:year\s+)?"
                         + _YEAR_WORD.replace("?P<", "?P<q_"), re.IGNORECASE)


def _year(text: str) -> int:
    y = int(text)
    return y + 2000 if y < 100 else y


def _said(m: re.Match, prefix: str = "") -> int:
    """The year of a `_YEAR_WORD` match, whichever of its forms matched."""
    return _year(next(m.group(prefix + g) for g in ("fy", "short", "bare") if m.group(prefix + g)))


def year_mentions(text: str) -> list[int]:
    """Every year a question names, by the grammar above, in order."""
    return [_said(m) for m in _YEAR_MENTION.finditer(text) if 1950 <= _said(m) <= 2100]


@dataclass(frozen=True)
class AskedPeriod:
    """The fiscal period a question asks about: a year, a quarter, and a second year when it spans two."""

    year: int | None = None
    quarter: int | None = None
    span: tuple[int, ...] = ()  # ("from FY2015 to FY2016"): both years, earlier first
    end: tuple[int, int, int] | None = None  # a period's last day ("the quarter ended April 30, 2023"); day 0: the month


_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
_MONTH = r"(?P<month>" + "|".join(m.capitalize() for m in _MONTH_NAMES) + r")"
# a period named by its last day: "the quarter ended April 30, 2023", "as of September 30, 2022", "at the end of
# September 2022"; and a year to date: "the first nine months of 2022", "the nine months ended …"
_ENDED = re.compile(r"\b(?:ended|ending|as of|as at|at|on|through)\s+(?:the\s+end\s+of\s+)?" + _MONTH
                    + r"\s+(?:(?P<day>\d{1,2}),?\s+)?(?P<year>(?:19|20)\d\d)\b"
                    r"|\bend of " + _MONTH.replace("month", "month2") + r",?\s+(?P<year2>(?:19|20)\d\d)\b")
_TO_DATE = re.compile(r"\b(?:first\s+)?(three|six|nine)\s+months\b(?:\s+(?:of|in)\s+(?:fiscal\s+|fy\s*)?"
                      r"(?P<year>(?:19|20)\d\d))?", re.IGNORECASE)
_MONTHS_IN = {"three": 1, "six": 2, "nine": 3}


def asked_period(question: str) -> AskedPeriod:
    """(fiscal year, quarter) a question asks about: "Q2 of FY2024" is quarter 2 of fiscal 2024; "the quarter ended
    April 30, 2023" is the period ending then (`end`, which filings are matched by); "the first nine months of 2022"
    is the third quarter's year to date; two years joined ("from FY2015 to FY2016") span both, the later one asked
    about; an anchored year ("as of FY2021") chooses the filing over a later year the question also names; else the
    latest year."""
    m = _QUARTER_OF.search(question)
    if m:
        return AskedPeriod(_said(m, "q_"), int(m.group(1)) if m.group(1) else _ORDINAL[m.group(2).lower()])
    quarter = None
    q = _QUARTER.search(question)
    if q:
        quarter = int(q.group(1)) if q.group(1) else _ORDINAL[q.group(2).lower()]
    to_date = _TO_DATE.search(question)
    if to_date:
        quarter = quarter or _MONTHS_IN[to_date.group(1).lower()]
    ended = _ENDED.search(question)
    if ended:
        month = _MONTH_NAMES.index((ended.group("month") or ended.group("month2")).lower()) + 1
        year = int(ended.group("year") or ended.group("year2"))
        return AskedPeriod(year, quarter, (), (year, month, int(ended.group("day") or 0)))
    if to_date and to_date.group("year"):
        return AskedPeriod(int(to_date.group("year")), quarter)
    span = _SPAN.search(question)
    if span:
        a, b = sorted((_said(span, "x_"), _said(span, "y_")))
        if 0 < b - a <= 3:
            return AskedPeriod(b, quarter, tuple(range(a, b + 1)))
    anchored = []
    for m in _ANCHOR.finditer(question):
        prefix = "a_" if any(m.group("a_" + g) for g in ("fy", "short", "bare")) else "b_"
        anchored.append(_said(m, prefix))
    anchored = [y for y in anchored if 1950 <= y <= 2100]
    if anchored:
        return AskedPeriod(anchored[0], quarter)
    years = year_mentions(question)
    return AskedPeriod(max(years) if years else None, quarter)


def ends_on(filing: Filing, end: tuple[int, int, int]) -> bool:
    """Whether a filing's period ends on that day (a 52/53-week period within a week of it), or in that month when
    the day is not said."""
    if not filing.period_end:
        return False
    y, m, d = (int(x) for x in filing.period_end.split("-"))
    if not end[2]:
        return (y, m) == end[:2]
    from datetime import date
    return abs((date(y, m, d) - date(*end)).days) <= 7


@dataclass(frozen=True)
class Names:
    """The companies a question names, and the names it writes that the room cannot place."""

    keys: tuple[str, ...]  # first names (company keys) of the companies named
    unknown: tuple[str, ...] = ()  # names as written that match no company of the room
    ambiguous: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a name and the companies it could mean


def company_names(question: str, filings: Mapping[str, Filing]) -> Names:
    """The companies a question names: a folded run of 1–5 words equal to one of a company's keys
    ("Coca Cola", "Coca-Cola" → "cocacola"; "Lockheed"; "PG&E" → "pge"), or a ticker or initials written in
    capitals ("NKE", "AMD"). A capitalised name the question writes as a company ("Nike's", "Acme Corp", a
    word in capitals) that matches none is unknown; a key two companies share is ambiguous."""
    companies: dict[str, set[str]] = {}
    symbols: dict[str, set[str]] = {}
    display: dict[str, str] = {}
    for f in filings.values():
        if not f.names:
            continue
        display[f.names[0]] = f.company
        for n in f.names:
            companies.setdefault(n, set()).add(f.names[0])
        for sym in f.symbols:
            symbols.setdefault(sym, set()).add(f.names[0])
    toks = normalize_name(question).split()
    found: dict[str, None] = {}
    ambiguous: dict[str, tuple[str, ...]] = {}
    placed: set[str] = set()  # folded words of the question that some company's key matched

    def take(said: str, keys: set[str]) -> None:
        if len(keys) > 1:
            ambiguous[said] = tuple(sorted(display[k] for k in keys))
        for k in sorted(keys):
            found.setdefault(k, None)
    for i in range(len(toks)):
        for n in range(5, 0, -1):
            key = "".join(toks[i:i + n])
            if i + n <= len(toks) and key in companies:
                take(" ".join(toks[i:i + n]), companies[key])
                placed.update(toks[i:i + n])
                break
    for word in re.findall(r"\b[A-Z][A-Z&]{1,4}\b", question):
        if word in symbols:
            take(word, symbols[word])
            placed.add(normalize_name(word).replace(" ", ""))
    unknown = []
    candidates = [m.group(1) for m in _NAMED.finditer(question)]
    candidates += [w for w in re.findall(r"(?<![\w&-])[A-Z][A-Z&]{1,4}(?![\w&-])", question) if w not in _NOT_TICKERS]
    for name in candidates:
        written = name.split()
        while written and normalize_name(written[0]) in STOPWORDS | _QUESTION_WORDS:
            written = written[1:]  # "Did Acme Corp" → "Acme"
        name = " ".join(written)
        words = normalize_name(name).split()
        content = [w for w in words if w not in STOPWORDS and w not in _QUESTION_WORDS]
        if not content or any(w in placed for w in words) or "".join(words) in companies or name in symbols:
            continue
        unknown.append(name)
    return Names(tuple(found), tuple(dict.fromkeys(unknown)), tuple(ambiguous.items()))


_QUESTION_WORDS = frozenset("""what which who whom whose how why when where is are was were does do did has have
the a an company firm business its their it this that these fy fiscal year quarter net total""".split())


def read_scope(question: str, filings: Mapping[str, Filing], lexicon: Lexicon,
               correction: ScopeCorrection = ScopeCorrection()) -> Scope:
    """The scope of a question over these filings, with a user's correction applied."""
    text = lexicon.strip_instructions(question)
    named = company_names(question, filings)
    keys = list(named.keys)
    asked = asked_period(question)
    year, quarter = asked.year, asked.quarter
    form = next((f for f, pattern in _FORMS.items() if pattern.search(question)), "")
    terms = tuple(lexicon.terms_in(question))
    statements = lexicon.statements_named(question)
    if not statements:  # a term implies its statement only when the question names none
        statements = [t.statement for _, t in terms if t.statement]
    statements = list(dict.fromkeys(statements))
    corrected = False
    if correction.company is not None:
        named = company_names(correction.company, filings) if correction.company else Names(())
        keys = list(named.keys)
        if correction.company and not keys:
            raise PathLensError(f"company: no filing of the data room is by {correction.company!r}; companies: "
                                + ", ".join(sorted({f.company for f in filings.values() if f.company})))
        corrected = True
    span = asked.span
    if correction.year is not None:
        year, span, corrected = correction.year or None, (), True
    if correction.form is not None:
        form, corrected = correction.form.strip(), True
        form = form.upper() if form.lower() != "earnings release" else "earnings release"
    if correction.statement is not None:
        statements, corrected = ([correction.statement] if correction.statement else []), True
    display = {f.names[0]: f.company for f in filings.values() if f.names}
    end = asked.end if correction.year is None else None
    # each company its own period: a question comparing two must not lose one whose filings hold another year
    scoped = [scoped_filings(filings, group, year, form, quarter, " and ".join(display[k] for k in group), span, end)
              for group in ([[k] for k in keys] if len(keys) > 1 else [keys])]
    docs = () if any(not d for d, _ in scoped) else tuple(sorted({x for d, _ in scoped for x in d}))
    period_notes = [n for _, n in scoped if n]
    stop = ""
    if named.unknown and not keys and not correction.everywhere:
        held = sorted({f.company for f in filings.values() if f.company})
        stop = (" and ".join(f"“{n}”" for n in named.unknown) + " names no company of this data room, so no page "
                "of it answers. The room holds filings of " + ", ".join(held)
                + ". Ask about one of them, or search every filing.")
    notes = [f"“{n}” names no company of this data room; searching every filing" for n in named.unknown
             if not keys and correction.everywhere]
    notes += [f"“{n}” names no company of this data room" for n in named.unknown if keys]
    notes += [f"“{said}” could be {' or '.join(which)}; both are kept" for said, which in named.ambiguous]
    notes += period_notes
    return Scope(text, tuple(display[k] for k in keys), tuple(keys), year, quarter, form, tuple(statements), terms,
                 () if stop else docs, corrected, tuple(notes), stop, span)


def scoped_filings(filings: Mapping[str, Filing], company_keys, year: int | None, form: str,
                   quarter: int | None = None, who: str = "", span: tuple[int, ...] = (),
                   end: tuple[int, int, int] | None = None) -> tuple[tuple[str, ...], str]:
    """(the filings a question is scoped to, a note on what was chosen or is missing).

    A named company keeps its filings; a named form those of that form; a named quarter the filings of
    that fiscal quarter (a 10-Q or a release); a named year the filing of that fiscal year, its 10-K over the
    year's releases and 10-Qs when it has one (which the note says), or, when the room has none, the nearest
    later one that repeats it as a comparative, which the note says; a span of years, the filings of each; a period
    named by its last day, the filings whose period ends then (else as its calendar year).
    Nothing named: no scope, () (every filing stays in play)."""
    docs = [d for d, f in filings.items() if not company_keys or (f.names and f.names[0] in company_keys)]
    if form:
        docs = [d for d in docs if filings[d].form == form] or docs
    note = ""
    missing = f"No {who + ' ' if who else ''}filing for FY{year}{f' Q{quarter}' if quarter else ''}"
    ending = [d for d in docs if end and ends_on(filings[d], end)]
    if ending:
        docs = ending
    elif span:
        within = [d for d in docs if filings[d].fiscal_year in span]
        docs = _annual(within, filings) if within and not form else within or docs
    elif year is not None:
        exact = [d for d in docs if filings[d].fiscal_year == year]
        if quarter is not None and exact:
            in_quarter = [d for d in exact if filings[d].quarter == quarter]
            if in_quarter:
                exact = in_quarter
            elif quarter == 4:
                exact = [d for d in exact if filings[d].form == "10-K"] or exact
            else:
                note = f"{missing}; showing " + ", ".join(filings[d].label for d in exact)
        elif exact and not form:
            annual = _annual(exact, filings)
            if len(annual) < len(exact):
                note = (f"FY{year}: the 10-K ({', '.join(filings[d].label for d in annual)}), not "
                        + ", ".join(filings[d].label for d in exact if d not in annual))
            exact = annual
        if exact:
            docs = exact
        else:
            later = sorted({filings[d].fiscal_year for d in docs if filings[d].fiscal_year
                            and year < filings[d].fiscal_year <= year + COMPARATIVE_YEARS})
            if later:
                docs = [d for d in docs if filings[d].fiscal_year == later[0]]
                note = f"{missing}; showing " + ", ".join(filings[d].label for d in docs) + ", the nearest"
            elif docs and company_keys:
                note = f"{missing}; searching every filing of the company"
    if not company_keys and year is None and not form:
        return (), note
    return (tuple(sorted(docs)) if len(docs) < len(filings) else ()), note


def _annual(docs, filings: Mapping[str, Filing]) -> list[str]:
    """A fiscal year's filings with each company's 10-K in place of its other filings of that year: a question about
    a year asks for the year's annual report, not its Q4 release or a 10-Q that names the same fiscal year."""
    annual = {filings[d].names[:1] for d in docs if filings[d].form == "10-K"}
    return [d for d in docs if filings[d].form == "10-K" or filings[d].names[:1] not in annual]


__all__ = ["AskedPeriod", "asked_period", "year_mentions", "COMPARATIVE_YEARS", "Names", "Scope", "ScopeCorrection", "company_names", "read_scope", "scoped_filings"]
