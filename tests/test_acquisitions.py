"""Acquisitions read from filings (engine.deals.acquisitions): hand-made pages with known answers, the hand list's
shape, the measure's arithmetic, and the measure on the shared filings against the list written by hand first
(tests/data/acquisitions.hand.jsonl), with today's figures as floors."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from engine.deals.acquisition_measure import HAND_LIST, HALVES, HandDeal, load_hand, main, measure, measure_rooms
from engine.deals.acquisitions import Acquisition, corpus_acquisitions, deal_sections, read_acquisitions
from engine.errors import PathLensError
from engine.filings.identity import Filing
from engine.ingest.passage import Passage
from tests.conftest import ROOT
from tests.filingmaker import cover

DATA = ROOT.parent / "shared" / "data"

ACME = Filing("ACME_2022_10K.pdf", "Acme Widgets", ("acmewidgets", "acme"), ("ACMW",), "10-K", 2022)

NOTE = (
    "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS\n"
    "Note 5 — Business Combinations\n"
    "Nuance Widgets\n"
    "On March 4, 2022, we completed our acquisition of Nuance Widgets, Inc. (“Nuance”) for a total purchase price of\n"
    "$18.8 billion, consisting primarily of cash. Nuance is reported as part of our Cloud segment.\n"
    "Spice Acquisition:\n"
    "In December 2021, the Company acquired 85% of the shares of Spice Co GmbH (“Spice”), a German maker of spice blends.\n"
    "The Spice Acquisition was accounted for under the acquisition method. The total cash consideration paid for Spice\n"
    "was $243 million, and goodwill of $167 million was recorded.\n"
    "On January 18, 2022, we entered into a definitive agreement to acquire Blizzard Games, Inc. (“Blizzard”) for $95.00\n"
    "per share in an all-cash transaction valued at $68.7 billion. We expect it to close in fiscal year 2023.\n"
    "During 2016, we completed three acquisitions — Alpha Inc., Beta Labs and Gamma Ltd. — for an aggregate purchase\n"
    "consideration of approximately $212 million, consisting of cash.\n"
    "Great Cove Solar — In January 2021 and May 2021, the Company completed the acquisitions of Great Cove I and II,\n"
    "respectively.\n"
    "In 2022, we acquired the remaining noncontrolling interest in Acme Brasil for $40 million.\n"
    "Note 6 — Goodwill\n"
    "Goodwill acquired in 2022 was assigned to our segments. Globex announced an agreement to acquire Initech Corp.\n"
)
PAGES = [
    cover(2022),
    "Table of Contents\nNote 5 - Business Combinations 41\nNote 6 - Goodwill 43",
    "ITEM 1A. RISK FACTORS\nWe may acquire businesses, and acquired businesses may not perform as we expect.",
    "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS\nIn March 2022, we completed our acquisition of Nuance Widgets, Inc., "
    "which grew our cloud revenue.\nGlobex, a competitor, acquired Hooli Inc. for $1.0 billion in 2022.",
    NOTE,
]


def by_target(found):
    return {a.target: a for a in found}


def test_a_note_gives_each_deal_its_target_date_consideration_and_page():
    found = read_acquisitions("ACME_2022_10K.pdf", PAGES, ACME)
    deals = by_target(found)
    assert sorted(deals) == ["Alpha Inc.", "Beta Labs", "Blizzard Games, Inc.", "Gamma Ltd.", "Great Cove I",
                             "Great Cove II", "Nuance Widgets, Inc.", "Spice Co GmbH"]
    nuance = deals["Nuance Widgets, Inc."]
    assert (nuance.acquirer, nuance.date, nuance.consideration_usd_m, nuance.page, nuance.status) == \
        ("Acme Widgets", "2022-03-04", 18800.0, 5, "completed")  # the note's page, not MD&A's (page 4)
    assert nuance.consideration.startswith("$18.8 billion")
    assert "completed our acquisition of Nuance Widgets" in nuance.sentence
    # the price is in a later sentence that names the target by its short name; goodwill is not a price
    assert (deals["Spice Co GmbH"].date, deals["Spice Co GmbH"].consideration_usd_m) == ("2021-12", 243.0)
    # a deal agreed, not closed: the total, not the price per share
    blizzard = deals["Blizzard Games, Inc."]
    assert (blizzard.status, blizzard.date, blizzard.consideration_usd_m) == ("agreed", "2022-01-18", 68700.0)
    # a list of deals: one each, dated; a total for all of them is no one deal's price
    for name in ("Alpha Inc.", "Beta Labs", "Gamma Ltd."):
        assert (deals[name].date, deals[name].consideration, deals[name].consideration_usd_m) == ("2016", "", None)
    # "I and II, respectively": each takes its own date
    assert (deals["Great Cove I"].date, deals["Great Cove II"].date) == ("2021-01", "2021-05")


def test_not_a_deal_of_the_filer_not_a_deal():
    found = by_target(read_acquisitions("ACME_2022_10K.pdf", PAGES, ACME))
    # a minority buyout of its own subsidiary, another company's deals, words of risk
    assert not {"Acme Brasil", "Initech Corp.", "Hooli Inc.", "businesses"} & set(found)


def test_the_filing_identity_is_read_from_the_cover_when_not_given():
    found = read_acquisitions("ACME_2022_10K.pdf", PAGES)
    assert {a.acquirer for a in found} == {"Acme Widgets"}
    assert len(found) == 8


def test_an_8k_item_2_01():
    pages = ["FORM 8-K\nCURRENT REPORT\nJuly 21, 2021\nDate of Report (date of earliest event reported)\n"
             "salesforce.com, inc.\n(Exact name of Registrant as specified in its charter)",
             "Item 2.01. Completion of Acquisition or Disposition of Assets.\n"
             "On July 21, 2021 (the “Closing Date”) the Company completed the acquisition of Slack Technologies, Inc. "
             "(“Slack”), pursuant to that certain Agreement and Plan of Merger, dated as of December 1, 2020.\n"
             "Item 9.01 Financial Statements and Exhibits"]
    (deal,) = read_acquisitions("CRM_8K.pdf", pages)
    # the acquirer is the company as the filing's identity names it (its cover says "salesforce.com, inc.")
    assert (deal.acquirer, deal.target, deal.date, deal.page, deal.status) == \
        ("salesforce", "Slack Technologies, Inc.", "2021-07-21", 2, "completed")
    assert deal_sections(pages) == ((len(pages[0]) + 1, len(pages[0]) + 1 + pages[1].index("Item 9.01"),
                                     "Item 2.01. Completion of Acquisition or Disposition of Assets."),)


def test_an_earnings_release_is_not_read():
    release = replace(ACME, form="earnings release")
    assert read_acquisitions("ACME_Q4_EARNINGS.pdf", PAGES, release) == ()


def test_a_bare_amount_in_a_filing_stated_in_millions():
    pages = ["(amounts in millions, except per share data)", "Note 2—Acquisition of Innovel\n"
             "On March 17, 2020, the Company acquired Innovel Solutions for $999, using existing cash and cash "
             "equivalents.\nNote 3—Leases"]
    (deal,) = read_acquisitions("COSTCO.pdf", pages, replace(ACME, company="Costco"))
    assert (deal.target, deal.date, deal.consideration_usd_m, deal.page) == ("Innovel Solutions", "2020-03-17", 999.0, 2)


def test_a_table_of_contents_line_is_not_a_section():
    sections = deal_sections(PAGES)
    assert [title for *_, title in sections] == ["Business Combinations"]
    start, end, _ = sections[0]
    text = "\n".join(PAGES)
    assert text[start:].startswith("Note 5 — Business Combinations") and text[end:].startswith("Note 6 — Goodwill")


def test_a_corpus_of_page_cited_passages_reads_as_its_pages():
    passages = tuple(Passage(f"ACME_2022_10K.pdf#p{n}.0", "ACME_2022_10K.pdf", "Acme", text, {"page": str(n)})
                     for n, text in enumerate(PAGES, start=1))
    assert corpus_acquisitions(passages) == read_acquisitions("ACME_2022_10K.pdf", PAGES)


# ---------------------------------------------------------------- the measure


def hand(doc, target, date="", usd=None, page=1, aliases=()):
    return HandDeal(doc, page, "Acme", target, date, "", usd, tuple(aliases))


def found(doc, target, date="", usd=None, page=1):
    return Acquisition("Acme", target, date, "", usd, doc, page, "")


def test_the_measure_counts_deals_by_filing_and_target_then_dates_and_prices():
    hands = [hand("a.pdf", "Slack Technologies, Inc.", "2021-07-21", 27100, page=5, aliases=["Slack"]),
             hand("a.pdf", "Los Cururos wind farm", "2019-11", 143),
             hand("a.pdf", "bottling operations in Zambia", "2019"),
             hand("b.pdf", "Moovit", "2020-05-04", 915)]
    founds = [found("a.pdf", "Slack", "2021-07-21", 27068, page=5),  # a name the hand list gives; within 2%
              found("a.pdf", "Los Cururos wind farm and transmission lines", "2019-11-01", 143, page=2),  # holds it
              found("a.pdf", "bottling operations"),  # less than 60% of the name: not this deal
              found("b.pdf", "Slack", "2021-07-21")]  # another filing's deal
    m = measure(founds, hands)
    assert (m.hand, m.found, m.matched) == (4, 4, 2)
    assert (m.precision, m.recall) == (0.5, 0.5)
    assert (m.dates_both, m.dates_right, m.usd_both, m.usd_right) == (2, 1, 2, 2)
    assert m.pages_right == 1 and m.page_accuracy == 0.5
    assert set(m.missed) == {("a.pdf", "bottling operations in Zambia"), ("b.pdf", "Moovit")}
    assert ("a.pdf", "Los Cururos wind farm", "date", "2019-11", "2019-11-01") in m.wrong
    assert ("a.pdf", "Los Cururos wind farm", "page", "1", "2") in m.wrong


def test_a_found_deal_counts_once():
    hands = [hand("a.pdf", "Great Cove I", "2021-01"), hand("a.pdf", "Great Cove II", "2021-05")]
    m = measure([found("a.pdf", "Great Cove II", "2021-05"), found("a.pdf", "Great Cove II", "2021-05")], hands)
    assert (m.matched, m.precision, m.recall) == (1, 0.5, 0.5)


def test_the_hand_list_loads_and_a_bad_line_is_named(tmp_path):
    deals = load_hand()
    assert len(deals) >= 90 and all(d.page >= 1 and d.doc.split("/")[0] in sum(HALVES.values(), ()) for d in deals)
    bad = tmp_path / "bad.jsonl"
    row = {"doc": "x.pdf", "page": 3, "acquirer": "A", "target": "B", "date": "July 2021", "consideration": ""}
    bad.write_text(json.dumps({**row, "date": ""}) + "\n" + json.dumps(row) + "\n", "utf-8")
    with pytest.raises(PathLensError, match=r"bad.jsonl, line 2: field 'date'"):
        load_hand(bad)
    bad.write_text(json.dumps({**row, "date": "", "page": "3"}) + "\n", "utf-8")
    with pytest.raises(PathLensError, match=r"line 1: field 'page' must be a number"):
        load_hand(bad)


def test_the_hand_list_cites_pages_its_filings_have():
    if not DATA.is_dir():
        pytest.skip(f"{DATA} is absent: the shared filings lie beside the checkout in CI")
    import pypdfium2 as pdfium

    for doc, deals in _by_doc(load_hand()).items():
        pdf = pdfium.PdfDocument(str(DATA / doc))
        assert all(1 <= d.page <= len(pdf) for d in deals), doc
        pdf.close()


def _by_doc(deals):
    out: dict[str, list[HandDeal]] = {}
    for d in deals:
        out.setdefault(d.doc, []).append(d)
    return out


# Today's figures (python -m engine.deals.acquisition_measure --measure), as floors: the matched counts may grow, the
# wrong ones may not.
FLOORS = {"tune": dict(hand=58, matched=55, found_at_most=55, dates_right=55, usd_right=29),
          "test": dict(hand=32, matched=30, found_at_most=32, dates_right=27, usd_right=20)}


def test_the_reader_on_the_shared_filings_against_the_hand_list():
    if not all((DATA / room).is_dir() for rooms in HALVES.values() for room in rooms):
        pytest.skip(f"{DATA} is absent: the shared filings lie beside the checkout in CI")
    figures = measure_rooms(DATA, HAND_LIST)
    for half, floor in FLOORS.items():
        m = figures[half]
        assert m.hand == floor["hand"], half
        assert m.matched >= floor["matched"] and m.found - m.matched <= floor["found_at_most"] - floor["matched"], \
            (half, m.missed, m.extra)
        assert m.dates_right >= floor["dates_right"] and m.usd_right >= floor["usd_right"], (half, m.wrong)
        assert m.dates_right == m.dates_both or half == "test", (half, m.wrong)
        assert m.page_accuracy == 1.0, (half, m.wrong)


def test_the_command_needs_a_folder_or_measure(capsys):
    with pytest.raises(SystemExit):
        main([])
    assert main(["--measure", "--data", str(ROOT / "no-such-folder")]) == 2
    assert "is not a folder" in capsys.readouterr().err
