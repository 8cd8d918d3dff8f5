"""The evidence subgraph's HTML: self-contained, escaped, and the same on every render."""

import re
from pathlib import Path

import pytest

from engine.ingest.corpus import Corpus
from engine.ingest.passage import Passage
from engine.indexing.index import Index
from engine.explain.render import subgraph_html


def hostile_answer():
    evil = '<img src=x onerror="alert(1)"> Brightwater Logistics'
    texts = [f"Calder Bank lends to Brightwater Logistics. {evil}",
             "Brightwater Logistics hired Elliot Park </script><script>alert(2)</script>."]
    corpus = Corpus("evil", tuple(Passage(f"p{i}", f"d{i}", "", t) for i, t in enumerate(texts)), ())
    r = Index(corpus).retriever("ppr-regex")
    return r.explain("Calder Bank", 2), {p.id: p.text for p in corpus.passages}


def test_subgraph_html_is_self_contained_escaped_and_repeatable():
    ans, texts = hostile_answer()
    page = subgraph_html(ans, texts=texts)
    assert page == subgraph_html(ans, texts=texts)  # the shared template environment changes nothing between renders
    assert "vis-network" in page or "vis.Network" in page
    assert not re.search(r'(?:src|href)="https?://', page)  # nothing fetched from the network
    for node in ans.nodes:
        assert node.id in page
    assert "<img src=x" not in page and "</script><script>alert(2)" not in page
    assert "alert(1)" in page  # the text is there, but only as inert, escaped data


def test_hover_text_and_gold_marks_are_the_renderers():
    from engine.explain.render import hover_text, node_label

    ans, texts = hostile_answer()
    nodes = {n.id: n for n in ans.nodes}
    seed = nodes["e:calder bank"]
    assert re.match(r"named in the question: the search starts here · the walk spends (\d+%|<1%) of its time here\n",
                    hover_text(seed, ans, texts))  # a percentage, not a raw mass
    assert "Calder Bank — query seed (" in hover_text(seed, ans, texts)
    hit = nodes["p:p0"]
    assert hover_text(hit, ans, texts).endswith("p0\n" + texts["p0"][:400])
    assert node_label(hit, {"p:p0": 1}, {}, frozenset({"p0"})) == "★ #1 p0"
    assert node_label(hit, {"p:p0": 1}, {}) == "#1 p0"
    page = subgraph_html(ans, texts=texts, gold=frozenset({"p0"}))
    assert '"label": "\\u2605 #1 p0"' in page  # the star, as JSON writes it
    assert re.search(r"on an evidence path carrying (\d+%|<1%) of the score of the passage it leads to", page)
    assert "e-0" not in page  # no raw mass


def test_a_seed_matched_by_the_questions_lower_case_word_says_so_on_hover(core_index):
    """The demo's "the fund" matches the data room's defined term "Fund": its node says the question's word matched
    it, not that the question named it."""
    from engine.explain.render import hover_text

    ans = core_index.retriever("ppr-regex").explain("Who is the largest investor in the fund that owns Solano Foods?", 5)
    nodes = {n.id: n for n in ans.nodes}
    assert hover_text(nodes["e:fund"], ans, {}).startswith("the question's word “fund” matched it: the search starts here")
    assert hover_text(nodes["e:solano foods"], ans, {}).startswith("named in the question: the search starts here")
    # drawn in a colour and legend line of its own, not as a name the question wrote (walk 21)
    from engine.explain.render import COLORS, ROLE_WORDS, subgraph_html

    assert (nodes["e:fund"].kind, nodes["e:solano foods"].kind) == ("word-seed", "seed")
    page = subgraph_html(ans)
    assert ROLE_WORDS["word-seed"] in page and COLORS["word-seed"] in page
    assert len(set(COLORS.values())) == len(COLORS)


