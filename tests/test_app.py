"""AppTests: every page driven through its widgets, asserting on what it shows."""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from engine.ingest.corpus import load_corpus
from tests.conftest import ROOT
from engine.indexing.views import without

APP = str(ROOT / "app.py")


@pytest.fixture(autouse=True)
def pages_block_on_their_builds(monkeypatch):
    """Pages block on a build instead of following it with a fragment that reruns every second (which AppTest
    does not run): one run shows a page's whole result. The fragment has a test of its own below."""
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "600")
FIX = ROOT / "tests" / "fixtures"


def start(page=None, params=None, timeout=240) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def hit_lines(at):
    """Each hit's first line: its rank and name in bold, its score and marks."""
    return [m.value for m in at.markdown if re.match(r"^\*\*\d+\. ", m.value) and "** · score " in m.value]


def hit_ids(at):
    """Each hit's passage id, from the caption under its first line."""
    return [c.value.split("`")[1] for c in at.caption if c.value.startswith("From ") and " · passage `" in c.value]


def vega_spec(at, i=0):
    return json.loads(at.get("vega_lite_chart")[i].proto.spec)


def vega_data(at, i=0):
    """The rows an Altair chart draws (Streamlit sends them apart from the spec, as Arrow)."""
    import pyarrow as pa

    return pa.ipc.open_stream(at.get("vega_lite_chart")[i].proto.datasets[0].data.data).read_pandas()


def bars_by_retriever(at, i=0) -> dict[str, str]:
    """A metric bar chart's {retriever: colour}, checked against the retrievers its rows hold."""
    scale = vega_spec(at, i)["encoding"]["color"]["scale"]
    assert set(vega_data(at, i)["retriever"]) == set(scale["domain"])
    return dict(zip(scale["domain"], scale["range"]))


def test_query_page_graph_retriever_explains_and_updates_url():
    at = start()
    assert at.title[0].value == "Query"
    # the default view: the hybrid on the measured demo question, both gold passages in the top 5
    assert at.selectbox(key="base_retriever").value == "hybrid-ner"
    assert at.text_input(key="question").value == "Who is the largest investor in the fund that owns Solano Foods?"
    # the labeled evidence names passages as a reader does, not by file id
    evidence = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Labeled question m15")]
    assert evidence == ["Labeled question m15 (multi-hop): evidence: Juniper Peak Growth Fund II, L.P. — Quarterly Letter, "
                        "Q3 2024 · part 1: “Solano Foods”; Juniper Peak Growth Fund II, L.P. — Quarterly Letter, Q3 2024 "
                        "· part 2: “largest investor is Osprey Mutual Insurance Company”"], evidence
    # folded away, so a demo does not give its answer away before the ranking does
    folded = [e for e in at.expander if e.label == "The labeled answer and its evidence"]
    assert len(folded) == 1 and not folded[0].proto.expanded
    # which says what it is there to show: the answer the graph reached through a bridge
    assert any(i.value.startswith("Why this example: answer #3 owes 33% of its score to Solano Foods, reached by way "
                                  "of other passages; the strongest route runs through Juniper Peak Growth Fund II, a "
                                  "name both passages hold.")
               for i in at.info), [i.value for i in at.info]
    # the examples menu names the labeled example the page opened on
    assert at.selectbox(key="example").value.split(" · ", 1)[1] == at.text_input(key="question").value
    assert len(hit_lines(at)) == 5
    assert sum("★ gold" in line for line in hit_lines(at)) == 2
    seeds = at.dataframe[0].value
    assert list(seeds.columns) == ["entity", "rule", "weight", "passages", "from"]
    assert "Solano Foods" in set(seeds["entity"])
    passage_seeds = at.dataframe[1].value
    assert list(passage_seeds.columns) == ["passage", "cosine", "weight"]
    assert not [n for n in passage_seeds["passage"] if "…" in n]  # whole names, each with its part
    # the data room's tuned w = 0.5: passage and entity seeds each carry half the restart mass
    assert passage_seeds["weight"].sum() == pytest.approx(0.5, abs=1e-3)
    assert seeds["weight"].sum() == pytest.approx(0.5, abs=1e-3)
    # the passage seeds said in words (the same sentence as the evidence report's), with the data room's λ = 0.5
    # two lists of 20 (meaning, shared words), each weighted by its own score: more than 20 seeds, and their weight
    # does not follow the similarity alone, which the sentence says (it said "the 24 closest… the more similar the
    # larger")
    assert len(passage_seeds) > 20
    assert any(c.value.startswith(f"Passage seeds: {len(passage_seeds)} passages take 50% of the walk's restarts: the "
                                  "20 closest in meaning to the question share 50% of that, the closer the larger; the "
                                  "20 sharing the most words with it (BM25) share 50%, the more the larger. A passage "
                                  "on both lists gets both") for c in at.caption), [c.value for c in at.caption]
    # routes name passages by document and part, with the share of the score walks along them carry; no raw mass
    assert any(re.match(r"Evidence path: Solano Foods → Brightwater Logistics — .* · part 2 → Juniper Peak Growth Fund II "
                        r"→ Juniper Peak Growth Fund II, L.P. — .* · part 1 \(walks along it carry (\d+%|<1%) of the "
                        r"score\)", c.value.replace("\\", "")) for c in at.caption), \
        [c.value for c in at.caption]  # the caption's text is markdown-escaped: read without the escapes
    assert not any("mass " in c.value or "e-0" in c.value for c in at.caption)
    routes = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Evidence path: ")]
    assert routes and not [r for r in routes if "…" in r], routes  # documents by their whole titles
    assert any("Juniper Peak Growth Fund II, L.P. — Quarterly Letter, Q3 2024 · part 1" in r for r in routes), routes
    # and shows its own text, the matches marked
    assert any("The Partnership closed on $420 million of commitments" in h.proto.body for h in at.get("html"))
    # every hit leads with one plain sentence of what its score owes to what
    reasons = [m.value for m in at.markdown if m.value.startswith("Its score: ")]
    assert len(reasons) == 5 and re.match(r"Its score: \d+% its similarity to the question, \d+% the name “Solano "
                                          r"Foods”", reasons[0]), reasons[0]
    assert re.match(r"Its score: \d+% passages like the question that share a name with it, 33% from Solano Foods by "  # Markdown-escaped
                    r"way of other passages \\\(strongest route through Juniper Peak Growth Fund II\\\), ", reasons[2]), reasons[2]
    # the question's "the fund" matched the data room's defined term "Fund": said as its word, not as a name it wrote
    assert any("the question's word “fund”" in r for r in reasons) and not any("“Fund”" in r for r in reasons), reasons
    assert len(at.get("iframe")) == 1  # the pyvis subgraph
    residual = vega_data(at)
    assert list(residual["iteration"]) == list(range(1, 21)) and residual["L1 change"].is_monotonic_decreasing
    assert vega_spec(at)["encoding"]["y"]["scale"]["type"] == "log"
    assert vega_spec(at)["encoding"]["y"]["axis"]["format"] == ".0e"  # one number format down the axis (walk 21 read
    # 0.01, 0.0001, 0.000001, then 1e-8 … at α 0.99)
    assert at.query_params["retriever"] == "hybrid-ner" and at.query_params["alpha"] == "0.15"
    assert at.query_params["passage_weight"] == "0.5" and at.query_params["lexical_share"] == "0.5"
    before = hit_lines(at)

    at.slider(key="alpha").set_value(0.6).run()
    assert at.query_params["alpha"] == "0.6"
    # the story was measured at the corpus's settings: at another α it is not told (at 0.99 it said "owes 0%")
    assert not any(i.value.startswith("Why this example") for i in at.info), [i.value for i in at.info]
    after = hit_lines(at)
    assert len(after) == 5 and after != before  # scores change with α
    at.number_input(key="iterations").set_value(7).run()
    assert len(vega_data(at)) == 7
    assert at.query_params["iterations"] == "7"
    assert any(c.value.startswith("7 iterations run at α = 0.60") for c in at.caption)
    at.number_input(key="iterations").set_value(1).run()  # a walk-through read "1 iterations run"
    assert any(c.value.startswith("1 iteration run at α = 0.60") for c in at.caption)
    at.number_input(key="iterations").set_value(7).run()
    at.slider(key="passage_weight").set_value(1.0).run()  # every seed a passage seed: no entity seeds are left
    assert at.query_params["passage_weight"] == "1.0"
    assert list(at.dataframe[0].value.columns) == ["passage", "cosine", "weight"]
    assert at.dataframe[0].value["weight"].sum() == pytest.approx(1.0, abs=1e-3)


def test_query_page_paper_seeding_and_ambiguous_defined_term():
    at = start(params={"q": "Which limited partners committed capital to the Fund?", "retriever": "bct-ner"})
    assert at.selectbox(key="base_retriever").value == "ppr-ner" and at.toggle(key="bct").value is True
    seeds = at.dataframe[0].value
    assert "Fund" in set(seeds["entity"]) and "vocabulary" in set(seeds["rule"])
    at.toggle(key="vocabulary").set_value(False).run()  # the paper's seeding: NER finds no name here
    assert at.query_params["seeding"] == "paper"
    assert any("No hits" in w.value and "no name of its graph" in w.value for w in at.warning)


def test_query_page_bct_lexical_and_k():
    at = start(params={"q": "What FRE margin did the owner of NorthRiver Capital Management report?"})
    at.selectbox(key="base_retriever").set_value("ppr-regex").run()
    assert at.slider(key="beta").disabled and not at.slider(key="alpha").disabled and at.slider(key="passage_weight").disabled
    at.toggle(key="bct").set_value(True).run()
    assert at.query_params["retriever"] == "bct-regex"
    assert not at.slider(key="beta").disabled  # the catalog says bct-regex reads β
    seeds = at.dataframe[0].value
    assert any(r.startswith("alias (") for r in seeds["rule"])
    at.selectbox(key="base_retriever").set_value("bm25").run()
    assert at.slider(key="alpha").disabled and at.slider(key="beta").disabled  # bm25 reads no walk parameter
    at.number_input(key="k").set_value(3).run()
    assert len(hit_lines(at)) == 3
    # each lexical hit says which question words scored it, with their shares of the score
    whys = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Why: ")]  # escaped corpus text
    assert len(whys) == 3 and "“fre”: 2× in the passage, rarity " in whys[0] and "%" in whys[0]
    at.selectbox(key="base_retriever").set_value("dense").run()
    assert all("of 1, cosine: 1 would mean the same meaning)" in c.value.replace("\\", "") for c in at.caption if c.value.startswith("Why: "))
    at.selectbox(key="base_retriever").set_value("bm25").run()
    assert at.query_params["retriever"] == "bm25" and at.query_params["k"] == "3"
    table = at.dataframe[-1].value
    assert list(table["rank"]) == [1, 2, 3]
    widths = {name: c.get("width") for name, c in json.loads(at.dataframe[-1].proto.columns).items()}
    assert widths["passage"] == widths["source"] == "large", widths  # titles drawn whole, not cut
    buttons = at.get("download_button")
    assert len(buttons) == 3  # the table as CSV and JSON, and the evidence report
    # each made when pressed: a file stored with the page is fetched as the button appears, a 404 once a rerun replaced it
    assert all(b.proto.deferred_file_id and not b.proto.url for b in buttons)
    at.number_input(key="k").set_value(1).run()
    assert any(h.value == "Top 1 passage · bm25" for h in at.subheader)


def test_query_page_names_an_ambiguous_defined_term_on_the_full_data_room():
    at = start(params={"corpus": "dataroom", "q": "Which limited partners committed capital to the Fund?",
                       "retriever": "bct-regex"})
    warning = next(w.value for w in at.warning if "ambiguous" in w.value)
    assert warning.startswith("“Fund” is ambiguous: 80 documents define it")
    assert "01-northriver-iv-q3-2024-lp-report.md → NorthRiver Capital Partners IV, L.P." in warning
    assert "and 68 more" in warning
    seeds = at.dataframe[0].value
    assert not any(e.endswith("Capital Partners IV, L.P.") for e in seeds["entity"])  # not spread over every fund
    assert len(hit_lines(at)) == 5


def test_query_page_weighted_rrf_members_and_weights():
    from engine.indexing.index import Index, search_config

    q = "Who is the largest investor in the fund that owns Solano Foods?"
    at = start(params={"q": q, "retriever": "rrf", "members": "bm25,dense", "weights": "2,0.5"})
    assert at.multiselect(key="rrf_members").value == ["bm25", "dense"]
    assert at.number_input(key="rrf_w_bm25").value == 2.0 and at.number_input(key="rrf_w_dense").value == 0.5
    corpus = load_corpus("dataroom-core")
    ref = Index(corpus).retriever("rrf", search_config({}, corpus, rrf_members=("bm25", "dense"),
                                                       rrf_weights=(2.0, 0.5))).search(q, 5)
    assert hit_ids(at) == [h.passage_id for h in ref]
    at.multiselect(key="rrf_members").set_value(["bm25", "dense", "hybrid-ner"]).run()
    assert at.number_input(key="rrf_w_hybrid-ner").value == 1.0  # a new member votes once
    assert at.query_params["members"] == "bm25,dense,hybrid-ner" and at.query_params["weights"] == "2,0.5,1"


