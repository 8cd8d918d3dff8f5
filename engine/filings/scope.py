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
_FY = re.compile(r"\b(?:fy|fiscal(?:\s+year)?|year)\s*'?(\d{4}|\d{2})\b", re.IGNORECASE)
_BARE_YEAR = re.compile(r"(?<![\w$.,])(19[5-9]\d|20[0-4]\d)(?![\w,.]\d)")
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

    def words(self, filings: Mapping[str, Filing]) -> str:
        """"Nike · FY2018 · 10-K · Statement of cash flows → Nike FY2018 10-K", then any note."""
        parts = [", ".join(self.companies) or "any company",
                 f"FY{self.year}" if self.year else "any period"]
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
_ANCHOR = re.compile(r"\b(?:as of|as at|according to|per|in|from|based on)\s+(?:the\s+|its\s+|their\s+)?"
                     r"(?:fy|fiscal(?:\s+year)?|year)?\s*'?(\d{4}|\d{2})\b"
                     r"|\b(?:fy|fiscal(?:\s+year)?)\s*'?(\d{4}|\d{2})\s+(?:10-?k|10-?q|annual report|filing|report)\b",
                     re.IGNORECASE)
_QUARTER_OF = re.compile(r"\b(?:q([1-4])|(first|second|third|fourth)[- ]quarter)\s*(?:of\s+)?(?:the\s+)?"
                         r"(?:fy|fiscal(?:\s+year)?|year)?\s*'?(\d{4}|\d{2})\b", re.IGNORECASE)


def _year(text: str) -> int:
    y = int(text)
    return y + 2000 if y < 100 else y


def _years(text: str) -> list[int]:
    years = [_year(m.group(1)) for m in _FY.finditer(text)]
    years += [int(m.group(1)) for m in _BARE_YEAR.finditer(text)]
    return years


def _period(question: str) -> tuple[int | None, int | None]:
    """(fiscal year, quarter) a question asks about: "Q2 of FY2024" is quarter 2 of fiscal 2024; an anchored
    year ("as of FY2021") chooses the filing over a later year the question also names; else the latest year."""
    m = _QUARTER_OF.search(question)
    if m:
        return _year(m.group(3)), int(m.group(1)) if m.group(1) else _ORDINAL[m.group(2).lower()]
    quarter = None
    q = _QUARTER.search(question)
    if q:
        quarter = int(q.group(1)) if q.group(1) else _ORDINAL[q.group(2).lower()]
    anchored = [_year(m.group(1) or m.group(2)) for m in _ANCHOR.finditer(question)
                if 1950 <= _year(m.group(1) or m.group(2)) <= 2100]
    if anchored:
        return anchored[0], quarter
    years = _years(question)
    return (max(years) if years else None), quarter


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
    year, quarter = _period(question)
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
                                + ", ".join(sorted({f.company for f in filings.values()})))
        corrected = True
    if correction.year is not None:
        year, corrected = correction.year or None, True
    if correction.form is not None:
        form, corrected = correction.form.strip(), True
        form = form.upper() if form.lower() != "earnings release" else "earnings release"
    if correction.statement is not None:
        statements, corrected = ([correction.statement] if correction.statement else []), True
    display = {f.names[0]: f.company for f in filings.values() if f.names}
    docs, period_note = scoped_filings(filings, keys, year, form, quarter, " and ".join(display[k] for k in keys))
    notes = [f"“{n}” names no company of this data room" + ("" if keys else "; searching every filing")
             for n in named.unknown]
    notes += [f"“{said}” could be {' or '.join(which)}; both are kept" for said, which in named.ambiguous]
    notes += [period_note] if period_note else []
    return Scope(text, tuple(display[k] for k in keys), tuple(keys), year, quarter, form, tuple(statements), terms,
                 docs, corrected, tuple(notes))


def scoped_filings(filings: Mapping[str, Filing], company_keys, year: int | None, form: str,
                   quarter: int | None = None, who: str = "") -> tuple[tuple[str, ...], str]:
    """(the filings a question is scoped to, a note when the asked period is not in the room).

    A named company keeps its filings; a named form those of that form; a named quarter the filings of
    that fiscal quarter (a 10-Q or a release); a named year the filing of that fiscal year, or, when the
    room has none, the nearest later one that repeats it as a comparative, which the note says. Nothing
    named: no scope, () (every filing stays in play)."""
    docs = [d for d, f in filings.items() if not company_keys or (f.names and f.names[0] in company_keys)]
    if form:
        docs = [d for d in docs if filings[d].form == form] or docs
    note = ""
    missing = f"No {who + ' ' if who else ''}filing for FY{year}{f' Q{quarter}' if quarter else ''}"
    if year is not None:
        exact = [d for d in docs if filings[d].fiscal_year == year]
        if quarter is not None and exact:
            in_quarter = [d for d in exact if filings[d].quarter == quarter]
            if in_quarter:
                exact = in_quarter
            elif quarter == 4:
                exact = [d for d in exact if filings[d].form == "10-K"] or exact
            else:
                note = f"{missing}; showing " + ", ".join(filings[d].label for d in exact)
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


__all__ = ["COMPARATIVE_YEARS", "Names", "Scope", "ScopeCorrection", "company_names", "read_scope", "scoped_filings"]
