"""The perf package's measurements are checked for correctness (not speed): its PPR kernel agrees with igraph's
PRPACK and networkx on the same graph, each section renders what it measured, and a failing section never loses
the others."""

import math
import subprocess
import sys
from dataclasses import dataclass

import pytest

from engine.errors import PathLensError
from engine.evaluate import perf
from engine.evaluate.perf import growth, kernel, latency, reading, stages, startup
from engine.evaluate.perf.common import ROOT, Options


def test_ppr_kernel_agrees_with_igraph_and_networkx(core_index):
    q = "Who manages the fund whose portfolio company signed a lease at the Joliet facility of Brightwater Logistics?"
    k = kernel.ppr_kernel(core_index, "regex", q)
    # the same top 10 as both libraries' PageRank on this question (the libraries are pinned; an order that moved
    # would be a kernel that changed)
    assert (k.top10_overlap_converged_vs_igraph, k.top10_overlap_vs_networkx, k.top10_overlap_vs_igraph) == (10, 10, 10)
    assert k.ranking_equals_full_bitwise is True
    assert k.bytes_per_step > core_index.graph("regex").W.data.nbytes / 2
    assert len(k.igraph_prpack_fresh_process_ms) == 3  # the fresh processes (the module's own main) ran
    text = "\n".join(k.lines())
    assert "PPR ranking kernel" in text and "full kernel" in text and f"{k.nodes:,} nodes" in text


def test_growth_fits_an_exponent_over_sizes():
    g = growth.growth(sizes=(100, 300))
    assert [r.passages for r in g.rows] == [100, 300]
    assert g.rows[1].graph_nodes > g.rows[0].graph_nodes
    # the Query page's answer explains and draws, so it costs more than ranking alone
    assert all(r.query_page_answer_p50_ms > r.ppr_regex_query_p50_ms > 0 for r in g.rows)
    # the fitted exponent is the slope of log time against log size through the measured rows
    (a, b) = g.rows
    for key, exp in (("build_regex_graph_and_bm25_s", "exponent_build"), ("ppr_regex_query_p50_ms", "exponent_ppr_query")):
        slope = (math.log(getattr(b, key)) - math.log(getattr(a, key))) / (math.log(300) - math.log(100))
        assert getattr(g, exp) == pytest.approx(slope, rel=1e-9)
    # from one size there is no slope to fit, and the report says so instead of printing one
    one = growth.Growth(g.rows[:1], None, None, None)
    assert one.lines()[-1] == "  fitted exponents: none (they need two sizes or more)"
    assert growth.growth(sizes=(100,)).exponent_build is None
    # small graphs are walked exactly, so the walk's top 10 is the exact one for every question
    assert [(r.walk, r.same_top10_as_exact) for r in g.rows] == [("exact", 1.0), ("exact", 1.0)]


def test_growth_says_when_the_walk_is_by_push_and_how_often_it_agrees(monkeypatch):
    import engine.retrieve.graph_retriever as gr

    monkeypatch.setattr(gr, "LOCAL_FROM_EDGES", 0)
    row = growth.growth(sizes=(300,)).rows[0]
    assert (row.walk, row.same_top10_as_exact) == ("push", 1.0)  # proven orders: every question's top 10 exact
    lines = growth.Growth([row], None, None, None).lines()
    assert "(push walk; exact " in lines[0]
    # push at every ε against the exact walk, under the row; the finest ε agrees at least as often as the coarsest
    # then other first ε's pushed again at tenths down to 1e-8 where the order is not proven, and the retrievers' own:
    # 5e-7, 5e-8, 1e-8
    assert [(p.eps, p.floor) for p in row.local.rows] == [(1e-5, 1e-5), (1e-6, 1e-6), (1e-7, 1e-7), (1e-8, 1e-8),
                                                          (1e-7, 1e-8), (2e-7, 1e-8), (1e-6, 1e-8), (2e-6, 1e-8),
                                                          (5e-7, 1e-8)]
    assert row.local.rows[3].same_top >= row.local.rows[0].same_top and row.local.rows[3].edges_p50 > 0
    assert lines[1].startswith("    local PPR (ppr-regex, ") and len(lines) == 2 + len(row.local.lines())


def test_query_latency_times_every_retriever_and_the_page_answer(core_index):
    q = latency.query_latency(core_index, [x.text for x in core_index.corpus.queries[:3]])
    from engine.catalog import CATALOG

    assert set(CATALOG) <= set(q.rows) and {latency.SHARED_ENCODING, latency.PAGE_ANSWER} <= set(q.rows)
    assert all(v.p95_ms >= v.p50_ms for v in q.rows.values())
    text = "\n".join(q.lines())
    assert "hybrid-ner / ppr-ner p50" in text and "query_page_answer" in text


