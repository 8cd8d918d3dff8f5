"""The filing graph: structure read off pages, the question's scope, the lexicon, and the retriever
that ranks pages over them, on a small hand-made data room of two years of one company's 10-K."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from engine.indexing.index import Index, SearchConfig
from engine.errors import PathLensError
from engine.filings.graph import EdgeWeights
from engine.filings.lexicon import bundled, lexicon_for, parse_lexicon
from engine.filings.scope import ScopeCorrection, read_scope
from engine.filings.identity import read_filing
from engine.filings.structure import (PARENT_ONLY, cross_references, headings, read_structure, row_label,
                                      statement_of_page, statement_opened_below)
from engine.ingest.corpus import Corpus
from engine.ingest.questions import LabeledQuery
from engine.ingest.passage import Passage
from tests.filingmaker import balance_sheet, cash_flows, cover, filing_pages


def passages_of(doc: str, pages: list[str]) -> list[Passage]:
    title = f"ACME WIDGETS, INC. · Form 10-K · fiscal year ended May 31, {doc[5:9]} · ACME {doc[5:9]} 10-K"
    return [Passage(f"{doc}#p{n}.0", doc, title, text, MappingProxyType({"page": str(n), "pages": str(len(pages))}))
            for n, text in enumerate(pages, start=1)]


@pytest.fixture(scope="module")
def room() -> Corpus:
    passages = passages_of("ACME_2019_10K.pdf", filing_pages(2019, 1_028)) + passages_of("ACME_2020_10K.pdf",
                                                                                         filing_pages(2020, 1_119))
    passages.append(Passage("memo.md#0000", "memo.md", "Memo", "Beta Gadgets signed a lease in Ohio."))
    queries = (LabeledQuery("c19", "What was Acme's capex in FY2019? Use the cash flow statement.",
                            ("ACME_2019_10K.pdf#p5.0",), "metrics", ("ACME_2019_10K.pdf#p5",)),)
    return Corpus("acme", tuple(passages), queries)


def test_a_filing_is_read_off_its_cover_and_file_name():
    f = read_filing("ACME_2019_10K.pdf", [cover(2019)])
    assert (f.company, f.form, f.fiscal_year, f.quarter, f.source) == ("Acme Widgets", "10-K", 2019, None, "cover")
    assert f.names == ("acmewidgets", "acme") and f.symbols == ("ACMW",)
    assert f.label == "Acme Widgets FY2019 10-K"
    # a cover that names no registrant: the file name's first word and year
    g = read_filing("MICROSOFT_2016_10K.pdf", ["Commission File Number 001-37845\nForm 10-K"])
    assert (g.company, g.fiscal_year, g.form, g.source) == ("Microsoft", 2016, "10-K", "file name")
    h = read_filing("INTEL_2022Q4_EARNINGS.pdf", ["(a page whose text says nothing)"])
    assert (h.form, h.fiscal_year, h.quarter) == ("earnings release", 2022, 4)


def test_statement_pages_are_tables_that_name_one_statement():
    assert statement_of_page(cash_flows(2019, 1)) == "cash flows"
    assert statement_of_page(balance_sheet(2019)) == "balance sheet"
    assert statement_of_page(filing_pages(2019, 1)[2]) is None  # a table of contents names three
    assert statement_of_page("CONSOLIDATED STATEMENTS OF CASH FLOWS\nWe discuss cash flows in words only.") is None
    assert statement_of_page("Report of Independent Registered Public Accounting Firm\nWe have audited the "
                             "accompanying consolidated balance sheets\n" + " 1" * 40) is None
    assert statement_of_page("COMPREHENSIVE INCOME STATEMENTS\n" + "\n".join(f"Item {i} 1 2 3" for i in range(12))) \
        == "comprehensive income"
    # a table under a line of prose naming the balance sheet is not it (MD&A's contractual obligations, a real 10-K's
    # page 61); a title over two short lines is
    table = "\n".join(f"Purchase obligations {i} 1,234 567 89" for i in range(12))
    prose = ("Our Company recognizes all derivative financial instruments as either assets or liabilities at fair "
             "value in our consolidated balance sheet. Refer to Note 5 of Notes to\nAggregate Contractual Obligations\n")
    assert statement_of_page(prose + table) is None
    assert statement_of_page("BOSTON PROPERTIES LIMITED PARTNERSHIP\nCONSOLIDATED STATEMENTS OF\nCOMPREHENSIVE INCOME\n"
                             + table) == "comprehensive income"


def test_a_statement_titled_at_the_foot_of_a_page_goes_on_over_the_next_untitled_page():
    """Costco's Q3 2023 release ends its income-statement page with the balance sheet's title and first rows; the
    next page holds the rest untitled and was no statement, so "merchandise inventories" scoped to none and its page
    ranked second (a walk-through's major)."""
    income = "\n".join(f"Net sales line {i} 52,604 51,612 160,280 151,966" for i in range(10))
    first = (f"COSTCO WHOLESALE CORPORATION\nCONSOLIDATED STATEMENTS OF INCOME\n{income}\nCOSTCO WHOLESALE "
             "CORPORATION\nCONSOLIDATED BALANCE SHEETS\n(amounts in millions)\nCash and cash equivalents $ 12,493 $ 10,203")
    rest = "\n".join(f"Merchandise inventories {i} 16,324 17,907" for i in range(16))
    assert statement_opened_below(first) == "balance sheet" and statement_of_page(first) == "income"
    assert statement_opened_below(f"CONSOLIDATED BALANCE SHEETS\n{rest}") is None  # its own table: not going on
    cover_page = "COSTCO REPORTS THIRD QUARTER RESULTS\nIssaquah, Washington - Costco Wholesale Corporation today reported."
    structure = read_structure(passages_of("COSTCO_2023Q3_EARNINGS.pdf", [cover_page, first, rest]))
    statement_pages = {(n.ref, r + 1) for r, i, _ in structure.edges if (n := structure.nodes[i]).kind == "statement"}
    assert statement_pages == {("income", 2), ("balance sheet", 3)}


def test_the_parent_company_s_own_statements_are_not_the_group_s():
    """Regulation S-X Schedule I: AES's "SCHEDULE I CONDENSED FINANCIAL INFORMATION OF PARENT STATEMENTS OF CASH
    FLOWS" gave the parent's own capex, $14m, as the cash-flow statement's (a walk-through's major)."""
    table = "\n".join(f"Additions to property, plant and equipment {i} (14) (8) (8)" for i in range(12))
    for head in ("SCHEDULE I\nCONDENSED FINANCIAL INFORMATION OF PARENT\nSTATEMENTS OF CASH FLOWS",
                 "SCHEDULE I — CONDENSED FINANCIAL INFORMATION OF PG&E CORPORATION (Parent Company)\nCONDENSED "
                 "STATEMENTS OF CASH FLOWS", "Condensed Financial Information of Registrant\nStatements of Cash Flows"):
        assert statement_of_page(f"{head}\n{table}") is None, head
    assert statement_of_page(f"CONSOLIDATED STATEMENTS OF CASH FLOWS\n{table}") == "cash flows"
    assert not PARENT_ONLY.search("SCHEDULE II — VALUATION AND QUALIFYING ACCOUNTS of the parent")


def test_a_statement_that_opens_under_prose_is_read_by_its_own_title_line():
    """An earnings release sets its balance sheet under the safe-harbour prose (eBay's Q2 2023 release, page 7): the
    title line of its own names it. A note's table about a statement names it as a place, a sentence ends on it, a
    caption or a contents line closes on a colon or a page number: none is the statement."""
    prose = "\n".join(f"the company's ability to manage risk number {i} and grow the business over time;"
                      for i in range(7))
    table = "\n".join(f"Total assets line {i} 1,234 567 89" for i in range(12))
    assert statement_of_page(f"{prose}\nUnaudited Condensed Consolidated Balance Sheet\n{table}") == "balance sheet"
    for line in ("Fair Value of Derivative Instruments in the Consolidated Balance Sheets",
                 "Effect of Derivative Contracts on Condensed Consolidated Statement of Income",
                 "redeemable noncontrolling interest on our consolidated balance sheet.",
                 "Consolidated Balance Sheets:",
                 "Consolidated Statements of Income 47", "Summarized Statement of Income",
                 "Consolidated Statements of Income Information"):
        assert statement_of_page(f"{prose}\n{line}\n{table}") is None, line


def test_headings_skip_tables_of_contents_and_references():
    items, notes = headings("ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS\nNote 8 Long-Term Debt 59\n"
                            "NOTE 8 — LONG-TERM DEBT\nNote 6—Acquisitions in the Notes to Consolidated Financial Statements")
    assert items == [("7", "MANAGEMENT'S DISCUSSION AND ANALYSIS")]
    assert notes == [("8", "LONG-TERM DEBT")]
    assert headings("Note 1: Organization and Operation")[1] == [("1", "Organization and Operation")]
    assert headings("Note 6. Short-term Borrowings and Long-term Debt")[1] == [("6", "Short-term Borrowings and Long-term Debt")]


def test_row_labels_and_cross_references():
    assert row_label("Additions to property, plant and equipment (1,028) (1,105) (1,143)") == \
        "additions to property plant and equipment"
    assert row_label("TOTAL ASSETS $ 22,536 $ 23,259") == "total assets"
    assert row_label("Dividends — common and preferred (1,243) (1,133)") == "dividends common and preferred"
    assert row_label("Total 9,413 9,409") is None  # too generic to name a row
    assert row_label("May 31, 2019") is None
    # a guidance table's dollar ranges are a forecast's row; a statement's "$" apart and its dash for zero are
    assert row_label("Revenue $8.51 - $8.53") == "guidance revenue"
    assert row_label("Expected volatility 36% - 53% 41% - 48%") == "expected volatility"  # reported rates
    assert row_label("Restructuring (3) $ 711 - $ 20") == "restructuring"
    assert row_label("Gross margin 42.1% 40.3%") == "gross margin"
    assert row_label("Our revenues grew strongly in the year.") is None
    # a long row of figures (statements print many columns) is read in one pass
    assert row_label("Cash paid " + " (1,234) —" * 400 + " x") is None
    assert row_label("Cash paid for interest" + " (1,234) —" * 400) == "cash paid for interest"
    assert cross_references("see Note 12 and refer to Item 7A; included in Part II, Item 8") == \
        [("note", "12"), ("item", "7A"), ("item", "8")]


def test_the_structure_links_each_node_to_the_passages_it_touches(room):
    s = read_structure(room.passages)
    assert set(s.filings) == {"ACME_2019_10K.pdf", "ACME_2020_10K.pdf"}  # the memo has no pages: no nodes
    by_key = {n.key: i for i, n in enumerate(s.nodes)}
    touched = {}
    for row, node, edge in s.edges:
        touched.setdefault(s.nodes[node].key, set()).add((room.passages[row].id, edge))
    assert touched["§statement ACME_2019_10K.pdf cash flows"] == {("ACME_2019_10K.pdf#p5.0", "section")}
    assert touched["§row ACME_2020_10K.pdf additions to property plant and equipment"] == \
        {("ACME_2020_10K.pdf#p5.0", "line item")}
    # Note 8 spans its own page (Item 9 opens the next); the balance sheet's "see Note 8" and the MD&A's
    # "described in Note 8" are cross-reference edges to it
    assert touched["§note ACME_2019_10K.pdf 8"] == {("ACME_2019_10K.pdf#p6.0", "section"),
                                                    ("ACME_2019_10K.pdf#p4.0", "xref"), ("ACME_2019_10K.pdf#p2.0", "xref")}
    # Item 8 runs until Item 9 opens
    assert {pid for pid, _ in touched["§item ACME_2019_10K.pdf 8"]} == {f"ACME_2019_10K.pdf#p{n}.0" for n in (3, 4, 5, 6)}
    assert len(touched["§company acmewidgets"]) == 14 and "§filing ACME_2019_10K.pdf" in by_key


def test_scope_reads_company_year_form_statement_and_terms(room):
    s = read_structure(room.passages)
    lex = bundled()
    q = ("Assume that you are a public equities analyst. What was ACMW's capex in FY2019? Use the cash flow "
         "statement. Round your answer to two decimal places.")
    scope = read_scope(q, s.filings, lex)
    assert scope.companies == ("Acme Widgets",) and scope.year == 2019 and scope.statements == ("cash flows",)
    assert scope.filings == ("ACME_2019_10K.pdf",)
    assert [said for said, _ in scope.terms] == ["capex"]
    assert "analyst" not in scope.text and "Round" not in scope.text and "capex" in scope.text
    # a term implies its statement when none is named; a year the room has no filing for is read from
    # the next filing, which repeats it as a comparative
    scope = read_scope("acme widgets total assets in fiscal 2018", s.filings, lex)
    assert scope.statements == ("balance sheet",) and scope.filings == ("ACME_2019_10K.pdf",)
    # nothing named: no scope
    assert read_scope("what is capex?", s.filings, lex).filings == ()
    # "CFO" is a person here, not cash from operations: no statement is implied
    assert read_scope("Who is Acme's CFO?", s.filings, lex).statements == ()
    # a region's or a segment's part of a line item is printed in MD&A and the segment note, not on the statement the
    # line item implies (#63 walk-through: "Nike's EMEA revenue" was scoped to the income statement)
    for part in ("EMEA revenue", "revenue by segment", "Greater China sales", "international revenue"):
        assert read_scope(f"What was Acme's {part} in FY2019?", s.filings, lex).statements == (), part
    assert read_scope("What was Acme's revenue in FY2019?", s.filings, lex).statements == ("income",)
    assert read_scope("What was Acme's EMEA revenue? Use the income statement.", s.filings, lex).statements == (
        "income",)  # a statement the question names still holds
    # a user's correction wins
    scope = read_scope(q, s.filings, lex, ScopeCorrection(year=2020, statement="balance sheet"))
    assert scope.filings == ("ACME_2020_10K.pdf",) and scope.statements == ("balance sheet",) and scope.corrected
    with pytest.raises(PathLensError, match="company: no filing of the data room is by 'Globex'"):
        read_scope(q, s.filings, lex, ScopeCorrection(company="Globex"))
    with pytest.raises(PathLensError, match="statement: unknown statement 'p&l'"):
        ScopeCorrection(statement="p&l")


def test_scope_says_when_a_name_or_a_period_is_not_in_the_room(room):
    from engine.explain.jsonout import scope_json
    from engine.retrieve.filing_retriever import FilingWalk

    s = read_structure(room.passages)
    lex = bundled()
    # a company the room lacks stops the answer and offers the companies it holds, unless asked to search everything
    scope = read_scope("What was Nike's capex in FY2019?", s.filings, lex)
    assert scope.companies == () and scope.filings == () and scope.notes == ()
    assert scope.stop == ("“Nike” names no company of this data room, so no page of it answers. The room holds "
                          "filings of Acme Widgets. Ask about one of them, or search every filing.")
    assert scope.words(s.filings) == scope.stop
    scope = read_scope("What was Nike's capex in FY2019?", s.filings, lex, ScopeCorrection(everywhere=True))
    assert not scope.stop and scope.notes == ("“Nike” names no company of this data room; searching every filing",)
    assert scope.words(s.filings).endswith("“Nike” names no company of this data room; searching every filing")
    # the page, the report and --json all read the scope's words; --json lists the notes too
    assert scope_json(FilingWalk(scope, scope.words(s.filings)))["notes"] == list(scope.notes)
    # "as of FY2019" chooses the filing; the later year is a figure inside it
    scope = read_scope("As of FY2019, what payment did Acme expect to make in 2020?", s.filings, lex)
    assert scope.year == 2019 and scope.filings == ("ACME_2019_10K.pdf",)
    # a quarter the room has no filing for is said, and the year's filing is shown
    scope = read_scope("What was Acme's revenue in Q2 of FY2019?", s.filings, lex)
    assert (scope.year, scope.quarter, scope.filings) == (2019, 2, ("ACME_2019_10K.pdf",))
    assert scope.notes == ("No Acme Widgets filing for Q2 FY2019; showing Acme Widgets FY2019 10-K",)
    # a year the room lacks falls to the filing that repeats it, and says so
    scope = read_scope("What was Acme's revenue in FY2018?", s.filings, lex)
    assert scope.filings == ("ACME_2019_10K.pdf",)
    assert scope.notes == ("No Acme Widgets filing for FY2018; showing Acme Widgets FY2019 10-K, the nearest 10-K after it, "
                           "which repeats it",)


def test_a_question_comparing_two_companies_scopes_each_to_its_own_period(room):
    """"McDonald's in Q1 2023 against Apple" over a room whose Apple filing is an earlier year: each company is scoped
    on its own, so the one without that period keeps its filings, and the note says so (it was dropped unsaid)."""
    def globex(n: int, text: str) -> Passage:
        text = text.replace("ACME WIDGETS, INC.", "GLOBEX CORPORATION").replace("ACMW", "GBX")
        return Passage(f"GLOBEX_2017_10K.pdf#p{n}.0", "GLOBEX_2017_10K.pdf", "GLOBEX CORPORATION · Form 10-K",
                       text.replace("2019", "2017").replace("2018", "2016"),
                       MappingProxyType({"page": str(n), "pages": "7"}))

    pages = [globex(n, text) for n, text in enumerate(filing_pages(2019, 900), start=1)]
    s = read_structure(room.passages + tuple(pages))
    scope = read_scope("How did Acme's capex in FY2019 compare with Globex's capex?", s.filings, bundled())
    assert scope.companies == ("Acme Widgets", "Globex") and scope.year == 2019
    assert scope.filings == ("ACME_2019_10K.pdf", "GLOBEX_2017_10K.pdf")
    assert scope.notes == ("No Globex filing for FY2019; searching every filing of the company",)
    # one company: as it was
    assert read_scope("What was Acme's capex in FY2019?", s.filings, bundled()).filings == ("ACME_2019_10K.pdf",)


def test_a_room_of_one_filing_names_it_in_the_scope(room):
    one = [p for p in room.passages if p.doc_id == "ACME_2019_10K.pdf"]
    s = read_structure(one)
    scope = read_scope("What was Acme's capex in FY2019?", s.filings, bundled())
    assert scope.words(s.filings).endswith("→ Acme Widgets FY2019 10-K, the room's only filing")


def test_a_data_rooms_lexicon_extends_the_bundled_one_and_is_checked():
    extra = '{"terms": [{"say": ["widget capex"], "rows": ["widget tooling"], "statement": "cash flows"}]}'
    lex = lexicon_for(extra)
    assert len(lex.terms) == len(bundled().terms) + 1
    assert [s for s, _ in lex.terms_in("What was Acme's widget capex?")] == ["widget capex"]
    with pytest.raises(PathLensError, match=r"lexicon.json: field 'terms\[0\].statement': unknown statement 'p and l'"):
        parse_lexicon('{"terms": [{"say": ["x"], "statement": "p and l"}]}', "lexicon.json")
    with pytest.raises(PathLensError, match="lexicon.json: not valid JSON"):
        parse_lexicon("{", "lexicon.json")
    # a longer phrase of one term hides the shorter phrase of another inside it
    assert [s for s, _ in bundled().terms_in("What is the unadjusted operating income?")] == ["operating income"]
    # a cash-flow row said as printed is capex, not the balance sheet's PP&E inside it (walk 22: Intel's q3)
    terms = bundled().terms_in("How much did Intel spend on additions to property, plant and equipment in 2020?")
    assert [(s, t.statement) for s, t in terms] == [("additions to property plant and equipment", "cash flows")]


def test_edge_weights_scale_where_a_passage_steps(room):
    index = Index(room)
    w = EdgeWeights(filing=1.0, section=3.0, line_item=2.0, xref=1.0, entity=0.0)
    g = index.filing_graph(w).graph
    row = g.passage_index["ACME_2019_10K.pdf#p5.0"]
    to_e = g.blocks[1]  # passage → node probabilities, one column per passage
    probs = {g.entities[j]: to_e[j, row] for j in range(len(g.entities)) if to_e[j, row] > 0}
    # filing 1 + company 1 + Item 8 section 3 + statement 3 + the page's 12 distinct rows × 2 = 32
    total = 1 + 1 + 3 + 3 + 2 * len([k for k in probs if k.startswith("§row")])
    assert probs["§filing ACME_2019_10K.pdf"] == pytest.approx(1 / total)
    assert probs["§statement ACME_2019_10K.pdf cash flows"] == pytest.approx(3 / total)
    assert probs["§row ACME_2019_10K.pdf additions to property plant and equipment"] == pytest.approx(2 / total)
    assert sum(probs.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("year, page", [(2019, "ACME_2019_10K.pdf#p5"), (2020, "ACME_2020_10K.pdf#p5")])
def test_the_right_years_statement_page_ranks_first_with_its_typed_path(room, year, page):
    index = Index(room)
    r = index.retriever("filing-graph", SearchConfig())
    ans = r.answer(f"What was Acme's capital expenditure in FY{year} according to the cash flow statement?", 3)
    top = ans.hits[0]
    assert top.passage_id.startswith(page + ".")
    pages = [h.passage_id.rsplit(".", 1)[0] for h in ans.hits]
    memo = r.answer("Did Beta Gadgets sign a lease in Ohio?", 1)
    assert memo.hits[0].passage_id == "memo.md#0000" and memo.why["memo.md#0000"].typed_path is None
    assert len(set(pages)) == len(pages)  # pages rank once
    why = ans.why[top.passage_id]
    assert sum(c for _, c in why.contributions) == pytest.approx(top.score, rel=1e-9)
    path = why.typed_path
    assert path.nodes == ("Acme Widgets", f"Acme Widgets FY{year} 10-K", "Statement of cash flows",
                          "“Additions to property, plant and equipment”", "page 5")
    # its mass is what the seeds on it (the filing, the statement, the row) contribute to the score
    on_path = {f"e:§filing ACME_{year}_10K.pdf", f"e:§statement ACME_{year}_10K.pdf cash flows",
               f"e:§row ACME_{year}_10K.pdf additions to property plant and equipment"}
    assert path.mass == pytest.approx(sum(c for s, c in why.contributions if s in on_path), rel=1e-12)
    assert path.mass / top.score > 0.9
    assert ans.walk.extra.scope.filings == (f"ACME_{year}_10K.pdf",)
    assert ans.walk.extra.scope_words.startswith(f"Acme Widgets · FY{year} · Statement of cash flows")


def test_a_page_sits_in_the_sections_it_stands_in_not_those_it_refers_to(room):
    """The balance sheet's "Long-term debt (see Note 8)" and MD&A's "described in Note 8" refer to the note; neither
    page sits in it. A walk-through read MD&A's page placed under "Note 10 — Debt" and could have cited the note."""
    ans = Index(room).retriever("filing-graph", SearchConfig()).answer(
        "What long-term debt did Acme report in FY2019 on its balance sheet and in Note 8?", 5)
    paths = {h.passage_id: ans.why[h.passage_id].typed_path.nodes for h in ans.hits}
    assert paths["ACME_2019_10K.pdf#p4.0"] == ("Acme Widgets", "Acme Widgets FY2019 10-K", "Balance sheet",
                                               "“Long-term debt”", "page 4")
    assert paths["ACME_2019_10K.pdf#p2.0"] == ("Acme Widgets", "Acme Widgets FY2019 10-K", "page 2")
    assert paths["ACME_2019_10K.pdf#p6.0"] == ("Acme Widgets", "Acme Widgets FY2019 10-K", "Note 8 — Long-Term Debt",
                                               "page 6")


def test_a_note_named_by_number_and_title_is_asked_for_not_the_rows_its_title_words_name(room):
    """The room's own offered question "What does Note 9 — Fair Value Measurement of Assets and Liabilities … say?"
    seeded the row "Total assets", and the balance sheet came first (a walk-through major)."""
    seeder = Index(room).retriever("filing-graph", SearchConfig()).filing_seeder
    asked = "What does Note 8 — Long-Term Debt in Acme's FY2019 10-K say?"
    scope = seeder.scope(asked)
    assert scope.terms == () and scope.filings == ("ACME_2019_10K.pdf",)
    assert {(r, s) for _, r, s in seeder.structure_matches(scope)} == {
        ("scope", "Acme Widgets FY2019 10-K"), ("note", "long term debt")}  # the note, and no row of the balance sheet
    plain = seeder.scope("What long-term debt did Acme report in FY2019?")  # the words alone still name the row
    assert [said for said, _ in plain.terms] == ["long term debt"]
    assert ("lexicon", "long term debt") in {(r, s) for _, r, s in seeder.structure_matches(plain)}


def test_hits_are_compared_by_page_in_a_room_of_pages_and_by_passage_elsewhere():
    """Compare read parts 2 and 5 of one page as two answers ("Elsewhere: filing-learned –" beside the page that
    retriever ranked first, a walk-through): it compares hits by `Corpus.pages`, where two parts of a page are one."""
    paged = passages_of("FEDEX_2023_10K.pdf", ["a"] * 66)
    parts = Corpus("parts", tuple(paged) + tuple(
        Passage(f"FEDEX_2023_10K.pdf#p{n}.{k}", "FEDEX_2023_10K.pdf", "", "b", MappingProxyType({"page": str(n)}))
        for n, k in ((65, 5), (66, 5))) + (Passage("memo.md#0003", "memo.md", "Memo", "c"),))
    pages = parts.pages
    assert pages["FEDEX_2023_10K.pdf#p65.5"].key == pages["FEDEX_2023_10K.pdf#p65.0"].key == "FEDEX_2023_10K.pdf#p65"
    assert pages["FEDEX_2023_10K.pdf#p65.5"].key != pages["FEDEX_2023_10K.pdf#p66.5"].key
    assert "memo.md#0003" not in pages and parts.paged


def test_evaluation_ranks_pages_for_every_retriever_alike(room):
    from engine.evaluate.evaluate import by_pages, evaluate

    paged = passages_of("ACME_2019_10K.pdf", ["a", "b"])
    two = Corpus("two", tuple(paged) + (Passage("ACME_2019_10K.pdf#p2.1", "ACME_2019_10K.pdf", "", "c",
                                                MappingProxyType({"page": "2", "pages": "2"})),
                                        Passage("memo.md#0000", "memo.md", "Memo", "d")))
    ranking = {"ACME_2019_10K.pdf#p2.0": 3.0, "ACME_2019_10K.pdf#p2.1": 2.0, "memo.md#0000": 1.5,
               "ACME_2019_10K.pdf#p1.0": 1.0}
    assert list(by_pages(two, ranking, 10)) == ["ACME_2019_10K.pdf#p2.0", "memo.md#0000", "ACME_2019_10K.pdf#p1.0"]
    assert list(by_pages(two, ranking, 2)) == ["ACME_2019_10K.pdf#p2.0", "memo.md#0000"]
    result = evaluate(Index(room), ["filing-graph", "bm25"], (1,))
    assert result.unit == "page"  # every question's gold is a page
    assert result.results["filing-graph"].means["hr@1"] == 1.0


def test_the_evidence_report_shows_the_scope_and_each_hits_typed_path(room):
    from engine.indexing.index import search_config
    from engine.explain.report import ReportView, build_report

    q = "What was Acme's capex in FY2020? Use the cash flow statement."
    view = ReportView("acme", q, "filing-graph", 3, search_config({}, room, scope=ScopeCorrection(statement="cash flows")))
    page = build_report(Index(room), view, "T")
    assert ("<strong>Scope as understood (corrected):</strong> Acme Widgets · FY2020 · Statement of cash flows → "
            "Acme Widgets FY2020 10-K") in page
    assert ("<strong>Where this page sits:</strong> Acme Widgets › Acme Widgets FY2020 10-K › Statement of cash flows › "
            "“Additions to property, plant and equipment” › page 5") in page
    assert "--statement &#x27;cash flows&#x27;" in page and "statement=cash+flows" in page  # the correction travels
    assert "<h2>Answers: the top 3 pages</h2>" in page  # what the filings retrievers rank, as the Query page says


def test_a_report_of_uploaded_files_names_them_and_never_another_corpus(room, tmp_path):
    import hashlib
    from urllib.parse import parse_qs, urlparse

    from engine.explain.report import UPLOADED, ReportView, build_report, files_in_link, uploaded_files
    from engine.indexing.index import search_config

    (tmp_path / "B.pdf").write_bytes(b"%PDF b" * 10)
    (tmp_path / "A.pdf").write_bytes(b"%PDF a")
    files = uploaded_files(tmp_path)
    assert [(f.name, f.size, f.sha256) for f in files] == [("A.pdf", 6, hashlib.sha256(b"%PDF a").hexdigest()),
                                                           ("B.pdf", 60, hashlib.sha256(b"%PDF b" * 10).hexdigest())]
    view = ReportView("2 uploaded files", "What was Acme's capex in FY2020?", "filing-graph", 3,
                      search_config({}, room), files=files)
    link = parse_qs(urlparse(view.link()).query)
    assert link["corpus"] == [UPLOADED] and files_in_link(link["files"][0]) == files
    assert "--corpus FOLDER-holding-A.pdf,B.pdf " in view.command()
    page = build_report(Index(room), view, "T")
    assert "add these files" in page and f"<td>B.pdf</td><td>60 bytes</td><td>{files[1].sha256}</td>" in page
    assert "2 uploaded files: A.pdf (6 bytes, sha256 " in page
    # a malformed entry in a link is left out, not guessed at
    assert files_in_link("A.pdf:6:abc;" + files[1].token()) == files[1:]


def test_the_lexicon_names_its_sources_and_no_company():
    """Every entry comes from a public taxonomy it names, and none is a company's own row label: the lexicon
    must work on filings nobody tuned it on."""
    import json

    from engine.filings.lexicon import BUNDLED

    data = json.loads(BUNDLED.read_text("utf-8"))
    assert {"S-K", "S-X", "ASC", "US-GAAP labels"} <= set(data["sources"])
    companies = {"apple", "nike", "walmart", "costco", "microsoft", "oracle", "intel", "ebay", "paypal", "netflix",
                 "salesforce", "lockheed", "mcdonald", "mcdonalds", "cocacola", "coca", "kraft", "heinz", "fedex", "pge",
                 "aes", "amd", "boston", "footlocker", "american water", "amazon", "google", "alphabet", "meta",
                 "tesla", "berkshire", "pepsico", "3m", "boeing", "verizon", "att", "jpmorgan", "nvidia", "adobe",
                 "cvs", "ulta", "best buy", "johnson", "pfizer", "general mills", "activision", "blizzard"}
    for i, term in enumerate(data["terms"]):
        assert term.get("source"), f"terms[{i}] names no source"
        for field in ("say", "rows", "sections", "expand"):
            for phrase in term.get(field, []):
                words = f" {' '.join(phrase.lower().replace('&', ' ').replace('-', ' ').split())} "
                named = [c for c in companies if f" {c} " in words]
                assert not named, (i, field, phrase, named)
    # instruction text is recognised by class, not by a benchmark's own sentences
    assert not any("internet connection so you do not have access" in p for p in data["instructions"])


def test_instruction_classes_strip_role_play_units_and_sources_but_keep_the_question():
    from engine.filings.lexicon import bundled

    strip = bundled().strip_instructions
    assert strip("Pretend you are a credit analyst. What was Acme's capex in FY2019?") == "What was Acme's capex in FY2019?"
    assert strip("Using only the details in the cash flow statement, what was Acme's capex in FY2019? "
                 "Answer in USD millions and round to one decimal place.") == "what was Acme's capex in FY2019?"
    assert strip("As a portfolio manager without internet access, which customers matter most to Acme?") \
        .endswith("which customers matter most to Acme?")
    assert strip("What was Acme's capex in FY2019?") == "What was Acme's capex in FY2019?"


def test_a_concept_maps_to_the_sections_that_answer_it():
    from engine.filings.lexicon import bundled

    lexicon = bundled()
    terms = lexicon.terms_in("What legal battles is Acme fighting?")
    assert [said for said, _ in terms] == ["legal battles"]
    assert {"legal proceedings", "contingencies"} <= set(terms[0][1].sections)
    assert "legal proceedings" in lexicon.expansion(terms)
    said = {p for p, _ in lexicon.terms_in("Is Acme a capital-intensive business, and who are its largest customers?")}
    assert {"capital intensive", "largest customers"} <= said
    # a 10-K's Item 1 names the competitors under "Competition" (#63 walk-through: Nike's p.9 was missed)
    terms = lexicon.terms_in("Who are Acme's main competitors?")
    assert [said for said, _ in terms] == ["main competitors"] and "competition" in terms[0][1].sections


def test_a_room_without_labeled_questions_is_offered_three_it_can_answer(room):
    from engine.filings.offers import offered_questions

    s = read_structure(room.passages)
    offered = offered_questions(s)
    assert offered == ("What was Acme Widgets' revenue in FY2020?",
                       "What were Acme Widgets' total assets at the end of FY2020, according to its 10-K?",
                       "What does Note 8 — Long-Term Debt in Acme Widgets' FY2020 10-K say?")
    # each scopes to the filing it was made from
    for q in offered:
        assert read_scope(q, s.filings, bundled()).filings == ("ACME_2020_10K.pdf",), q


def test_one_answer_reads_its_scope_once(room, monkeypatch):
    from engine.retrieve import filing_seeding

    read = []
    real = filing_seeding.read_scope
    monkeypatch.setattr(filing_seeding, "read_scope", lambda *a, **k: read.append(a[0]) or real(*a, **k))
    r = Index(room).retriever("filing-graph", SearchConfig())
    ans = r.answer("What was Acme's capex in FY2019? Use the cash flow statement.", 3)
    assert ans.walk.extra.scope.filings == ("ACME_2019_10K.pdf",)
    assert read == ["What was Acme's capex in FY2019? Use the cash flow statement."]


def test_the_filing_graphs_layout_names_which_columns_are_structure(room):
    index = Index(room)
    for entity in (1.0, 0.0):
        fg = index.filing_graph(EdgeWeights(entity=entity))
        layout = fg.layout
        nodes = read_structure(room.passages).nodes
        assert layout.entity_columns == (len(fg.graph.entities) - len(nodes)) and (entity == 0) == (layout.entity_columns == 0)
        # every structure node is at its column, by key; a name's column is no node
        assert all(fg.graph.entities[layout.column(i)] == n.key for i, n in enumerate(nodes))
        assert all(layout.node_at(layout.column(i)) == n for i, n in enumerate(nodes))
        assert layout.node_at(layout.entity_columns - 1) is None and layout.node_at(len(fg.graph.entities)) is None


def test_names_with_an_ampersand_give_the_forms_analysts_write():
    from engine.filings.identity import name_keys

    keys, symbols = name_keys("The Procter & Gamble Company")
    assert keys == ["proctergamble", "procter", "procterngamble", "pg", "png"] and symbols == ["P&G"]
    keys, symbols = name_keys("PG&E Corporation")
    assert keys == ["pge", "pgne"] and symbols == []
    keys, symbols = name_keys("Lockheed Martin Corporation")
    assert keys == ["lockheedmartin", "lockheed"] and symbols == []
    assert name_keys("Advanced Micro Devices, Inc.") == (["advancedmicrodevices", "advancedmicro"], ["AMD"])


@pytest.mark.parametrize("name", ["filing-graph", "filing"])
def test_a_scope_is_a_boundary_only_its_filings_pages_rank(room, name):
    r = Index(room).retriever(name, SearchConfig())
    for explain in (True, False):
        ans = r.answer("What was Acme's capital expenditure in FY2019 according to the cash flow statement?", 10,
                       explain)
        assert ans.hits and {h.passage_id.split("#")[0] for h in ans.hits} == {"ACME_2019_10K.pdf"}
    # the filing's 7 pages are fewer than the 10 asked for: said, not a silently short list, and as the filing's
    # own length when every page ranks (a walk-through read "the scope holds 4 pages the walk reaches" of a 4-page
    # release)
    assert len(ans.hits) == 7 and ans.notes == ("The scoped filing has 7 pages, fewer than the 10 asked for: widen "
                                                "the scope to rank pages of other filings",)
    assert r.answer("What was Acme's capex in FY2019?", 3).notes == ()
    batch = r.answer_batch(["What was Acme's capex in FY2020?", "What was Acme's capex in FY2019?"], 10)
    assert [{h.passage_id.split("#")[0] for h in a.hits} for a in batch] == [{"ACME_2020_10K.pdf"}, {"ACME_2019_10K.pdf"}]
    # scoped to the company alone, both its filings' pages rank
    both = {h.passage_id.split("#")[0] for h in r.answer("What was Acme's capital expenditure?", 10).hits}
    assert both == {"ACME_2019_10K.pdf", "ACME_2020_10K.pdf"}


def test_a_company_the_room_lacks_stops_the_answer_and_offers_the_room(room):
    r = Index(room).retriever("filing", SearchConfig())
    ans = r.answer("What was Tesla's revenue in 2022?", 5)
    assert ans.hits == () and ans.no_seed
    assert ans.notes == ("“Tesla” names no company of this data room, so no page of it answers. The room holds "
                         "filings of Acme Widgets. Ask about one of them, or search every filing.",)
    everywhere = Index(room).retriever("filing", SearchConfig(scope=ScopeCorrection(everywhere=True)))
    assert everywhere.answer("What was Tesla's revenue in 2022?", 5).hits


def test_a_fiscal_year_prefers_its_10k_and_a_span_scopes_both_years(room):
    from engine.filings.identity import Filing
    from engine.filings.asked import read_periods
    from engine.filings.names import Room
    from engine.filings.scope import filings_for

    filings = {"K.pdf": Filing("K.pdf", "Acme", ("acme",), (), "10-K", 2022),
               "R.pdf": Filing("R.pdf", "Acme", ("acme",), (), "earnings release", 2022, 4),
               "K21.pdf": Filing("K21.pdf", "Acme", ("acme",), (), "10-K", 2021),
               "B.pdf": Filing("B.pdf", "Beta", ("beta",), (), "10-K", 2022)}
    fy22, span = read_periods("FY2022").periods, read_periods("FY2021-FY2022").periods
    docs, notes = filings_for(Room(filings), "acme", fy22)
    assert docs == ["K.pdf"] and notes == ["FY2022: the 10-K (Acme FY2022 10-K), not Acme Q4 FY2022 earnings release"]
    assert filings_for(Room(filings), "acme", fy22, "earnings release")[0] == ["R.pdf"]
    assert filings_for(Room(filings), "acme", span)[0] == ["K21.pdf", "K.pdf"]
    # a non-GAAP measure of a fiscal year prefers its Q4 release; with no company, each company's 10-K of the year
    assert filings_for(Room(filings), "acme", fy22, release=True)[0] == ["R.pdf"]
    assert filings_for(Room(filings), None, fy22)[0] == ["K.pdf", "B.pdf"]
    s = read_structure(room.passages)
    scope = read_scope("How did Acme's capex change from FY2019 to FY2020?", s.filings, bundled())
    assert scope.span == (2019, 2020) and scope.filings == ()  # both years are the whole room: no bound
    assert scope.words(s.filings).startswith("Acme Widgets · FY2019–FY2020")


def test_offered_questions_span_the_rooms_companies_and_forms():
    """Three companies and forms uploaded together: each offer is about another company, as a new analyst would
    want to try each of the files they brought."""
    from engine.filings.identity import Filing
    from engine.filings.offers import offered_questions
    from engine.filings.structure import FilingStructure, Node

    filings = {"JPM.pdf": Filing("JPM.pdf", "JPMorgan Chase & Co.", ("jpmorganchase",), (), "10-K", 2022),
               "PEP.pdf": Filing("PEP.pdf", "PepsiCo", ("pepsico",), (), "10-K", 2021),
               "BA.pdf": Filing("BA.pdf", "Boeing", ("boeing",), (), "10-Q", 2018, 2)}
    nodes = []
    for doc in filings:
        nodes += [Node(f"§statement {doc} income", "statement", "Income statement", doc, "income"),
                  Node(f"§statement {doc} balance sheet", "statement", "Balance sheet", doc, "balance sheet"),
                  Node(f"§note {doc} 8", "note", "Note 8 — Debt", doc, "8")]
    offered = offered_questions(FilingStructure(filings, tuple(nodes), ()))
    assert offered == ("What was JPMorgan Chase & Co.'s revenue in FY2022?",
                       # a company and a form not yet used, asked for what its balance sheet is read for
                       "What were Boeing's total assets at the end of Q2 FY2018, according to its 10-Q?",
                       "What does Note 8 — Debt in PepsiCo's FY2021 10-K say?")
    # a release has no notes: it takes the revenue question, so each of three companies still gets one
    room = {"APPLE.pdf": Filing("APPLE.pdf", "Apple", ("apple",), (), "10-Q", 2023, 3),
            "COSTCO.pdf": Filing("COSTCO.pdf", "Costco", ("costco",), (), "earnings release", 2023, 3),
            "NETFLIX.pdf": Filing("NETFLIX.pdf", "Netflix", ("netflix",), (), "10-Q", 2023, 2)}
    nodes = [Node("§statement COSTCO.pdf income", "statement", "Income statement", "COSTCO.pdf", "income")]
    for doc in ("APPLE.pdf", "NETFLIX.pdf"):
        nodes += [Node(f"§statement {doc} income", "statement", "Income statement", doc, "income"),
                  Node(f"§statement {doc} cash flows", "statement", "Statement of cash flows", doc, "cash flows"),
                  Node(f"§note {doc} 6", "note", "Note 6 — Debt", doc, "6")]
    assert offered_questions(FilingStructure(room, tuple(nodes), ())) == (
        "What was Costco's revenue in Q3 FY2023?",
        "How much cash did Apple's operations provide in Q3 FY2023, according to its 10-Q?",
        "What does Note 6 — Debt in Netflix's Q2 FY2023 10-Q say?")
    # a file read only in part (a damaged page left out) is offered from last: here, not at all
    offered = offered_questions(FilingStructure(room, tuple(nodes), ()), damaged=frozenset({"COSTCO.pdf"}))
    assert not any("Costco" in q for q in offered) and len(offered) == 3, offered
    # a room of damaged files alone is still offered questions
    assert offered_questions(FilingStructure(room, tuple(nodes), ()), damaged=frozenset(room)) == \
        offered_questions(FilingStructure(room, tuple(nodes), ()))


def test_an_8k_is_offered_by_its_month_and_an_item_that_answers_not_its_exhibit_list():
    """A walk-through's minor: "What does Item 9.01. Financial Statements and Exhibits in Lockheed Martin's FY2023 8-K
    say?" named an exhibit list, with a double stop, and an 8-K by a fiscal year it does not report on."""
    from engine.filings.identity import Filing
    from engine.filings.offers import offered_questions
    from engine.filings.scope import read_scope
    from engine.filings.structure import FilingStructure, Node

    room = {"LMT.pdf": Filing("LMT.pdf", "Lockheed Martin", ("lockheedmartin",), ("LMT",), "8-K", 2023,
                              period_end="2023-05-25")}
    items = ("Item 1.01. Entry into a Material Definitive Agreement", "Item 2.03. Creation of a Direct Financial "
             "Obligation", "Item 8.01. Other Events", "Item 9.01. Financial Statements and Exhibits", "Signatures. ")
    nodes = tuple(Node(f"§item LMT.pdf {i}", "item", label, "LMT.pdf", str(i)) for i, label in enumerate(items))
    offered = offered_questions(FilingStructure(room, nodes, ()))
    assert offered[-1] == ("What does Item 2.03 — Creation of a Direct Financial Obligation in Lockheed Martin's May "
                           "2023 8-K say?"), offered
    assert read_scope(offered[-1], room, bundled()).filings == ()  # the room's only filing: no bound needed
    assert read_scope(offered[-1], room | {"X.pdf": Filing("X.pdf", "Lockheed Martin", ("lockheedmartin",), (),
                                                           "10-K", 2022)}, bundled()).filings == ("LMT.pdf",)


def test_a_banks_cash_and_marketable_securities_seed_its_balance_sheet_rows():
    """A bank's balance sheet (S-X 9-03) has no "cash and cash equivalents" or "marketable securities" rows:
    "cash and marketable securities" must still seed the rows that hold them. ("liquidity" seeds current assets,
    which a bank does not print; its bank rows were measured to cost the checklist tuning half MRR@10: docs/filings.md.)"""
    bank = ("FIRST HARBOR BANCORP\nCONSOLIDATED BALANCE SHEETS\nDECEMBER 31,\n(In millions) 2022 2021\n"
            "Cash and due from banks 27,697 26,438\nDeposits with banks 539,537 714,396\n"
            "Investment securities 575,989 672,232\nLoans 1,135,647 1,077,714\nTotal assets 3,665,743 3,743,567\n"
            "Deposits 2,340,179 2,462,303")
    cover_page = cover(2022).replace("ACME WIDGETS, INC.", "FIRST HARBOR BANCORP").replace("ACMW", "FHBC")
    title = "FIRST HARBOR BANCORP · Form 10-K · fiscal year ended May 31, 2022 · FHB 2022 10-K"
    passages = [Passage(f"FHB_2022_10K.pdf#p{n}.0", "FHB_2022_10K.pdf", title, text,
                        MappingProxyType({"page": str(n), "pages": "3"}))
                for n, text in enumerate([cover_page, "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS\nWe lend.", bank],
                                         start=1)]
    retriever = Index(Corpus("bank", tuple(passages))).retriever("filing-graph", SearchConfig())
    answer = retriever.answer("How much liquidity (cash and marketable securities) does First Harbor have?", 3)
    vias = {s.label: s.via for s in answer.walk.seeds if s.rule == "lexicon"}
    assert vias == dict.fromkeys(["Cash and due from banks", "Deposits with banks", "Investment securities"],
                                 "cash and marketable securities"), vias
    assert not {"cash", "marketable", "securities"} & set(answer.walk.uncovered_words())
    assert answer.hits[0].passage_id == "FHB_2022_10K.pdf#p3.0"
    # a row that two terms of the question name says both
    more = [replace(p, text=p.text + "\nCash and cash equivalents 1,000 900") if p.id.endswith("p3.0") else p
            for p in passages]
    both = Index(Corpus("bank", tuple(more))).retriever("filing-graph", SearchConfig()).answer(
        "What was First Harbor's cash balance, and its cash and marketable securities?", 3)
    vias = {s.label: s.via for s in both.walk.seeds if s.rule == "lexicon"}
    assert vias["Cash and cash equivalents"] == "cash balance; cash and marketable securities", vias
    assert vias["Investment securities"] == "cash and marketable securities", vias


def test_the_words_the_scope_read_are_not_said_to_steer_nothing(room):
    """"fy2019", "q2" and "2019" chose the filing the walk runs through: the page must not list them among the
    question's words that no seed covers (it did, beside a scope read from those very words)."""
    r = Index(room).retriever("filing-graph", SearchConfig())
    walk = r.answer("What was Acme's revenue in Q2 of FY2019, or in 2019 at all?", 3).walk
    assert walk.extra.scope.year == 2019 and walk.extra.scope.quarter == 2
    assert not {"acme", "fy2019", "q2", "2019"} & set(walk.uncovered_words()), walk.uncovered_words()
    assert "revenue" not in walk.extra.read_words()  # only what the scope read
    # a period as analysts shorten it, read into the scope, is not said to steer nothing either (#63 walk: "fy22")
    short = r.answer("Acme revenue FY19 and 2Q19", 3).walk
    assert short.extra.scope.year == 2019
    assert not {"fy19", "2q19"} & set(short.uncovered_words()), short.uncovered_words()


def test_a_seed_read_from_the_scope_is_drawn_as_read_not_as_named(room):
    """#63 walk (F10): "Acme FY2019 10-K" was drawn in the red of "named in the question", which never named it."""
    from engine.explain.render import ROLE_WORDS, _legend

    walk = Index(room).retriever("filing-graph", SearchConfig()).answer("Acme revenue FY2019", 3).walk
    kinds = {n.label: n.kind for n in walk.nodes}
    read = [s.label for s in walk.seeds if s.rule == "scope"]
    assert read and all(kinds.get(label) == "read-seed" for label in read), kinds
    assert ROLE_WORDS["read-seed"] in _legend({n.kind for n in walk.nodes})


def test_a_shouted_heading_reads_in_title_case_word_by_word(room):
    """Second walk-through: "Management’S Discussion And Analysis" (str.title capitalises after an apostrophe)."""
    labels = {n.label for n in read_structure(room.passages).nodes if n.kind == "item"}
    assert "Item 7. Management's Discussion and Analysis" in labels, sorted(labels)


def test_a_row_is_named_in_the_plural_or_singular_but_never_by_the_filers_own_name():
    """Two walk-through misses (#63). "membership fee income" names the row "Membership fees" (the release's first page
    was cited, its statement's row unseeded); a reconciliation's total row labelled with the filer's name ("Kraft
    Heinz") was seeded by every question about the filer, and won most of them."""
    from engine.retrieve.filing_seeding import singular

    assert singular("membership fees") == singular("membership fee") == "membership fee"
    assert singular("total liabilities") == "total liability" and singular("operating expenses") == "operating expense"
    assert singular("gross margin") == "gross margin" and singular("loss on business") == "loss on business"
    income = ("ACME WIDGETS, INC.\nCONSOLIDATED STATEMENTS OF INCOME\n(In millions) 2022 2021\n"
              "Net sales 52,604 51,612\nMembership fees 1,044 984\nTotal revenue 53,648 52,596\n"
              "Operating income 1,679 1,791\nNet income 1,300 1,353")
    reconciliation = ("RECONCILIATION OF ADJUSTED EBITDA\n(In millions) 2022 2021\nNorth America 4,100 4,000\n"
                      "International 1,200 1,150\nAcme Widgets 5,300 5,150\nDepreciation (900) (880)")
    mdna = "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS\nAcme Widgets grew. Revenue rose with prices."
    title = "ACME WIDGETS, INC. · Form 10-K · fiscal year ended May 31, 2022 · ACME 2022 10-K"
    passages = [Passage(f"ACME_2022_10K.pdf#p{n}.0", "ACME_2022_10K.pdf", title, text,
                        MappingProxyType({"page": str(n), "pages": "4"}))
                for n, text in enumerate([cover(2022), mdna, income, reconciliation], start=1)]
    retriever = Index(Corpus("acme", tuple(passages))).retriever("filing-graph", SearchConfig())
    fees = retriever.answer("What was Acme Widgets' membership fee income in FY2022?", 3)
    assert ("Membership fees", "line item") in {(s.label, s.rule) for s in fees.walk.seeds}
    assert fees.hits[0].passage_id == "ACME_2022_10K.pdf#p3.0"
    named = retriever.answer("How did Acme Widgets' international business do in FY2022?", 3)
    rows = {s.label for s in named.walk.seeds if s.rule == "line item"}
    assert not any(label.lower() == "acme widgets" for label in rows), rows


def test_a_guidance_tables_rows_are_seeded_by_a_question_of_guidance_and_by_no_other():
    """A walk-through's miss: Salesforce's Q2 guidance row "Revenue $8.51 - $8.53" was the line item the walk reached
    first for "revenue in Q1 FY2024", above the income statement. A row of dollar ranges is a forecast's: the
    question of revenue seeds the statement's row, the question of guidance the forecast's."""
    income = ("ACME WIDGETS, INC.\nCONSOLIDATED STATEMENTS OF INCOME\n(In millions) 2022 2021\n"
              "Net sales 52,604 51,612\nTotal revenues 53,648 52,596\nNet income 1,300 1,353")
    guidance = ("Forward Looking Guidance\nQ1 FY23 Guidance Full Year FY23 Guidance\nRevenue $8.51 - $8.53 $34.5 - $34.7\n"
                "GAAP Earnings per Share $0.79 - $0.80 $2.67 - $2.69")
    title = "ACME WIDGETS, INC. · Form 10-K · fiscal year ended May 31, 2022 · ACME 2022 10-K"
    passages = [Passage(f"ACME_2022_10K.pdf#p{n}.0", "ACME_2022_10K.pdf", title, text,
                        MappingProxyType({"page": str(n), "pages": "3"}))
                for n, text in enumerate([cover(2022), income, guidance], start=1)]
    retriever = Index(Corpus("acme", tuple(passages))).retriever("filing-graph", SearchConfig())
    revenue = retriever.answer("What were Acme Widgets' revenues in FY2022?", 3)
    seeded = {s.label for s in revenue.walk.seeds if s.rule == "lexicon"}
    assert "Total revenues" in seeded and not any(s.startswith("Revenue") for s in seeded), seeded
    asked = retriever.answer("What revenue guidance did Acme Widgets give?", 3)
    seeded = {s.label for s in asked.walk.seeds if s.rule == "lexicon"}
    assert {"Revenue (guidance)", "GAAP Earnings per Share (guidance)"} <= seeded, seeded
    assert asked.hits[0].passage_id == "ACME_2022_10K.pdf#p3.0"
