"""The learned page ranker (#61): what a question asks for, what a page is, the features against hand values, and a
ranker whose every hit's score is the exact sum of its named parts, in the answer, in --json and in the report."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from engine.filings.structure import read_structure
from engine.indexing.config import SearchConfig
from engine.indexing.index import Index
from engine.ingest.corpus import Corpus
from engine.ingest.passage import Passage
from engine.rank.learned import RankerParams, TrainingTable, train
from engine.retrieve.page_features import (FEATURES, PAGE_KINDS, PAIRS, asks, content_words, feature_rows, item_kind,
                                          page_facts, rare_word_shares)
from engine.filings.scope import read_scope
from engine.retrieve.page_ranker import LearnedPageRetriever, PageExplanation, PagePool
from tests.conftest import ROOT
from tests.filingmaker import filing_pages

SIGNATURES = ("SIGNATURES\nPursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, "
              "the registrant has duly caused this report to be signed on its behalf.\n/s/ Jane Roe Chief Executive Officer")
POINTER = "Item 3. Legal Proceedings\nSee Note 12 of the Notes to Consolidated Financial Statements, incorporated by reference."
MDNA = ("Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations\n"
        "Gross margin rose 2 points, driven by lower freight costs and higher prices, partly offset by mix.")


def _room() -> Corpus:
    passages = []
    for year in (2019, 2020):
        doc = f"ACME_{year}_10K.pdf"
        pages = filing_pages(year, 1_000 + year) + [MDNA, POINTER, SIGNATURES]
        passages += [Passage(f"{doc}#p{n}.0", doc, doc, text, {"page": str(n), "pages": str(len(pages))})
                     for n, text in enumerate(pages, start=1)]
    return Corpus("acme", tuple(passages), ())


@pytest.mark.parametrize("question, expected", [
    ("What drove Acme's gross margin in FY2020?", {"drivers", "figure"}),
    ("What are the key risks to Acme's supply chain?", {"risk"}),
    ("Which legal proceedings is Acme party to?", {"legal"}),
    ("Who are Acme's largest customers?", {"business"}),
    ("What guidance did Acme give for next year?", {"guidance"}),
    ("What was Acme's book value per share?", {"per share"}),
    ("On which exchange is Acme's stock listed, and under what trading symbol?", {"cover"}),
    ("What was Acme's EMEA revenue in FY2020?", {"figure", "a part"}),
])
def test_what_a_question_asks_for(question, expected):
    assert asks(question) == expected


def test_what_a_page_is_is_read_from_its_structure_and_words():
    corpus = _room()
    facts = page_facts(corpus.passages, read_structure(corpus.passages))
    n = len(filing_pages(2019, 0))
    mdna, pointer, signatures = (facts[f"ACME_2019_10K.pdf#p{n + i}"] for i in (1, 2, 3))
    assert "MD&A" in mdna.kinds and not mdna.boilerplate
    assert pointer.pointer_only and "Item 3 legal proceedings" in pointer.kinds
    assert signatures.boilerplate and "boilerplate" in signatures.kinds
    assert signatures.place == 1.0 and facts["ACME_2019_10K.pdf#p1"].place == pytest.approx(1 / (n + 3))
    assert "statement" in facts["ACME_2019_10K.pdf#p5"].kinds  # the cash-flow statement
    assert facts["ACME_2019_10K.pdf#p5"].context.startswith("Acme Widgets FY2019 10-K")


def test_a_feature_row_by_hand():
    """Two pages; the question asks for drivers: the MD&A page gets its pair, the signatures page its boilerplate."""
    corpus = _room()
    facts = page_facts(corpus.passages, read_structure(corpus.passages))
    n = len(filing_pages(2019, 0))
    pages = [f"ACME_2019_10K.pdf#p{n + 1}", f"ACME_2019_10K.pdf#p{n + 3}"]
    x = feature_rows("What drove Acme's gross margin?", pages, facts, walk_scores=np.array([0.02, 0.01]),
                     shares=np.array([[0.5, 0.0, 0.5], [1.0, 0.0, 0.0]]), bm25_best=np.array([1.0, 0.25]),
                     dense_best=np.array([0.6, 0.1]), context_bm25=np.array([0.0, 0.0]),
                     rare_words=np.array([0.75, 0.0]), lexicon_rows=frozenset())
    row = dict(zip(FEATURES, x[0]))
    assert row["how strongly the graph search reached it (1: the best page)"] == 1.0 and x[1][0] == 0.5
    assert row["its rank in the graph search"] == 1.0 and x[1][1] == 0.5
    assert row["asks for drivers, on an MD&A page"] == 1.0 and row["MD&A page"] == 1.0
    assert row["asks for a figure, on an MD&A page"] == 1.0  # "gross margin" is a figure too
    other = dict(zip(FEATURES, x[1]))
    assert other["asks for drivers, on an MD&A page"] == 0.0 and other["a boilerplate page (signatures, exhibit list, …)"] == 1.0
    assert row["the question's rarer words on it"] == 0.75 and other["the question's rarer words on it"] == 0.0
    assert row["in the note, Item or statement the question names"] == 0.0  # no section named: none given
    assert len(FEATURES) == 9 + len(PAGE_KINDS) + len(PAIRS) + 6 + 2
    assert "asks for a figure, on an earnings-release page" in FEATURES  # the parts chart's words read as English
    assert not [f for f in FEATURES if re.search(r"\ba [aeiou]", f, re.IGNORECASE)]


def test_the_sections_a_question_names_and_the_statement_it_asks_for_by_hand():
    """A page in a named section gets 1, a page outside 0; the statement feature likewise, by the statement nodes the
    question's scope reads."""
    corpus = _room()
    facts = page_facts(corpus.passages, read_structure(corpus.passages))
    n = len(filing_pages(2019, 0))
    pages = [f"ACME_2019_10K.pdf#p{n + 1}", "ACME_2019_10K.pdf#p5"]
    mdna_node, cash_node = min(facts[pages[0]].nodes), min(facts[pages[1]].nodes)
    assert not facts[pages[1]].nodes & {mdna_node}
    x = feature_rows("What drove Acme's gross margin?", pages, facts, walk_scores=np.array([0.02, 0.01]),
                     shares=np.zeros((2, 3)), bm25_best=np.zeros(2), dense_best=np.zeros(2), context_bm25=np.zeros(2),
                     rare_words=np.zeros(2), lexicon_rows=frozenset(), named=frozenset({mdna_node}),
                     statements=frozenset({cash_node}))
    named = FEATURES.index("in the note, Item or statement the question names")
    statement = FEATURES.index("on the statement the question's figure is in")
    assert x[:, named].tolist() == [1.0, 0.0] and x[:, statement].tolist() == [0.0, 1.0]


