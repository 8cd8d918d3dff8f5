"""The perf script's measurements are checked for correctness (not speed): its PPR kernel
agrees with igraph's PRPACK and networkx on the same graph."""

import pytest

from engine.evaluate.perf import growth, ppr_kernel, table


def test_ppr_kernel_agrees_with_igraph_and_networkx(core_index):
    q = "Who manages the fund whose portfolio company signed a lease at the Joliet facility of Brightwater Logistics?"
    k = ppr_kernel(core_index, "regex", q)
    assert k["top10_overlap_converged_vs_igraph"] >= 9
    assert k["top10_overlap_vs_networkx"] >= 8 and k["top10_overlap_vs_igraph"] >= 8
    assert k["ranking_equals_full_bitwise"] is True
    assert k["bytes_per_step"] > core_index.graph("regex").W.data.nbytes / 2


def test_growth_fits_an_exponent_over_sizes():
    g = growth(sizes=(100, 300))
    assert [r["passages"] for r in g["rows"]] == [100, 300]
    assert g["rows"][1]["graph_nodes"] > g["rows"][0]["graph_nodes"]
    # the Query page's answer explains and draws, so it costs more than ranking alone
    assert all(r["query_page_answer_p50_ms"] > r["ppr_regex_query_p50_ms"] > 0 for r in g["rows"])
    # the fitted exponent is the slope of log time against log size through the measured rows
    import math

    (a, b) = g["rows"]
    for key, exp in (("build_regex_graph_and_bm25_s", "exponent_build"), ("ppr_regex_query_p50_ms", "exponent_ppr_query")):
        slope = (math.log(b[key]) - math.log(a[key])) / (math.log(300) - math.log(100))
        assert g[exp] == pytest.approx(slope, rel=1e-9)


def test_table_renders_a_report(core_index):
    from engine.evaluate.perf import query_latency

    report = {"corpus": "dataroom-core", "ppr_kernel": ppr_kernel(core_index, "regex", "Calder Bank"),
              "query_latency": query_latency(core_index, [q.text for q in core_index.corpus.queries[:3]]),
              "cold_build": {"stages_s": {"tokens": 0.1}, "total_s": 0.1, "peak_rss_mb": 1.0, "peak_rss_worker_mb": 2.0},
              "cold_build_one_process": {"stages_s": {"tokens": 0.3}, "total_s": 0.3, "peak_rss_mb": 3.0},
              "warm_start": {"first_answer_s": 1.0, "peak_rss_mb": 1.0}}
    text = table(report)
    assert "PPR ranking kernel" in text and "full kernel" in text and "query_page_answer" in text and "bm25" in text
    assert "cold build (s): tokens 0.1; total 0.1 s, peak RSS 1 MB (a worker process's 2 MB)" in text
    assert "cold build in one process (s): tokens 0.3; total 0.3 s, peak RSS 3 MB" in text


def test_a_one_process_build_measures_every_stage(tmp_path):
    import time

    from engine.evaluate.perf import STAGES, _in_child

    r = _in_child("build-one-process", "dataroom-core", str(tmp_path), time.perf_counter())
    assert set(STAGES) <= set(r["stages_s"]) and r["total_s"] >= sum(r["stages_s"][s] for s in STAGES) * 0.99


def test_a_failed_section_is_recorded_and_the_rest_still_run(monkeypatch):
    from engine.evaluate import perf

    def boom(*_):
        raise RuntimeError("spaCy went away")

    monkeypatch.setattr(perf, "_child", lambda mode, spec, cache: {"first_answer_s": 1.0, "peak_rss_mb": 1.0,
                                                                   "stages_s": {"tokens": 0.1}, "total_s": 0.1})
    monkeypatch.setattr(perf, "ner_setup", boom)
    monkeypatch.setattr(perf, "ppr_kernel", lambda index, builder, query: {"query": query})
    monkeypatch.setattr(perf, "query_latency", lambda index, queries: {"bm25": {"p50_ms": 1.0, "p95_ms": 2.0}})
    # the long sections measure elsewhere (tests of their own); here only the failure handling is under test
    monkeypatch.setattr(perf, "stage_costs", lambda texts: {"encode_ms_per_passage": 1.0})
    monkeypatch.setattr(perf, "ann_section", lambda *a, **kw: {"recall@10": 1.0})
    log = []
    report = perf.run("dataroom-core", include_growth=False, include_sweep=False, log=log.append)
    assert perf.failed(report) == ["ner_setup_s"]
    assert report["ner_setup_s"] == {"error": "RuntimeError: spaCy went away"}
    assert any("failed: RuntimeError: spaCy went away" in line for line in log)
    assert report["query_latency"]["bm25"]["p50_ms"] == 1.0 and "cold_build" in report and "warm_start" in report
    text = perf.table({k: v for k, v in report.items() if k not in ("ppr_kernel", "ann", "stage_costs")})  # faked above
    assert "ner_setup_s: FAILED: RuntimeError: spaCy went away" in text and "query latency" in text


def test_a_bad_corpus_fails_before_anything_is_measured(tmp_path, capsys):
    from engine.cli import main

    assert main(["perf", "--format", "musique", "--file", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "missing.jsonl" in err and err.count("\n") == 1


def test_sections_run_only_what_is_named(monkeypatch):
    from engine.evaluate import perf
    from engine.errors import PathLensError

    calls = []
    monkeypatch.setattr(perf, "_child", lambda mode, spec, cache: calls.append(mode) or {})
    monkeypatch.setattr(perf, "query_latency", lambda index, queries: calls.append("latency") or {"n": len(queries)})
    report = perf.run("dataroom-core", include_growth=False, log=lambda m: None, only=("query_latency",))
    assert calls == ["latency"] and report["query_latency"] == {"n": 40}
    assert set(report) == {"corpus", "machine", "query_latency"}
    with pytest.raises(PathLensError, match="unknown perf section 'speed'"):
        perf.run("dataroom-core", only=("speed",))


def test_stage_costs_count_word_pieces_padding_and_both_ner_pipelines():
    from engine.evaluate.perf import stage_costs

    # 13 and 8 word pieces (see test_retrievers): one batch of 16 pads the shorter to 13, 5 of 26 tokens
    texts = ["Kestrel Kestrel Kestrel", "a a a a a a a a a a a"]
    c = stage_costs(texts, sample=2)
    assert c["word_pieces"] == 21 and c["texts"] == 2
    assert c["padding_share_by_chars"] == c["padding_share_by_word_pieces"] == pytest.approx(26 / 21 - 1)
    assert c["encode_core_s_whole_corpus"] == pytest.approx(21 / c["word_pieces_per_s"])
    assert c["ner_same_entities"] is True
    assert "23.8% ordered by characters, 23.8% by word pieces" in table({"corpus": "x", "stage_costs": c})


def test_read_isolation_reads_a_folder_both_ways(tmp_path):
    from engine.evaluate.perf import _isolation_lines, read_isolation
    from tests.filingmaker import write_pdfs

    r = read_isolation(str(write_pdfs(tmp_path / "room")), repeats=1)
    assert r["files"] == 2 and set(r) == {"files", "in_process_s", "isolated_s"}
    assert _isolation_lines(r)[0].startswith("reading 2 documents: ")