def test_a_latency_is_read_off_the_clock_around_each_answer_only(monkeypatch):
    ticks = iter([0.0, 0.004, 1.0, 1.002, 4.0, 5.0, 5.010])  # 4, 2 and 10 ms around the answers (4.0: the skipped one)
    monkeypatch.setattr(latency.time, "perf_counter", lambda: next(ticks))
    untimed: list[str] = []
    lat = latency._timed(["a", "b", "skipped", "c"], lambda q: q != "skipped", before=untimed.append)
    assert untimed == ["a", "b", "skipped", "c"]  # run before each question, outside the clock
    # the question with nothing to do is not timed: 4, 2 and 10 ms
    assert lat.p50_ms == pytest.approx(4.0) and lat.p95_ms == pytest.approx(9.4)


def test_the_build_lines_say_what_each_build_measured():
    pooled = startup.Build(False, {"tokens": 0.1}, 0.1, 1.0, 2.0)
    alone = startup.Build(True, {"tokens": 0.3}, 0.3, 3.0)
    assert pooled.lines() == ["cold build (s): tokens 0.1; total 0.1 s, peak RSS 1 MB (a worker process's 2 MB)"]
    assert alone.lines() == ["cold build in one process (s): tokens 0.3; total 0.3 s, peak RSS 3 MB"]