def test_query_page_says_which_question_words_no_seed_covers():
    q = "Which lender is the administrative agent on Brightwater's credit agreement, and who is Brightwater's CFO?"
    at = start(params={"q": q, "retriever": "ppr-regex", "seeding": "paper"})
    note = next(i.value for i in at.info if "no entity seed covers" in i.value)
    for word in ("lender", "administrative", "credit", "cfo"):
        assert word in note
    assert "brightwater" not in note.split(": ", 1)[1].split(".")[0]  # the seed's own word played its part
    assert "do not steer ppr-regex's walk at all" in note and "hybrid" in note
    at.selectbox(key="base_retriever").set_value("hybrid-regex").run()
    note = next(i.value for i in at.info if "no entity seed covers" in i.value)
    assert "through its passage seeds" in note
    # no labeled answer to this question: the graph's caption says nothing of ★ (#63 walk-through, on an upload)
    graph = [c.value for c in at.caption if c.value.startswith("Left to right, as the walk went")]
    assert graph and "★" not in graph[0]
    labeled = [c.value for c in start().caption if c.value.startswith("Left to right, as the walk went")]
    assert "; ★ marks a passage labeled as the answer." in labeled[0]


def test_query_page_bad_input_messages():
    at = start(params={"q": "what happened to the weather?", "retriever": "ppr-regex"})
    assert any("No hits" in w.value and "hybrid" in w.value for w in at.warning)
    at.text_input(key="question").set_value("   ").run()
    assert not at.warning and any(i.value.startswith("Type a question") for i in at.info)
    at.text_input(key="question").set_value("x" * 10_000).run()
    assert [e.value for e in at.error] == ["This question is 10,000 characters long; questions can be up to 2,000 "
                                           "characters. Shorten it to search."]
    assert not hit_lines(at) and not any(x.label.startswith("What if") for x in at.expander)  # nothing that cannot apply
    at.text_input(key="question").set_value("<b>Solano Foods</b>").run()
    assert "Markup in the question was dropped; searched for “Solano Foods”." in [i.value for i in at.info]
    assert hit_lines(at)
    for nothing in ("?!… —", "<br><b></b>", "<script>alert(1)</script>"):
        at.text_input(key="question").set_value(nothing).run()
        assert [e.value for e in at.error] == ["Nothing in this question can be searched: it holds only punctuation "
                                               "or markup. Type the words to search for."]
        assert not hit_lines(at)


def test_shared_url_reproduces_the_view():
    params = {"corpus": "dataroom-core", "q": "Who manages the fund that owns Solano Foods?", "retriever": "bct-regex",
              "alpha": "0.3", "iterations": "12", "beta": "0.75", "k": "4"}
    at = start(params=params)
    assert at.text_input(key="question").value == params["q"]
    assert at.selectbox(key="base_retriever").value == "ppr-regex" and at.toggle(key="bct").value is True
    assert at.slider(key="alpha").value == 0.3 and at.slider(key="beta").value == 0.75
    assert len(hit_lines(at)) == 4 and len(vega_data(at)) == 12


def test_the_corpus_picker_shows_names_and_says_under_it_what_the_chosen_corpus_is():
    import json

    from tests.conftest import ROOT

    manifests = {c: json.loads((ROOT / "corpora" / c / "manifest.json").read_text())["description"]
                 for c in ("dataroom-core", "dataroom")}
    at = start()
    picker = next(x for x in at.sidebar.selectbox if x.label == "Corpus")
    assert picker.value == "dataroom-core" and "dataroom" in picker.options
    assert all(" — " not in o for o in picker.options)  # names only: a description did not fit the sidebar
    assert [c.value for c in at.sidebar.caption if c.value == manifests["dataroom-core"]]
    assert not [c.value for c in at.sidebar.caption if c.value == manifests["dataroom"]]  # the chosen one's only
    assert all(text in picker.help for text in manifests.values())


def test_unknown_corpus_in_url_is_not_a_path():
    at = start(params={"corpus": "../../etc"})
    assert any("Unknown corpus" in w.value for w in at.sidebar.warning)
    assert at.query_params["corpus"] == "dataroom-core"


def test_corpus_page():
    at = start("pages/corpus.py")
    assert at.title[0].value == "Corpus & graph"
    passages = at.dataframe[0].value
    assert len(passages) == 29
    # a reader's columns first (the title, then the text), the ids after
    assert list(passages.columns) == ["title", "text", "characters", "document", "passage_id"]
    assert [m.value for m in at.metric][:3] == ["29", "10", "40"]
    # the limits on the files people bring are stated where they bring them
    limits = next(c.value for c in at.caption if c.value.startswith("Files you bring:"))
    assert "up to 50 MB each" in limits and "5,000 pages" in limits and "10,000 files" in limits and "60 s" in limits
    documents = next(d.value for d in at.dataframe if list(d.value.columns) == ["document", "title", "pages", "passages"])
    # Markdown has no pages: empty cells in a numeric column (PDFs fill it), not strings
    assert len(documents) == 10 and str(documents["pages"].dtype) == "Int64" and documents["pages"].isna().all()
    both = next(d.value for d in at.dataframe if "kept entities" in getattr(d.value, "columns", []))
    assert list(both["builder"]) == ["regex", "ner"] and (both["kept entities"] > 10).all()
    assert at.radio(key="builder").value == "regex"
    # the filter's counts add up in words: distinct names = dropped + kept spellings of the kept entities
    metric = {m.label: int(m.value.replace(",", "")) for m in at.metric
              if m.label in ("Distinct raw names", "Kept entities")}
    counts = next(c.value for c in at.caption if c.value.startswith("Of the "))
    assert counts.startswith(f"Of the {metric['Distinct raw names']:,} distinct raw names, ") and (
        f"as {metric['Kept entities']:,} entities" in counts or "each an entity of its own" in counts), counts
    aliases = next(d.value for d in at.dataframe if list(d.value.columns) == ["entity", "alias", "rule", "passage_id"])
    assert "defined term" in set(aliases["rule"]) and "acronym" in set(aliases["rule"])
    # a generic-looking word among the largest entities says what makes it large (walk 21)
    largest = next(d.value for d in at.dataframe if list(d.value.columns) == ["entity", "passages", "why it is large"])
    why = dict(zip(largest["entity"], largest["why it is large"]))
    assert why["Fund"] == "a term 01-northriver-iv-q3-2024-lp-report.md defines as “NorthRiver Capital Partners IV, L.P.”", why
    assert why["Brightwater"] == "10 of its 10 passages are linked to the longer “Brightwater Logistics” too", why
    assert why["NorthRiver Capital Partners IV, L.P."] == "", why
    at.text_input(key="entity_search").set_value("Brightwater").run()
    assert any("appears in" in m.value for m in at.markdown)
    at.radio(key="builder").set_value("ner").run()
    assert at.query_params["builder"] == "ner"
    assert not at.exception


def test_only_the_compare_pages_why_they_disagree_panel_is_a_fragment():
    """Choosing another passage under "Why they disagree" reruns that panel alone, no retriever searching again; a
    misplaced decorator had made a helper the fragment instead, so every choice reran the whole page. AppTest runs
    fragments as whole reruns, so the page's source is read."""
    import ast

    tree = ast.parse((ROOT / "pages" / "compare.py").read_text(encoding="utf-8"))
    fragments = [f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                 and any(ast.unparse(d) == "st.fragment" for d in f.decorator_list)]
    assert fragments == ["why_they_disagree"], fragments


def test_compare_page_side_by_side_and_metrics():
    at = start("pages/compare.py")
    assert at.title[0].value == "Compare retrievers"
    # it opens on the question the Query page opens on: the data room's measured demo question
    assert at.text_input(key="cmp_question").value == load_corpus("dataroom-core").opening_question
    five = [m.value for m in at.markdown if re.match(r"^\d+\. \*\*", m.value)]  # the default's five columns
    assert len(five) == 25 and not [line for line in five if "…" in line], five
    at.multiselect(key="cmp_retrievers").set_value(["bm25", "ppr-regex", "bct-regex"]).run()
    assert at.query_params["retrievers"] == "bm25,ppr-regex,bct-regex"
    headers = [m.value for m in at.markdown if m.value.startswith("**") and m.value.endswith("**")]
    assert headers[:3] == ["**bm25**", "**ppr-regex**", "**bct-regex**"]
    # each column names its passages as the Query page does, by their whole titles: a cut one ("Quarterly L…")
    # could not tell a fund's Q3 letter from its Q2 one
    from engine.explain.reasons import passage_name

    titles = {p.id: p.title for p in load_corpus("dataroom-core").passages}
    names = {passage_name(pid, titles, 120) for pid in titles}
    assert not [n for n in names if "…" in n]
    lines = [m.value.replace("\\", "") for m in at.markdown if re.match(r"^\d+\. \*\*", m.value)]
    assert len(lines) == 15 and all(re.sub(r"^\d+\. \*\*(.*)\*\*( · ★ gold)?$", r"\1", line) in names
                                    for line in lines), lines
    # under each, the other two retrievers' ranks of it in words; its id only on hover
    elsewhere = [c for c in at.caption if c.value.startswith("Elsewhere: ")]
    assert len(elsewhere) == 15 and all(re.fullmatch(r"Elsewhere: [\w-]+ (#\d|–) · [\w-]+ (#\d|–)", c.value)
                                        and c.help.startswith("Passage `") for c in elsewhere), [c.value for c in elsewhere]
    # why they disagree: each retriever's own reason for one passage some rank and others do not
    pick = at.selectbox(key="cmp_why")
    assert pick.options and passage_name(pick.value, titles, 120) in pick.options  # named, not by id
    reasons = [c.value.replace("\\", "") for c in at.caption]  # corpus text is escaped for Markdown
    # a graph retriever's: its rank in the walk, seed shares and heaviest path (or why it never arrives), passages
    # named as the page names them, never by id
    walks = [r for r in reasons if re.match(r"Rank \d+ in the walk\. Its score: .+\d+% .+\. (Evidence path: .+|No "
                                            r"evidence path within two hops)\.$", r) or r.startswith("it does not reach")]
    assert walks and not any(".md#" in r for r in walks), reasons
    assert any("× in the passage, rarity" in r and "(idf: the rarer the word in the corpus, the higher)" in r for r in reasons) or any(
        r == "no question word is in this passage" for r in reasons)  # bm25's terms
    at.button(key="run_eval").click().run()
    shown = next(d for d in at.dataframe if "hr@1" in getattr(d.value, "columns", []))
    metrics = shown.value
    assert set(metrics["retriever"]) == {"bm25", "ppr-regex", "bct-regex"}
    # the best value of each metric within each group of questions is in bold, and only those
    cols = list(metrics.columns)
    bold = {(int(r), int(c)) for rule in shown.proto.arrow_data.styler.styles.split("}") if "font-weight: bold" in rule
            for r, c in re.findall(r"row(\d+)_col(\d+)", rule)}
    best = {(i, cols.index(m)) for m in cols if m not in ("retriever", "method", "kind") for i, v in enumerate(metrics[m])
            if v == metrics[metrics["kind"] == metrics["kind"][i]][m].max() and v > 0}
    assert bold == best and bold
    # a column where every retriever scores 0 (all@1 when the questions have two gold passages) marks no best
    multi = metrics[metrics["kind"] == "multi-hop"]
    assert (multi["all@1"] == 0).all() and not {(i, cols.index("all@1")) for i in multi.index} & bold
    assert set(metrics["kind"]) == {"all", "single-hop", "multi-hop"}
    from engine.explain.palette import color_of

    # one bar per retriever and metric, each retriever in its own colour
    assert bars_by_retriever(at) == {r: color_of(r) for r in ("bm25", "ppr-regex", "bct-regex")}
    ci = next(d.value for d in at.dataframe if "95% CI low" in getattr(d.value, "columns", []))
    assert list(ci["queries"]) == ["all", "multi-hop", "single-hop"]
    # it opens on the best graph retriever against the best baseline, on Recall@5 (questions with two gold passages)
    recall = metrics[metrics["kind"] == "all"].set_index("retriever")["recall@5"]
    best_graph = max(["ppr-regex", "bct-regex"], key=lambda n: (recall[n], n == "ppr-regex"))
    assert (at.selectbox(key="ci_a").value, at.selectbox(key="ci_b").value) == (best_graph, "bm25")
    assert at.selectbox(key="ci_metric").value == "recall@5"
    # each row's verdict is what its own interval says (a case built to be significant is in test_evaluate.py)
    assert list(ci["verdict"]) == [f"{best_graph} better: the whole interval is above 0" if lo > 0 else
                                   "bm25 better: the whole interval is below 0" if hi < 0 else
                                   "not significant: the interval includes 0"
                                   for lo, hi in zip(ci["95% CI low"], ci["95% CI high"])]
    # the table read out on that metric: its leader named from the table's own numbers, in words, called the best only
    # when its lead over each other retriever has an interval above 0, whichever pair the CI table below is set to
    top = recall.round(3).max()
    leader = min(n for n in recall.index if round(recall[n], 3) == top)
    said = next(i.value for i in at.info if i.value.startswith("Over the 40 labeled questions, "))
    assert said.startswith(f"Over the 40 labeled questions, {leader} finds {top:.0%} of the gold passages in its top 5; "
                           f"recall@5 {top:.3f}, "), said
    assert ("the best of the 3 retrievers: its lead over each other has a 95% interval above 0" in said) != \
        ("but not told apart from" in said), said
    at.selectbox(key="ci_b").set_value([n for n in ("ppr-regex", "bct-regex", "bm25")
                                        if n not in (at.selectbox(key="ci_a").value, "bm25")][0]).run()
    assert next(i.value for i in at.info if i.value.startswith("Over the 40 labeled questions, ")) == said
    assert any("0 means" in c.value and "ahead in every resample" in c.value for c in at.caption)
    # questions about one document stand or fall together: the page resamples whole documents, and says so
    assert any(c.value.startswith("Resampled 10,000 times: whole documents (") for c in at.caption)
    at.selectbox(key="ci_a").set_value("bm25").run()
    at.selectbox(key="ci_b").set_value("ppr-regex").run()
    per = next(d.value for d in at.dataframe if "open" in getattr(d.value, "columns", []))
    assert len(per) == 40 and per["open"].str.startswith("/?").all()
    assert list(per.columns)[:4] == ["id", "kind", "question", "open"]  # the link in view, beside its question
    # the evidence each gold passage holds, by passage names, not a raw map of ids
    assert not per["evidence"].str.startswith("{").any() and per["evidence"].str.contains(": “").all()
    # the CI is the bootstrap of the per-query values shown (here reciprocal ranks, bm25 − ppr-regex), resampling
    # whole documents: the questions that share their gold documents together
    from engine.evaluate.evaluate import question_clusters
    from engine.evaluate.metrics import cluster_bootstrap

    core = load_corpus("dataroom-core")
    clusters = question_clusters(core.queries, "doc", core)
    ref = cluster_bootstrap(list(per["bm25"]), list(per["ppr-regex"]), [clusters[i] for i in per["id"]],
                            resamples=10_000, seed=42)
    at.selectbox(key="ci_metric").set_value("mrr").run()
    ci = next(d.value for d in at.dataframe if "95% CI low" in getattr(d.value, "columns", []))
    assert ci.iloc[0]["95% CI low"] == ref.low and ci.iloc[0]["95% CI high"] == ref.high
    assert ci.iloc[0]["Δ mrr (A − B)"] == pytest.approx(per["bm25"].mean() - per["ppr-regex"].mean())
    # changing the CI pair or metric re-evaluates nothing; changing a parameter needs a new evaluation
    assert at.session_state["evaluation_count"] == 1
    resampled = at.session_state["leads_memo"]
    at.selectbox(key="ci_b").set_value("bct-regex").run()
    assert at.session_state["evaluation_count"] == 1
    # nor does it resample the leader's intervals again: once per evaluation and metric
    assert at.session_state["leads_memo"] is resampled and set(resampled[1]) == {"recall@5", "mrr"}
    at.slider(key="cmp_alpha").set_value(0.3).run()
    assert not any("95% CI low" in getattr(d.value, "columns", []) for d in at.dataframe)
    at.button(key="run_eval").click().run()
    assert at.session_state["evaluation_count"] == 2


