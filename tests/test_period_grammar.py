"""Periods by a grammar, not a pattern: which fiscal year and quarter a question asks about, and which a
filing reports, each case written by hand from how filings and analysts write them."""

from __future__ import annotations

import pytest

from engine.filings.identity import read_filing
from engine.filings.periods import fiscal_year_of_end
from engine.filings.asked import read_periods
from engine.filings.periods import fiscal_quarter_of


@pytest.mark.parametrize("question, periods", [
    ("What was Boeing's revenue in the 10-K for 2018?", ["FY2018"]),  # "in the 10" is no year
    ("What did the 10-Q say about liquidity?", []),
    ("Which 8-K reported the CEO change?", []),
    ("How much debt is due in 12 months?", []),  # a duration, not 2012
    ("What payments fall due within 30 days?", []),
    ("What was revenue of $2,021 million in 2020 made of?", ["FY2020"]),  # a figure, not a year
    ("What was Nike's capex in FY2018?", ["FY2018"]),
    ("What was revenue in FY22?", ["FY2022"]),  # two digits after FY
    ("What was the margin in Q2 '23?", ["Q2 FY2023"]),
    ("What was revenue in Q2 of FY2024?", ["Q2 FY2024"]),
    ("What were sales in the second quarter of 2023?", ["Q2 FY2023"]),
    ("How much liquidity was there at the end of September 2022?", ["Sep 2022"]),
    ("What drove the gross profit rate in the quarter ended April 30, 2023?", ["the quarter ended 30 Apr 2023"]),
    ("What debt was issued in the first nine months of 2022?", ["the 9 months of FY2022"]),
    ("How did revenue grow from FY2015 to FY2016?", ["FY2015", "FY2016"]),
    ("What changed between 2021 and 2022?", ["FY2021", "FY2022"]),
    ("How did margins compare, FY2021 vs FY2022?", ["FY2021", "FY2022"]),
    # every notation analysts use (#60)
    ("JPM's CET1 ratio in 2Q22", ["Q2 FY2022"]),
    ("revenue in 2Q 2023", ["Q2 FY2023"]),
    ("eBay GMV Q2'23?", ["Q2 FY2023"]),
    ("Walmart Q1 FY24 U.S. comp sales?", ["Q1 FY2024"]),
    ("Apple fiscal third quarter 2023 iPhone net sales?", ["Q3 FY2023"]),
    ("margin in 1H22", ["H1 FY2022"]),
    ("margin in H1 FY2023", ["H1 FY2023"]),
    ("sales in the first half of 2023", ["H1 FY2023"]),
    ("comp sales in the June quarter 2023", ["the quarter ended Jun 2023"]),
    ("cash at the end of April 2023", ["Apr 2023"]),
    ("net debt at December 31, 2022", ["31 Dec 2022"]),
    ("revenue in calendar 2022", ["calendar 2022"]),
    ("AOCI at YE 2022?", ["FY2022"]),
    ("RPO at FY23 year end?", ["FY2023"]),
    ("revenue over the trailing twelve months", ["the trailing twelve months"]),
    ("EPS in the three months to March 31, 2023", ["the quarter ended 31 Mar 2023"]),
    ("the 8-K dated August 19, 2022", ["dated 19 Aug 2022"]),
    ("net sales YoY in 2019", ["FY2019"]),  # the filing of 2019 holds 2018: no second period
    # a year that names a thing is no period (a walk-through: "the 2021 Dixie fire" was read as FY2021)
    ("What did PG&E say about the 2021 Dixie fire in its Q3 2022 10-Q?", ["Q3 FY2022"]),
    ("What were the 2018 Camp Fire claims?", []),
    ("What is the coupon on the notes due 2030?", []),
    ("How much of the 2025 Senior Notes did it repay in FY2021?", ["FY2021"]),
    ("Shares left under the 2019 Equity Incentive Plan", []),
    ("2022 wildfire mitigation spending", ["FY2022"]),  # a fire with no name: the year's spending
    ("2021 notes receivable", ["FY2021"]),
    ("the 2021 notes to the financial statements", ["FY2021"]),
])
def test_a_question_names_its_periods_by_grammar(question, periods):
    assert [p.words() for p in read_periods(question).periods] == periods