def test_the_evidence_report_is_complete_escaped_and_repeatable(tmp_path, capsys):
    import json as _json

    from engine.cli import main
    from engine.indexing.index import search_config
    from engine.explain.report import ReportView, build_report

    evil = '<img src=x onerror="alert(1)"> Brightwater Logistics'
    texts = [f"Calder Bank lends to Brightwater Logistics. {evil}",
             "Brightwater Logistics hired Elliot Park </script><script>alert(2)</script>.",
             "Elliot Park is the CFO."]
    corpus = Corpus("evil", tuple(Passage(f"p{i}", f"d{i}", f"Doc {i} <b>bold</b>", t) for i, t in enumerate(texts)))
    index = Index(corpus)
    view = ReportView("evil", "Who is the CFO of the company Calder Bank lends to?", "ppr-regex", 3,
                      search_config({}, corpus))
    page = build_report(index, view, "T")
    assert page == build_report(index, view, "T")  # the same view gives the same file
    assert "<img src=x" not in page and "<script>alert(2)" not in page and "<b>bold</b>" not in page
    assert "&lt;img src=x onerror" in page  # the text is there, as text
    assert not re.search(r'(?:src|href)="https?://', page)
    for part in ("Seeds: what the search starts from", "Evidence path: Calder Bank →", "<svg", "<iframe sandbox",
                 "Answers: the top 3 passages", "python -m engine report", "/?corpus=evil"):
        assert part in page, part
    # it reads top down: the question, the answers with their reasons, the graph, and last how it was computed
    order = [page.index(x) for x in ("<h2>Question", "<h2>Answers", "Its score: ", "<h2>Evidence graph",
                                     "<h2>How this was computed", "<td>α (restart probability)</td>",
                                     "Every score is exact: the walk ran all 20 steps over the whole graph.",
                                     "Seeds: what the search starts from", "python -m engine report")]
    assert order == sorted(order)
    # routes carry shares of the score in percent, passages by document, never a raw mass or an id in a path
    assert re.search(r"Evidence path: Calder Bank → Doc \d &lt;b&gt;bold&lt;/b&gt; → [^<]* \(walks along it carry "
                     r"(\d+%|&lt;1%) of the score\)", page)
    assert "mass " not in page.split("<h2>Evidence graph")[0]
    # lexical retrievers carry their own explanation instead of seeds
    bm25 = build_report(index, ReportView("evil", "Calder Bank", "bm25", 2, search_config({}, corpus)), "T")
    assert re.search(r"Why: “(calder|bank)”: 1× in the passage, rarity ", bm25) and "Seeds:" not in bm25
    # the command printed in the report writes the same file, apart from the time stamp
    out = tmp_path / "r.html"
    q = "Which bank is administrative agent on the credit facility of the company whose CFO is Elliot Park?"
    assert main(["report", q, "--corpus", "dataroom-core", "--retriever", "hybrid-regex", "--k", "4",
                 "--out", str(out)]) == 0
    written = out.read_text("utf-8")
    from engine.ingest.corpus import load_corpus

    core = load_corpus("dataroom-core")
    same = build_report(Index(core), ReportView("dataroom-core", q, "hybrid-regex", 4, search_config({}, core)), "X")
    strip = lambda s: re.sub(r"<p class='meta'>Generated [^<]*</p>", "", s)  # noqa: E731
    assert strip(written) == strip(same)
    assert "--passage-weight 0.5 --tau 0.05 --passage-seeds 20 --hop-share 0 --subject-weight 1 --lexical-share 0.5" in written
    # the hybrid's passage seeds are said in words a reader without the jargon follows
    assert re.search(r"Passage seeds: \d+ passages take \d+% of the walk(?:'|&#x27;)s restarts: the 20 closest in meaning to the "
                     r"question share 50% of that, the closer the larger; the 20 sharing the most words with it \(BM25\) "
                     r"share 50%, the more the larger. A passage on both lists gets both", written)
    assert "<th>similarity</th>" in written
    # the key above the graph names only the kinds of node it draws (a hybrid's walk has no alias seeds)
    from engine.explain.render import ROLE_WORDS

    key = written[written.index("<h2>Evidence graph</h2>"):]
    key = key[:key.index("</p>")]
    drawn = {n.kind for n in Index(core).retriever("hybrid-regex", search_config({}, core)).answer(q, 4).walk.nodes}
    assert {kind for kind, words in ROLE_WORDS.items() if words in key} == drawn and "alias" not in drawn, key
    # each passage seed by its whole name, once (no cut name beside its repeated title)
    seeds = written[written.index("<th>passage seed</th>"):]
    seeds = seeds[:seeds.index("</table>")]
    assert "<th>title</th>" not in seeds and "…" not in seeds and " · part " in seeds
    _json.dumps(capsys.readouterr().out)  # the CLI printed one line about the file