def test_sweep_page_runs_and_plots():
    at = start("pages/sweep.py")
    at.selectbox(key="corpus_choice").set_value("dataroom").run()
    assert at.query_params["corpus"] == "dataroom"
    at.multiselect(key="sw_sizes").set_value([100]).run()
    at.number_input(key="sw_resamples").set_value(2).run()
    at.multiselect(key="sw_retrievers").set_value(["bm25", "ppr-regex"]).run()
    at.button(key="sw_run").click().run()
    assert not at.exception
    assert any("Sweep finished: 6 trials" in s.value for s in at.success)
    table = at.dataframe[-1].value
    assert set(table["size"]) == {100, 4200} and set(table["retriever"]) == {"bm25", "ppr-regex"}
    assert list(table[table["size"] == 100]["resamples"]) == [2, 2]
    # the chart read out in words: the table's leader on the whole corpus, and what each lost on the way there
    full = table[table["size"] == 4200].set_index("retriever")["mean"]
    story = next(i.value for i in at.info if i.value.startswith("On the whole corpus"))
    lead = f"{full.idxmax()} finds a gold passage in its top 5" if full.nunique() == 2 else "bm25 and ppr-regex do best"
    # one leads only when the paired interval of its lead excludes 0; otherwise the two are tied
    tied = f"{full.idxmax()} and {full.idxmin()} cannot be told apart: {lead}"
    assert story.startswith(f"On the whole corpus (4,200 passages) {lead}") and "; ahead of " in story \
        or story.startswith(f"On the whole corpus (4,200 passages) {tied}") and "includes 0" in story, story
    assert "From 100 passages to 4,200, " in story and "hr@5" in story, story
    band, line = vega_spec(at, -1)["layer"]
    assert line["encoding"]["color"]["scale"]["domain"] == ["bm25", "ppr-regex"]
    # the size axis is labelled at the sizes swept, with thousands separators
    assert line["encoding"]["x"]["axis"]["values"] == [100, 4200] and line["encoding"]["x"]["axis"]["format"] == ","
    assert any("shaded band runs from the worst resample to the best" in c.value for c in at.caption)
    # each retriever in its own colour (the same on every page), its band in the same colour and without markers
    from engine.explain.palette import color_of

    assert line["encoding"]["color"]["scale"]["range"] == [color_of("bm25"), color_of("ppr-regex")]
    assert color_of("bm25") != color_of("ppr-regex") and band["encoding"]["color"] == line["encoding"]["color"]
    assert band["mark"] == {"type": "area", "opacity": 0.15} and line["mark"]["point"] is True
    # the metric's axis is fitted to the values, with a way back to the whole 0–1
    values = list(table["mean"]) + list(table["min"]) + list(table["max"])
    low, high = line["encoding"]["y"]["scale"]["domain"]
    assert low <= min(values) and high >= max(values) and (low > 0 or high < 1) and high <= 1
    at.toggle(key="sw_full_axis").set_value(True).run()
    assert vega_spec(at, -1)["layer"][1]["encoding"]["y"]["scale"]["domain"] == [0, 1]


def test_sweep_page_says_when_a_corpus_is_too_small_and_resets_sizes_per_corpus():
    at = start("pages/sweep.py")  # dataroom-core: 29 passages, 26 of them gold
    assert any("too small for a meaningful sweep" in i.value and "from 26 to 29" in i.value for i in at.info)
    # the way on leads: the full room's button is the page's primary one, not "Run sweep" on sizes it calls too small
    assert (at.button(key="sw_full").proto.type, at.button(key="sw_run").proto.type) == ("primary", "secondary")
    at.button(key="sw_full").click().run()
    assert at.button(key="sw_run").proto.type == "primary"
    assert at.selectbox(key="corpus_choice").value == "dataroom" and at.query_params["corpus"] == "dataroom"
    assert at.multiselect(key="sw_sizes").value == [100, 500, 1000, 2000]  # the full data room's own defaults
    assert not any("too small" in i.value for i in at.info)
    at.selectbox(key="corpus_choice").set_value("dataroom-core").run()
    assert at.multiselect(key="sw_sizes").value == [26, 27, 28]


def test_sweep_page_offers_only_sizes_that_hold_every_gold_passage():
    at = start("pages/sweep.py")  # dataroom-core: 29 passages, 26 of them gold for some query
    sizes = at.multiselect(key="sw_sizes")
    assert sizes.value == [26, 27, 28] and min(sizes.options, key=int) == "26"
    at.number_input(key="sw_resamples").set_value(1).run()
    at.multiselect(key="sw_retrievers").set_value(["bm25"]).run()
    assert at.button(key="sw_cancel").disabled  # nothing runs: nothing to cancel
    at.button(key="sw_run").click().run()
    assert not at.exception and not at.error
    assert any("Sweep finished: 4 trials" in s.value for s in at.success)
    # the Cancel drawn live for the run is greyed out in place when the sweep ends: one button, not live
    cancels = [b for b in at.button if b.label == "Cancel"]
    assert len(cancels) == 1 and cancels[0].disabled
    assert set(at.dataframe[-1].value["size"]) == {26, 27, 28, 29}
    assert any(c.value.endswith("The last size is the whole corpus.") for c in at.caption)
    # a sweep stopped before the whole corpus says where it stopped, not that its last size is the whole corpus
    state = at.session_state["sweep"]
    at.session_state["sweep"] = {**state, "trials": [t for t in state["trials"] if t.size < 28], "complete": False}
    at.run()
    said = [c.value for c in at.caption if c.value.startswith("Each line is")]
    assert said and said[0].endswith("The sweep stopped at 27 passages, before the whole corpus (29).")
    # a resamples value past the bound is named, and nothing runs with an older value meanwhile
    at.number_input(key="sw_resamples").set_value(50).run()
    assert [e.value for e in at.error] == ["Resamples per size: from 1 to 20, not 50. The sweep runs once it is "
                                           "within them."]
    assert at.button(key="sw_run").disabled
    at.number_input(key="sw_resamples").set_value(0).run()  # below the bound: said too, not a red box alone
    assert [e.value for e in at.error] == ["Resamples per size: from 1 to 20, not 0. The sweep runs once it is "
                                           "within them."]
    at.number_input(key="sw_resamples").set_value(2).run()
    assert not at.error and not at.button(key="sw_run").disabled


def test_benchmarks_page_with_fixture_file():
    at = start("pages/benchmarks.py")
    assert at.button(key="bm_cancel").disabled  # nothing runs: nothing to cancel
    at.text_input(key="bm_path").set_value(str(FIX / "musique.jsonl")).run()
    at.number_input(key="bm_sample").set_value(99_999).run()  # more than the file holds: said, not silent
    at.multiselect(key="bm_retrievers").set_value(["bm25", "ppr-regex"]).run()
    at.button(key="bm_run").click().run()
    assert not at.exception
    cancels = [b for b in at.button if b.label == "Cancel"]
    assert len(cancels) == 1 and cancels[0].disabled  # greyed out again when the benchmark ends
    said = [i.value for i in at.info if i.value.startswith("Sample size 99,999 is more than the file's ")]
    assert said and said[0].endswith("were asked."), [i.value for i in at.info]
    table = at.dataframe[0].value
    assert list(table["retriever"]) == ["bm25", "ppr-regex"] and table.loc[0, "hr@1"] == 1.0
    # each column's best value is in bold, as on Compare
    cols = list(table.columns)
    bold = {(int(r), int(c)) for rule in at.dataframe[0].proto.arrow_data.styler.styles.split("}")
            if "font-weight: bold" in rule for r, c in re.findall(r"row(\d+)_col(\d+)", rule)}
    metric_cols = [m for m in cols if m not in ("retriever", "no seed")]
    assert bold == {(i, cols.index(m)) for m in metric_cols for i, v in enumerate(table[m])
                    if v == table[m].max() and v > 0} and bold
    from engine.explain.palette import color_of  # each retriever's bars in its colour, as on every other chart

    assert bars_by_retriever(at) == {r: color_of(r) for r in ("bm25", "ppr-regex")}
    # every question has two gold passages: all@1 is 0 by construction, so it is not shown, and the page says why
    assert "all@1" not in table.columns and "all@3" in table.columns
    assert any(c.value.startswith("Not shown: all@1. Every question here has at least 2 gold passages") for c in at.caption)
    # a paired-bootstrap CI, opening on the graph retriever against the baseline, on Recall@5, read in words
    ci = at.dataframe[1].value
    assert (at.selectbox(key="bm_ci_a").value, at.selectbox(key="bm_ci_b").value) == ("ppr-regex", "bm25")
    assert at.selectbox(key="bm_ci_metric").value == "recall@5" and at.query_params["metric"] == "recall@5"
    lo, hi = ci.loc[0, "95% CI low"], ci.loc[0, "95% CI high"]
    assert ci.loc[0, "verdict"] == ("ppr-regex better: the whole interval is above 0" if lo > 0 else
                                    "bm25 better: the whole interval is below 0" if hi < 0 else
                                    "not significant: the interval includes 0")
    assert ci.loc[0, "95% CI low"] <= ci.loc[0, "Δ recall@5 (A − B)"] <= ci.loc[0, "95% CI high"]
    # the table read out on the CI's metric: its leader, from the table's own numbers
    asked = next(int(m.group(1)) for h in at.subheader if (m := re.search(r"· (\d+) questions ·", h.value)))
    said = next(i.value for i in at.info if i.value.startswith(f"On these {asked} questions, "))
    recall = table.set_index("retriever")["recall@5"].round(3)
    assert f"recall@5 {recall.max():.3f}" in said and any(n in said for n in recall[recall == recall.max()].index), said
    # the corpus picker does nothing here, so it is not drawn; the path box says where sample files are
    assert not [x for x in at.sidebar.selectbox if x.label == "Corpus"]
    # the example path in the box is a file of the chosen format (a HotpotQA file under "musique" misled)
    assert "musique" in at.text_input(key="bm_path").placeholder
    at.selectbox(key="bm_format").set_value("hotpotqa").run()
    assert "hotpotqa" in at.text_input(key="bm_path").placeholder
    # the table's "no seed" column says what it counts, on hover and under the table
    assert any(c.value.startswith("The best value of each column is in bold. “no seed”: questions a graph retriever "
                                  "could not start on") for c in at.caption)
    assert any(c.value == f"Measured on {FIX / 'musique.jsonl'}." for c in at.caption)
    at.text_input(key="bm_path").set_value(str(FIX / "nope.jsonl")).run()
    # said as it is typed, not only on Run; the table left under it says it measured another file (a walk-through)
    assert [w.value for w in at.warning] == [f"No file at {FIX / 'nope.jsonl'}: give the path of a MuSiQue, HotpotQA or "
                                             "2Wiki file, or upload one."]
    assert any(c.value == f"Measured on {FIX / 'musique.jsonl'}; the file named above is another: Run benchmark to "
                          "measure it." for c in at.caption)
    at.button(key="bm_run").click().run()
    assert any("no file at" in e.value for e in at.error)
    assert all(b.disabled for b in at.button if b.label == "Cancel")  # nothing started
    at.selectbox(key="bm_format").set_value("hotpotqa").run()
    at.text_input(key="bm_path").set_value(str(FIX / "musique.jsonl")).run()
    at.button(key="bm_run").click().run()
    assert any("missing field '_id'" in e.value for e in at.error)


