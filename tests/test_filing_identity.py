"""Every filing of the three shared rooms with who filed it, its form, fiscal year and quarter, each read off the
document by hand; and each company named the ways analysts name it. Skipped, with the reason, where
../shared/data is absent."""

from __future__ import annotations

from functools import lru_cache

import pytest

from engine.filings.scope import company_names
from engine.filings.structure import read_structure
from engine.text import normalize_name
from tests.conftest import ROOT

DATA = ROOT.parent / "shared" / "data"
ER = "earnings release"

# (file, company, form, fiscal year, quarter): read off each document's cover or release by hand. Two file
# names say otherwise: LOCKHEEDMARTIN_2023Q2_10Q is the Q2 2023 earnings release, printed from a browser;
# PG_E_2023Q3_10Q is the 10-Q for the quarter ended September 30, 2022. An 8-K's year is its report date's.
# MCDONALDS_2022Q4_EARNINGS has no readable text (its fonts map to no characters): only its file name says.
BY_HAND = {
    "filings_dev": [
        ("AES_2021_10K.pdf", "AES", "10-K", 2021, None),
        ("APPLE_2021_10K.pdf", "Apple", "10-K", 2021, None),
        ("APPLE_2023Q3_10Q.pdf", "Apple", "10-Q", 2023, 3),
        ("BOSTONPROPERTIES_2015_10K.pdf", "Boston Properties", "10-K", 2015, None),
        ("COCACOLA_2020_10K.pdf", "Coca-Cola", "10-K", 2020, None),
        ("COSTCO_2023Q3_EARNINGS.pdf", "Costco Wholesale", ER, 2023, 3),
        ("COSTCO_2023_8K_dated-2023-08-09.pdf", "Costco Wholesale", "8-K", 2023, None),
        ("EBAY_2022_10K.pdf", "eBay", "10-K", 2022, None),
        ("EBAY_2023Q2_10Q.pdf", "eBay", "10-Q", 2023, 2),
        ("EBAY_2023Q2_EARNINGS.pdf", "eBay", ER, 2023, 2),
        ("FEDEX_2023_10K.pdf", "FedEx", "10-K", 2023, None),
        ("INTEL_2020_10K.pdf", "Intel", "10-K", 2020, None),
        ("INTEL_2023Q1_EARNINGS.pdf", "Intel", ER, 2023, 1),
        ("KRAFTHEINZ_2022_10K.pdf", "Kraft Heinz", "10-K", 2022, None),
        ("LOCKHEEDMARTIN_2023Q2_10Q.pdf", "Lockheed Martin", ER, 2023, 2),
        ("LOCKHEEDMARTIN_2023_8K_dated-2023-05-25.pdf", "Lockheed Martin", "8-K", 2023, None),
        ("MCDONALDS_2022Q4_EARNINGS.pdf", "McDonald's", ER, 2022, 4),
        ("MCDONALDS_2022_10K.pdf", "McDonald's", "10-K", 2022, None),
        ("MCDONALDS_2023Q2_EARNINGS.pdf", "McDonald's", ER, 2023, 2),
        ("MICROSOFT_2022_10K.pdf", "Microsoft", "10-K", 2022, None),
        ("NETFLIX_2023Q2_10Q.pdf", "Netflix", "10-Q", 2023, 2),
        ("ORACLE_2022_10K.pdf", "Oracle", "10-K", 2022, None),
        ("ORACLE_2023_10K.pdf", "Oracle", "10-K", 2023, None),
        ("PAYPAL_2023Q2_10Q.pdf", "PayPal", "10-Q", 2023, 2),
        ("PG_E_2022_10K.pdf", "PG&E", "10-K", 2022, None),
        ("PG_E_2023Q3_10Q.pdf", "PG&E", "10-Q", 2022, 3),
        ("PG_E_2023_EARNINGS_dated-2023-05-04.pdf", "PG&E", ER, 2023, 1),
        ("SALESFORCE_2023_10K.pdf", "Salesforce", "10-K", 2023, None),
        ("SALESFORCE_2024Q1_EARNINGS.pdf", "Salesforce", ER, 2024, 1),
        ("WALMART_2023_10K.pdf", "Walmart", "10-K", 2023, None),
        ("WALMART_2024Q1_10Q.pdf", "Walmart", "10-Q", 2024, 1),
    ],
    "financebench_dev": [
        ("AMD_2015_10K.pdf", "Advanced Micro Devices", "10-K", 2015, None),
        *[(f"AMERICANWATERWORKS_{y}_10K.pdf", "American Water Works", "10-K", y, None) for y in (2020, 2021, 2022)],
        ("COCACOLA_2017_10K.pdf", "Coca-Cola", "10-K", 2017, None),
        ("COSTCO_2021_10K.pdf", "Costco Wholesale", "10-K", 2021, None),
        ("FOOTLOCKER_2022_8K_dated-2022-05-20.pdf", "Foot Locker", "8-K", 2022, None),
        ("FOOTLOCKER_2022_8K_dated_2022-08-19.pdf", "Foot Locker", "8-K", 2022, None),
        ("KRAFTHEINZ_2019_10K.pdf", "Kraft Heinz", "10-K", 2019, None),
        *[(f"LOCKHEEDMARTIN_{y}_10K.pdf", "Lockheed Martin", "10-K", y, None) for y in (2020, 2021, 2022)],
        *[(f"MICROSOFT_{y}_10K.pdf", "Microsoft", "10-K", y, None) for y in (2016, 2023)],
        *[(f"NETFLIX_{y}_10K.pdf", "Netflix", "10-K", y, None) for y in (2015, 2017)],
        *[(f"NIKE_{y}_10K.pdf", "Nike", "10-K", y, None) for y in (2018, 2019, 2021, 2023)],
        *[(f"WALMART_{y}_10K.pdf", "Walmart", "10-K", y, None) for y in (2018, 2020)],
    ],
    "filings": [
        ("APPLE_2022_10K.pdf", "Apple", "10-K", 2022, None),
        ("EBAY_2016_10K.pdf", "eBay", "10-K", 2016, None),
        ("INTEL_2022Q4_EARNINGS.pdf", "Intel", ER, 2022, 4),
        ("MCDONALDS_2023Q1_EARNINGS.pdf", "McDonald's", ER, 2023, 1),
        ("SALESFORCE_2021_8K_dated-2021-07-21.pdf", "Salesforce", "8-K", 2021, None),
    ],
}