@pytest.mark.parametrize("title, number, form, kind", [
    ("Condensed Consolidated Financial Statements", "1", "10-Q", None),  # Part I Item 1 of a 10-Q: no legal page
    ("Legal Proceedings", "1", "10-Q", "Item 3 legal proceedings"),  # its Part II Item 1
    ("Unregistered Sales of Equity Securities and Use of Proceeds", "2", "10-Q", None),  # Part II Item 2: no MD&A
    ("Management’s Discussion and Analysis of Financial Condition and Results of Operations", "2", "10-Q", "MD&A"),
    ("Risk Factors", "1A", "10-Q", "Item 1A risk factors"),
    ("Business", "1", "10-K", "Item 1 business"),
    ("Market for Registrant's Common Equity, Related Stockholder Matters", "5", "10-K", "Item 5 market"),
    ("Quantitative and Qualitative Disclosures About Market Risk", "7A", "10-K", "MD&A"),
    ("Financial Condition", "7", "10-K", "MD&A"),  # a title these do not know: a 10-K's number says
    ("Financial Condition", "7", "10-Q", None),
])
def test_an_items_kind_is_read_from_its_title_then_a_10k_number(title, number, form, kind):
    assert item_kind(title, number, form) == kind


def test_the_pool_reads_the_sections_a_question_names(learned):
    """"per the cash flow statement" names the statement: its page gets both features; "capex" alone implies the
    statement (its figure is there) without naming it."""
    named = FEATURES.index("in the note, Item or statement the question names")
    statement = FEATURES.index("on the statement the question's figure is in")
    for question, names in (("What were Acme's capital expenditures in FY2020, per the cash flow statement?", 1.0),
                            ("What were Acme's capital expenditures in FY2020?", 0.0)):
        _, _, cands = learned.pool.candidates(question)
        at = cands.pages.index("ACME_2020_10K.pdf#p5")
        assert cands.x[at, statement] == 1.0 and cands.x[at, named] == names
        assert not cands.x[[i for i, p in enumerate(cands.pages) if not p.endswith("#p5")], statement].any()


