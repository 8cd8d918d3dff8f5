"""Periods by a grammar, not a pattern: which fiscal year and quarter a question asks about, and which a
filing reports, each case written by hand from how filings and analysts write them."""

from __future__ import annotations

import pytest

from engine.filings.identity import read_filing
from engine.filings.periods import fiscal_year_of_end
from engine.filings.scope import AskedPeriod, asked_period


@pytest.mark.parametrize("question, period", [
    ("What was Boeing's revenue in the 10-K for 2018?", AskedPeriod(2018)),  # "in the 10" is no year
    ("What did the 10-Q say about liquidity?", AskedPeriod()),
    ("Which 8-K reported the CEO change?", AskedPeriod()),
    ("How much debt is due in 12 months?", AskedPeriod()),  # a duration, not 2012
    ("What payments fall due within 30 days?", AskedPeriod()),
    ("What was revenue of $2,021 million in 2020 made of?", AskedPeriod(2020)),  # a figure, not a year
    ("What was Nike's capex in FY2018?", AskedPeriod(2018)),
    ("What was revenue in FY22?", AskedPeriod(2022)),  # two digits after FY
    ("What was the margin in Q2 '23?", AskedPeriod(2023, 2)),
    ("What was revenue in Q2 of FY2024?", AskedPeriod(2024, 2)),
    ("What were sales in the second quarter of 2023?", AskedPeriod(2023, 2)),
    ("As of FY2021, what payment did it expect to make in 2024?", AskedPeriod(2021)),  # the anchor chooses
    ("How much liquidity was there at the end of September 2022?", AskedPeriod(2022, None, (), (2022, 9, 0))),
    ("What was cash from operations for the nine months ended September 30, 2022?",
     AskedPeriod(2022, 3, (), (2022, 9, 30))),
    ("What debt was issued in the first nine months of 2022?", AskedPeriod(2022, 3)),
    ("How did revenue grow from FY2015 to FY2016?", AskedPeriod(2016, None, (2015, 2016))),
    ("What changed between 2021 and 2022?", AskedPeriod(2022, None, (2021, 2022))),
    ("How did margins compare, FY2021 vs FY2022?", AskedPeriod(2022, None, (2021, 2022))),
])
def test_a_question_names_its_period_by_grammar(question, period):
    assert asked_period(question) == period


@pytest.mark.parametrize("end, year", [
    ((2016, 1, 3), 2015),   # a 52/53-week year ending in the first days of January: the year before
    ((2023, 1, 31), 2023),  # Walmart's year ended January 31, 2023 is fiscal 2023
    ((2022, 12, 31), 2022),
    ((2023, 1, 28), 2023),  # late January is not "the first days"
])
def test_a_year_is_named_for_where_it_ends_but_the_first_days_of_january(end, year):
    assert fiscal_year_of_end(*end) == year


def _cover(form: str, ended: str, name: str, kind: str = "quarterly period") -> str:
    return (f"UNITED STATES SECURITIES AND EXCHANGE COMMISSION Washington, D.C. 20549\nFORM {form}\n"
            f"For the {kind} ended {ended}\nCommission File Number 001-01234\n{name}\n"
            "(Exact name of registrant as specified in its charter)\nDelaware 12-3456789")


@pytest.mark.parametrize("cover, statements, year, quarter", [
    # a year ending in June (Microsoft): the quarter ended December 31, 2022 is Q2 of fiscal 2023
    (_cover("10-Q", "December 31, 2022", "WIDGETSOFT CORPORATION"), "Three Months Ended Six Months Ended December 31,",
     2023, 2),
    # a year ending in January (Walmart): the quarter ended April 30, 2023 is Q1 of fiscal 2024
    (_cover("10-Q", "April 30, 2023", "BIGBOX INC."), "Three Months Ended April 30,", 2024, 1),
    # 52/53-week quarters counted in weeks: 39 weeks to October 29, 2022, in the year ending January 2023
    (_cover("10-Q", "October 29, 2022", "SNEAKER SHOPS, INC."), "Thirteen weeks ended Thirty-nine weeks ended", 2023, 3),
    # twelve-week quarters (Costco's): 36 weeks is the third
    (_cover("10-Q", "May 7, 2023", "WAREHOUSE CLUB CORPORATION"), "12 Weeks Ended 36 Weeks Ended", 2023, 3),
    # a calendar year
    (_cover("10-Q", "September 30, 2022", "POWER UTILITY COMPANY"), "Three Months Ended Nine Months Ended", 2022, 3),
    # no statements in view: the fiscal-year end it states
    (_cover("10-Q", "October 31, 2022", "CLOUD APPS, INC."), "Our fiscal year ends on January 31.", 2023, 3),
])
def test_a_quarter_follows_the_company_fiscal_calendar(cover, statements, year, quarter):
    f = read_filing("X_10Q.pdf", [cover, "Index", statements])
    assert (f.form, f.fiscal_year, f.quarter) == ("10-Q", year, quarter)
    assert ("quarter", 3, "year to date in its statements") in f.read_from or "states" in dict(
        (k, r) for k, _, r in f.read_from)["quarter"]


