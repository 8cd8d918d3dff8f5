"""Which form a filing is and which fiscal period it reports, read off its own cover: the SEC cover's form and
"For the fiscal year ended …", a 10-Q's year to date, an 8-K's date of report, a release's own words, and the file
name last. A fiscal year is named for the calendar year it ends in, but for a 52/53-week year that ends in the first
days of January, which is the year before (`fiscal_year_of_end`); a 10-Q's year and quarter follow the company's
fiscal calendar (`quarter_period`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Sequence

_FORM = re.compile(r"\bform\s+(10-K|10-Q|8-K|20-F|40-F|6-K)\b", re.IGNORECASE)
# a PDF's text may lose the space after "ended" or put one before the comma ("ended May 29 , 2022")
_PERIOD = re.compile(r"for the (fis ?cal year|quarterly period|year) ended:?\s*([A-Z][a-z]+)\.?\s*(\d{1,2})\s*,?\s*(\d{4})",
                     re.IGNORECASE)
_REPORT_DATE = re.compile(r"(?:date of report|earliest event reported)[^\n]{0,60}?([A-Z][a-z]+ \d{1,2}, ?(\d{4}))"
                          r"|([A-Z][a-z]+ \d{1,2}, ?(\d{4}))\s*\n?\s*date of report", re.IGNORECASE)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_RELEASE_PERIOD = re.compile(r"\b(?:(first|second|third|fourth)[- ]quarter|q([1-4]))\b[^.\n]{0,60}?"
                             r"(?:fiscal(?: year)?\s*|fy\s*'?)?((?:19|20)\d\d)\b", re.IGNORECASE)
_RELEASE_WORDS = re.compile(r"\b(?:news release|press release|reports? [^\n]{0,40}results|announces [^\n]{0,40}results"
                            r"|exhibit 99\.1)\b", re.IGNORECASE)
_STEM_FORMS = (("10K", "10-K"), ("10-K", "10-K"), ("10Q", "10-Q"), ("10-Q", "10-Q"), ("8K", "8-K"), ("8-K", "8-K"),
               ("EARNINGS", "earnings release"))
YEAR_IN_NAME = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
QUARTER_IN_NAME = re.compile(r"(?<![A-Za-z])Q([1-4])(?![0-9])")
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")  # in English whatever the process's locale (calendar.month_name follows it)
_MONTHS = {m.lower(): i for i, m in enumerate(MONTH_NAMES, start=1)}
_MONTH_ABBREVIATIONS = {**{name[:3]: n for name, n in _MONTHS.items()}, "sept": 9}
_COUNTS = {"three": 3, "six": 6, "nine": 9, "twelve": 12, "thirteen": 13, "twenty-four": 24, "twenty-six": 26,
           "thirty-six": 36, "thirty-nine": 39}
# the year to date a 10-Q's statements cover: "Nine Months Ended", "Thirty-nine weeks ended", "36 Weeks Ended"
_YEAR_TO_DATE = re.compile(r"\b(three|six|nine|twelve|thirteen|twenty-four|twenty-six|thirty-six|thirty-nine|\d{1,2})"
                           r"[- ](months|weeks)\s+ended\b", re.IGNORECASE)
_FY_ENDS = re.compile(r"\bfiscal year (?:ends?|ending|ended)(?: on)?\s+(?:the\s+)?(?:last \w+ (?:of|in)\s+)?"
                      r"([A-Z][a-z]+)(?:\s+(\d{1,2}))?", re.IGNORECASE)
# a release that names no date in its opening pages dates its quarter in its statements' first column
# ("Three Months Ended … Dec 31, 2022 Dec 25, 2021", "12 Weeks Ended 36 Weeks Ended May 7, 2023": the first date is
# the quarter it reports)
_STATEMENT_QUARTER = re.compile(r"\b(?:three months|quarter|1[2-6] weeks|(?:twelve|thirteen|sixteen) weeks) ended\b"
                                r"[\s\S]{0,200}?"
                                r"\b([A-Z][a-z]{2,8})\.?\s+(\d{1,2}),?\s+(\d{4})", re.IGNORECASE)
_RELEASE_END = re.compile(r"\b(?:quarters?|three months|period)\b[^.\n]{0,30}?\bended\s+([A-Z][a-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})",
                          re.IGNORECASE)
EARLY_JANUARY_DAYS = 7  # a 52/53-week year that ends by January 7 is named for the year it mostly covers


@dataclass(frozen=True)
class FilingPeriod:
    """A filing's form and the fiscal period it reports, with (field, page, rule) for each."""

    form: str = ""
    fiscal_year: int | None = None
    quarter: int | None = None
    end: tuple[int, int, int] | None = None  # (year, month, day) the period ends, or an 8-K's report date
    read_from: tuple[tuple[str, int, str], ...] = ()