def test_the_scope_names_only_statements_its_filings_hold(learned):
    """Acme's filings hold a balance sheet and a cash-flow statement, no income statement: "net income" is not said
    to be read off a statement the filing lacks (a walk-through: "Statement of cash flows" of a release with none)."""
    seeder = learned.pool.walker.filing_seeder
    assert seeder.scope("What were Acme's capital expenditures in FY2020?").statements == ("cash flows",)
    assert seeder.scope("What was Acme's net income in FY2020?").statements == ()
    assert "income" in read_scope("What was Acme's net income in FY2020?", seeder.structure.filings,
                                  seeder.lexicon).statements  # read, then left out for want of the statement
    # a statement the user chose that the filing lacks is said not to be applied (a walk-through's major: the banner
    # read "as you corrected it" while the choice did nothing)
    import copy

    from engine.filings.scope import ScopeCorrection

    corrected = copy.copy(seeder)  # as a search with the user's correction builds it
    corrected.correction = ScopeCorrection(statement="income")
    scope = corrected.scope("What was Acme's net income in FY2020?")
    assert scope.statements == () and scope.corrected
    assert scope.notes[-1] == ("Acme Widgets FY2020 10-K holds no income statement this room reads as one: the statement "
                               "you chose is not applied"), scope.notes


def test_the_rarer_words_share_by_hand():
    """"operating margin": three pages print "operating", one of them "margin". Weights log(1 + 3/3) = ln 2 and
    log(1 + 3/1) = ln 4 = 2 ln 2: the page with both has 1, the two with "operating" alone 1/3 each. A word is its
    first seven letters ("competitors" meets "competition"); a figure or a period is no word."""
    q = content_words("Netflix operating margin of its competitors 2Q23 2023")
    assert q == {"netflix", "operati", "margin", "competi"}
    assert content_words("COMPETITION and competitive") == {"competi"}
    pages = [frozenset({"operati", "margin", "revenue"}), frozenset({"operati", "income"}), frozenset({"operati"})]
    shares = rare_word_shares(q - {"netflix", "competi"}, pages)
    np.testing.assert_allclose(shares, [1.0, 1 / 3, 1 / 3])
    assert not rare_word_shares(frozenset({"absent"}), pages).any()  # a word no page prints weighs nothing
    assert rare_word_shares(frozenset(), []).shape == (0,)


@pytest.fixture(scope="module")
def learned():
    """A ranker trained on the room's own pools, with labels that favour the MD&A page: enough to see it learn and
    to check that every score is the sum of its parts."""
    index = Index(_room())
    pool = PagePool(index.retriever("filing", SearchConfig()), index.page_facts())
    questions = ["What drove Acme's gross margin in FY2019?", "What drove Acme's gross margin in FY2020?",
                 "Why did Acme's gross margin rise in FY2019?", "What explains Acme's margin in FY2020?"]
    xs, ys, sizes = [], [], []
    for q in questions:
        _, _, cands = pool.candidates(q)
        labels = np.array([1 if "MD&A page" in FEATURES and cands.x[i, FEATURES.index("MD&A page")] else 0
                           for i in range(len(cands.pages))])
        xs.append(cands.x), ys.append(labels), sizes.append(len(labels))
    ranker = train(TrainingTable(FEATURES, np.vstack(xs), np.concatenate(ys), tuple(sizes)),
                   RankerParams(rounds=20, min_data_in_leaf=2))
    return LearnedPageRetriever("filing-learned", pool, ranker)