# Each company four ways: its legal name, its ticker, a short form, and a former or other name where it has one.
NAMES = {
    "AES": ("The AES Corporation", "AES", "AES Corp", None),
    "Apple": ("Apple Inc.", "AAPL", "Apple", "Apple Computer"),
    "Boston Properties": ("Boston Properties, Inc.", "BXP", "Boston Properties", None),
    "Coca-Cola": ("The Coca-Cola Company", "KO", "Coca Cola", None),
    "Costco Wholesale": ("Costco Wholesale Corporation", "COST", "Costco", "Price Costco"),
    "eBay": ("eBay Inc.", "EBAY", "eBay", None),
    "FedEx": ("FedEx Corporation", "FDX", "FedEx", None),
    "Intel": ("Intel Corporation", "INTC", "Intel", None),
    "Kraft Heinz": ("The Kraft Heinz Company", "KHC", "Kraft", "H.J. Heinz Holding"),
    "Lockheed Martin": ("Lockheed Martin Corporation", "LMT", "Lockheed", None),
    "McDonald's": ("McDonald's Corporation", "MCD", "McDonalds", None),
    "Microsoft": ("Microsoft Corporation", "MSFT", "Microsoft", None),
    "Netflix": ("Netflix, Inc.", "NFLX", "Netflix", None),
    "Oracle": ("Oracle Corporation", "ORCL", "Oracle", None),
    "PayPal": ("PayPal Holdings, Inc.", "PYPL", "PayPal", None),
    "PG&E": ("PG&E Corporation", "PCG", "PG&E", "Pacific Gas and Electric"),
    "Salesforce": ("Salesforce, Inc.", "CRM", "Salesforce", "salesforce.com"),
    "Walmart": ("Walmart Inc.", "WMT", "Walmart", "Wal-Mart Stores"),
    "Advanced Micro Devices": ("Advanced Micro Devices, Inc.", "AMD", "Advanced Micro", None),
    "American Water Works": ("American Water Works Company, Inc.", "AWK", "American Water", None),
    "Foot Locker": ("Foot Locker, Inc.", "FL", "Foot Locker", None),
    "Nike": ("NIKE, Inc.", "NKE", "Nike", None),
}


def fold(name: str) -> str:
    return normalize_name(name.replace("'", "").replace("’", "")).replace(" ", "")


@lru_cache(maxsize=None)
def _passages(room: str):
    """A shared room read once for every test here (reading its PDFs is most of this file's time)."""
    from engine.ingest.corpus import load_corpus

    folder = DATA / room
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent: the shared filings lie beside the checkout in CI")
    return load_corpus(str(folder)).passages


@lru_cache(maxsize=None)
def _structure(room: str):
    return read_structure(_passages(room))


