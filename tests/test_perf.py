"""The perf script's measurements are checked for correctness (not speed): its PPR kernel
agrees with igraph's PRPACK and networkx on the same graph."""

from engine.perf import growth, ppr_kernel, table


def test_ppr_kernel_agrees_with_igraph_and_networkx(core_index):
    q = "Who manages the fund whose portfolio company signed a lease at the Joliet facility of Brightwater Logistics?"
    k = ppr_kernel(core_index, "regex", q)
    assert k["top10_overlap_converged_vs_igraph"] >= 9
    assert k["top10_overlap_vs_networkx"] >= 8 and k["top10_overlap_vs_igraph"] >= 8
    assert k["ranking_equals_full_bitwise"] is True
    assert k["bytes_per_step"] > core_index.graph("regex").W.data.nbytes / 2
    assert k["ranking_kernel_ms"] > 0 and k["full_kernel_ms"] > 0 and 0 < k["share_of_copy_bandwidth"]


def test_growth_fits_an_exponent_over_sizes():
    g = growth(sizes=(100, 300))
    assert [r["passages"] for r in g["rows"]] == [100, 300]
    assert g["rows"][1]["graph_nodes"] > g["rows"][0]["graph_nodes"]
    assert isinstance(g["exponent_build"], float)


def test_table_renders_a_report(core_index):
    from engine.perf import query_latency

    report = {"corpus": "dataroom-core", "ppr_kernel": ppr_kernel(core_index, "regex", "Calder Bank"),
              "query_latency": query_latency(core_index, [q.text for q in core_index.corpus.queries[:3]]),
              "cold_build": {"stages_s": {"tokens": 0.1}, "total_s": 0.1, "peak_rss_mb": 1.0},
              "warm_start": {"first_answer_s": 1.0, "peak_rss_mb": 1.0}}
    text = table(report)
    assert "PPR ranking kernel" in text and "full kernel" in text and "query_page_answer" in text and "bm25" in text