def test_a_ticker_says_whose_pages_not_which(learned):
    """"WMT 1Q24 EPS" put Walmart's cover first (a walk-through's major): the ticker, printed on the cover alone,
    was the question's rarest word. A company's symbols weigh in the rarer-words share no more than its name."""
    rare = FEATURES.index("the question's rarer words on it")
    by_name = learned.pool.candidates("What was Acme's gross margin in FY2020?")[2]
    by_ticker = learned.pool.candidates("What was ACMW's gross margin in FY2020?")[2]
    assert set(by_ticker.pages) == set(by_name.pages) and "ACME_2020_10K.pdf#p1" in by_ticker.pages
    named = dict(zip(by_name.pages, by_name.x[:, rare]))
    assert dict(zip(by_ticker.pages, by_ticker.x[:, rare])) == named
    assert named["ACME_2020_10K.pdf#p1"] == 0.0


def test_every_hits_score_is_the_exact_sum_of_its_named_parts(learned):
    answer = learned.answer("What drove Acme's gross margin in FY2020?", 5)
    assert answer.hits and [h.rank for h in answer.hits] == list(range(1, len(answer.hits) + 1))
    scores = [h.score for h in answer.hits]
    assert scores == sorted(scores, reverse=True)
    for h in answer.hits:
        why = answer.why[h.passage_id]
        assert isinstance(why, PageExplanation) and why.score == h.score
        assert abs(sum(p.part for p in why.parts) + why.base - h.score) < 1e-9
        assert {p.feature for p in why.parts} == set(FEATURES)
        # in the words the Query page uses (a walk-through met "43 smaller parts, base -3.39" on Compare)
        said = why.words()
        assert said.startswith(f"score {why.score:+.2f} from {why.base:+.2f}, where every page of this search begins: ")
        assert "smaller reasons; the graph search alone ranked it " in said
        assert why.walk is not None and abs(sum(c for _, c in why.walk.contributions) - why.walk.score) < 1e-9
    assert answer.hits[0].passage_id.startswith("ACME_2020_10K.pdf")  # the scope still bounds the pool
    assert "MD&A" in learned.pool.facts[learned.pool.page_key(answer.hits[0].passage_id)].kinds  # it learned


def test_the_walks_strength_and_rank_are_told_as_one_reason_and_the_reasons_still_sum(learned):
    """A walk-through read "how strongly the graph search reached it" and "its rank in the graph search" as two
    reasons for one page: they are told as one, their parts summed; and a reason says what it is."""
    from engine.explain.parts import page_parts_html
    from engine.retrieve.page_features import WALK_FEATURES

    answer = learned.answer("What drove Acme's gross margin in FY2020?", 5)
    for h in answer.hits:
        why = answer.why[h.passage_id]
        reasons = dict(why.reasons())
        walk = sum(p.part for p in why.parts if p.feature in WALK_FEATURES[:2])
        assert reasons["how high the graph search found it"] == walk
        assert not set(WALK_FEATURES[:2]) & set(reasons) and len(reasons) == len(why.parts) - 1
        # a section the lexicon reads a term as is one the question's terms point to, not one it names (a walk-through:
        # "+1.13 in the note, Item or statement the question names", of a question that named none)
        named = next(p.part for p in why.parts if p.feature == "in the note, Item or statement the question names")
        assert reasons["in the note, Item or statement the question names or its terms point to"] == named
        assert abs(sum(reasons.values()) + why.base - why.score) < 1e-9
        drawn = page_parts_html(why)
        assert "its rank in the graph search" not in drawn and "how strongly the graph search" not in drawn
        assert "its rank in the graph search" not in why.words()