def test_the_benchmark_file_is_the_shared_file_of_the_chosen_format_until_someone_edits_it(tmp_path):
    shared = ROOT.parent / "shared" / "data"
    musique, hotpot = shared / "musique_ans_dev_292.jsonl", shared / "hotpotqa_dev_distractor_300.jsonl"
    if not (musique.is_file() and hotpot.is_file()):
        pytest.skip("../shared/data with the MuSiQue and HotpotQA dev files is not beside this checkout")
    at = start("pages/benchmarks.py")
    assert at.text_input(key="bm_path").value == str(musique.resolve())
    at.selectbox(key="bm_format").set_value("hotpotqa").run()
    assert at.text_input(key="bm_path").value == str(hotpot.resolve())
    at.text_input(key="bm_path").set_value(str(tmp_path / "mine.jsonl")).run()
    at.selectbox(key="bm_format").set_value("musique").run()
    assert at.text_input(key="bm_path").value == str(tmp_path / "mine.jsonl")  # the user's own path stands


def test_compare_page_shows_a_crashing_retriever_in_its_own_column(monkeypatch):
    from engine.indexing.index import Index

    real = Index.retriever

    def flaky(self, name, config=None, **kw):
        if name == "tfidf":
            raise RuntimeError("simulated crash")
        return real(self, name, config) if config is not None else real(self, name)

    monkeypatch.setattr(Index, "retriever", flaky)
    at = start("pages/compare.py")
    at.multiselect(key="cmp_retrievers").set_value(["bm25", "tfidf", "ppr-regex"]).run()
    assert not at.exception
    assert any("simulated crash" in e.value for e in at.error)
    headers = [m.value for m in at.markdown if m.value.startswith("**") and m.value.endswith("**")]
    assert headers[:3] == ["**bm25**", "**tfidf**", "**ppr-regex**"]
    ranked = [m.value for m in at.markdown if re.match(r"^\d+\. \*\*", m.value)]
    assert len(ranked) == 10  # bm25 and ppr-regex still list their top 5


def test_save_upload_checks_size_and_content():
    from engine.errors import PathLensError
    from ui.corpora import UPLOAD_DIR, save_upload

    class Upload:
        def __init__(self, name, data):
            self.name, self._data = name, data

        def getvalue(self):
            return self._data

    with pytest.raises(PathLensError, match="over the"):
        save_upload(Upload("big.jsonl", b"x" * (50 * 1024 * 1024 + 1)))
    with pytest.raises(PathLensError, match="empty"):
        save_upload(Upload("e.jsonl", b"  \n"))
    with pytest.raises(PathLensError, match="upload a .jsonl"):
        save_upload(Upload("x.exe", b"MZ..."))
    path = save_upload(Upload("../../evil.jsonl", b'{"id": "a", "text": "b"}'))
    assert path.parent == UPLOAD_DIR and path.suffix == ".jsonl"  # the name never chooses the folder


def test_out_of_range_link_values_are_clamped_and_said_so():
    at = start(params={"alpha": "1.5", "iterations": "5000", "beta": "-1", "k": "0", "retriever": "nope"})
    notes = " ".join(w.value for w in at.warning)
    assert "α (restart probability) = 1.5 in the link is outside [0.01, 0.99]; using 0.99" in notes
    assert "Iteration cap = 5000" in notes and "β (alias weight) = -1" in notes and "k = 0" in notes
    assert "Unknown retriever 'nope'" in notes
    assert at.slider(key="alpha").value == 0.99 and at.number_input(key="iterations").value == 1000
    assert len(hit_lines(at)) == 1  # k clamped to 1


def test_the_other_pages_clamp_out_of_range_link_values_and_say_so():
    at = start(params={"resamples": "30", "seed": "-4", "metric": "nope"})
    at.switch_page("pages/sweep.py").run()
    notes = [w.value for w in at.warning]
    assert "Resamples per size = 30 in the link is outside [1, 20]; using 20." in notes
    assert "Random seed = -4 in the link is outside [0, 2147483647]; using 0." in notes
    assert "Metric = 'nope' in the link is not one this page can use; using hr@5." in notes
    assert at.number_input(key="sw_resamples").value == 20 and at.number_input(key="sw_seed").value == 0
    compare = start()
    compare.query_params.update({"alpha": "2", "tau": "0", "k": "50"})  # a link to the Compare page itself
    compare.switch_page("pages/compare.py").run()
    notes = [w.value for w in compare.warning]
    assert "α (restart probability) = 2 in the link is outside [0.01, 0.99]; using 0.99." in notes
    assert "k = 50 in the link is outside [1, 20]; using 20." in notes
    assert compare.slider(key="cmp_alpha").value == 0.99 and compare.number_input(key="cmp_tau").value == 0.005
    bench = start(params={"sample": "200000"})
    bench.switch_page("pages/benchmarks.py").run()
    assert "Sample size = 200000 in the link is outside [0, 100000]; using 100000." in [w.value for w in bench.warning]
    assert not (at.exception or compare.exception or bench.exception)


def test_a_toy_retriever_added_through_the_catalog_alone_reaches_the_cli_and_the_query_page(monkeypatch, capsys):
    """Adding a retriever is one catalog entry plus its class: no other file changes."""
    from engine import catalog
    from engine.cli import main
    from engine.retrieve.retrievers import Answers, Hit, check_k

    class LongestFirst(Answers):  # `Answers` gives it `answer` and `answer_batch` from `search`
        name = "longest"

        def __init__(self, index):
            self.ids, self.texts = index.ids, index.texts

        def search(self, query, k):
            order = sorted(range(len(self.ids)), key=lambda i: (-len(self.texts[i]), i))[:check_k(k)]
            return tuple(Hit(self.ids[i], float(len(self.texts[i])), r, self.name) for r, i in enumerate(order, 1))

        def explain_hits(self, query, passage_ids):
            return {}  # nothing to say beyond the score

    spec = catalog.RetrieverSpec("longest", "lexical", "Toy: the longest passages first.",
                                 make=lambda make, config: LongestFirst(make.index))
    monkeypatch.setitem(catalog.CATALOG, "longest", spec)
    with pytest.raises(SystemExit):  # argparse prints the help and exits
        main(["query", "--help"])
    assert "longest (Toy: the longest passages first.)" in " ".join(capsys.readouterr().out.split())
    assert main(["query", "--corpus", "dataroom-core", "--retriever", "longest", "--k", "2", "anything", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["retriever"] == "longest" and len(out["hits"]) == 2
    at = start(params={"retriever": "longest"})
    assert "longest" in at.selectbox(key="base_retriever").options
    assert at.selectbox(key="base_retriever").value == "longest"
    assert len(hit_lines(at)) == 5


def test_every_label_and_column_the_pages_show_is_in_the_glossary():
    from engine.explain.glossary import definition, lookup

    seen: set[str] = set()

    def collect(at):
        for kind in ("selectbox", "slider", "number_input", "toggle", "text_input", "multiselect", "radio", "checkbox"):
            seen.update(w.label for w in at.get(kind))
        seen.update(m.label for m in at.metric)
        for d in at.dataframe:
            frame = getattr(d.value, "data", d.value) if not hasattr(d.value, "columns") else d.value
            seen.update(str(c) for c in getattr(frame, "columns", []))

    at = start()
    collect(at)
    for retriever in ("bm25", "rrf", "ppr-regex"):
        at.selectbox(key="base_retriever").set_value(retriever).run()
        collect(at)
    at.switch_page("pages/corpus.py").run()
    at.text_input(key="entity_search").set_value("Brightwater").run()
    collect(at)
    at.switch_page("pages/compare.py").run()
    at.button(key="run_eval").click().run()
    collect(at)
    at.switch_page("pages/sweep.py").run()
    at.multiselect(key="sw_retrievers").set_value(["bm25"]).run()
    at.number_input(key="sw_resamples").set_value(1).run()
    at.button(key="sw_run").click().run()
    collect(at)
    at.switch_page("pages/benchmarks.py").run()
    at.text_input(key="bm_path").set_value(str(FIX / "musique.jsonl")).run()
    at.multiselect(key="bm_retrievers").set_value(["bm25"]).run()
    at.button(key="bm_run").click().run()
    collect(at)
    assert not at.exception
    assert {"hr@1", "mrr", "95% CI low", "α (restart probability)", "Random seed", "no seed", "why"} <= seen
    missing = sorted(label for label in seen if lookup(label) is None)
    assert missing == []
    assert "jumps back to a seed" in definition(lookup("α (restart probability)"))


def test_query_page_what_if_takes_out_a_seed_and_shows_rank_arrows():
    at = start(params={"retriever": "ppr-regex", "q": "Which bank is administrative agent on the credit facility of "
                       "the company whose CFO is Elliot Park?"})  # Elliot Park → … → credit agreement
    before = hit_ids(at)
    before_scores = dict(zip(before, (float(re.search(r"score ([\d.e-]+)", line)[1]) for line in hit_lines(at))))
    assert not any("↑" in line or "↓" in line for line in hit_lines(at))  # no previous view yet
    assert any("from Elliot Park by way of other passages" in m.value for m in at.markdown
               if m.value.startswith("Its score: "))
    # no "Select all" in either list (its proto's threshold 0): taking everything out leaves nothing to rank
    assert at.multiselect(key="wi_entities").proto.select_all == at.multiselect(key="wi_passages").proto.select_all == 0
    at.multiselect(key="wi_entities").set_value(["Elliot Park"]).run()
    assert at.query_params["without"] == "Elliot Park"
    seeds = at.dataframe[0].value
    assert "Elliot Park" not in set(seeds["entity"])
    after = hit_ids(at)
    assert after != before

    def moves_against(original: list[str]) -> None:  # every passage says how it moved against the original ranking
        now = hit_ids(at)
        for line, pid in zip(hit_lines(at), now, strict=True):
            score = re.search(r" · score (\S+) → (\S+), [+−][\d.]+%$", line)  # the score with nothing taken out
            if score:
                assert float(score[1]) == pytest.approx(before_scores[pid], rel=1e-4) and score[1] != score[2]
                line = line[:score.start()]
            if pid in original:
                moved = original.index(pid) - now.index(pid)
                assert line.endswith(f"↑{moved}" if moved > 0 else f"↓{-moved}" if moved < 0 else "same rank")
            else:
                assert line.endswith("new in the top")

    moves_against(before)
    assert any(" · score " in line for line in hit_lines(at))  # a what-if shows what it did to scores
    gone = [pid for pid in before if pid not in after]
    from engine.explain.reasons import IN_TEXT, passage_name

    titles = {p.id: p.title for p in load_corpus("dataroom-core").passages}
    assert any(c.value == "Gone from the top, against the ranking with nothing taken out: " + ", ".join(
        passage_name(pid, titles, IN_TEXT) for pid in gone) for c in at.caption)
    assert not any(c.value.startswith("Gone from the top") and "…" in c.value for c in at.caption)  # whole titles
    assert ("Arrows: each passage's move against the ranking with nothing taken out, with its score then when the "
            "score changed.") in [c.value for c in at.caption]
    # what was taken out shows in the evidence graph, crossed out and linked to nothing
    graph = at.get("iframe")[0].proto.srcdoc
    assert json.dumps("✕ Elliot Park")[1:-1] in graph and "taken out of the graph (what-if)" in graph
    # a second entity taken out: the arrows still compare with the original ranking, not the step before
    second = next(e for e in at.dataframe[0].value["entity"] if e != "Elliot Park")
    at.multiselect(key="wi_entities").set_value(["Elliot Park", second]).run()
    moves_against(before)
    # the same what-if through the engine, as the CLI's --without runs it
    from engine.indexing.index import Index, search_config

    corpus = load_corpus("dataroom-core")
    idx = Index(corpus)
    idx.graph("regex")
    ref = without(idx, entities=["Elliot Park"]).retriever("ppr-regex", search_config({}, corpus))
    q = at.text_input(key="question").value
    assert after == [h.passage_id for h in ref.search(q, 5)]
    at.multiselect(key="wi_entities").set_value([]).run()
    assert hit_ids(at) == before
    # every seed taken out leaves the walk nowhere to start: the what-if stays, to put them back
    every = sorted(set(at.dataframe[0].value["entity"]))
    at.multiselect(key="wi_entities").set_value(every).run()
    assert any(w.value.startswith("No hits.") for w in at.warning) and not hit_ids(at)
    assert [e for e in at.expander if e.label.startswith("What if")] and at.multiselect(key="wi_entities").value == every


def test_a_link_to_an_evaluated_compare_view_evaluates_once_on_open():
    at = start("pages/compare.py", params={"retrievers": "bm25,ppr-regex", "eval": "1", "a": "ppr-regex",
                                            "b": "bm25", "metric": "mrr"})
    metrics = next(d.value for d in at.dataframe if "hr@1" in getattr(d.value, "columns", []))
    assert set(metrics["retriever"]) == {"bm25", "ppr-regex"}
    # what each code ranks by, in words beside it (walk 22: Compare showed only codes)
    assert set(zip(metrics["retriever"], metrics["method"])) == {("bm25", "word match"), ("ppr-regex", "graph of names")}
    assert (at.selectbox(key="ci_a").value, at.selectbox(key="ci_b").value, at.selectbox(key="ci_metric").value) \
        == ("ppr-regex", "bm25", "mrr")
    assert at.session_state["evaluation_count"] == 1
    at.selectbox(key="ci_metric").set_value("hr@1").run()  # the user's change stands; the link asks no more
    assert at.session_state["evaluation_count"] == 1 and at.query_params["metric"] == "hr@1"


def test_the_compare_evaluation_is_a_job_a_click_does_not_lose_and_cancel_stops(monkeypatch):
    """Evaluation runs beside the page: a click elsewhere while it runs (here, k) reruns the page, which follows
    the same job and shows its result once over; Cancel stops the next one between two retrievers."""
    import threading

    import engine.evaluate.evaluate as evaluation

    gate = threading.Event()
    real = evaluation.run_queries

    def held(*args, **kwargs):  # the first retriever waits until the test lets it go
        gate.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluation, "run_queries", held)
    at = start("pages/compare.py", params={"retrievers": "bm25,ppr-regex"})  # built, waited for
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "0")  # follow the job, as a browser does, rather than wait for it
    at.button(key="run_eval").click().run()
    job = at.session_state["cmp_job"]
    assert not job.status().over and not any("hr@1" in getattr(d.value, "columns", []) for d in at.dataframe)
    assert not at.button(key="cmp_cancel").disabled
    at.number_input(key="cmp_k").set_value(3).run()  # a click while it runs: the same job, still followed
    assert at.session_state["cmp_job"] is job
    gate.set()
    assert job.wait(120)
    at.run()
    metrics = next(d.value for d in at.dataframe if "hr@1" in getattr(d.value, "columns", []))
    assert set(metrics["retriever"]) == {"bm25", "ppr-regex"} and at.session_state["evaluation_count"] == 1
    assert "cmp_job" not in at.session_state
    # another evaluation, cancelled while its first retriever runs: stopped before the second, and said so
    gate.clear()
    at.slider(key="cmp_alpha").set_value(0.3).run()
    at.button(key="run_eval").click().run()
    job = at.session_state["cmp_job"]
    at.button(key="cmp_cancel").click().run()
    gate.set()
    assert job.wait(120) and job.status().cancelled
    at.run()
    assert any("the evaluation was cancelled before ppr-regex" in w.value for w in at.warning)
    assert at.session_state["evaluation_count"] == 1 and not at.exception