def test_a_52_53_week_10k_ending_in_early_january_is_the_year_before():
    f = read_filing("KRAFTHEINZ_2015_10K.pdf", [_cover("10-K", "January 3, 2016", "THE KRAFT HEINZ COMPANY", "fiscal year")])
    assert (f.form, f.fiscal_year, f.period_end) == ("10-K", 2015, "2016-01-03")
    assert ("fiscal_year", 1, "cover: the fiscal year's end") in f.read_from


@pytest.mark.parametrize("registrant, company, key", [
    ("3M COMPANY", "3M", "3m"),  # a name that starts with a digit is read from the cover, not the file
    ("JPMorgan Chase & Co.", "JPMorgan Chase & Co.", "jpmorganchase"),  # not cut at "&"
    ("JOHNSON & JOHNSON", "Johnson & Johnson", "johnsonjohnson"),
])
def test_names_with_digits_and_ampersands_are_read_whole(registrant, company, key):
    f = read_filing("MMM_2022_10K.pdf", [_cover("10-K", "December 31, 2022", registrant, "fiscal year")])
    assert f.company == company and key in f.names and f.source == "cover"


def test_the_cover_form_wins_over_a_reprinted_release():
    cover = _cover("10-Q", "June 30, 2023", "ACME WIDGETS, INC.")
    release = "News Release\nAcme Widgets, Inc. (NYSE: ACMW) today reported second quarter 2023 results"
    f = read_filing("ACME_2023Q2_EARNINGS.pdf", [cover + "\n" + release, "Three Months Ended Six Months Ended"])
    assert (f.form, f.fiscal_year, f.quarter) == ("10-Q", 2023, 2)


def test_a_glossy_annual_report_is_read_from_the_10k_it_binds():
    letter = "2022 ANNUAL REPORT\nDear shareholders, a record year."
    f = read_filing("ACME_2022_annualreport.pdf", [letter, letter, _cover("10-K", "December 31, 2022",
                                                                           "ACME WIDGETS, INC.", "fiscal year")])
    assert (f.form, f.fiscal_year, f.company) == ("10-K", 2022, "Acme Widgets")
    assert ("form", 3, "cover: FORM 10-K") in f.read_from


def test_a_period_named_by_its_last_day_scopes_the_filing_that_ends_then():
    from engine.filings.identity import Filing
    from engine.filings.scope import scoped_filings

    filings = {"K.pdf": Filing("K.pdf", "Bigbox", ("bigbox",), (), "10-K", 2023, None, period_end="2023-01-31"),
               "Q.pdf": Filing("Q.pdf", "Bigbox", ("bigbox",), (), "10-Q", 2024, 1, period_end="2023-04-30"),
               "R.pdf": Filing("R.pdf", "Bigbox", ("bigbox",), (), "earnings release", 2024, 1, period_end="2023-04-28")}
    end = asked_period("What drove Bigbox's gross profit rate in the quarter ended April 30, 2023?").end
    assert scoped_filings(filings, ("bigbox",), 2023, "", end=end)[0] == ("Q.pdf", "R.pdf")  # within a week
    assert scoped_filings(filings, ("bigbox",), 2023, "10-Q", end=end)[0] == ("Q.pdf",)
    assert scoped_filings(filings, ("bigbox",), 2023, "", end=(2023, 1, 0))[0] == ("K.pdf",)