def test_a_contents_listing_past_its_heading_is_boilerplate_and_a_statement_is_not():
    """A walk-through's major: a bylaws' contents, continued on a page without its heading, ranked first for "who
    signed … as chief financial officer" ("(e) CHIEF FINANCIAL OFFICER 22")."""
    from engine.retrieve.page_features import _contents_listing

    contents = "\n".join(["3.17 CHAIRMAN 20", "ARTICLE 4 OFFICERS 20", "4.1 APPOINTMENT 20", "4.2 QUALIFICATION 20",
                          "4.3 OFFICERS DESIGNATED 21", "(a) CHIEF EXECUTIVE OFFICER 21", "(b) PRESIDENT 21",
                          "(e) CHIEF FINANCIAL OFFICER 22", "4.4 DELEGATION 22", "ARTICLE 5 EXECUTION 23"])
    assert _contents_listing(contents)
    overlapping = "\n".join(contents.splitlines()[:7] + contents.splitlines()[4:])  # two passages of one page
    assert _contents_listing(overlapping)
    assert not _contents_listing("\n".join(contents.splitlines()[:7]))  # fewer than eight listed lines
    statement = "\n".join(f"{label} {n}" for label, n in (("Revenue", 120), ("Cost of sales", 80), ("Gross margin", 40),
                                                           ("Selling", 12), ("Research", 9), ("Other", 3),
                                                           ("Interest", 2), ("Taxes", 5), ("Net income", 9)))
    assert not _contents_listing(statement)  # small figures that go back are no page numbers


def test_who_signed_is_asked_of_the_signature_page():
    assert "signer" in asks("Who signed Costco's August 2023 8-K as chief financial officer?")
    assert "signer" not in asks("Who is Costco's chief financial officer?")
    assert "asks for who signed, on a boilerplate page" in FEATURES


def test_a_statement_named_in_instruction_text_is_named(learned):
    """"Use the cash flow statement." is instruction text the scope's text drops; the statement it names is still
    named (the feature read 0 on the answering page of most such tuning questions)."""
    named = FEATURES.index("in the note, Item or statement the question names")
    for q in ("What was Acme's capex in FY2019? Use the cash flow statement.",
              "What was Acme's capex in FY2019, per the cash flow statement?"):
        cands = learned.pool.candidates(q)[2]
        row = dict(zip(cands.pages, cands.x[:, named]))
        assert row["ACME_2019_10K.pdf#p5"] == 1.0, (q, row)  # the cash-flow statement
        assert sum(row.values()) == 1.0


def test_the_downloaded_why_is_the_learned_parts_and_the_walk_is_beside_it(learned):
    """A walk-through's minor: the Query page's CSV said the walk's shares as "why", not the parts that ranked the
    page."""
    from ui.answer_view import hit_row

    answer = learned.answer("What drove Acme's gross margin in FY2020?", 5)
    h = answer.hits[0]
    row = hit_row(h, answer, {}, "Acme", frozenset())
    assert row["why"] == answer.why[h.passage_id].words() and row["why"].startswith("score ")
    assert row["how the graph search reached it"].startswith("Its score: ")