def test_query_page_on_filings_opens_on_the_filings_retriever_and_corrects_the_scope(tmp_path):
    from tests.filingmaker import write_pdfs

    folder = write_pdfs(tmp_path / "room")
    (folder / "queries.jsonl").write_text(json.dumps({
        "id": "c19", "text": "What was Acme's capex in FY2019? Use the cash flow statement.", "kind": "metrics-generated",
        "gold": [{"doc": "ACME_2019_10K.pdf", "page": 5}], "answer": "$1,028 million"}) + "\n")
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params["corpus"] = "your own files"
    at.session_state["uploaded_corpus"] = (str(folder), "acme-room", "acme room", None)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="base_retriever").value == "filing-learned"  # a corpus of PDFs opens on it
    at.text_input(key="question").set_value("What was Acme's capex in FY2019? Use the cash flow statement.").run()
    assert not at.exception, at.exception
    # a labeled question's own fields (any kind, an answer) are kept and shown
    assert any(c.value == "Labeled question c19 (metrics\\-generated): answer: \\$1,028 million" for c in at.caption), \
        [c.value for c in at.caption][:5]
    scope = [i.value for i in at.info if i.value.startswith("**Scope as understood")]
    assert scope == ["**Scope as understood:** Acme Widgets · FY2019 · Statement of cash flows → Acme Widgets FY2019 "
                     "10\\-K. Correct it under “Scope” above."]  # markdown-escaped hyphen
    # the statement among the first two: on these seven-page synthetic filings the learned ranker reads a page's
    # place in the filing as a real 10-K's (page 5 of 7 is where notes sit) and may set the income statement above
    i = hit_ids(at).index("ACME_2019_10K.pdf#p5.0")
    assert i < 2 and {pid.split("#")[0] for pid in hit_ids(at)} == {"ACME_2019_10K.pdf"}
    # what it ranks is named as what it is: pages, one each (a walk-through read "Top 5 passages" over pages)
    assert f"Top {len(hit_ids(at))} pages · filing-learned" in [h.value for h in at.subheader]
    assert hit_lines(at)[i].startswith(f"**{i + 1}. Acme Widgets FY2019 10\\-K p\\.5** · score ")  # the filing and page
    typed = [m.value for m in at.markdown if m.value.startswith("**Where this page sits:**")]
    assert typed[i].startswith("**Where this page sits:** Acme Widgets › Acme Widgets FY2019 10\\-K › Statement of cash flows › "
                               "“Additions to property, plant and equipment” › page 5")
    # under each page's parts, which score orders the pages and what the walk's shares are of
    assert sum(c.value.startswith("The score above orders the pages. The graph search that found this page ranked it ")
               for c in at.caption) == len(hit_ids(at))
    # one verdict shown a page (#63 walk F6): the ranker's parts; the walk that found it in a fold of its own
    folds = [e for e in at.expander if e.label == "How the graph search found this page"]
    assert len(folds) == len(hit_ids(at))
    assert all(any(c.value.startswith("The score above orders the pages.") for c in f.caption) for f in folds)
    assert all(any(m.value.startswith("**Where this page sits:**") for m in f.markdown) for f in folds)
    cited = [c.value for c in at.caption if c.value.startswith("From ")]
    assert cited[i].startswith("From Acme Widgets FY2019 10\\-K, page 5 of ACME")  # by the filing, as the hit line
    # the user corrects the year: the other filing's statement answers, and the link keeps the correction
    at.selectbox(key="scope_year").set_value("2020").run()
    assert not at.exception, at.exception
    scope = [i.value for i in at.info if i.value.startswith("**Scope as understood")]
    assert scope[0].startswith("**Scope as understood (as you corrected it):** Acme Widgets · FY2020")
    # the corrected year's filing answers, its cash-flow statement among the first two, as above
    assert {pid.split("#")[0] for pid in hit_ids(at)} == {"ACME_2020_10K.pdf"}
    assert "ACME_2020_10K.pdf#p5.0" in hit_ids(at)[:2]
    assert at.query_params["fiscal_year"] == "2020"
    # a correction is for the question it corrected: a new question is read as written, and the page says so
    # (a walk-through's correction to PayPal answered the next questions, about FedEx and Walmart, from PayPal)
    at.selectbox(key="scope_company").set_value("Acme Widgets").run()
    # a period the room lacks, and a company it does not hold, are said where the scope is shown
    at.text_input(key="question").set_value("What was Acme's revenue in FY2018?").run()
    assert at.selectbox(key="scope_year").value == at.selectbox(key="scope_company").value == "as asked"
    assert "fiscal_year" not in at.query_params and "company" not in at.query_params
    assert any(c.value.startswith("Your scope corrections were for the last question") for c in at.caption)
    scope = [i.value for i in at.info if i.value.startswith("**Scope as understood")]
    assert "No Acme Widgets filing for FY2018; showing Acme Widgets FY2019 10\\-K, the nearest" in scope[0], scope
    at.text_input(key="question").set_value("What was Nike's capex in FY2019?").run()  # a company it lacks stops
    said = " ".join(e.value for e in [*at.info, *at.warning, *at.markdown] if isinstance(e.value, str))
    assert "“Nike” names no company of this data room, so no page of it answers" in said and hit_ids(at) == []
    assert not [e for e in at.expander if e.label.startswith("What if")]  # nothing to take out (a walk-through's minor)
    at.button(key="search_everywhere").click().run()  # the stop offers the search in one click, beside its words
    assert at.checkbox(key="scope_everywhere").value
    scope = [i.value for i in at.info if i.value.startswith("**Scope as understood")]
    assert "“Nike” names no company of this data room; searching every filing" in scope[0], scope
    at.text_input(key="question").set_value("What was Acme's revenue in FY2019?").run()  # nor does "every filing" stay
    assert not at.checkbox(key="scope_everywhere").value and "everywhere" not in at.query_params
    # two filings' rows of one name seed the walk: the seeds table says whose each is (a walk-through saw "Net income"
    # twice and could not tell them apart)
    at.text_input(key="question").set_value("What was Acme's net income in FY2019 and FY2020?").run()
    entities = list(at.dataframe[0].value["entity"])
    assert {"Net income (Acme Widgets FY2019 10-K)", "Net income (Acme Widgets FY2020 10-K)"} <= set(entities), entities


def watched(job):
    """Wait for a build the page started with a lease, renewing it as the page's fragment does in a browser (AppTest
    runs a fragment once): unwatched, it stops after the lease."""
    while not job.wait(0.5):
        job.touch()
    return job


def test_a_page_follows_a_build_that_takes_a_while_and_then_shows_its_results(monkeypatch, tmp_path):
    """Past PATHLENS_BUILD_WAIT_S a page follows its build with a fragment (Streamlit reruns it every second in
    a browser; AppTest runs it once), and once the build is over the page draws its results."""
    import time

    import streamlit as st

    import engine.indexing.index as index_module
    from engine.indexing.background import build_in_background
    from ui.builds import stages_for
    from ui.corpora import _bundled_index

    st.cache_resource.clear()  # a fresh index, not one another test built
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path))  # nothing on disk to read back at once
    tokenize = index_module.tokenize
    # the page's first stage (tokens, which its stand-in needs) takes a while, as a big room's does
    monkeypatch.setattr(index_module, "tokenize", lambda text: (time.sleep(0.02), tokenize(text))[1])
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "0")
    at = start()
    assert [s.label for s in at.status] == ["Building the index of dataroom-core (29 passages)…"]
    assert not hit_lines(at)
    job = watched(build_in_background(_bundled_index("dataroom-core"), stages_for(["hybrid-ner"])))
    assert job.status().error is None
    at.run()
    assert len(hit_lines(at)) == 5 and not at.exception


def test_a_toy_parameter_added_to_the_catalog_alone_is_a_flag_a_url_key_and_a_widget(monkeypatch, capsys):
    """One entry in the catalog's parameters and a retriever that reads it: the CLI has its flag, the Query page its
    widget, and its value goes into the link and comes back from it, under its one name."""
    from engine import catalog
    from engine.cli import main
    from engine.retrieve.retrievers import Answers, Hit, check_k

    class Scaled(Answers):  # the longest passages first, each score times the toy parameter
        name = "scaled"

        def __init__(self, index, scale):
            self.ids, self.texts, self.scale = index.ids, index.texts, scale

        def search(self, query, k):
            order = sorted(range(len(self.ids)), key=lambda i: (-len(self.texts[i]), i))[:check_k(k)]
            return tuple(Hit(self.ids[i], self.scale * len(self.texts[i]), r, self.name) for r, i in enumerate(order, 1))

        def explain_hits(self, query, passage_ids):
            return {}

    monkeypatch.setitem(catalog.PARAMS, "toy_scale", catalog.ParamSpec("toy_scale", "Toy scale", 2.0, 0.5, 8.0,
                                                                       "Toy: multiplies every score."))
    monkeypatch.setitem(catalog.CATALOG, "scaled", catalog.RetrieverSpec(
        "scaled", "lexical", "Toy: scores times the toy scale.", params=("toy_scale",),
        make=lambda make, config: Scaled(make.index, config.value("toy_scale"))))
    with pytest.raises(SystemExit):
        main(["query", "--help"])
    assert "--toy-scale TOY_SCALE" in capsys.readouterr().out
    assert main(["query", "--corpus", "dataroom-core", "--retriever", "scaled", "--toy-scale", "4", "--k", "1",
                 "anything", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)["hits"][0]
    assert main(["query", "--corpus", "dataroom-core", "--retriever", "scaled", "--k", "1", "anything", "--json"]) == 0
    assert one["score"] == pytest.approx(2 * json.loads(capsys.readouterr().out)["hits"][0]["score"])  # 4 against 2
    at = start(params={"retriever": "scaled", "toy_scale": "3"})
    widget = at.number_input(key="toy_scale")
    assert widget.label == "Toy scale" and widget.value == 3.0 and at.query_params["toy_scale"] == "3.0"
    widget.set_value(5.0).run()
    assert at.query_params["toy_scale"] == "5.0" and not at.exception
    from engine.indexing.index import Index

    longest = max(len(t) for t in Index(load_corpus("dataroom-core")).texts)
    assert float(re.search(r"· score ([\d.]+)", hit_lines(at)[0]).group(1)) == 5.0 * longest  # the widget's value


def test_the_first_question_s_build_is_said_as_work_to_come_or_as_none_left():
    from engine.indexing.compute import Work
    from ui.builds import still_to_build

    grown = Work("embeddings", 312, 4200, ("a.pdf", "b.pdf", "c.pdf"), ())
    assert still_to_build("filing", ["embeddings"], [grown]) == (
        "The regex graph below is ready. The Query page's default retriever, filing, still needs dense embeddings "
        "(all-MiniLM-L6-v2): its first question starts building them in the background, answered by filing-graph "
        "meanwhile (3 new documents: 312 passages to encode; 4,200 unchanged, kept from earlier builds).")
    kept = Work("embeddings", 0, 7, (), ())  # a room of files whose passages earlier builds encoded, put together anew
    assert still_to_build("filing", ["embeddings"], [kept]) == (
        "The regex graph below is ready. The Query page's default retriever, filing, also uses dense embeddings "
        "(all-MiniLM-L6-v2): nothing is left to compute (all 7 passages encoded by earlier builds), so its first "
        "question only gathers them.")


def test_the_corpus_page_says_what_the_first_question_will_still_build(monkeypatch, tmp_path):
    import streamlit as st

    st.cache_resource.clear()  # a fresh index over an empty disk cache: nothing built yet
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path))
    at = start("pages/corpus.py", params={"q": "?!"})  # the Query page it passes through asks nothing it can search
    notes = [i.value for i in at.info if i.value.startswith("The regex graph below is ready.")]
    assert notes == ["The regex graph below is ready. The Query page's default retriever, hybrid-ner, still needs "
                     "dense embeddings (all-MiniLM-L6-v2) and entity extraction (spaCy NER): its first question starts "
                     "building them in the background, answered by bm25 meanwhile (29 passages to encode; 29 "
                     "passages to read for names (NER))."]
    at.switch_page("pages/query.py").run()
    at.text_input(key="question").set_value("Who is the CFO of Brightwater Logistics?").run()
    assert len(hit_lines(at)) == 5  # the first question builds them…
    at.switch_page("pages/corpus.py").run()  # …and the Corpus page no longer promises them
    assert not [i.value for i in at.info if i.value.startswith("The regex graph below is ready.")]