@pytest.mark.parametrize("question, periods, spans", [
    ("revenue 2020-2021", ["FY2020", "FY2021"], ((2020, 2021),)),  # read 2020 alone before #60
    ("revenue FY2020-FY2021", ["FY2020", "FY2021"], ((2020, 2021),)),  # read 2021 alone before #60
    ("capex 2020-2022, cumulative?", ["FY2020", "FY2021", "FY2022"], ((2020, 2022),)),
    ("revenue over the last three fiscal years to FY2023", ["FY2021", "FY2022", "FY2023"], ((2021, 2023),)),
    ("How did revenue change from Q4 2022 to Q2 2023?", ["Q4 FY2022", "Q2 FY2023"], ()),  # each end, not all between
    ("Q2 and Q3 2023 margins", ["Q2 FY2023", "Q3 FY2023"], ()),  # the first takes the year of the next
])
def test_ranges_and_comparisons_ask_for_each_period(question, periods, spans):
    read = read_periods(question)
    assert [p.words() for p in read.periods] == periods and read.spans == spans


@pytest.mark.parametrize("question, filing", [
    ("What is expected in 2025 according to its FY2023 10-K?", "FY2023"),  # the year naming the filing, not the first
    ("As of FY2021, what payment did it expect to make in 2024?", "FY2021"),
    ("Per Walmart's FY2023 10-K, how much long-term debt matures in fiscal 2026?", "FY2023"),
    ("Tesla 2022 10-K: how much revenue came from regulatory credits?", "FY2022"),
])
def test_a_period_that_names_the_filing_chooses_it(question, filing):
    read = read_periods(question)
    assert read.filing is not None and read.filing.words() == filing and read.asked == (read.filing,)


@pytest.mark.parametrize("end, year_end, quarter", [
    ((2023, 3, 31), (12, 31), (2023, 1)),  # a December year
    ((2022, 12, 31), (6, 30), (2023, 2)),  # a June year: 31 Dec 2022 is Q2 FY2023 (Amcor's, Microsoft's)
    ((2022, 12, 31), (5, 31), (2023, 3)),  # a May year (Oracle's, General Mills')
    ((2023, 4, 30), (1, 31), (2024, 1)),  # a January year (Walmart's)
    ((2023, 7, 1), (9, 30), (2023, 3)),  # a 52/53-week quarter ending in July's first days (Apple's June quarter)
])
def test_a_date_is_a_fiscal_quarter_by_the_companys_own_calendar(end, year_end, quarter):
    assert fiscal_quarter_of(end, year_end) == quarter


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
    from engine.filings.names import Room, year_ends
    from engine.filings.scope import filings_for

    filings = {"K.pdf": Filing("K.pdf", "Bigbox", ("bigbox",), (), "10-K", 2023, None, period_end="2023-01-31"),
               "Q.pdf": Filing("Q.pdf", "Bigbox", ("bigbox",), (), "10-Q", 2024, 1, period_end="2023-04-30"),
               "R.pdf": Filing("R.pdf", "Bigbox", ("bigbox",), (), "earnings release", 2024, 1, period_end="2023-04-28")}
    room = Room(filings, year_ends=year_ends(filings))
    asked = read_periods("What drove Bigbox's gross profit rate in the quarter ended April 30, 2023?").periods
    assert filings_for(room, "bigbox", asked)[0] == ["Q.pdf", "R.pdf"]  # within a week
    assert filings_for(room, "bigbox", asked, "10-Q")[0] == ["Q.pdf"]
    assert filings_for(room, "bigbox", read_periods("inventory at the end of January 2023").periods)[0] == ["K.pdf"]
    # a balance date no filing ends on: the 10-K of the fiscal year it falls in, said so (walk 23 read "the first
    # 10-K after it" for Nike's December 2022 as a fallback); a date over a year before its end: the first after it
    docs, notes = filings_for(room, "bigbox", read_periods("inventory as of December 31, 2022").periods)
    assert docs == ["K.pdf"] and notes == [
        "No Bigbox filing ends on 31 Dec 2022; showing Bigbox FY2023 10-K, whose fiscal year it falls in, ended 31 Jan 2023"]
    docs, notes = filings_for(room, "bigbox", read_periods("inventory as of December 31, 2021").periods)
    assert docs == ["K.pdf"] and notes == ["No Bigbox filing ends on 31 Dec 2021; showing Bigbox FY2023 10-K, the first 10-K after it"]
    # a day within a 10-Q's filing deadline after its quarter's end: its cover ("shares outstanding as of …")
    docs, notes = filings_for(room, "bigbox", read_periods("Bigbox shares outstanding as of May 26, 2023").periods)
    assert docs == ["Q.pdf"] and notes == ["No Bigbox filing ends on 26 May 2023; showing Bigbox Q1 FY2024 10-Q, "
                                           "whose cover and later events are dated after its end"]
    docs, _ = filings_for(room, "bigbox", read_periods("Bigbox shares outstanding as of July 26, 2023").periods)
    assert docs != ["Q.pdf"]  # 87 days on: past a 10-Q's deadline