def _date(month: str, day: str, year: str) -> tuple[int, int, int] | None:
    """(year, month, day) of "December 31 2022" or "Dec. 31 2022" ("Sept" too); None for no month's name."""
    word = month.lower().rstrip(".")
    m = _MONTHS.get(word) or _MONTH_ABBREVIATIONS.get(word)
    return (int(year), m, int(day)) if m and 1 <= int(day) <= 31 else None


def fiscal_year_of_end(year: int, month: int, day: int) -> int:
    """The fiscal year a year ending on that day is named for: the calendar year it ends in (Walmart's year
    ended January 31, 2023 is fiscal 2023), except a 52/53-week year that ends in the first days of January,
    which belongs to the year before (Kraft Heinz's year ended January 3, 2016 is fiscal 2015)."""
    return year - 1 if month == 1 and day <= EARLY_JANUARY_DAYS else year


def _months_later(end: tuple[int, int, int], months: int) -> tuple[int, int, int]:
    y, m, d = end
    m0 = m - 1 + months
    return y + m0 // 12, m0 % 12 + 1, d


def _year_to_date_quarter(count: str, unit: str) -> int | None:
    n = _COUNTS.get(count.lower()) if not count.isdigit() else int(count)
    if not n:
        return None
    quarter = n // 3 if unit.lower() == "months" else round(n / 13)  # 12, 24, 36 weeks are quarters too
    return quarter if 1 <= quarter <= 3 and (unit.lower() == "weeks" or n % 3 == 0) else None


def _first(pattern: re.Pattern, pages: Sequence[str], start: int = 0, stop: int | None = None, chars: int | None = None):
    """(match, 1-based page) of the pattern's first match on pages[start:stop], each read to `chars`."""
    for i in range(start, min(len(pages), stop if stop is not None else len(pages))):
        m = pattern.search(pages[i] if chars is None else pages[i][:chars])
        if m:
            return m, i + 1
    return None, 0


def quarter_period(end: tuple[int, int, int], pages: Sequence[str], first: int) -> tuple[int | None, int | None, list]:
    """A 10-Q's fiscal year and quarter by the company's fiscal calendar: the quarter from the longest year to
    date its statements cover ("Nine Months Ended" is Q3; 13, 26, 39 or 12, 24, 36 weeks), the fiscal year from
    where that year ends (the period's end plus the rest of the year). Without statements in view, from the
    fiscal-year end it states ("our fiscal year ends on the last Saturday of January"); else the calendar."""
    best, page = None, 0
    for i in range(first, min(len(pages), first + 40)):
        for m in _YEAR_TO_DATE.finditer(pages[i]):
            q = _year_to_date_quarter(m.group(1), m.group(2))
            if q and (best is None or q > best):
                best, page = q, i + 1
    if best:
        fy_end = _months_later(end, 12 - 3 * best)
        return fiscal_year_of_end(*fy_end), best, [("fiscal_year", page, "year to date in its statements"),
                                                   ("quarter", page, "year to date in its statements")]
    m, page = _first(_FY_ENDS, pages, first, first + 40)
    if m and m.group(1).lower() in _MONTHS:
        month, day = _MONTHS[m.group(1).lower()], int(m.group(2) or 28)
        ahead = (month - end[1]) % 12 or (12 if (month, day) < (end[1], end[2]) else 0)
        fy_end = _months_later(end, ahead)
        quarter = 4 - -(-ahead // 3) if ahead < 12 else 4
        return fiscal_year_of_end(fy_end[0], month, day), min(max(quarter, 1), 4), [
            ("fiscal_year", page, "the fiscal-year end it states"), ("quarter", page, "the fiscal-year end it states")]
    return end[0], (end[1] + 2) // 3, [("fiscal_year", 0, "calendar year (no fiscal calendar stated)"),
                                       ("quarter", 0, "calendar quarter (no fiscal calendar stated)")]


def cover_page(pages: Sequence[str]) -> int:
    """The 0-based page of the SEC cover ("SECURITIES AND EXCHANGE COMMISSION … FORM 10-K") among the first
    eight: a glossy annual report binds its 10-K behind a letter to shareholders; else 0."""
    for i, page in enumerate(pages[:8]):
        head = page[:1500]
        if (re.search(r"securities\s+and\s+exchange\s+commission\s+washington,?\s+d\.\s?c\.", head, re.IGNORECASE)
                and _FORM.search(head)):
            return i
    return 0