def test_the_corpus_page_starts_again_a_build_this_tab_followed_that_stopped_for_want_of_its_lease(monkeypatch,
                                                                                                    tmp_path):
    """A walk-through's room stood still on the Corpus page for 9.5 minutes: a late rerun let the lease of the Query
    page's build lapse, and only the Query page started it again."""
    import streamlit as st

    from engine.indexing.background import build_in_background, running, stopped
    from ui.builds import FOLLOWED
    from ui.corpora import _bundled_index

    st.cache_resource.clear()
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path))
    at = start("pages/corpus.py", params={"q": "?!"})  # the Query page it passes through builds no embeddings
    index = _bundled_index("dataroom-core")  # the index the pages hold (one per process)
    lapsed = build_in_background(index, ["embeddings"], lease=0.001)  # nobody renews it: it stops at once
    assert lapsed.wait(120) and lapsed.status().cancelled
    at.session_state[FOLLOWED] = [lapsed]  # as a question's build left it
    at.run()
    assert not at.exception, at.exception
    assert stopped(index, (lapsed,)) == ()  # started again…
    again = build_in_background(index, ["embeddings"])
    assert again is not lapsed and (again in running(index) or again.wait(0))  # …and running or done
    for _ in range(240):  # watched, as the page's fragment watches it: its lease never lapses on a loaded machine
        again.touch()
        if again.wait(0.5):
            break
    assert again.status().over and again.status().error is None


def test_the_corpus_page_says_a_build_under_way_is_being_built_not_that_a_question_will_start_it(monkeypatch,
                                                                                                  tmp_path):
    """A walk-through read "its first question starts building them in the background" on the Corpus page while its
    first question's build ran."""
    import streamlit as st

    import engine.indexing.background as background
    from engine.indexing.index import Index
    from tests.test_build import _HeldCompute, make_corpus

    st.cache_resource.clear()
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path))
    compute = _HeldCompute()  # a build of dense embeddings held in flight
    held = background.build_in_background(Index(make_corpus(["alpha beta", "gamma delta"]), compute=compute),
                                          ["embeddings"])
    assert compute.started.wait(10)
    monkeypatch.setattr(background, "running", lambda index: (held,))
    try:
        at = start("pages/corpus.py", params={"q": "?!"})
        notes = [i.value for i in at.info if i.value.startswith("The regex graph below is ready.")]
        assert notes == ["The regex graph below is ready. The Query page's default retriever, hybrid-ner, still needs "
                         "dense embeddings (all-MiniLM-L6-v2) and entity extraction (spaCy NER): they are being built "
                         "now, as the Index build above shows."], notes
    finally:
        compute.release.set()


def _grown_room(monkeypatch, tmp_path):
    """The data room's index over a cache that has NER parts of 20 of its 29 passages, from an earlier build."""
    import streamlit as st

    from engine.indexing.index import Index
    from engine.ingest.corpus import Corpus, load_corpus
    from engine.store.cache import DiskCache

    room = load_corpus("dataroom-core")
    Index(Corpus("earlier", room.passages[:20], ()), cache=DiskCache(tmp_path)).build("extraction:ner")
    st.cache_resource.clear()
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path))
    return room


def test_a_grown_room_says_what_its_build_will_compute_before_it_starts(monkeypatch, tmp_path):
    from engine.indexing.background import build_in_background
    from ui.corpora import _bundled_index

    room = _grown_room(monkeypatch, tmp_path)
    _bundled_index("dataroom-core").build_stages(["tokens", "extraction:regex", "graph:regex"])  # seconds, as a user has
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "0")  # the page draws while its build runs
    # the ner graph, asked for: the Query page it passes through builds nothing
    at = start("pages/corpus.py", params={"q": "?!", "builder": "ner"})
    new_docs = len({p.doc_id for p in room.passages[20:]} - {p.doc_id for p in room.passages[:20]})
    changed = len({p.doc_id for p in room.passages[20:]} & {p.doc_id for p in room.passages[:20]})
    plan = [m.value for m in at.markdown if m.value.startswith("Still to come: entity extraction (spaCy NER)")]
    assert plan == ["Still to come: entity extraction (spaCy NER) — "
                    + " and ".join([f"{new_docs} new documents"] * bool(new_docs) + [f"{changed} changed"] * bool(changed))
                    + ": 9 passages to read for names (NER); 20 unchanged, kept from earlier builds"]
    # the box says it is still at work: a spinner, not the check mark of a finished build
    box = [b for b in at.get("status") if b.label.startswith("Building the index of dataroom-core")]
    assert len(box) == 1 and (box[0].state, box[0].icon) == ("running", "spinner"), [(b.state, b.icon) for b in box]
    index = _bundled_index("dataroom-core")
    job = watched(build_in_background(index, ["extraction:regex", "graph:regex", "extraction:ner", "graph:ner"]))
    assert job.status().error is None and index.computed["extraction:ner"] == 9  # spaCy read the 9 only


def test_a_grown_room_says_what_its_build_computed_and_kept(monkeypatch, tmp_path):
    _grown_room(monkeypatch, tmp_path)
    at = start("pages/corpus.py", params={"q": "?!", "builder": "ner"})  # its build is over within this run
    done = [m.value for m in at.markdown if m.value.startswith("✓ entity extraction (spaCy NER) in ")]
    assert len(done) == 1 and done[0].endswith("(9 passages read, 20 kept from earlier builds)")
    assert not at.exception and at.dataframe  # the graphs' tables


def test_the_query_view_is_the_same_after_a_visit_to_another_page():
    at = start(params={"retriever": "ppr-regex", "k": "3", "alpha": "0.3"})
    at.text_input(key="question").set_value("Who is the CFO of Brightwater Logistics?").run()
    before = hit_lines(at)
    at.switch_page("pages/corpus.py").run()
    at.switch_page("pages/query.py").run()
    assert (at.selectbox(key="base_retriever").value, at.number_input(key="k").value, at.slider(key="alpha").value) \
        == ("ppr-regex", 3, 0.3)
    assert at.text_input(key="question").value == "Who is the CFO of Brightwater Logistics?"
    assert [line.removesuffix(" · same rank") for line in hit_lines(at)] == before  # the same hits, each at its rank