def test_the_child_process_is_a_module_that_measures_every_stage(tmp_path):
    out = subprocess.run([sys.executable, "-m", "engine.evaluate.perf.child", "build-one-process", "dataroom-core",
                          str(tmp_path)], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    build = startup.Build(True, **__import__("json").loads(out.strip().splitlines()[-1]))
    from engine.evaluate.perf.child import STAGES

    assert set(STAGES) <= set(build.stages_s) and build.total_s >= sum(build.stages_s[s] for s in STAGES) * 0.99
    assert build.peak_rss_mb > 50  # an interpreter with numpy and spaCy loaded


@dataclass(frozen=True)
class Fake:
    value: float

    def lines(self) -> list[str]:
        return [f"fake {self.value}"]


@pytest.fixture
def fake_sections():
    """The registry's names, order and conditions with quick fakes: here only the running and reporting are under
    test."""
    def fake(name: str):
        def measure(ctx):
            if name == "ner_setup_s":
                raise RuntimeError("spaCy went away")
            return Fake(1.0)
        return measure

    return tuple(perf.Section(s.name, s.title, fake(s.name), s.applies) for s in perf.SECTIONS)


def test_a_failed_section_is_recorded_and_the_rest_still_run(fake_sections):
    log = []
    report = perf.run("dataroom-core", Options(include_growth=False, include_sweep=False), log=log.append,
                      sections=fake_sections)
    assert report.failed() == ["ner_setup_s"]
    assert report.results["ner_setup_s"] == perf.Failed("RuntimeError: spaCy went away")
    assert any("failed: RuntimeError: spaCy went away" in line for line in log)
    # growth and the sweep were left out; read_isolation applies to folders only
    assert "growth" not in report.results and "default_sweep" not in report.results
    assert "read_isolation" not in report.results and "cold_build" in report.results
    assert report.to_json()["ner_setup_s"] == {"error": "RuntimeError: spaCy went away"}
    assert report.to_json()["cold_build"] == {"value": 1.0}


def test_the_table_renders_each_result_and_each_failure():
    report = perf.Report("dataroom-core", 2, {"cold_build": startup.Build(False, {"tokens": 0.1}, 0.1, 1.0),
                                              "ner_setup_s": perf.Failed("RuntimeError: spaCy went away")})
    assert report.table().splitlines() == ["corpus: dataroom-core",
                                           "cold build (s): tokens 0.1; total 0.1 s, peak RSS 1 MB",
                                           "ner_setup_s: FAILED: RuntimeError: spaCy went away"]


def test_a_bad_corpus_fails_before_anything_is_measured(tmp_path, capsys):
    from engine.cli import main

    assert main(["perf", "--format", "musique", "--file", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "missing.jsonl" in err and err.count("\n") == 1


def test_sections_run_only_what_is_named(fake_sections):
    from engine.errors import PathLensError

    calls = []
    sections = tuple(perf.Section(s.name, s.title, lambda ctx, n=s.name: calls.append(n) or Fake(1.0))
                     for s in fake_sections)
    report = perf.run("dataroom-core", Options(only=("query_latency",)), log=lambda m: None, sections=sections)
    assert calls == ["query_latency"] and list(report.results) == ["query_latency"]
    with pytest.raises(PathLensError, match="unknown perf section 'speed'"):
        perf.run("dataroom-core", Options(only=("speed",)))


def test_each_section_is_listed_once_and_the_cli_offers_them_all(capsys):
    from engine.cli import main

    assert len(set(perf.SECTION_NAMES)) == len(perf.SECTIONS)
    with pytest.raises(SystemExit):
        main(["perf", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(name in help_text for name in perf.SECTION_NAMES)


def test_stage_costs_count_word_pieces_padding_and_both_ner_pipelines():
    # 13 and 8 word pieces (see test_retrievers): one batch of 16 pads the shorter to 13, 5 of 26 tokens
    texts = ["Kestrel Kestrel Kestrel", "a a a a a a a a a a a"]
    c = stages.stage_costs(texts, sample=2)
    assert c.word_pieces == 21 and c.texts == 2
    assert c.padding_share_by_chars == c.padding_share_by_word_pieces == c.padding_share_in_windows == pytest.approx(
        26 / 21 - 1)
    assert c.encode_core_s_whole_corpus == pytest.approx(21 / c.word_pieces_per_s)
    assert c.ner_same_entities is True
    assert "23.8% ordered by characters, 23.8% by word pieces, 23.8% by word pieces in windows of 512" in c.lines()[0]


def test_read_isolation_reads_a_folder_both_ways(tmp_path, monkeypatch):
    from tests.filingmaker import write_pdfs

    # each way's time is its own clock's reading (pinned here: 1 s and 3 s); what is timed must be the same reading
    read: list = []
    monkeypatch.setattr(reading, "median_time", lambda fn, repeats: (read.append(fn()), 2.0 * len(read) - 1)[1])
    r = reading.read_isolation(str(write_pdfs(tmp_path / "room")), repeats=1)
    assert (r.files, r.in_process_s, r.isolated_s) == (2, 1.0, 3.0)
    in_process, isolated = read
    assert [doc for doc, _ in in_process] == [doc for doc, _ in isolated] and len(in_process) == 2
    assert r.lines() == ["reading 2 documents: 1.00 s in this process, 3.00 s in worker processes (limits on, one "
                         "per core); the isolation costs +2.00 s"]


def test_a_median_time_is_the_median_of_its_runs(monkeypatch):
    from engine.evaluate.perf import common

    clock = iter([0.0, 1.0, 10.0, 13.0, 20.0, 22.0])  # runs of 1, 3 and 2 s
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(clock))
    calls: list[int] = []
    assert common.median_time(lambda: calls.append(1), 3) == 2.0 and len(calls) == 3


def test_adding_a_document_is_timed_against_a_cold_build_and_checked_equal(tmp_path, monkeypatch):
    """The section's logic with its three builds run in this process (each is `perf.child build`, whose own test is
    above: three fresh interpreters loading both models cost a minute of the suite)."""
    import time

    from engine.evaluate.perf import adding
    from engine.evaluate.perf.adding import add_document
    from engine.evaluate.perf.child import measure as child_measure

    def build(folder, cache_dir):
        return child_measure("build", str(folder), str(cache_dir), time.perf_counter())

    monkeypatch.setattr(adding, "_build", build)
    docs = ROOT / "corpora" / "dataroom-core" / "docs"
    for name in sorted(p.name for p in docs.iterdir())[:3]:
        (tmp_path / name).write_text((docs / name).read_text())
    result = add_document(tmp_path, sorted(p.name for p in docs.iterdir())[1])
    assert result.added.startswith("02-") and result.documents == 3
    assert result.identical_files == 6  # tokens, embeddings, two extractions, two graphs
    assert "embeddings" in result.add_stages_s and result.ratio == result.add_s / result.cold_s
    assert f"a ratio of {result.ratio:.2f}" in result.lines()[0]
    with pytest.raises(PathLensError, match="no document 'nope.pdf'"):
        add_document(tmp_path, "nope.pdf")


def test_local_ppr_is_compared_with_the_exact_walk_question_by_question(core_index):
    from engine.evaluate.perf import local_ppr

    r = local_ppr.compare(core_index, core_index.corpus.queries, rows=((0.0, 0.0), (1e-2, 1e-2), (1e-2, 1e-5)))
    exact, coarse, refined = r.rows
    assert r.questions == len(core_index.corpus.queries) and r.graph_edges == core_index.graph("regex").W.nnz
    # ε = 0 pushes everything: the exact walk, question by question
    assert (exact.same_top, exact.same_set, exact.bound_p50) == (1.0, 1.0, 0.0)
    assert exact.metric_push == exact.metric_exact and exact.diff_low == exact.diff_high == 0.0
    assert coarse.edges_p50 < exact.edges_p50 and coarse.bound_p50 > 0  # less work, a counted error
    assert r.lines()[2].split("|")[1].strip() == "100.0%"
    # pushed again finer where the order is not proven: the same questions proven at 1e-2, more in the end, and
    # every question whose order is proven has the exact top 10
    assert refined.at_first == coarse.proven == coarse.at_first < refined.proven
    assert coarse.same_top >= coarse.proven and refined.same_top >= refined.proven
    assert r.lines()[4].split("|")[0].strip() == "1e-02→1e-05" and exact.proven == 1.0
    assert 0 < r.reached_p50 <= 1 and 0 <= r.min_gap_p50 <= r.tenth_p50  # a gap in the top 11 is below its 10th score
    assert r.lines()[-1].startswith("  the exact walk, median question: reaches ")