def test_a_pdf_page_is_labelled_by_what_tells_pages_apart_and_hovers_its_full_identity():
    from engine.explain.render import hover_text, node_label
    from engine.retrieve.graph_explain import SubgraphNode

    apple = "Apple Inc. · Form 10-K · fiscal year ended September 24, 2022 · APPLE 2022 10-K"
    sfdc = "salesforce.com, inc. · Form 8-K · report dated July 21, 2021 · SALESFORCE 2021 8-K dated 2021 07 21"
    titles = {"APPLE_2022_10K.pdf#p32.0": apple, "APPLE_2022_10K.pdf#p32.1": apple,
              "SALESFORCE_2021_8K_dated-2021-07-21.pdf#p13.4": sfdc, "NOTES_2020.pdf#p3.0": ""}
    node = lambda pid: SubgraphNode(f"p:{pid}", pid, "hit", 0.1)  # noqa: E731
    rank = {f"p:{pid}": r for r, pid in enumerate(titles, start=1)}
    assert [node_label(node(pid), rank, titles) for pid in titles] == [
        "#1 Apple 2022 10-K p.32", "#2 Apple 2022 10-K\np.32, part 2", "#3 Salesforce 2021 8-K\np.13, part 5",
        "#4 Notes 2020 p.3"]  # past 26 characters a label takes two lines, split before its page
    ans, texts = hostile_answer()
    hover = hover_text(node("APPLE_2022_10K.pdf#p32.0"), ans, {"APPLE_2022_10K.pdf#p32.0": "Net sales 394,328"}, titles)
    assert hover.split("\n")[1:] == [apple, "page 32 of APPLE_2022_10K.pdf", "Net sales 394,328"]
    long = "Net sales " * 50  # 500 characters: the tooltip shows the first 400, cut at a word, and says there is more
    body = hover_text(node("APPLE_2022_10K.pdf#p32.0"), ans, {"APPLE_2022_10K.pdf#p32.0": long}, titles).split("\n")[-1]
    assert body == ("Net sales " * 40).strip() + "…"
    split = "a" * 395 + " bcdefghij"  # the 400th character falls inside "bcdefghij": that word goes whole
    body = hover_text(node("APPLE_2022_10K.pdf#p32.0"), ans, {"APPLE_2022_10K.pdf#p32.0": split}, titles)
    assert body.split("\n")[-1] == "a" * 395 + "…"


def test_a_passage_is_placed_in_words_by_page_or_part():
    from engine.explain.reasons import passage_place

    assert passage_place("APPLE_2022_10K.pdf#p32.0") == "page 32 of APPLE_2022_10K.pdf"
    assert passage_place("APPLE_2022_10K.pdf#p32.1") == "page 32 of APPLE_2022_10K.pdf, part 2"
    assert passage_place("06-juniper-peak-ii-q3-2024-lp-report.md#0001") == "part 2 of 06-juniper-peak-ii-q3-2024-lp-report.md"
    assert passage_place("room#notes#0000") == "part 1 of room#notes"  # the last # splits
    assert passage_place("p0") == "p0" and passage_place("doc#intro") == "doc#intro"  # no known form: as it is


def test_every_catalog_retriever_has_its_own_colour():
    from engine.catalog import CATALOG
    from engine.explain.palette import RETRIEVER_COLORS, color_of

    assert set(RETRIEVER_COLORS) == set(CATALOG)  # a built-in retriever never falls back to a spare
    assert len({color_of(r) for r in CATALOG}) == len(CATALOG)


