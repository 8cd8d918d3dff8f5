"""The periods a question asks about, read as analysts write them: a grammar of period phrases, not a wall of
patterns.

A lexer finds every period phrase, longest first, from one table (`_PHRASES`): years (2022, FY22, fiscal '23,
calendar 2022, YE15), quarters in every notation (Q2, 2Q22, 2Q 2023, Q2 FY23, Q2'23, the second quarter of 2023,
fiscal Q3, the June quarter, the quarter ended April 30, 2023), halves (1H22, H1 FY2023, the first half of 2023),
years to date (the nine months ended …, YTD), trailing twelve months, and dates (as of December 31, 2022; the end
of June 2023; dated August 19, 2022). A second pass reads how the phrases join: a range of years ("2020-2021",
"FY2020-FY2021", "from 2019 to 2021") asks for every year in it, a comparison ("Q4 2022 vs Q2 2023", "from Q4 2022
to Q2 2023", "FY21 vs FY22") for each end, and a period that names a filing ("its FY2023 10-K", "as of FY2021")
chooses the filing, so another period in the same question ("in 2025") is a figure inside it.

Durations ("12 months", "30 days"), forms ("10-K"), figures ("$2,021") and a year-over-year comparison ("YoY",
"versus the prior year") are never periods of their own: the filing of the period holds its prior year.

Each period keeps the words it was read from, so the scope can say what it understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_ABBR = {m[:3]: i for i, m in enumerate(_MONTHS, start=1)}
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_COUNT = {"three": 3, "six": 6, "nine": 9, "twelve": 12, "3": 3, "6": 6, "9": 9, "12": 12}

# pieces of the grammar
_Y4 = r"(?:19[5-9]\d|20[0-4]\d)"
_YY = r"(?:" + _Y4 + r"|\d{2}(?!\d))"  # four digits, or two
# never a year: one followed by a figure's digits, a word joined by a dash ("2020-era"), or a duration ("12 months")
_NOT_AFTER = r"(?![\w,.]\d)(?!\s*-\s*(?!fy|q[1-4]|[1-4]q|h[12]|cy)[a-z])(?!\s*(?:months?|days?|weeks?|hours?)\b)"
_FY = r"(?:fy|fiscal(?:\s+year)?|fiscal\s+yr)\s*'?\s*"
_MONTH = r"(?P<mon>" + "|".join(_MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
_DATE = _MONTH + r"\s+(?:(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+)?(?P<dy>" + _Y4 + r")"
_QYEAR = r"(?:\s*(?:of\s+)?(?:the\s+)?(?:" + _FY + r"(?P<qfy>" + _YY + r")|'(?P<qap>\d{2})|(?P<qy>" + _Y4 + r")))?"


@dataclass(frozen=True)
class Period:
    """One period a question names. A fiscal year and quarter by the company's own calendar, unless `calendar`
    (a calendar year or date, which each company's fiscal calendar maps: `engine.filings.scope`)."""

    year: int | None = None  # fiscal year (or calendar year when `calendar`)
    quarter: int | None = None  # 1-4: a quarter, the last quarter of a half or of a year to date
    end: tuple[int, int, int] | None = None  # a period's last day, or a balance date; day 0: the month's end
    calendar: bool = False  # a calendar year or date, not a fiscal one
    kind: str = "year"  # year, quarter, half, year to date, trailing twelve months, date, report date
    said: str = ""  # the words it was read from

    def words(self) -> str:
        """How the scope line says it: "FY2022", "Q2 FY2023", "H1 FY2023", "calendar 2022", "31 Dec 2022"."""
        if self.end is not None:
            y, m, d = self.end
            day = f"{d} " if d else ""
            lead = {"quarter": "the quarter ended ", "year to date": f"the {3 * (self.quarter or 0)} months ended ",
                    "report date": "dated "}.get(self.kind, "")
            return f"{lead}{day}{_MONTHS[m - 1].capitalize()[:3]} {y}"
        year = f"FY{self.year}" if self.year else ""
        if self.kind == "trailing twelve months":
            return "the trailing twelve months"
        if self.calendar:
            return f"calendar {self.year}"
        if self.kind == "half":
            return f"H{1 if self.quarter == 2 else 2} {year}".strip()
        if self.kind == "year to date":
            return f"the {3 * self.quarter} months of {year}".strip() if self.quarter else f"{year} year to date".strip()
        if self.quarter:
            return f"Q{self.quarter} {year}".strip()
        return year or "any period"


@dataclass(frozen=True)
class AskedPeriods:
    """Every period a question asks about, in order; `filing` is the one that names the filing, when one does."""

    periods: tuple[Period, ...] = ()
    filing: Period | None = None  # "according to its FY2023 10-K": the filing's period (the others are figures in it)
    spans: tuple[tuple[int, int], ...] = ()  # (first, last) fiscal years of each range of years ("2020-2022")

    @property
    def asked(self) -> tuple[Period, ...]:
        """The periods that choose filings: the filing's own when one is named, else all."""
        return (self.filing,) if self.filing is not None else self.periods


def _year(text: str | None) -> int | None:
    if not text:
        return None
    y = int(text)
    return y + 2000 if y < 100 else y


def _month(text: str) -> int:
    return _MONTH_ABBR[text.lower()[:3]]


def _date(m: re.Match) -> tuple[int, int, int]:
    return int(m.group("dy")), _month(m.group("mon")), int(m.group("day") or 0)


def _quarter_year(m: re.Match) -> int | None:
    return _year(m.group("qfy") or m.group("qap") or m.group("qy"))


# (pattern, reader): each reader makes a Period of its match. Order matters only for equal lengths: the lexer takes
# the longest phrase at each place.
_PHRASES: list[tuple[re.Pattern, object]] = []


def _phrase(pattern: str):
    def add(reader):
        _PHRASES.append((re.compile(pattern, re.IGNORECASE), reader))
        return reader
    return add


@_phrase(r"\b(?:the\s+)?(?:quarter|three months|3 months|13 weeks|twelve weeks|12 weeks)\s+(?:ended|ending|to|through)\s+"
         + _DATE)
def _quarter_ended(m):
    return Period(end=_date(m), kind="quarter", calendar=True)


@_phrase(r"\b(?:the\s+)?(?:first\s+)?(?P<n>six|nine|6|9|twelve|12)\s+months\s+(?:ended|ending|to|through)\s+" + _DATE)
def _months_ended(m):
    n = _COUNT[m.group("n").lower()]
    return Period(end=_date(m), quarter=n // 3 if n < 12 else None, kind="year to date" if n < 12 else "date",
                  calendar=True)


@_phrase(r"\bdated\s+" + _DATE)
def _dated(m):
    return Period(end=_date(m), kind="report date", calendar=True)


@_phrase(r"\b(?:as of|as at|at|on|ended|ending|through|to|by)\s+(?:the\s+end\s+of\s+)?" + _DATE
         + r"|\b(?:the\s+)?end\s+of\s+" + _DATE.replace("?P<", "?P<e_"))
def _as_of(m):
    if m.group("mon"):
        return Period(end=_date(m), kind="date", calendar=True)
    return Period(end=(int(m.group("e_dy")), _month(m.group("e_mon")), int(m.group("e_day") or 0)), kind="date",
                  calendar=True)


@_phrase(r"\b(?:the\s+)?(?P<qm>march|june|september|december)\s+quarter(?:\s+(?:of\s+)?(?P<qy>" + _Y4 + r"))?")
def _month_quarter(m):
    """"The June quarter (of 2023)": the quarter ending in June, by each company's calendar; year 0: any year."""
    return Period(end=(_year(m.group("qy")) or 0, _month(m.group("qm")), 0), kind="quarter", calendar=True)


@_phrase(r"\b(?:fiscal\s+)?q(?P<q>[1-4])(?:\s*[-/]\s*(?=\d)|\s*(?:of\s+(?:the\s+)?)?)(?:" + _FY + r"(?P<qfy>" + _YY + r")|'\s*(?P<qap>\d{2})"
         r"|(?P<qy>" + _Y4 + r")|(?P<qs>\d{2})(?!\d))?" + _NOT_AFTER)
def _q_first(m):
    return Period(_year(m.group("qfy") or m.group("qap") or m.group("qy") or m.group("qs")), int(m.group("q")),
                  kind="quarter")


@_phrase(r"\b(?P<q>[1-4])q\s*(?:" + _FY + r"(?P<qfy>" + _YY + r")|'?\s*(?P<qy>" + _YY + r"))?" + _NOT_AFTER)
def _q_second(m):
    return Period(_year(m.group("qfy") or m.group("qy")), int(m.group("q")), kind="quarter")


@_phrase(r"\b(?:fiscal\s+)?(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal[\s-]+)?quarter" + _QYEAR)
def _q_words(m):
    return Period(_quarter_year(m), _ORDINAL[m.group("ord").lower()], kind="quarter")


@_phrase(r"\b(?:(?P<h>[12])h|h(?P<h2>[12]))\s*(?:" + _FY + r"(?P<qfy>" + _YY + r")|'?\s*(?P<qy>" + _YY + r"))?"
         + _NOT_AFTER)
def _half(m):
    h = int(m.group("h") or m.group("h2"))
    return Period(_year(m.group("qfy") or m.group("qy")), 2 * h, kind="half")


@_phrase(r"\b(?:the\s+)?(?P<hw>first|second)\s+half" + _QYEAR)
def _half_words(m):
    return Period(_quarter_year(m), 2 if m.group("hw").lower() == "first" else 4, kind="half")


@_phrase(r"\b(?:the\s+)?(?:first\s+)?(?P<n>three|six|nine)\s+months(?:\s+(?:of|in)\s+(?:fiscal\s+|fy\s*)?(?P<qy>" + _Y4
         + r"))?")
def _months_of(m):
    return Period(_year(m.group("qy")), _COUNT[m.group("n").lower()] // 3, kind="year to date")


@_phrase(r"\b(?P<n>12|13|24|26|36|39)[\s-]weeks?\b(?:\s+(?:ended|ending|to|through)\s+" + _DATE + r")?")
def _weeks(m):
    """"The 36 weeks ended May 7, 2023" (a 52/53-week calendar's year to date): quarter n / 12 or n / 13."""
    quarter = round(int(m.group("n")) / 12.5)
    return Period(end=_date(m) if m.group("mon") else None, quarter=quarter, kind="year to date",
                  calendar=bool(m.group("mon")))


@_phrase(r"\b(?:year[\s-]to[\s-]date|ytd)\b")
def _ytd(m):
    return Period(kind="year to date")


@_phrase(r"\b(?:(?:trailing|last)\s+twelve\s+months|(?:trailing|last)\s+12\s+months|ttm|ltm)\b")
def _ttm(m):
    return Period(kind="trailing twelve months")


@_phrase(r"\b(?:calendar(?:\s+year)?\s+(?P<cy>" + _Y4 + r")|cy\s*'?(?P<cy2>" + _YY + r"))" + _NOT_AFTER)
def _calendar_year(m):
    return Period(_year(m.group("cy") or m.group("cy2")), calendar=True)


@_phrase(r"\b(?:ye|fye|(?:fiscal\s+)?year[\s-]end(?:ed)?)\s*'?\s*(?P<y>" + _YY + r")" + _NOT_AFTER)
def _year_end(m):
    return Period(_year(m.group("y")))


@_phrase(r"\b" + _FY + r"(?P<y>" + _YY + r")" + _NOT_AFTER)
def _fiscal_year(m):
    return Period(_year(m.group("y")))


@_phrase(r"\b" + _DATE + r"(?!\s*\d)")
def _bare_date(m):
    return Period(end=_date(m), kind="date", calendar=True)


# a year that names a thing, not a period: a debt by its maturity ("the notes due 2030", "the 2025 Notes"), a plan,
# an event or a ruling ("the 2021 Dixie fire", "the 2009 decision"; walk-throughs' questions read as FY2021, FY2009)
_NAMED_BY_YEAR = (r"(?<!\bdue )(?<!\bmaturing )(?<!\bmaturing in )(?<!\bmatures in )(?<!\bexpiring )(?<!\bexpiring in )"
                  r"(?<!\bexpires in )")
_NAMES_AFTER_YEAR = (r"(?!\s+(?:(?-i:[A-Z][\w&.'’-]*)\s+){0,3}(?:senior\s+|convertible\s+|unsecured\s+)?"
                     r"(?:notes(?!\s+(?:receivable|payable|to)\b)|debentures|bonds|term\s+loans?"
                     r"|credit\s+(?:agreement|facility)|(?:incentive\s+|stock\s+|equity\s+)?plan)\b)"
                     # an event by its name: "2022 wildfire mitigation" is the year's, "2021 Dixie fire" the fire's
                     r"(?!\s+(?:(?-i:[A-Z][\w&.'’-]*)\s+){1,3}(?:fires?|wildfires?|hurricanes?|storms?|earthquakes?"
                     r"|floods?)\b)"
                     # a ruling by its year: "the European Commission's 2009 competition decision" (a walk-through)
                     r"(?!\s+(?:[a-z]+\s+){0,2}(?:decisions?|rulings?|judge?ments?|verdicts?|fines?)\b)")


# a bare year; after a dash only when a year stands before it ("2020-2021"), never in "10-2021" or "K-2021"
@_phrase(r"(?<![\w$.,])(?<![a-z]-)(?<!\b\d-)(?<!\b\d\d-)(?<!\b\d\d\d-)" + _NAMED_BY_YEAR + r"(?P<y>" + _Y4 + r")"
         + _NOT_AFTER + _NAMES_AFTER_YEAR + r"|(?<![\w'])'(?P<ap>\d{2})(?![\w'])")
def _bare_year(m):
    return Period(_year(m.group("y") or m.group("ap")))


# a form after a period names the filing ("its FY2023 10-K", "Tesla 2022 10-K", "the FY2018 annual report")
_FORM_AFTER = re.compile(r"^\s*(?:form\s+)?(?:10-?ks?|10-?qs?|8-?ks?|annual reports?|quarterly reports?|earnings releases?"
                         r"|press releases?|filings?|reports?)\b", re.IGNORECASE)
# words before a period that make it the filing's ("as of FY2021", "according to its FY2023 …")
_ANCHOR_BEFORE = re.compile(r"\b(?:as of|as at|according to|per|based on)\s+(?:the\s+|its\s+|their\s+)?(?:company['’]s\s+)?$",
                            re.IGNORECASE)
_JUST_YTD = re.compile(r"^\s*(?:ytd|year[\s-]to[\s-]date)?\s*$", re.IGNORECASE)
_RANGE_JOIN = re.compile(r"^\s*(?:-|–|—|to|through|thru)\s*$", re.IGNORECASE)
_COMPARE_JOIN = re.compile(r"^\s*(?:,|and|vs\.?|versus|against|compared (?:with|to)|or|&)\s*(?:the\s+)?$", re.IGNORECASE)
_LAST_N_YEARS = re.compile(r"\b(?:last|past|prior)\s+(?P<n>two|three|four|five|2|3|4|5)\s+(?:fiscal\s+)?years\b",
                           re.IGNORECASE)
_N = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
MAX_SPAN = 5  # a range of years wider than this is read as two separate years


def _lex(text: str) -> list[tuple[int, int, Period]]:
    """Every period phrase, longest at each place, left to right, none overlapping."""
    found: list[tuple[int, int, Period]] = []
    for pattern, reader in _PHRASES:
        for m in pattern.finditer(text):
            if m.end() > m.start():
                found.append((m.start(), m.end(), replace(reader(m), said=m.group(0).strip())))
    found.sort(key=lambda t: (t[0], -(t[1] - t[0])))
    out: list[tuple[int, int, Period]] = []
    for start, end, period in found:
        if out and start < out[-1][1]:
            continue
        out.append((start, end, period))
    return out


def read_periods(question: str) -> AskedPeriods:
    """The periods of a question (`AskedPeriods`): each phrase, ranges and comparisons joined, and the period that
    names the filing when one does."""
    lexed = [t for t in _lex(question) if t[2].year is None or 1950 <= t[2].year <= 2100]
    periods: list[Period] = []
    spans: list[tuple[int, int]] = []
    filing: Period | None = None
    for i, (start, end, period) in enumerate(lexed):
        if _FORM_AFTER.match(question[end:]) or _ANCHOR_BEFORE.search(question[:start]):
            filing = filing or period
        periods.append(period)
    # a year right after a period without one is its year ("YTD FY23", "36-week YTD FY23"): one period, not two
    merged: list[tuple[int, int, Period]] = []
    counted = any(p.kind == "year to date" and p.quarter for p in periods)
    for start, end, period in zip([t[0] for t in lexed], [t[1] for t in lexed], periods):
        if counted and period.kind == "year to date" and not period.quarter and period.year is None:
            continue  # "36-week YTD": the weeks say which year to date
        prev = merged[-1][2] if merged else None
        if (prev is not None and prev.year is None and prev.end is None and prev.kind != "trailing twelve months"
                and period.kind == "year" and not period.calendar and _JUST_YTD.match(question[merged[-1][1]:start])):
            merged[-1] = (merged[-1][0], end, replace(prev, year=period.year, said=f"{prev.said} {period.said}"))
            if filing is period:
                filing = merged[-1][2]
            continue
        merged.append((start, end, period))
    lexed, periods = merged, [p for _, _, p in merged]
    # a quarter or half without a year takes the year of the next period that has one ("Q2 and Q3 2023")
    for i, p in enumerate(periods):
        if p.year is None and p.quarter and p.end is None:
            later = next((q.year for q in periods[i + 1:] if q.year), None)
            if later:
                periods[i] = replace(p, year=later)
    joined: list[Period] = []
    for i, p in enumerate(periods):
        joined.append(p)
        if i == 0:
            continue
        between = question[lexed[i - 1][1]:lexed[i][0]]
        prev = periods[i - 1]
        years = (prev.kind == p.kind == "year" and not prev.calendar and not p.calendar and prev.year and p.year)
        if years and _RANGE_JOIN.match(between) and 0 < p.year - prev.year <= MAX_SPAN:
            spans.append((prev.year, p.year))
            joined[-1:] = [Period(y, said=f"{prev.said}–{p.said}") for y in range(prev.year + 1, p.year + 1)]
    m = _LAST_N_YEARS.search(question)
    if m and joined and joined[-1].year:
        last = joined[-1].year
        n = _N[m.group("n").lower()]
        spans.append((last - n + 1, last))
        joined = [Period(y, said=m.group(0)) for y in range(last - n + 1, last)] + joined
    unique = tuple(dict.fromkeys(joined))
    return AskedPeriods(unique, filing, tuple(spans))


__all__ = ["AskedPeriods", "MAX_SPAN", "Period", "read_periods"]
