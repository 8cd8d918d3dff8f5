"""AppTests of the Precedents page: every widget driven, asserting on what the page shows and on its link."""

from __future__ import annotations

import html
import json
import re
import shlex
from datetime import date

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

APP = str(ROOT / "app.py")
EXAMPLE = "Find precedents for a US healthcare roll-up with an aggressive add-on strategy"
BAD_ROWS = """name,sector,region,year,size,role,platform_of,exit,exit_year,description
Alpha Dental,healthcare,UK,2016,120,platform,,IPO,2021,A dental group in the UK <script>alert(1)</script>
Beta Smiles,healthcare,UK,2017,20,add-on,Alpha Dental,,,A practice in Leeds
Gamma Teeth,healthcare,UK,twenty,15,add-on,Alpha Dental,,,
Delta Vets,Health Care,Germany,2018,$80m,platform,,,,Vet clinics **bold** [link](http://x)
Epsilon,nowhere,UK,2019,,platform,,,,
"""


@pytest.fixture(scope="module")
def index():
    """The bundled universe's index, its vectors read from the checkout's cache as tests/test_deals_ranking.py reads
    them (the test cache is fresh each run, and encoding the 3,650 descriptions again takes about 2 minutes): the
    page's `bundled_index()` then finds it built in this process."""
    from engine.deals.index import bundled_index
    from engine.store.cache import DiskCache

    return bundled_index(DiskCache(ROOT / ".pathlens-cache"))