def test_the_legend_names_only_the_roles_drawn_and_the_hover_box_is_sans_serif_and_wrapped():
    from engine.explain.render import COLORS, ROLE_WORDS, TOOLTIP_CSS

    ans, texts = hostile_answer()
    page = subgraph_html(ans, texts=texts)
    legend = page.split('id="pathlens-legend"', 1)[1].split("dark arrows", 1)[0]
    drawn = {n.kind for n in ans.nodes}
    assert {k for k in COLORS if ROLE_WORDS[k] in legend} == drawn & set(COLORS)
    assert "passage-seed" not in drawn and ROLE_WORDS["passage-seed"] not in legend  # ppr-regex seeds no passage
    assert TOOLTIP_CSS in page.split("</head>", 1)[0] and "font:12px/1.4 sans-serif" in TOOLTIP_CSS


def test_the_report_is_named_after_the_question_and_the_day():
    from datetime import date

    from engine.explain.report import report_file_name

    q = "Which bank is administrative agent on the credit facility of the company whose CFO is Elliot Park?"
    assert report_file_name(q, date(2026, 12, 1)) == \
        "evidence-report-which-bank-is-administrative-agent-on-the-credit-2026-12-01.html"
    assert report_file_name("<script>/../../etc</script>", date(2026, 1, 2)) == \
        "evidence-report-script-etc-script-2026-01-02.html"  # nothing of a path or markup survives
    assert report_file_name("???", date(2026, 1, 2)) == "evidence-report-2026-01-02.html"


def test_a_passages_matches_are_marked_as_whole_words_in_escaped_text():
    from engine.explain.report import highlight

    text = "The Fund's unfunded commitment <b>Fund</b> & Fund II; fundraising."
    assert highlight(text, ["Fund", "Fund II"]) == (
        "The <mark>Fund</mark>&#x27;s unfunded commitment &lt;b&gt;<mark>Fund</mark>&lt;/b&gt; &amp; "
        "<mark>Fund II</mark>; fundraising.")
    assert highlight("R&D spend", ["R&D"]) == "<mark>R&amp;D</mark> spend"
    # a name with a capital is not the word in lower case; a term in lower case marks either
    assert highlight("The Fund is to fund a FUND.", ["Fund"]) == "The <mark>Fund</mark> is to fund a <mark>FUND</mark>."
    assert highlight("The Fund is to fund it.", ["fund"]) == "The <mark>Fund</mark> is to <mark>fund</mark> it."
    assert highlight("The Fund is to fund it.", ["Fund", "fund"]) == "The <mark>Fund</mark> is to <mark>fund</mark> it."
    assert highlight("a < b", ["lt", "a"]) == "<mark>a</mark> &lt; b"  # never inside an escape
    assert highlight("nothing here", []) == "nothing here"