def filing_period(pages: Sequence[str], first: int, stem: str) -> FilingPeriod:
    """The form and fiscal period: the cover's form first ("FORM 10-Q" is a 10-Q, even one that reprints a
    release), then a release's own words, then the file name."""
    cover = "\n".join(pages[first:first + 2])
    form_m = _FORM.search(cover[:3000])
    if form_m:
        form = form_m.group(1).upper()
        period, page = _first(_PERIOD, pages, first, first + 2)
        if form in ("10-K", "10-Q") and period:
            end = _date(period.group(2), period.group(3), period.group(4))
            if end:
                read = [("form", first + 1, "cover: FORM " + form), ("period_end", page, "cover: " + period.group(0))]
                if form == "10-K":
                    return FilingPeriod(form, fiscal_year_of_end(*end), None, end,
                                  tuple(read + [("fiscal_year", page, "cover: the fiscal year's end")]))
                year, quarter, how = quarter_period(end, pages, first)
                return FilingPeriod(form, year, quarter, end, tuple(read + how))
        if form not in ("10-K", "10-Q"):
            date, page = _first(_REPORT_DATE, pages, first, first + 2)
            end = None
            if date:
                m = re.match(r"([A-Z][a-z]+) (\d{1,2}), ?(\d{4})", date.group(1) or date.group(3))
                end = _date(*m.groups()) if m else None
            read = (("form", first + 1, "cover: FORM " + form),)
            if end:
                read += (("period_end", page, "cover: date of report"), ("fiscal_year", page, "cover: date of report"))
            return FilingPeriod(form, end[0] if end else None, None, end, read)
        return FilingPeriod(form, None, None, None, (("form", first + 1, "cover: FORM " + form),))
    if _RELEASE_WORDS.search(cover[:3000]):
        m, page = _first(_RELEASE_PERIOD, pages, first, first + 2, chars=3000)
        if m:
            quarter = _ORDINALS[m.group(1).lower()] if m.group(1) else int(m.group(2))
            ends = [_date(*e.groups()) for page in pages[first:first + 2] for e in _RELEASE_END.finditer(page[:4000])]
            end = max((e for e in ends if e), default=None)  # the period it reports, not the comparative's
            read = (("form", first + 1, "release words"), ("fiscal_year", page, "release: " + m.group(0)),
                    ("quarter", page, "release: " + m.group(0)))
            if end is None:
                column, at = _first(_STATEMENT_QUARTER, pages, first, first + 20)
                end = _date(*column.groups()) if column else None
                read += (("period_end", at, "release: its statements' first column"),) if end else ()
            return FilingPeriod("earnings release", int(m.group(3)), quarter, end, read)
        return FilingPeriod("earnings release", None, None, None, (("form", first + 1, "release words"),))
    y = YEAR_IN_NAME.search(stem)  # the document says nothing: the file name, last
    q = QUARTER_IN_NAME.search(stem)
    words = {w.upper() for w in re.split(r"[_\-\s]+", stem)}
    form = next((f for tag, f in _STEM_FORMS if tag in words), "")
    read = [(name, 0, "file name") for name, value in (("form", form), ("fiscal_year", y), ("quarter", q)) if value]
    return FilingPeriod(form, int(y.group(1)) if y else None, int(q.group(1)) if q else None, None, tuple(read))


SAME_PERIOD_DAYS = 7  # a 52/53-week period ends within a week of the date an analyst names


def fiscal_quarter_of(end: tuple[int, int, int], year_end: tuple[int, int]) -> tuple[int, int]:
    """(fiscal year, quarter) of a quarter ending on that day, for a company whose fiscal year ends on `year_end`
    (month, day): 31 Mar 2023 is Q1 FY2023 of a December year, Q3 FY2023 of a June year."""
    month = year_end[0]
    day = date(end[0], end[1], end[2] or 28)
    if day.day <= SAME_PERIOD_DAYS:  # a 52/53-week quarter ending in a month's first days ends the month before's
        day -= timedelta(days=day.day)
    end = (day.year, day.month, day.day)
    ahead = (month - end[1]) % 12  # months from the date to the year's end
    quarter = 4 - ahead // 3
    year = end[0] + (1 if end[1] > month else 0)
    if month == 1 and year_end[1] <= 7:  # a 52/53-week year ending in early January is the year before's
        year -= 1
    return year, quarter


__all__ = ["EARLY_JANUARY_DAYS", "FilingPeriod", "MONTH_NAMES", "QUARTER_IN_NAME", "SAME_PERIOD_DAYS", "YEAR_IN_NAME", "cover_page",
           "filing_period", "fiscal_quarter_of", "fiscal_year_of_end", "quarter_period"]