def start(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page("pages/precedents.py")  # before the first run: its URL path is its file's name, so no Query run
    at.run()
    assert not at.exception, at.exception
    return at


def deals(at) -> list[str]:
    """Each ranked deal's first line: its rank and name in bold, then its score."""
    return [m.value for m in at.markdown if re.match(r"^\*\*\d+\. ", m.value)]


def understood(at) -> str:
    return next(i.value for i in at.info if i.value.startswith("**Understood as"))


def bars(at) -> list[tuple[str, float, list[float]]]:
    """Each parts chart on the page: (its title, the score it says, the base its sum names and each bar's value)."""
    out = []
    for h in at.get("html"):
        body = h.proto.body
        if m := re.search(r"font-size:13px'>(.*?): score ([+-]\d+\.\d+), from ([+-]\d+\.\d+), where every deal", body):
            values = [float(v) for v in re.findall(r"tabular-nums'>([+-]\d+\.\d+)</span>", body)]
            out.append((html.unescape(m.group(1)), float(m.group(2)), [float(m.group(3)), *values]))
    return out


def graph_pages(at) -> list[str]:
    return [f.proto.srcdoc for f in at.get("iframe")]


def test_the_page_opens_on_the_example_with_each_deal_s_parts_and_the_first_deal_s_graph(index):
    from engine.deals.rankers import find_precedents

    at = start()
    assert at.title[0].value == "Precedents"
    assert at.text_input(key="pr_question").value == EXAMPLE
    assert (at.radio(key="pr_ranker").value, at.number_input(key="pr_k").value) == ("learned", 10)
    assert understood(at) == ("**Understood as:** healthcare · US · aggressive add\\-on strategy \\(≥ 6 add\\-ons\\) · "
                              "any period. Correct it under “Cues” above.")
    # the page shows the engine's ranking, each deal with its record and its parts
    p = find_precedents(EXAMPLE, index)
    assert [re.sub(r"^\*\*\d+\. (.*)\*\* · .*$", r"\1", d).replace("\\", "") for d in deals(at)] == \
        [r.deal.name for r in p.deals]
    assert deals(at)[0] == f"**1. {p.deals[0].deal.name}** · score {p.deals[0].score:+.3f}"
    for r in p.deals:
        assert abs(sum(x.value for x in r.parts) - r.score) < 1e-9  # exact parts, as the engine promises
    charts = bars(at)
    assert len(charts) == 10 and all(title == "Why it ranks here" for title, _, _ in charts)
    for (_, score, values), r in zip(charts, p.deals):
        assert score == pytest.approx(r.score, abs=0.005)
        assert sum(values) == pytest.approx(score, abs=0.005 * (len(values) + 1))  # bars drawn to two decimals
    assert "meets 100% of the asked cues" in at.get("html")[0].proto.body
    assert ", where every deal of this search begins; " in at.get("html")[0].proto.body  # the base, said not drawn
    assert ("Deals in the asked sector come first, then deals meeting more of the asked cues; among deals alike, the "
            "higher score. Each score is exactly where every deal starts plus the bars under it: green adds, red takes away. The deal "
            "graph is drawn for one deal at a time.") in [c.value for c in at.caption]
    facts = [c.value.replace("\\", "") for c in at.caption if " · US · " in c.value]
    assert facts[0].startswith(f"{p.deals[0].deal.subsector} (healthcare) · US · {p.deals[0].deal.year} · platform, "
                               f"{p.deals[0].add_ons} add-ons · ")
    # the first deal's graph is drawn in its box: it, its add-ons, what it is linked to
    pages = graph_pages(at)
    assert len(pages) == 1
    u = index.universe
    top = u.rows[p.deals[0].deal.id]
    for row in u.add_ons[top]:
        assert json.dumps(u.deals[row].name)[1:-1] in pages[0]
    assert "sector: healthcare" in pages[0] and "region: US" in pages[0]
    assert not re.search(r"<(script|link)[^>]*(src|href)=[\"']https?:", pages[0], re.I)  # vis-network inlined
    # the page's link holds its view, and nothing else
    assert dict(at.query_params) == {"q": EXAMPLE, "ranker": "learned", "k": "10"}
    assert at.download_button(key="pr_report").proto.label == "Download the evidence report (HTML)"


def test_every_widget_changes_the_view_and_the_link_reproduces_it(index):
    at = start()
    at.radio(key="pr_ranker").set_value("hand").run()
    assert at.query_params["ranker"] == "hand"
    assert any("Ranked by the hand weights (DealGraph's)." in c.value for c in at.caption)
    at.number_input(key="pr_k").set_value(3).run()
    assert len(deals(at)) == 3 and at.query_params["k"] == "3"
    at.multiselect(key="pr_sectors").set_value(["healthcare"]).run()
    at.multiselect(key="pr_regions").set_value(["US", "Canada"]).run()
    at.slider(key="pr_years").set_value((2012, 2020)).run()
    assert not at.exception
    params = dict(at.query_params)
    assert {k: params.get(k) for k in ("sector", "region", "year_from", "year_to")} == {
        "sector": "healthcare", "region": "US,Canada", "year_from": "2012", "year_to": "2020"}
    u = index.universe
    for line in deals(at):
        name = re.sub(r"^\*\*\d+\. (.*)\*\* · .*$", r"\1", line).replace("\\", "")
        d = next(d for d in u.deals if d.name == name)
        assert d.sector == "healthcare" and d.region in ("US", "Canada") and 2012 <= d.year <= 2020
    assert any(c.value.startswith("Searched the ") and "deals the filters keep (healthcare · US or Canada · "
               "2012–2020): " in c.value for c in at.caption)
    # a cue corrected, as on the Query page's scope: the reading says so, and the link keeps it
    assert at.selectbox(key="pr_c_region").options[0] == "as read: US"
    at.selectbox(key="pr_c_region").set_value("Canada").run()
    at.selectbox(key="pr_c_strategy").set_value("roll-up").run()
    at.selectbox(key="pr_c_from").set_value("2014").run()
    assert understood(at).startswith("**Understood as (as you corrected it):** healthcare · Canada · roll\\-up "
                                     "\\(≥ 3 add\\-ons\\) · from 2014")
    assert {k: at.query_params.get(k) for k in ("c_region", "c_strategy", "c_from")} == {
        "c_region": "Canada", "c_strategy": "roll-up", "c_from": "2014"}
    # choosing a deal draws its graph in its own box, with its platform's family
    shows = [b.key for b in at.button if (b.key or "").startswith("pr_show_")]
    assert len(shows) == 2  # one button for each deal but the one drawn
    at.button(key=shows[0]).click().run()
    chosen = shows[0].removeprefix("pr_show_")
    assert at.query_params["deal"] == chosen
    lines = [m.value for m in at.markdown if re.match(r"^\*\*(\d+\. |Its deal graph)", m.value)]
    assert lines[lines.index("**Its deal graph**") - 1].startswith("**2. ")
    row = u.rows[chosen]
    family = u.add_ons[row] if u.deals[row].role == "platform" else (u.platform_of(row),)
    assert all(json.dumps(u.deals[r].name)[1:-1] in graph_pages(at)[0] for r in family)
    # why not this one: a deal the filters keep, beside #1
    other = next(d for d in u.deals if d.sector == "healthcare" and d.region == "Canada" and 2012 <= d.year <= 2020
                 and u.add_on_count(u.rows[d.id]) == 0)
    at.selectbox(key="pr_why").set_value(other.id).run()
    assert at.query_params["why"] == other.id
    said = next(m.value.replace("\\", "") for m in at.markdown if m.value.replace("\\", "").startswith(other.name))
    assert re.match(rf"{re.escape(other.name)} ranks #\d+ of \d+ candidates, score [+-]\d\.\d+ against #1's", said), said
    titles = [t for t, _, _ in bars(at)]
    assert titles[-2].startswith("#1 ") and re.match(rf"#\d+ {re.escape(other.name)}", titles[-1])
    # a deal the filters leave out is said so, not scored
    at.selectbox(key="pr_why").set_value(next(d.id for d in u.deals if d.sector == "software")).run()
    assert any("is outside the filters (healthcare · US or Canada · 2012–2020)" in i.value for i in at.info)
    at.selectbox(key="pr_why").set_value(other.id).run()
    # the link opens the same view: the ranking, the chosen deal's graph, the deal beside #1
    again = start(dict(at.query_params))
    assert deals(again) == deals(at) and graph_pages(again) == graph_pages(at)
    assert again.selectbox(key="pr_why").value == other.id and understood(again) == understood(at)
    assert dict(again.query_params) == dict(at.query_params)
    # the walk's scores are shares of its time: drawn in ‰, so their bars say something
    at.radio(key="pr_ranker").set_value("walk").run()
    assert all(t.endswith("(in ‰ of the walk's time)") for t, _, _ in bars(at))
    assert all("‰ of the walk's time" in d for d in deals(at))


def test_each_cue_correction_is_read_into_the_cues_and_the_link(index):
    at = start()
    for key, value in (("pr_c_subsector", "dental practices"), ("pr_c_origin", "carve-out"), ("pr_c_exit", "IPO"),
                       ("pr_c_from", "2010"), ("pr_c_to", "2020"), ("pr_c_size", "50-500")):
        at.selectbox(key=key).set_value(value).run()
        assert not at.exception, key
    assert understood(at).replace("\\", "") == (
        "**Understood as (as you corrected it):** dental practices · US · aggressive add-on strategy (≥ 6 add-ons) · "
        "carve-out · exited by IPO · 2010–2020 · EV $50m–$500m. Correct it under “Cues” above.")
    assert {k: at.query_params.get(k) for k in ("c_subsector", "c_origin", "c_exit", "c_from", "c_to", "c_size")} == {
        "c_subsector": "dental practices", "c_origin": "carve-out", "c_exit": "IPO", "c_from": "2010", "c_to": "2020",
        "c_size": "50-500"}
    # a sector set alone drops a subsector of another sector; "none" clears a cue
    at.selectbox(key="pr_c_subsector").set_value("as read").run()
    at.selectbox(key="pr_c_sector").set_value("software").run()
    at.selectbox(key="pr_c_region").set_value("none").run()
    assert understood(at).replace("\\", "").startswith("**Understood as (as you corrected it):** software · any region "
                                                        "· aggressive add-on strategy")
    assert at.query_params["c_region"] == "none" and "c_subsector" not in at.query_params


def test_bad_input_is_said_in_words(index):
    at = start()
    at.text_input(key="pr_question").set_value("  ").run()
    assert [i.value for i in at.info] == ["Type a question."] and not deals(at)
    assert "q" not in at.query_params
    at.text_input(key="pr_question").set_value("?!?").run()
    assert at.error and "only punctuation" in at.error[0].value and not deals(at)
    at.text_input(key="pr_question").set_value(EXAMPLE).run()
    at.multiselect(key="pr_sectors").set_value(["education"]).run()
    at.multiselect(key="pr_regions").set_value(["Nordics"]).run()
    at.slider(key="pr_years").set_value((2006, 2009)).run()
    assert not at.exception and not deals(at)
    said = at.warning[0].value.replace("\\", "")
    assert said.startswith("The filters (education · Nordics · 2006–2009) leave no deal of bundled deal universe"), said
    assert said.endswith("Loosen a filter.")
    # a walk with nowhere to start; a link's values the page cannot use
    at = start({"q": "companies that did well", "ranker": "walk", "k": "999", "c_region": "Atlantis"})
    assert any("the walk has nowhere to start" in w.value.lower() for w in at.warning)
    assert any(w.value == "k = 999 in the link is outside [1, 50]; using 50." for w in at.warning)
    assert any(w.value.startswith("c_region = 'Atlantis' in the link is not one this page can use") for w in at.warning)
    assert at.selectbox(key="pr_c_region").value == "as read"


def test_an_uploaded_list_loads_its_good_rows_and_names_each_bad_one_by_line_and_field(index):
    at = start({"deals": "upload"})  # a link to a view of an uploaded list asks for the file
    assert at.radio(key="pr_source").value == "upload" and not deals(at)
    assert any(i.value.startswith("Upload a deal list to search it.") for i in at.info)
    at.file_uploader(key="pr_file").set_value(("deals.csv", BAD_ROWS.encode(), "text/csv")).run()
    assert not at.exception
    assert at.success[0].value == ("deals\\.csv: 3 of 5 rows loaded (2 platforms, 1 add-on); these are the deals "
                                   "searched below.")
    warned = at.warning[0].value.replace("\\", "")
    assert warned.startswith("2 rows left out, each named by its line and field")
    assert "- deals.csv line 4, field 'year': 'twenty' is not a year" in warned
    assert "- deals.csv line 6, field 'sector': 'nowhere' is not a sector the lexicon knows" in warned
    assert any(e.label == "How the file's words were read (2)" for e in at.expander)
    names = [re.sub(r"^\*\*\d+\. (.*)\*\* · .*$", r"\1", d) for d in deals(at)]
    assert sorted(names) == ["Alpha Dental", "Beta Smiles", "Delta Vets"]
    # its text stays text: Markdown escaped on the page, script-free in the graph's page
    described = [m.value for m in at.markdown if "dental group" in m.value]
    assert described == ["A dental group in the UK \\<script\\>alert\\(1\\)\\</script\\>"]
    assert any(m.value == "Vet clinics \\*\\*bold\\*\\* \\[link\\]\\(http://x\\)" for m in at.markdown)
    assert all("<script>alert" not in page for page in graph_pages(at))
    at.button(key=next(b.key for b in at.button if (b.key or "").startswith("pr_show_"))).click().run()
    assert not at.exception and at.query_params["deals"] == "upload"
    # the bundled universe again: the list's deals are gone from the ranking
    at.radio(key="pr_source").set_value("bundled").run()
    assert "deals" not in at.query_params and len(deals(at)) == 10


def test_the_report_is_one_escaped_offline_file_and_its_command_ranks_the_same_deals(index, capsys):
    from engine.cli import main
    from engine.deals.cues import CueCorrection
    from engine.deals.index import DealFilters
    from engine.deals.rankers import find_precedents
    from ui.deal_graph import deal_graph_html, deal_subgraph, graph_height
    from ui.precedents_report import build_report, command, report_name

    correction = CueCorrection(regions=("US", "Canada"), min_add_ons=3, role="platform")
    filters = DealFilters(sectors=("healthcare",), year_from=2010)
    p = find_precedents(EXAMPLE + " <b>now</b>", index, "learned", 5, filters, correction, include=("D2359",))
    why = p.picked[0]
    row = index.universe.rows[p.deals[0].deal.id]
    sub = deal_subgraph(index, row, p.cues.criteria, {row: 1})
    page = deal_graph_html(sub, graph_height(sub))
    cli = command(p, 5, correction, ["D2359"], None)
    report = build_report(p, index, "2026-01-02 03:04 UTC", "/precedents?q=x&k=5", cli,
                          (p.deals[0], page, graph_height(sub)), why)
    assert report_name(EXAMPLE, date(2026, 1, 2)).startswith("precedents-report-find-precedents-for-a-us-")
    assert "&lt;b&gt;now&lt;/b&gt;" in report and "<b>now</b>" not in report
    assert not re.search(r"<(script|link)[^>]*(src|href)=[\"']https?:", report, re.I)  # nothing asked of the network
    assert "srcdoc=" in report and report.count("class='parts'") == 5 + 2  # each deal, and #1 beside the one picked
    assert "Understood as (corrected):</strong> healthcare · US or Canada · roll-up (≥ 3 add-ons)" in report
    for r in p.deals:
        assert html.escape(r.deal.name) in report
    # the command it prints ranks the same deals
    argv = shlex.split(cli)[3:]
    assert argv[:2] == ["precedents", EXAMPLE + " <b>now</b>"] and "--cue" in argv and "region=US,Canada" in argv
    assert main(argv + ["--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [d["id"] for d in printed["deals"]] == [r.deal.id for r in p.deals]
    assert [d["id"] for d in printed["picked"]] == ["D2359"]