def test_a_long_label_wraps_before_its_page_or_at_its_middle_and_layers_stand_as_close_as_their_labels_allow(
        core_index):
    from engine.explain.render import LAYER_GAP, ROW_GAP, label_height, label_width, layout, node_label, wrap

    assert wrap("#1 Apple 2022 10-K p.32") == "#1 Apple 2022 10-K p.32"  # 23 characters: one line
    assert wrap("#3 Salesforce 2021 8-K p.13, part 5") == "#3 Salesforce 2021 8-K\np.13, part 5"
    # no split before "· part 1" fits 26 characters (that line would be 43): the longer line is made shortest
    assert wrap("#1 Credit Agreement — Brightwater Logistic… · part 1") == (
        "#1 Credit Agreement —\nBrightwater Logistic… · part 1")
    assert wrap("x" * 40) == "x" * 40  # no space: as it is
    assert label_width("#1 Credit Agreement —\nBrightwater Logistic… · part 1", "p:x") == 7.1 * 30 + 14
    assert label_width("Calder Bank", "e:calder bank") == 7.1 * 11 + 26
    assert label_height("a\nb", "p:x") == 50 and label_height("a", "p:x") == 36 and label_height("a", "e:a") == 28
    # an entity past 30 characters: two lines, not cut ("Additions to property, plant…" lost what was added to);
    # vis-network's ellipse is twice its text's height and as wide as its text plus that height
    from engine.retrieve.graph_explain import SubgraphNode

    capex = node_label(SubgraphNode("e:additions", "Additions to property, plant and equipment", "seed", 0.1), {}, {})
    assert capex == "Additions to property,\nplant and equipment"
    assert label_height(capex, "e:additions") == 56 and label_width(capex, "e:additions") == 7.1 * 22 + 26 + 28
    assert node_label(SubgraphNode("e:b", "Brightwater Logistics Holdings", "bridge", 0.1), {}, {}) == (
        "Brightwater Logistics Holdings")  # 30 characters: one line, as before

    corpus = core_index.corpus
    titles = {p.id: p.title for p in corpus.passages}
    q = next(q.text for q in corpus.queries if q.kind == "multi-hop")
    answer = core_index.retriever("ppr-regex").explain(q, 10)
    rank = {f"p:{h.passage_id}": h.rank for h in answer.hits}
    labels = {n.id: node_label(n, rank, titles) for n in answer.nodes}
    pos = layout(answer, labels)
    assert pos == layout(answer, labels) and set(pos) == set(labels)
    xs = sorted({x for x, _ in pos.values()})
    assert len(xs) >= 3
    boxes = {nid: (x - label_width(labels[nid], nid) / 2, x + label_width(labels[nid], nid) / 2,
                   y - label_height(labels[nid], nid) / 2, y + label_height(labels[nid], nid) / 2)
             for nid, (x, y) in pos.items()}
    for a, b in zip(xs, xs[1:]):  # neighbouring layers: the widest labels LAYER_GAP apart, exactly
        right = max(boxes[n][1] for n, (x, _) in pos.items() if x == a)
        left = min(boxes[n][0] for n, (x, _) in pos.items() if x == b)
        assert abs(left - right - LAYER_GAP) <= 1, (a, b)
    for x in xs:  # one layer's rows: at least ROW_GAP between neighbouring labels
        column = sorted((boxes[n] for n, (nx, _) in pos.items() if nx == x), key=lambda bx: bx[2])
        assert all(lower[2] - upper[3] >= ROW_GAP - 1 for upper, lower in zip(column, column[1:]))
    # the frame is as tall as the graph drawn at the width it has: a short graph gets a short frame
    from engine.explain.render import page_height

    short, crowded = (page_height(core_index.retriever("ppr-regex").explain(q, k), titles) for k in (1, 10))
    assert 320 <= short < crowded <= 620, (short, crowded)


def test_no_two_nodes_of_the_evidence_graph_share_a_label():
    from types import SimpleNamespace

    from engine.explain.render import node_labels
    from engine.retrieve.graph_explain import SubgraphNode

    nodes = (SubgraphNode("e:intel", "Intel", "seed", 0.1), SubgraphNode("e:§company intel", "Intel", "seed", 0.1),
             SubgraphNode("e:intel corp", "Intel", "bridge", 0.01))
    labels = node_labels(SimpleNamespace(hits=(), nodes=nodes), {})
    assert labels == {"e:intel": "Intel", "e:§company intel": "Intel (company)", "e:intel corp": "Intel (2)"}


def test_a_filings_pages_are_named_by_the_filings_identity_everywhere(tmp_path):
    from engine.explain.reasons import passage_name
    from engine.indexing.index import Index
    from engine.ingest.corpus import load_corpus
    from tests.filingmaker import write_pdfs

    index = Index(load_corpus(str(write_pdfs(tmp_path / "room"))))
    titles = index.passage_titles()
    assert passage_name("ACME_2019_10K.pdf#p5.0", titles) == "Acme Widgets FY2019 10-K p.5"
    assert passage_name("ACME_2020_10K.pdf#p5.0", titles) == "Acme Widgets FY2020 10-K p.5"
    assert set(titles) == {p.id for p in index.corpus.passages}