def _filings(room: str):
    return _structure(room).filings


@pytest.mark.parametrize("room", sorted(BY_HAND))
def test_every_filing_is_who_when_and_what_its_own_pages_say(room):
    filings = _filings(room)
    assert sorted(filings) == sorted(f for f, *_ in BY_HAND[room])
    read = {d: (fold(f.company), f.form, f.fiscal_year, f.quarter) for d, f in filings.items()}
    expected = {d: (fold(c), form, year, q) for d, c, form, year, q in BY_HAND[room]}
    assert read == expected


def test_each_company_is_found_by_its_legal_name_ticker_short_form_and_former_name():
    tried, missed = 0, []
    for room, rows in BY_HAND.items():
        filings = _filings(room)
        for company in sorted({c for _, c, *_ in rows}):
            key = next(f.names[0] for f in filings.values() if fold(f.company) == fold(company))
            for name in (n for n in NAMES[company] if n):
                tried += 1
                named = company_names(f"What did {name} report as revenue in its latest filing?", filings)
                if named.keys != (key,):
                    missed.append((room, company, name, named.keys))
    # the 95% floor of the issue; every miss is printed so a regression names itself
    print(f"\nnames resolved: {tried - len(missed)} of {tried}; missed: {missed}")  # docs/filings.md's figure (-s)
    assert len(missed) <= 0.05 * tried, missed
    assert tried >= 4 * 18


@pytest.mark.parametrize("question, unknown", [
    ("What was Nike's capex in FY2022?", "Nike"),
    ("How much debt does NKE carry?", "NKE"),
    ("Did Acme Corp buy back shares?", "Acme"),
])
def test_a_company_the_room_does_not_hold_is_said_to_be_unknown(question, unknown):
    """Literal cases, over identities written here: they read no room (they read both rooms' whole text before)."""
    from engine.filings.identity import Filing

    filings = {"WALMART_2023_10K.pdf": Filing("WALMART_2023_10K.pdf", "Walmart", ("walmart", "walmartinc"), ("WMT",),
                                              "10-K", 2023),
               "APPLE_2021_10K.pdf": Filing("APPLE_2021_10K.pdf", "Apple", ("apple", "appleinc"), ("AAPL",), "10-K",
                                            2021)}
    named = company_names(question, filings)
    assert named.keys == () and unknown in named.unknown



def test_a_file_name_names_a_company_only_when_it_names_a_filing():
    """"ACME_2019_10K.pdf" says who filed it when its pages do not; "damaged.pdf" says nothing: the company is
    unread (empty, shown as "unknown"), not "Damaged", and the label falls back to the file's name."""
    from engine.filings.identity import identity_row, read_filing

    text = ["Some text that is not a cover page.\nNothing here names a registrant."]
    named = read_filing("ACME_2019_10K.pdf", text)
    assert named.company == "Acme" or named.company.lower() == "acme", named.company
    assert ("company", 0, "file name") in named.read_from
    damaged = read_filing("damaged.pdf", text)
    assert damaged.company == "" and damaged.label == "damaged.pdf"
    assert [r["rule"] for r in identity_row(damaged)["read_from"] if r["field"] == "company"] == [
        "not read: no cover or release says it, and the file name names no filing"]


@pytest.mark.parametrize("ended", ["ended May 29, 2022", "Ended May 29 , 2022", "endedMay 29, 2022",
                                   "Ended May 29,\n2022", "Ended\u00a0May\u00a029,\u00a02022"])
def test_a_covers_period_end_is_read_however_the_pdf_spaced_it(ended):
    """General Mills' cover says "fiscal year ended May 29, 2022"; its text came out spaced otherwise, and the period
    end was empty with the fiscal year "from the file name" (#63 walk-through)."""
    from engine.filings.identity import read_filing

    cover = (f"FORM 10-K\nANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)\nFor the Fiscal Year {ended}\n"
             "GENERAL MILLS, INC.\n(Exact name of registrant as specified in its charter)")
    f = read_filing("GIS-10K.pdf", [cover, "ITEM 1. BUSINESS\nWe make cereal."])
    assert (f.company, f.fiscal_year, f.period_end) == ("General Mills", 2022, "2022-05-29")
    assert dict((field, page) for field, page, _ in f.read_from)["fiscal_year"] == 1