def test_parts_reach_json_and_the_report_as_bars_with_labels_escaped(learned):
    from engine.explain.jsonout import answer_json
    from engine.explain.parts import parts_html

    answer = learned.answer("What drove Acme's gross margin in FY2020?", 3)
    passages = {p.id: p for p in learned.walker.corpus_passages}
    out = answer_json(answer, passages)
    first = out["hits"][0]["explanation"]
    assert abs(sum(p["part"] for p in first["parts"]) + first["base"] - out["hits"][0]["score"]) < 1e-9
    assert first["walk"]["seed_shares"]
    json.dumps(out)
    drawn = parts_html([("<script>x</script>", 0.5), ("b", -0.25)], 0.1, 0.35)
    assert "<script>" not in drawn and "&lt;script&gt;" in drawn and "+0.50" in drawn and "−" not in drawn
    # the base is said in the heading's sum, never drawn: the longest bar is a part (#63 walk-through)
    big_base = parts_html([("a", 0.5), ("b", -0.25)], 3.0, 3.25)
    assert "score +3.25, from +3.00, where every page of this search begins; the reasons below add +0.25." in big_base
    # a red bar named for a trait the page has is read as the trait weaker here (a walk-through read "its meaning is
    # close to the question's −0.56" as a contradiction)
    assert "Green adds, red takes away: a trait weaker here than on the other pages" in big_base
    assert big_base.count("part-row") == 2 and "width:100.0%" in big_base and "width:50.0%" in big_base
    # and each red bar says so itself (walk 22 read "role matches (platform) −0.12" as a contradiction still)
    assert ">b, counting less here than on the average page</span>" in big_base and ">a</span>" in big_base
    assert "counting less here than on the average deal" in parts_html([("role matches", -0.1)], 0.0, -0.1, item="deal")


def test_explain_hits_gives_parts_for_any_page_of_the_pool(learned):
    q = "What drove Acme's gross margin in FY2020?"
    answer = learned.answer(q, 10)
    last = answer.hits[-1].passage_id
    why = learned.explain_hits(q, [last, "nowhere"])
    assert set(why) == {last} and why[last].score == pytest.approx(answer.hits[-1].score, abs=1e-12)


def test_the_parts_check_compares_treeshap_with_the_models_own_score(learned):
    """train-ranker runs this over every pool page of every test-half question (docs/filings.md); here over a room's
    pool: TreeSHAP's parts and base against LightGBM's raw prediction, computed apart."""
    from engine.evaluate.page_ranker_training import PARTS_TOLERANCE, parts_gap

    pages, gap = parts_gap(learned, "What drove Acme's gross margin in FY2020?")
    _, _, cands, _, _ = learned.ranked("What drove Acme's gross margin in FY2020?", 40)
    assert pages == len(cands.pages) > 3 and 0 <= gap < PARTS_TOLERANCE


def test_a_ranked_page_says_which_score_orders_the_pages():
    """An analyst met the ranker's score and the walk's shares under one hit and could not tell which ranked it."""
    from engine.explain.parts import walk_rank_words

    assert walk_rank_words(3) == ("The score above orders the pages. The graph search that found this page ranked "
                                  "it 3; the shares below are of that search's own score.")


def test_the_rarer_words_share_is_the_same_bits_whatever_the_hash_seed():
    """A set's order follows PYTHONHASHSEED and a float sum follows its order: the shares are summed in sorted order,
    so two processes with different seeds give the same bits (the shipped model is remade byte for byte)."""
    import subprocess
    import sys

    code = ("from engine.retrieve.page_features import content_words, rare_word_shares\n"
            "q = content_words('operating margin segment revenue growth drivers emea americas asia pacific latin')\n"
            "pages = [content_words(t) for t in ('operating margin emea', 'segment revenue growth americas asia',"
            " 'drivers latin pacific margin', 'revenue')]\n"
            "print([v.hex() for v in rare_word_shares(q, pages)])")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3", "4")}
    assert len(outs) == 1, outs



def test_a_page_the_ranker_never_scored_is_said_to_be_outside_its_pool_not_to_share_no_word(learned):
    """Compare's "Why they disagree" said "no shared word" of a page whose words the question shares (#63 walk)."""
    from engine.explain.reasons import unreached

    q = "What drove Acme's gross margin in FY2020?"
    ids = [p.id for p in _room().passages]
    unscored = [pid for pid in ids if pid not in learned.explain_hits(q, ids)]
    assert unscored
    said = {unreached(learned, q, pid, [], {}, {}) for pid in unscored}
    assert said == {"its page is not among the 40 pages the graph search gathers for this ranker to order, so the "
                    "ranker never scores it"}
    # any other retriever that gives it no score says so, guessing no cause (a walk misses passages sharing words)
    assert unreached(object(), q, unscored[0], [], {}, {}) == (
        "it gives this passage no score: nothing it searched from the question reached it")