def test_a_link_to_uploads_that_names_no_files_asks_for_documents_and_keeps_the_view():
    at = AppTest.from_file(APP, default_timeout=120)
    q = "What was Acme's capex in FY2019?"
    for key, value in {"corpus": "your own files", "q": q, "retriever": "filing", "k": "3"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    told = [i.value for i in at.info if i.value.startswith("Upload documents in the sidebar: ")]
    assert told and not hit_lines(at)
    assert at.query_params["q"] == q and at.query_params["retriever"] == "filing" and at.query_params["k"] == "3"
    # uploads are the corpus: the Corpus page points to the sidebar's uploader rather than drawing a second one
    at.switch_page("pages/corpus.py").run()
    assert not at.exception
    assert [u.proto.label for u in at.get("file_uploader")] == [
        "Documents: PDF, Word, HTML, text, a .zip of them, or .jsonl passages",
        "Labeled questions (queries.jsonl, optional)"]
    assert "Your uploaded files are the corpus of every page: add or replace them in the sidebar." in [
        c.value for c in at.caption]
    # on a bundled corpus the page has an uploader of its own, and the sidebar none
    at.selectbox(key="corpus_choice").set_value("dataroom-core").run()
    assert [u.proto.label for u in at.get("file_uploader")] == [
        "Add your own documents: PDF, Word, HTML, text, a .zip of them, or .jsonl passages"]


def test_a_k_past_the_corpus_says_so_and_shows_every_passage():
    at = start(params={"retriever": "bm25", "k": "40", "q": "Who is the CFO of Brightwater Logistics?"})
    assert [i.value for i in at.info if i.value.startswith("k = 40")] == [
        "k = 40 is larger than the corpus (29 passages): every passage the retriever ranks is shown."]
    # bm25 ranks the passages that share a word with the question: all of them are shown, none past them
    from engine.indexing.index import Index

    ranked = Index(load_corpus("dataroom-core")).retriever("bm25").search("Who is the CFO of Brightwater Logistics?", 40)
    assert 0 < len(ranked) == len(hit_lines(at)) <= 29


def test_the_query_page_says_how_exact_a_walk_by_push_is(monkeypatch):
    """A graph past push.LOCAL_FROM_EDGES is walked by push; the page says so, with its bound, under the graph
    (here the threshold is lowered so that the data room's graph counts as big)."""
    import engine.retrieve.graph_retriever as gr

    monkeypatch.setattr(gr, "LOCAL_FROM_EDGES", 0)
    at = start(params={"retriever": "ppr-regex", "q": "Who manages Juniper Peak Growth Fund II?"})
    said = [c.value for c in at.caption if c.value.startswith("This graph is large, so the walk ran locally")]
    assert len(said) == 1, [c.value for c in at.caption]
    # on this question the push leaves nothing that could reach the hits (the bound's other wording is pinned by
    # tests/test_reasons.py's hand values)
    assert said[0].endswith("Every score shown is exact: nothing it left behind can reach these passages.")
    assert len(hit_lines(at)) == 5
    monkeypatch.setattr(gr, "LOCAL_FROM_EDGES", 10**12)
    at.run()
    assert not [c for c in at.caption if c.value.startswith("This graph is large")]


def test_each_hit_leads_with_its_reason_and_ends_with_its_source_and_id():
    at = start()  # the demo question, on a graph retriever
    lines = [(n.type, n.value) for n in at.main if n.type in ("markdown", "caption")]
    heads = [i for i, (t, v) in enumerate(lines) if t == "markdown" and re.match(r"^\*\*\d+\. ", v) and "** · score " in v]
    assert len(heads) >= 2
    hit = lines[heads[0] + 1:heads[1]]
    assert not hit[0][1].startswith("From ") and hit[0][1].startswith("Its score"), hit[:2]
    assert hit[-1][0] == "caption" and hit[-1][1].startswith("From ") and " · passage `" in hit[-1][1], hit[-2:]


def test_an_uploaded_room_of_filings_offers_three_questions_and_forgets_one_the_user_types_over(tmp_path):
    from tests.filingmaker import write_pdfs

    at = uploaded(write_pdfs(tmp_path / "room"), "acme-offers", "acme room")  # no queries.jsonl: nothing labeled
    menu = at.selectbox(key="example")
    assert menu.label == "Questions to start with"
    # the room opens on a prompt, not on a warning that the question is empty
    assert not at.warning and "Type a question, or pick one under “Questions to start with”." in [
        i.value for i in at.info]
    # what an analyst asks of each: a figure, not "what does the balance sheet show"; the possessive of a name in s
    assert menu.options == ["—", "suggested · What was Acme Widgets' revenue in FY2020?",
                            "suggested · What were Acme Widgets' total assets at the end of FY2020, according to its "
                            "10-K?",
                            "suggested · What does Note 8 — Long-Term Debt in Acme Widgets' FY2020 10-K say?"]
    menu.set_value(menu.options[2]).run()
    assert not at.exception, at.exception
    assert at.text_input(key="question").value == ("What were Acme Widgets' total assets at the end of FY2020, "
                                                   "according to its 10-K?")
    assert hit_ids(at)[0] == "ACME_2020_10K.pdf#p4.0"  # the balance sheet
    # the user types a question of their own: the menu no longer names the example
    at.text_input(key="question").set_value("What was Acme's capex in FY2019?").run()
    assert at.selectbox(key="example").value == "—"


def test_a_file_with_one_blank_page_in_twenty_is_offered_from(tmp_path):
    """Two blank pages of Walmart's 215-page 10-K kept it out of every offer, and a room of three filings was offered
    one question (a walk-through): a blank or image-only page is not damage."""
    from tests.filingmaker import filing_pages, write_pdfs
    from tests.pdfmaker import make_pdf, text_page

    folder = write_pdfs(tmp_path / "room")
    pages = [text_page(*page.replace("—", "-").split("\n")) for page in filing_pages(2020, 1_119)]
    words = "alder birch cedar dogwood elm fir ginkgo hazel ilex juniper larch maple nutmeg oak pine quince rowan spruce"
    filler = [text_page(f"The {w.title()} plant makes {w} widgets for {w} growers.", f"Sales of {w} kits rose.")
              for w in words.split()]
    (folder / "ACME_2020_10K.pdf").write_bytes(make_pdf(pages + filler + [[]]))  # 1 page of 26 has no text
    at = uploaded(folder, "acme-blank-page-offers", "acme room")
    offered = at.selectbox(key="example").options[1:]
    assert any("FY2020" in o for o in offered), offered


def test_a_file_read_only_in_part_is_not_offered_from(tmp_path):
    """A walk-through was offered a question made from a damaged file's page (#63): a file with a page left out
    is offered from only when nothing else is."""
    from tests.filingmaker import filing_pages, write_pdfs
    from tests.pdfmaker import make_pdf, text_page

    folder = write_pdfs(tmp_path / "room")
    pages = [text_page(*page.replace("—", "-").split("\n")) for page in filing_pages(2020, 1_119)]
    (folder / "ACME_2020_10K.pdf").write_bytes(make_pdf(pages[:3] + [[]] + pages[3:]))  # page 4 has no text
    at = uploaded(folder, "acme-damaged-offers", "acme room")
    offered = at.selectbox(key="example").options[1:]
    assert offered and all("FY2019" in o for o in offered), offered
    # and the page the files were brought on says what was left out, and why (#63 walk-through): a page of a file
    # that was read in a note, not in the warning a file left out whole gets
    said = [re.sub(r"\\(.)", r"\1", c.value) for c in at.caption]  # as the page shows the escaped markdown
    said = [s for s in said if s.startswith("Not searched: ")]
    assert said == ["Not searched: ACME_2020_10K.pdf: no extractable text on page 4 of 8 (scanned or image-only pages are "
                    "skipped). The rest of each file is."], said
    assert not [w.value for w in at.warning if "Left out" in w.value]
    # the Corpus page gives each reason whole, in a sentence: a table's cell cut it off (three walk-throughs)
    at.switch_page("pages/corpus.py").run()
    assert not at.exception, at.exception
    assert "Left out" in [h.value for h in at.subheader]
    assert ("- **ACME\\_2020\\_10K\\.pdf**: no extractable text on page 4 of 8 \\(scanned or image\\-only pages are "
            "skipped\\)") in [m.value for m in at.markdown], [m.value for m in at.markdown if "ACME" in m.value]


def test_a_rooms_build_box_says_how_many_of_its_files_were_left_out(tmp_path):
    """A walk-through read "Index of 4 uploaded files ready" of a room whose damaged fourth file was refused."""
    from tests.filingmaker import write_pdfs

    folder = write_pdfs(tmp_path / "room")
    (folder / "BROKEN.pdf").write_bytes(b"%PDF-1.4\n1 0 obj garbage")
    at = uploaded(folder, "acme-broken-label", "3 uploaded files", q="What were Acme net sales in FY2020?")
    labels = [s.label for s in at.status]
    assert labels and all(lb.startswith("Index of 3 uploaded files (1 left out: see the sidebar)") for lb in labels), labels
    assert any("BROKEN.pdf" in w.value for w in at.sidebar.warning)


def test_the_labeled_examples_menu_forgets_its_example_once_the_user_types_another_question():
    at = start()
    assert at.selectbox(key="example").value != "—"  # the page opened on a labeled example
    at.text_input(key="question").set_value("Who audits Solano Foods?").run()
    assert at.selectbox(key="example").value == "—"


def test_a_link_to_a_view_of_uploaded_files_asks_for_them_and_never_answers_from_another_corpus(tmp_path):
    from engine.explain.report import uploaded_files
    from tests.filingmaker import write_pdfs

    folder = write_pdfs(tmp_path / "room")
    files = uploaded_files(folder)
    q = "What was Acme's capex in FY2019? Use the cash flow statement."
    at = AppTest.from_file(APP, default_timeout=240)
    for key, value in {"corpus": "your own files", "files": ";".join(f.token() for f in files), "q": q,
                       "retriever": "filing", "k": "3"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    said = " ".join(i.value for i in at.info)
    assert "This link shows a view of uploaded files" in said and "- ACME\\_2019\\_10K\\.pdf \\(5" in said, said
    assert not hit_lines(at) and not at.warning  # nothing was answered, from this corpus or any other
    # the files are added: the link's question, retriever and k come back
    at.session_state["uploaded_corpus"] = (str(folder), "acme-link", "acme room", None)
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="question").value == q and at.selectbox(key="base_retriever").value == "filing"
    assert hit_ids(at)[0] == "ACME_2019_10K.pdf#p5.0" and len(hit_lines(at)) == 3
    assert at.query_params["files"] == ";".join(f.token() for f in files)  # a copied link names them again


def test_choosing_to_upload_in_ones_own_session_asks_for_documents_not_for_another_sessions_files():
    at = start()  # the data room's opening view: its question is in the URL
    at.sidebar.selectbox(key="corpus_choice").set_value("your own files").run()
    said = " ".join(i.value for i in at.info)
    assert said.startswith("Upload documents in the sidebar") and "another session" not in said, said


def uploaded(folder, key: str, name: str, timeout: int = 240, **params) -> AppTest:
    """The app over `folder` as this session's uploaded files (`key` their digest, `name` the room's), with these
    link parameters, run once."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params["corpus"] = "your own files"
    for k, v in params.items():
        at.query_params[k] = v
    at.session_state["uploaded_corpus"] = (str(folder), key, name, None)
    at.run()
    assert not at.exception, at.exception
    return at


def acme_room(tmp_path, key: str, **params) -> AppTest:
    """The app over an uploaded room of two hand-made filings (tests.filingmaker), run once."""
    from tests.filingmaker import write_pdfs

    return uploaded(write_pdfs(tmp_path / "room"), key, "acme room", **params)


def test_the_sidebar_names_the_uploaded_files_whole(tmp_path):
    at = acme_room(tmp_path, "acme-names")
    assert "Files: ACME\\_2019\\_10K\\.pdf \\(5\\.8 kB\\); ACME\\_2020\\_10K\\.pdf \\(5\\.8 kB\\)" in [
        c.value for c in at.sidebar.caption]


def test_the_scope_names_an_earnings_release_as_a_form_and_mcdonalds_by_its_name(tmp_path):
    import shutil

    shared = ROOT.parent / "shared" / "data" / "filings"
    if not shared.is_dir():
        pytest.skip(f"{shared} is absent: the shared filings lie beside the checkout in CI")
    room = tmp_path / "room"
    room.mkdir()
    for name in ("MCDONALDS_2023Q1_EARNINGS.pdf", "SALESFORCE_2021_8K_dated-2021-07-21.pdf"):  # 4 + 13 pages: a quick build
        shutil.copy(shared / name, room / name)
    at = uploaded(room, "mcd-crm", "2 uploaded files", timeout=300, q="What was McDonald's revenue in Q1 2023?")
    assert "earnings release" in at.selectbox(key="scope_form").options  # a release is a form the scope names
    scope = [i.value for i in at.info if i.value.startswith("**Scope as understood")]
    assert scope and scope[0].startswith("**Scope as understood:** McDonald's · Q1 FY2023"), scope
    assert hit_lines(at)[0].startswith("**1. McDonald's Q1 FY2023 earnings release p\\."), hit_lines(at)[:1]


def test_the_corpus_page_says_who_filed_each_filing_and_where_it_read_it(tmp_path):
    at = acme_room(tmp_path, "acme-who")
    at.switch_page("pages/corpus.py").run()
    assert not at.exception, at.exception
    assert "Who filed each" in [s.value for s in at.subheader]
    frames = [getattr(d.value, "data", d.value) for d in at.dataframe]
    who = next(f for f in frames if "names it answers to" in getattr(f, "columns", []))
    row = who[who["document"] == "ACME_2019_10K.pdf"].iloc[0]
    assert (row["company"], row["form"], row["fiscal year"], row["period end"], row["quarter"]) == (
        "Acme Widgets", "10-K", 2019, "2019-05-31", "—")  # no quarter: a dash, not "None" (#63 walk-through)
    # where each field was read, a row a field: nothing cut off in a column a sentence wide (#63 walk-through)
    where = next(f for f in frames if list(getattr(f, "columns", [])) == ["document", "field", "page", "rule"])
    form = where[(where["document"] == "ACME_2019_10K.pdf") & (where["field"] == "form")].iloc[0]
    assert (form["page"], form["rule"]) == (1, "cover: FORM 10-K")
    # the Documents table names a filing as its hits do, not by its file name (#63 walk-through)
    documents = next(f for f in frames if list(getattr(f, "columns", []))[:2] == ["document", "title"])
    assert documents[documents["document"] == "ACME_2019_10K.pdf"].iloc[0]["title"] == "Acme Widgets FY2019 10-K"
    # the long cells drawn wide: "pge, pgne, pacificgasandelectric, …" and a cover's sentence were cut (walk 12)
    configs = [json.loads(d.proto.columns or "{}") for d in at.dataframe]
    who_config = next(c for c in configs if "names it answers to" in c)
    where_config = configs[configs.index(who_config) + 1]  # the table under it: where each field was read
    assert who_config["names it answers to"].get("width") == where_config["rule"].get("width") == "large", configs


def test_a_question_about_a_company_the_room_lacks_stops_and_offers_the_room(tmp_path):
    at = acme_room(tmp_path, "acme-tesla", retriever="filing", q="What was Tesla's revenue in 2022?")
    said = " ".join(e.value for e in [*at.info, *at.warning, *at.error, *at.markdown] if isinstance(e.value, str))
    assert "“Tesla” names no company of this data room, so no page of it answers" in said, said[:600]
    assert "The room holds filings of Acme Widgets" in said
    assert hit_lines(at) == []
    at.checkbox(key="scope_everywhere").check().run()  # asked to search everything, it answers, and says so
    assert not at.exception, at.exception
    assert hit_lines(at)
    assert at.query_params["everywhere"] in ("1", ["1"])


def _compare_on_room(folder, room_id: str, question: str) -> AppTest:
    """The Compare page over an uploaded room of PDFs, bm25 beside filing-graph at k = 3, opened from a question."""
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params.update({"corpus": "your own files", "retrievers": "bm25,filing-graph", "k": "3", "q": question})
    at.session_state["uploaded_corpus"] = (str(folder), room_id, "acme room", None)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    return at


def test_compare_shows_two_retrievers_top_pages_side_by_side_for_a_room_of_pdfs(tmp_path):
    from tests.filingmaker import write_pdfs

    at = _compare_on_room(write_pdfs(tmp_path / "room"), "acme-room",
                          "What was Acme's capex in FY2019? Use the cash flow statement.")
    assert any(m.value == "**Their top pages side by side**" for m in at.markdown), [m.value for m in at.markdown]
    # the room's own filings retriever first, whichever order the list gives (it defaulted to bm25 before)
    assert (at.selectbox(key="cmp_pages_a").value, at.selectbox(key="cmp_pages_b").value) == ("filing-graph", "bm25")
    said = [c.value.replace("\\", "") for c in at.caption if "'s first hit cites " in c.value]
    assert said[0].startswith("filing-graph's first hit cites ACME_2019_10K.pdf page 5; then p.") and len(said) == 2
    assert re.match(r".*?; then p\.\d+(?: of \S+)? \(#2(?:, #\d)*(?: and #\d)?\)", said[0]), said[0]
    for line in said:  # a page two of its passages cite is named once, with both ranks in words
        pages = re.findall(r"(p\.\d+(?: of \S+)?) \(#\d+(?:(?:, | and )#\d+)*\)", line)
        assert len(pages) == len(set(pages)) and not re.search(r"#\d+ #\d+", line), line
    assert sum(type(e).__name__ == "Image" for e in _all(at.main)) == 2  # each column's page
    # the two lists agree by page: a page each cites counts once, whichever part of it each cites (a walk-through read
    # "Elsewhere: filing-learned –" beside p.65, filing-learned's #1)
    assert "Overlap of the top 3 (pages in common)" in [c.value for c in at.caption]
    overlap = next(d.value for d in at.dataframe if list(getattr(d.value, "columns", [])) == ["bm25", "filing-graph"])
    assert overlap.loc["bm25", "filing-graph"] == 1  # p.3 of the 2019 10-K, in both lists
    assert [c.value for c in at.caption if c.value.startswith("Elsewhere")] == [
        "Elsewhere: filing-graph –", "Elsewhere: filing-graph –", "Elsewhere: filing-graph #2", "Elsewhere: bm25 –",
        "Elsewhere: bm25 #3", "Elsewhere: bm25 –"]
    keys = [h.proto.body for h in at.get("html") if "marks-key" in h.proto.body and "<style>" not in h.proto.body]
    assert len(keys) == 2 and all("the passage the hit cites" in k for k in keys)
    # another pair: the columns follow, nothing else reruns (a fragment)
    at.selectbox(key="cmp_pages_a").set_value("bm25").run()
    said = [c.value.replace("\\", "") for c in at.caption if "'s first hit cites " in c.value]
    assert said[0].startswith("bm25's first hit cites ") and not at.exception


def _all(block):
    for child in getattr(block, "children", {}).values():
        yield child
        yield from _all(child)


@pytest.mark.parametrize("page", [None, "pages/corpus.py", "pages/benchmarks.py"])
def test_every_page_says_its_address_is_its_link_and_why_a_console_shows_two_404s(page):
    from ui.frame import LINK_WORDS, PROBE_WORDS

    at = start(page, {"corpus": "dataroom-core"})
    said = [c for c in at.sidebar.caption if c.value == LINK_WORDS]
    assert len(said) == 1 and said[0].proto.help == PROBE_WORDS
    assert "two 404 errors" in PROBE_WORDS and "streamlit/streamlit#7074" in PROBE_WORDS


def test_compare_on_a_room_of_filings_lists_the_filings_retrievers_and_the_query_pages_question(tmp_path):
    from tests.filingmaker import write_pdfs

    folder = write_pdfs(tmp_path / "room")
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params["corpus"] = "your own files"
    at.session_state["uploaded_corpus"] = (str(folder), "acme-room", "acme room", None)
    at.run()
    asked = "What was Acme's capex in FY2020?"
    at.text_input(key="question").set_value(asked).run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    # the retriever the Query page answers with is among those compared, and so is the question it was asked
    assert at.multiselect(key="cmp_retrievers").value == ["bm25", "dense", "hybrid-regex", "filing-graph", "filing",
                                                         "filing-learned"]
    assert at.text_input(key="cmp_question").value == asked


def test_a_link_naming_uploads_by_the_pickers_earlier_wording_still_opens_on_them():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["corpus"] = "upload a corpus file"
    at.query_params["q"] = "What was Acme's capex in FY2019?"
    at.run()
    assert not at.exception and not at.sidebar.warning  # not 'Unknown corpus'
    assert at.sidebar.selectbox(key="corpus_choice").value == "your own files"
    assert at.query_params["corpus"] == "your own files"
    assert [i.value for i in at.info if i.value.startswith("Upload documents in the sidebar: ")]


def test_a_word_the_graph_lacks_is_said_once():
    at = start(params={"retriever": "hybrid-ner", "q": "Who is the CFO of Brightwater Logistics?"})
    said = [i.value for i in at.info if i.value.startswith("Words of the question that no entity seed covers")]
    assert len(said) == 1 and ": cfo." in said[0], said
    assert not [c.value for c in at.caption if c.value.startswith("Names in the question that are not in the graph")]


def test_compare_keeps_its_choices_across_pages_and_takes_another_corpuss_own_defaults(tmp_path):
    """A walk-through found Compare (a) open with no retrievers, no question and k = 1 after a visit to other pages,
    and (b) carry the data room's question and retrievers onto an upload, from the link (#63)."""
    room = tmp_path / "room"
    room.mkdir()
    (room / "memo.txt").write_text("Calder Bank lends to Brightwater Logistics.\n\nIts CFO is Elliot Park.")
    at = start("pages/compare.py")
    at.multiselect(key="cmp_retrievers").set_value(["bm25", "dense"]).run()
    at.text_input(key="cmp_question").set_value("Who lends to Brightwater Logistics?").run()
    at.number_input(key="cmp_k").set_value(3).run()
    at.switch_page("pages/corpus.py").run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert at.multiselect(key="cmp_retrievers").value == ["bm25", "dense"]
    assert at.text_input(key="cmp_question").value == "Who lends to Brightwater Logistics?"
    assert at.number_input(key="cmp_k").value == 3
    # another corpus: its own defaults, not the link's retrievers and question of the one before
    at.session_state["uploaded_corpus"] = (str(room), "memo-room", "memo", None)
    at.selectbox(key="corpus_choice").set_value("your own files").run()
    assert not at.exception, at.exception
    assert at.multiselect(key="cmp_retrievers").value == ["bm25", "dense", "ppr-ner", "hybrid-ner", "rrf"]
    assert at.text_input(key="cmp_question").value != "Who lends to Brightwater Logistics?"
    assert at.number_input(key="cmp_k").value == 5


def test_uploads_none_of_which_can_be_read_are_named_as_the_users_files(tmp_path):
    """A text file renamed .pdf, uploaded alone: the error named the upload folder ("docs-b0bf6cb4…: nothing to build
    from"), a name the user never gave (third walk-through); it names the upload as the sidebar does (its stem)."""
    from engine.errors import PathLensError
    from ui.corpora import _read_upload

    folder = tmp_path / "docs-0123456789abcdef"
    folder.mkdir()
    (folder / "notes.pdf").write_text("These are plain notes, not a PDF.", "utf-8")
    with pytest.raises(PathLensError) as raised:
        _read_upload(str(folder), "notes", None, lambda *a: None)
    said = str(raised.value)
    assert said.startswith("notes: nothing to build from (notes.pdf") and "docs-" not in said, said


def test_the_query_view_comes_back_after_streamlit_drops_its_widgets_state():
    """A walk-through left the Query page for the Corpus page while an upload built and came back to every widget at
    its first option or minimum (bm25, one passage, α 0.01, no question), which its next answers used without a
    word. Here Streamlit's dropping of the widgets' state is done by hand, on another page: the view comes back
    whole, and a view read afresh (another corpus's) starts from its defaults, not from the kept copy."""
    at = AppTest.from_file(APP, default_timeout=240)
    at.run()
    at.selectbox(key="base_retriever").set_value("ppr-regex").run()
    at.number_input(key="k").set_value(7).run()
    at.slider(key="alpha").set_value(0.3).run()
    at.text_input(key="question").set_value("Who leases the Joliet facility?").run()
    at.switch_page("pages/corpus.py").run()
    for key in ("base_retriever", "k", "alpha", "question", "vocabulary", "iterations"):
        del at.session_state[key]
    at.switch_page("pages/query.py").run()
    assert not at.exception, at.exception
    assert (at.selectbox(key="base_retriever").value, at.number_input(key="k").value, at.slider(key="alpha").value,
            at.text_input(key="question").value, at.number_input(key="iterations").value) == (
        "ppr-regex", 7, 0.3, "Who leases the Joliet facility?", 20)
    assert at.query_params["retriever"] in ("ppr-regex", ["ppr-regex"]) and "seeding" not in at.query_params
    # a view read for another corpus (the page reads its link and defaults afresh) takes nothing from the kept copy
    at.session_state["query_state_for"] = "another corpus"
    at.run()
    assert at.number_input(key="k").value == 5 and at.slider(key="alpha").value == 0.15
    assert at.text_input(key="question").value != "Who leases the Joliet facility?"


def _seeded_widgets() -> None:
    import streamlit as st

    from ui.url_state import seed_from_url

    seed_from_url("picked", "picked", ["a", "b"], bool)
    runs = st.session_state.get("runs", 0)
    st.session_state["runs"] = runs + 1
    # its identity changes on the second run, as every widget's does when Streamlit's page hash changes
    picked = st.multiselect("Picked", ["a", "b", "c"], key="picked", max_selections=3 if runs == 0 else 2)
    st.write(f"picked: {picked}")


def test_a_seeded_widget_keeps_its_value_when_streamlit_changes_its_identity():
    """A sweep under load showed "choose at least one retriever" and 0 resamples: the values were still in the
    session, under the widgets' old identity, and the widgets drew their defaults. Each run hands a seeded value back
    to the session, so a widget whose identity changed keeps it."""
    at = AppTest.from_function(_seeded_widgets, default_timeout=60).run()
    assert at.markdown[0].value == "picked: ['a', 'b']"
    at.run()
    assert at.markdown[0].value == "picked: ['a', 'b']" and not at.exception
    at.multiselect[0].set_value(["c"]).run()  # the user's own choice still stands
    at.run()
    assert at.markdown[0].value == "picked: ['c']"


def test_compare_on_an_uploaded_room_links_each_question_to_it_and_invents_no_kind(tmp_path):
    """A walk-through's majors: Compare's "open in Query" named the room "2 uploaded files", a name no link is read
    by, so the Query page answered from the bundled data room; and questions given no kind were all "multi-hop"."""
    from urllib.parse import parse_qs, urlparse

    from tests.filingmaker import write_pdfs

    questions = tmp_path / "queries.jsonl"
    questions.write_text("\n".join(json.dumps({"id": f"q{y}", "text": f"What was Acme's capex in FY{y}?",
                                               "gold": [{"doc": f"ACME_{y}_10K.pdf", "page": 5}]})
                                   for y in (2019, 2020)), encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params["corpus"] = "your own files"
    at.session_state["uploaded_corpus"] = (str(write_pdfs(tmp_path / "room")), "acme-compare", "acme room",
                                           str(questions))
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    at.multiselect(key="cmp_retrievers").set_value(["bm25", "filing"]).run()
    at.button(key="run_eval").click().run()
    assert not at.exception, at.exception
    metrics = next(d.value for d in at.dataframe if "hr@1" in getattr(d.value, "columns", []))
    assert set(metrics["kind"]) == {"all"}  # no group named for questions the file gives no kind
    assert any(w.value.startswith("Only 2 questions to resample: the interval and P(Δ ≤ 0) can take few values")
               for w in at.warning), [w.value for w in at.warning]
    per = next(d.value for d in at.dataframe if "open" in getattr(d.value, "columns", []))
    assert set(per["kind"]) == {"unlabeled"}
    link = parse_qs(urlparse(per["open"][0]).query)
    assert link["corpus"] == ["your own files"] and link["q"] == ["What was Acme's capex in FY2019?"]
    assert [f.split(":")[0] for f in link["files"][0].split(";")] == ["ACME_2019_10K.pdf", "ACME_2020_10K.pdf"]
    # a company the room lacks stops filing; bm25's column says it read the words alone (a walk-through's minor)
    at.text_input(key="cmp_question").set_value("What was Nike's capex in FY2019?").run()
    assert any("“Nike” names no company of this data room" in e.value for e in at.error)
    assert ("It reads the question's words, not the company it names: these are any filer's pages."
            in [c.value for c in at.caption])
    at.text_input(key="cmp_question").set_value("What was Acme's capex in FY2019?").run()
    assert not any(c.value.startswith("It reads the question's words") for c in at.caption)


def test_a_file_added_to_the_room_is_no_link_of_other_files(tmp_path):
    """A walk-through's minor: after a file was added, the sidebar warned "These are not the files the link names",
    the link being the one this session wrote before, and the link named no files until the next question (the
    Query page cleared the last room's view with them, the question too). A link of another room's files still
    warns."""
    import shutil

    from tests.filingmaker import write_pdfs

    first = write_pdfs(tmp_path / "room")
    at = uploaded(first, "acme-first", "acme room")
    assert "ACME_2019_10K.pdf" in at.query_params["files"] and not at.sidebar.warning
    at.text_input(key="question").set_value("What was Acme's capex in FY2019?").run()
    grown = tmp_path / "grown"
    shutil.copytree(first, grown)
    (grown / "notes.md").write_text("Acme Widgets makes widgets in Ohio.", encoding="utf-8")
    at.session_state["uploaded_corpus"] = (str(grown), "acme-grown", "3 uploaded files", None)
    at.run()
    assert not at.exception, at.exception
    assert not at.sidebar.warning, [w.value for w in at.sidebar.warning]
    assert "notes.md" in at.query_params["files"]  # the room's files stay in the link when the room grows
    assert at.text_input(key="question").value == "What was Acme's capex in FY2019?"  # and the question with them
    other = uploaded(first, "acme-other", "acme room", files=at.query_params["files"])  # a link naming notes.md too
    assert any(w.value.startswith("These are not the files the link names") for w in other.sidebar.warning)


def test_a_compare_column_lists_each_page_once_at_its_best_part(tmp_path):
    """A walk-through's minor: bm25's column listed p.43 twice, as parts 2 and 3, in a room of pages. A page of many
    passages, each about capex, fills no column twice; the column still lists k pages."""
    from tests.filingmaker import write_pdfs
    from tests.pdfmaker import make_pdf, text_page

    folder = write_pdfs(tmp_path / "room")
    lines = [f"Capex review {i}: capital expenditures on widget plants, capex by plant, and capex timing." for i in
             range(60)]
    (folder / "ACME_CAPEX_MEMO.pdf").write_bytes(make_pdf([text_page(*lines), text_page("Capex appendix.")]))
    at = _compare_on_room(folder, "acme-memo-room", "What was the capex by plant, and its timing?")
    listed = [m.value.replace("\\", "") for m in at.markdown if re.match(r"^\d+\. \*\*", m.value)]
    columns, column = [], []
    for line in listed:  # each column numbers its hits from 1
        if line.startswith("1. ") and column:
            columns.append(column)
            column = []
        column.append(re.sub(r"^\d+\. |, part \d+", "", line))  # the page it names
    columns.append(column)
    assert len(columns) == 2 and all(len(c) == 3 and len(set(c)) == 3 for c in columns), columns
    assert any("Acme Capex Memo" in line or "ACME_CAPEX_MEMO" in line for line in listed), listed


def test_compare_says_what_the_page_ranker_is_an_average_of(tmp_path):
    """The page ranker averages several models (engine.rank.learned, bagging): "About filing-learned" says so, and
    its feature shares are the models' averaged, summing to 1."""
    from tests.filingmaker import write_pdfs

    at = AppTest.from_file(APP, default_timeout=240)
    at.query_params.update({"corpus": "your own files", "retrievers": "filing-learned,bm25", "k": "3",
                            "q": "What was Acme's capex in FY2019?"})
    at.session_state["uploaded_corpus"] = (str(write_pdfs(tmp_path / "room")), "acme-room", "acme room", None)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    about = [m.value for m in at.markdown if "It reorders the" in m.value]
    assert len(about) == 1 and "It averages 5 models, each trained on the questions of 80% of the tuning filings" \
        in about[0].replace("\\", ""), about
    assert "averaged over its 5 models" in " ".join(c.value for c in at.caption)
    shares = next(d.value for d in at.dataframe if list(getattr(d.value, "columns", [])) == ["feature", "share"])
    assert len(shares) == 12 and shares["share"].is_monotonic_decreasing