def test_a_markdown_heading_in_a_passage_reads_as_a_heading_and_stays_escaped():
    from engine.explain.report import highlight

    assert highlight("# Solano Foods\nBody <b>text</b>", ["Solano"]) == \
        "<strong><mark>Solano</mark> Foods</strong>\nBody &lt;b&gt;text&lt;/b&gt;"
    assert highlight("## Fund terms ##\nA #1 fund", []) == "<strong>Fund terms</strong>\nA #1 fund"
    assert highlight("#hashtag, not a heading", []) == "#hashtag, not a heading"


def test_the_reports_hits_name_the_document_once():
    from engine.explain.report import ReportView, build_report
    from engine.indexing.index import Index, search_config
    from engine.ingest.corpus import load_corpus

    corpus = load_corpus("dataroom-core")
    index = Index(corpus)
    view = ReportView("dataroom-core", "Who is the CFO of Brightwater Logistics?", "bm25", 3, search_config({}, corpus))
    page = build_report(index, view, "T")
    heads = re.findall(r"<div class='hit'><div><strong>(\d+)\. ([^<]+)</strong> · ([^<]+) · score", page)
    assert len(heads) == 3
    for _, name, where in heads:  # the name says the part ("… · part 1"); beside it only the file, no part again
        title = name.split(" · part ")[0]
        assert " · part " in name and where.endswith(".md") and "part" not in where and title not in where, (name, where)


def test_a_what_if_report_opens_with_what_was_taken_out_and_each_answer_moves_against_everything_in():
    """A report of a what-if says first what was taken out, draws it crossed out in both graphs, and marks each
    answer's move and its score with nothing taken out, as the page's arrows do."""
    from engine.explain.report import ReportView, build_report
    from engine.indexing.index import search_config
    from engine.ingest.corpus import load_corpus

    core = load_corpus("dataroom-core")
    index = Index(core)
    q = "Which bank is administrative agent on the credit facility of the company whose CFO is Elliot Park?"
    config = search_config({}, core)
    full = index.retriever("ppr-regex", config).search(q, 4)
    plain_page = build_report(index, ReportView("dataroom-core", q, "ppr-regex", 4, config), "T")
    assert "What if" not in plain_page and "✕" not in plain_page
    view = ReportView("dataroom-core", q, "ppr-regex", 4, config, without_entities=("Elliot Park",))
    page = build_report(index, view, "T")
    head = page[page.index("<h2>Question"):page.index("<h2>Answers")]
    assert "What if: the entity “Elliot Park” taken out</h2>" in head  # said before any answer
    # crossed out in the interactive graph and in the static picture
    assert "\\u2715 Elliot Park" in page or "✕ Elliot Park" in page.split("<iframe")[1].split("</iframe>")[0]
    svg = page[page.index("<svg"):page.index("</svg>")]
    assert "✕ Elliot Park" in svg and 'stroke-dasharray="4 3"' in svg and "line-through" in svg
    # every answer says its move against the full ranking: an arrow, "new in the top", and a changed score's old one
    answers = page[page.index("<h2>Answers"):page.index("<h2>Evidence graph")]
    heads = re.findall(r"<div><strong>\d+\. .*?</div>", answers)
    assert len(heads) == 4 and all(re.search(r" · (↑\d+|↓\d+|same rank|new in the top)", h) for h in heads), heads
    was = {h.passage_id: h.score for h in full}
    assert any(f"score {s:.5g} → " in answers for s in was.values())
    gone = [h for h in full if h.passage_id not in answers]
    assert ("Gone from the top:" in head) == bool(gone)


