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
from ..text import normalize_name
from .lexicon import Lexicon, Term
from .structure import STATEMENTS, Filing

COMPARATIVE_YEARS = 2  # a 10-K repeats the two years before its own: FY2020 figures also stand in FY2021's and FY2022's
_FY = re.compile(r"\b(?:fy|fiscal(?:\s+year)?|year)\s*'?(\d{4}|\d{2})\b", re.IGNORECASE)
_BARE_YEAR = re.compile(r"(?<![\w$.,])(19[5-9]\d|20[0-4]\d)(?![\w,.]\d)")
_QUARTER = re.compile(r"\b(?:q([1-4])|(first|second|third|fourth) quarter)\b", re.IGNORECASE)
_FORMS = {"10-K": re.compile(r"\b10-?k\b|\bannual report\b", re.IGNORECASE),
          "10-Q": re.compile(r"\b10-?q\b|\bquarterly report\b", re.IGNORECASE),
          "8-K": re.compile(r"\b8-?k\b|\bcurrent report\b", re.IGNORECASE)}
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
    year: int | None  # the fiscal year asked about (the latest the question names)
    quarter: int | None
    form: str
    statements: tuple[str, ...]  # statement kinds named, or implied by the terms
    terms: tuple[tuple[str, Term], ...]  # (phrase used, lexicon term)
    filings: tuple[str, ...]  # the doc ids the question is scoped to; () when nothing scopes it
    corrected: bool = False  # a user's correction changed something

    def words(self, filings: Mapping[str, Filing]) -> str:
        """"Nike · FY2018 · 10-K · Statement of cash flows → Nike FY2018 10-K"."""
        parts = [", ".join(self.companies) or "any company",
                 f"FY{self.year}" if self.year else "any period"]
        if self.quarter:
            parts.append(f"Q{self.quarter}")
        if self.form:
            parts.append(self.form)
        if self.statements:
            parts.append(", ".join(STATEMENTS[s][0] for s in self.statements))
        scoped = ", ".join(filings[d].label for d in self.filings if d in filings) or "every filing"
        return " · ".join(parts) + f" → {scoped}"


def _years(text: str) -> list[int]:
    years = []
    for m in _FY.finditer(text):
        y = int(m.group(1))
        years.append(y + 2000 if y < 100 else y)
    years += [int(m.group(1)) for m in _BARE_YEAR.finditer(text)]
    return years


def _companies(question: str, filings: Mapping[str, Filing]) -> list[str]:
    """First names of the companies the question names: a folded run of 1–5 words with its spaces
    removed equals a company's name ("Coca Cola", "Coca-Cola" → "cocacola"), or a capitalised
    ticker or initials ("NKE", "AMD")."""
    names: dict[str, str] = {}
    symbols: dict[str, str] = {}
    for f in filings.values():
        if not f.names:
            continue
        for n in f.names:
            names.setdefault(n, f.names[0])
        for s in f.symbols:
            symbols.setdefault(s, f.names[0])
    toks = normalize_name(question).split()
    found: dict[str, None] = {}
    for i in range(len(toks)):
        for n in range(5, 0, -1):
            key = "".join(toks[i:i + n])
            if i + n <= len(toks) and key in names:
                found.setdefault(names[key], None)
                break
    for word in re.findall(r"\b[A-Z]{2,5}\b", question):
        if word in symbols:
            found.setdefault(symbols[word], None)
    return list(found)


def read_scope(question: str, filings: Mapping[str, Filing], lexicon: Lexicon,
               correction: ScopeCorrection = ScopeCorrection()) -> Scope:
    """The scope of a question over these filings, with a user's correction applied."""
    text = lexicon.strip_instructions(question)
    keys = _companies(question, filings)
    years = _years(question)
    year = max(years) if years else None
    quarter = None
    m = _QUARTER.search(question)
    if m:
        quarter = int(m.group(1)) if m.group(1) else _ORDINAL[m.group(2).lower()]
    form = next((f for f, pattern in _FORMS.items() if pattern.search(question)), "")
    terms = tuple(lexicon.terms_in(question))
    statements = lexicon.statements_named(question)
    if not statements:  # a term implies its statement only when the question names none
        statements = [t.statement for _, t in terms if t.statement]
    statements = list(dict.fromkeys(statements))
    corrected = False
    if correction.company is not None:
        keys = _companies(correction.company, filings) if correction.company else []
        if correction.company and not keys:
            raise PathLensError(f"company: no filing of the data room is by {correction.company!r}; companies: "
                                + ", ".join(sorted({f.company for f in filings.values()})))
        corrected = True
    if correction.year is not None:
        year, corrected = correction.year or None, True
    if correction.form is not None:
        form, corrected = correction.form.upper(), True
    if correction.statement is not None:
        statements, corrected = ([correction.statement] if correction.statement else []), True
    display = {f.names[0]: f.company for f in filings.values() if f.names}
    return Scope(text, tuple(display[k] for k in keys), tuple(keys), year, quarter, form, tuple(statements), terms,
                 scoped_filings(filings, keys, year, form), corrected)


def scoped_filings(filings: Mapping[str, Filing], company_keys, year: int | None, form: str) -> tuple[str, ...]:
    """The filings a question is scoped to. A named company keeps its filings; a named form those of
    that form; a named year the filing of that fiscal year, or, when the room has none, the nearest later
    one that repeats it as a comparative. Nothing named: no scope, () (every filing stays in play)."""
    docs = [d for d, f in filings.items() if not company_keys or (f.names and f.names[0] in company_keys)]
    if form:
        docs = [d for d in docs if filings[d].form == form] or docs
    if year is not None:
        exact = [d for d in docs if filings[d].fiscal_year == year]
        if exact:
            docs = exact
        else:
            later = sorted({filings[d].fiscal_year for d in docs if filings[d].fiscal_year
                            and year < filings[d].fiscal_year <= year + COMPARATIVE_YEARS})
            docs = [d for d in docs if later and filings[d].fiscal_year == later[0]] if later else docs
    if not company_keys and year is None and not form:
        return ()
    return tuple(sorted(docs)) if len(docs) < len(filings) else ()


__all__ = ["COMPARATIVE_YEARS", "Scope", "ScopeCorrection", "read_scope", "scoped_filings"]