# The question-reading set over the same rooms (tests/test_question_reading.py holds the reader's own cases): here,
# so that the rooms are read once.
def test_the_question_reading_test_half_is_scoped_to_exactly_the_expected_filings():
    from engine.evaluate.scoping import read_set, scoping
    from engine.filings.lexicon import bundled
    from tests.test_question_reading import KINDS, SET

    rooms = {room: _structure(room).room for room in ("filings_dev", "financebench_dev")}
    result = scoping(read_set(SET), rooms, bundled(), half="test")
    assert result.share >= 0.97, result.wrong
    for kind in KINDS:
        assert result.share_of(kind) >= 0.90, (kind, result.wrong)


def test_no_question_naming_a_company_of_the_room_gets_zero_hits_from_its_scope():
    import json

    from engine.filings.lexicon import bundled
    from engine.filings.scope import read_scope
    from tests.test_question_reading import SET

    rooms = {room: _structure(room).room for room in ("filings_dev", "financebench_dev")}
    for line in SET.read_text("utf-8").splitlines():
        q = json.loads(line)
        if q["expect"] and q["expect"] != "*":
            scope = read_scope(q["text"], rooms[q["room"]], bundled())
            assert not scope.stop, (q["id"], scope.stop)


def test_a_release_is_dated_by_its_statements_and_its_ticker_read_from_its_about_paragraph():
    """#63 walk-through: Intel's Q4 release showed no period end and no ticker. It dates no quarter in its opening
    pages, so its statements' first column does ("Three Months Ended … Dec 31, 2022 Dec 25, 2021"); its ticker stands
    in "About Intel: Intel (Nasdaq: INTC) is …" at its end."""
    from engine.filings.periods import _date

    intel = _filings("filings")["INTEL_2022Q4_EARNINGS.pdf"]
    assert intel.period_end == "2022-12-31" and intel.symbols == ("INTC",)
    assert ("period_end", 8, "release: its statements' first column") in intel.read_from
    # a release whose cover names its registrant reads the ticker there too: "INTC" was answered from any company
    alone = read_structure([p for p in _passages("filings_dev") if p.id.startswith("INTEL_2023Q1_EARNINGS.pdf")])
    assert alone.filings["INTEL_2023Q1_EARNINGS.pdf"].symbols == ("INTC",)
    assert _date("Dec", "31", "2022") == (2022, 12, 31) and _date("Sept.", "30", "2023") == (2023, 9, 30)
    assert _date("De", "31", "2022") is None and _date("Decem", "31", "2022") is None
    costco = _filings("filings_dev")["COSTCO_2023Q3_EARNINGS.pdf"]  # "12 Weeks Ended 36 Weeks Ended May 7, 2023"
    assert costco.period_end == "2023-05-07"
    # every release with text is dated (MCDONALDS_2022Q4_EARNINGS's fonts map to no characters)
    releases = [f for room in BY_HAND for f in _filings(room).values() if f.form == ER]
    assert len(releases) >= 8 and [f.doc_id for f in releases if not f.period_end] == ["MCDONALDS_2022Q4_EARNINGS.pdf"]


def test_a_question_naming_no_company_of_a_room_of_several_says_any_may_answer():
    """Second walk-through: "What was net income for the quarter?" over three companies' filings was answered from one
    of them, and nothing said that the question named none."""
    from engine.filings.lexicon import bundled
    from engine.filings.scope import read_scope

    filings = _filings("filings")
    scope = read_scope("What was net income for the quarter?", filings, bundled())
    assert scope.notes == ("It names no company, so pages of any of the room's Apple, eBay, Intel, McDonald's, "
                           "salesforce may answer; name one, or choose it under Scope",)  # as its cover styles its name
    assert read_scope("What was Intel's net income for the quarter?", filings, bundled()).notes == ()


def test_a_statement_is_the_page_its_title_names_and_a_page_sits_where_it_stands_not_where_it_refers():
    """Coca-Cola's 2020 10-K, page 61: MD&A's contractual obligations under a sentence naming "our consolidated balance
    sheet", and "Refer to Note 10". A walk-through read it placed under "Balance sheet › Note 10 — Debt"."""
    passages, structure = _passages("filings_dev"), _structure("filings_dev")
    doc = "COCACOLA_2020_10K.pdf"
    placed: dict[int, set[tuple[str, str]]] = {}
    for row, node, kind in structure.edges:
        p = passages[row]
        if p.doc_id == doc:
            placed.setdefault(int(p.metadata["page"]), set()).add((structure.nodes[node].label, kind))
    sections = {label for label, kind in placed[61] if kind == "section"}
    assert sections == {"Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations"}
    assert ("Note 10 — Debt and Borrowing Arrangements", "xref") in placed[61]
    # the statements themselves still are
    assert ("Income statement", "section") in placed[66] and ("Balance sheet", "section") in placed[68]