def test_move_words_say_the_arrow_and_the_earlier_score_only_when_it_changed():
    from engine.explain.reasons import move_words

    earlier = {"a": (1, 0.5), "b": (2, 0.25), "c": (3, 0.2)}
    assert move_words(None, "a", 1, 0.5) == ""
    assert move_words(earlier, "a", 1, 0.5) == " · same rank"
    assert move_words(earlier, "b", 1, 0.25) == " · ↑1"
    assert move_words(earlier, "a", 2, 0.4) == " · ↓1 · score 0.5 → 0.4, −20%"
    assert move_words(earlier, "c", 3, 0.201) == " · same rank · score 0.2 → 0.201, +0.5%"
    assert move_words(earlier, "z", 4, 0.1) == " · new in the top"


def test_a_name_inside_a_longer_name_says_on_hover_that_the_two_are_one_thing_named_two_ways(core_index):
    from engine.explain.render import hover_text, nested_words

    q = "Which bank is administrative agent on the credit facility of the company whose CFO is Elliot Park?"
    answer = core_index.retriever("ppr-regex").explain(q, 5)
    nodes = {n.id: n for n in answer.nodes}
    assert {"e:brightwater", "e:brightwater logistics"} <= set(nodes), sorted(nodes)
    short = hover_text(nodes["e:brightwater"], answer, {})
    assert "Named two ways: inside the longer name “Brightwater Logistics”." in short
    assert "Named two ways: “Brightwater” inside it." in hover_text(nodes["e:brightwater logistics"], answer, {})
    # on token boundaries only, and nothing said of a name with no partner
    lone = next(n for n in answer.nodes if n.id.startswith("e:") and not any(
        f" {n.id[2:]} " in f" {m.id[2:]} " or f" {m.id[2:]} " in f" {n.id[2:]} "
        for m in answer.nodes if m.id.startswith("e:") and m.id != n.id))
    assert nested_words(lone, answer) == ""


# ---------------------------------------------------------------- the report's pages: each hit's cited page, inline

SHARED_FILINGS = Path(__file__).resolve().parents[2] / "shared" / "data" / "filings"
ROOT_OUT = Path(__file__).resolve().parents[1] / "test-output"
REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.IGNORECASE)


def _report_pngs(page: str) -> list[bytes]:
    import base64

    return [base64.b64decode(b) for b in re.findall(r"<img src='data:image/png;base64,([A-Za-z0-9+/=]+)'", page)]


def test_a_filing_reports_answers_each_show_their_page_marked_inline_and_a_missing_file_is_named(tmp_path):
    import io

    from PIL import Image

    from engine.explain.page_marks import MARK_COLORS
    from engine.explain.report import ReportView, build_report
    from engine.indexing.index import search_config
    from engine.ingest.corpus import load_corpus
    from tests.test_app_query import PAGED_Q, _pdf_room

    folder, index = _pdf_room(tmp_path)
    view = ReportView(folder, PAGED_Q, "bm25", 2, search_config({}, index.corpus))
    page = build_report(index, view, "T")
    assert page == build_report(index, view, "T")  # the same view gives the same file, pictures included
    pngs = _report_pngs(page)
    assert len(pngs) == 2 and not REMOTE.search(page)
    outline = tuple(int(MARK_COLORS["passage"][i:i + 2], 16) for i in (1, 3, 5))
    for png in pngs:
        image = Image.open(io.BytesIO(png)).convert("RGB")
        assert image.width == 900  # REPORT_PAGE_WIDTH: a letter page 900 pixels wide
        # the passage outlined on the page itself: its colour, to within the palette's rounding, on 3 px wide lines
        near = sum(n for n, c in image.getcolors(1 << 16) if max(abs(a - b) for a, b in zip(c, outline)) <= 8)
        assert near >= 3 * 2 * 100, near
    # each picture sits in its answer, after its text, with its file and page said
    first, second = page.split("<div class='hit'>")[1:3]
    assert "<figcaption>CALDER_2021_10K.pdf page 2, as cited by answer 1</figcaption>" in first
    assert first.index("(106)") < first.index("<figure") < first.index("passage <code>")
    assert "the passage the hit cites" in first and "where a line holds the most" in first  # the marks' key
    assert "page 1, as cited by answer 2" in second
    # the file moved: each answer says which page it could not show, and keeps its passage
    gone = build_report(index, view, "T", pdfs=str(tmp_path / "elsewhere"))
    assert not _report_pngs(gone) and gone.count("<strong>The cited page is not shown:</strong>") == 2
    assert "neither a bundled corpus nor an existing folder, zip or file, so CALDER_2021_10K.pdf cannot be read" in gone
    assert "<mark>repurchases</mark> (106) (2,000)" in gone.split("<div class='hit'>")[1]
    # a corpus of Markdown has no pages to show
    core = load_corpus("dataroom-core")
    plain = build_report(Index(core), ReportView("dataroom-core", "Who lends to Brightwater Logistics?", "bm25", 5,
                                                 search_config({}, core)), "T")
    assert "<figure" not in plain and "cited page is not shown" not in plain and "Not searched" not in plain
    # a file the room could not read is said where the report says how it was computed (a walk-through's report
    # listed a damaged upload beside the others, as if searched)
    (Path(folder) / "DAMAGED.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)
    damaged = Index(load_corpus(folder))
    said = build_report(damaged, ReportView(folder, PAGED_Q, "bm25", 2, search_config({}, damaged.corpus)), "T")
    assert said.count("<p class='meta'>Not searched: DAMAGED.pdf: ") == 1


@pytest.mark.skipif(not (SHARED_FILINGS / "APPLE_2022_10K.pdf").exists(),
                    reason="the shared filings (../shared/data/filings) lie beside the checkout in CI")
def test_a_real_filings_report_of_five_pages_is_under_5_mb_and_asks_nothing_of_the_network(tmp_path):
    import json

    from engine.explain.report import ReportView, build_report
    from engine.indexing.index import search_config
    from engine.ingest.corpus import load_corpus

    folder = tmp_path / "apple"
    folder.mkdir()
    (folder / "APPLE_2022_10K.pdf").write_bytes((SHARED_FILINGS / "APPLE_2022_10K.pdf").read_bytes())
    corpus = load_corpus(str(folder))
    q = "How much did Apple spend on share repurchases in 2022?"
    page = build_report(Index(corpus), ReportView(str(folder), q, "filing-graph", 5, search_config({}, corpus)), "T")
    pngs = _report_pngs(page)
    assert len(pngs) == 5 and "cited page is not shown" not in page
    assert not REMOTE.search(page) and "<script src" not in page and "<link" not in page
    size = len(page.encode("utf-8"))
    assert size < 5_000_000, size
    out = ROOT_OUT / "report_pages"
    out.mkdir(parents=True, exist_ok=True)
    (out / "apple-share-repurchases.html").write_text(page, "utf-8")
    (out / "size.json").write_text(json.dumps({"k": 5, "bytes": size, "pngs": [len(p) for p in pngs]}))


def test_the_glossary_opens_on_words_not_on_interval_bounds():
    from engine.explain.glossary import entries

    terms = [t for t, _ in entries()]
    assert terms[0] == "A" and "a" <= terms[1][0].lower() <= "z"  # a word, not "95% CI high" or "α"
    assert terms.index("bm25") < terms.index("95% CI high") < terms.index("dense")  # filed under C
    assert terms[-1][0] not in "abcdefghijklmnopqrstuvwxyz"  # the Greek parameters last


def test_a_passages_markdown_heading_reads_as_its_words_on_hover(core_index):
    from engine.explain.render import hover_text

    ans = core_index.retriever("ppr-regex").explain("Who is the largest investor in the fund that owns Solano Foods?", 5)
    texts = {p.id: p.text for p in core_index.corpus.passages}
    headed = [n for n in ans.nodes if n.id.startswith("p:") and texts[n.id[2:]].startswith("# ")]
    assert headed  # the part 1 of a report opens on its title, as Markdown
    for n in headed:
        shown = hover_text(n, ans, texts)
        title = texts[n.id[2:]].split("\n", 1)[0][2:].strip()
        assert "# " + title not in shown and title in shown, shown
