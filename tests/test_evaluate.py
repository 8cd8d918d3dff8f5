from engine.evaluate.evaluate import evaluate
from engine.indexing.index import Index


def test_evaluate_tiny_by_hand(tiny):
    res = evaluate(Index(tiny), ["bm25"], [1, 3])
    r = res.results["bm25"]
    assert res.n_queries == 2 and res.n_passages == 5
    # q1 "Who lends to Brightwater Logistics?": p3 holds "lends" and both name words
    assert r.per_query["q1"]["hr@1"] == 1.0
    assert set(r.by_kind) == {"single-hop", "multi-hop"}
    js = res.to_json()
    assert set(js) == {"corpus", "n_passages", "n_queries", "unit", "config", "results"} and js["unit"] == "passage"
    assert set(js["results"]["bm25"]) >= {"hr@1", "hr@3", "mrr", "recall@3", "all@3", "by_kind"}


def test_graph_retriever_without_seed_counts_as_miss(tiny):
    from engine.ingest.corpus import Corpus
    from engine.ingest.questions import LabeledQuery

    c = Corpus("t", tiny.passages, (LabeledQuery("q", "what about the weather?", ("p4",), "single-hop"),))
    r = evaluate(Index(c), ["ppr-regex"], [1]).results["ppr-regex"]
    assert r.no_seed == ("q",) and r.means["hr@1"] == 0.0


def test_eval_is_bit_identical_across_runs():
    """Two processes with different hash seeds (set iteration and dict order of strings differ between them) print
    the same evaluation, byte for byte; one process could not tell."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    command = [sys.executable, "-m", "engine", "eval", "--corpus", "dataroom-core", "--json",
               "--retrievers", "bm25,tfidf,ppr-regex,bct-regex", "--k", "1,3,5"]
    outs = [subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "987")]
    assert outs[0] == outs[1] and '"bct-regex"' in outs[0]


def test_batched_graph_search_is_bit_identical_to_single_queries(core_corpus):
    from engine.errors import NoSeedError

    idx = Index(core_corpus)
    queries = [q.text for q in core_corpus.queries] + ["what about the weather?"]
    for name in ("ppr-regex", "bct-regex", "ppr-ner"):
        r = idx.retriever(name)
        batch = r.answer_batch(queries, 10)
        assert batch[-1].no_seed and batch[-1].hits == ()  # the weather names nothing in the graph
        for q, got in zip(queries, batch):
            assert got.question == q and got.walk is None and not got.why  # a batch ranks, it does not explain
            try:
                expected = r.search(q, 10)
            except NoSeedError as e:
                assert got.no_seed and got.notes == (str(e),)
                continue
            assert got.hits == expected and not got.no_seed  # same ids, same float scores, same ranks


def test_compare_by_kind_is_the_bootstrap_of_each_kinds_questions(core_corpus):
    from engine.evaluate.evaluate import compare_by_kind
    from engine.evaluate.metrics import paired_bootstrap

    res = evaluate(Index(core_corpus), ["bm25", "ppr-regex"], (1, 5))
    rows = compare_by_kind(res, core_corpus.queries, "bm25", "ppr-regex", "hr@1", resamples=500, seed=3)
    assert [(kind, n) for kind, n, _ in rows] == [("all", 40), ("multi-hop", 20), ("single-hop", 20)]
    multi = [q.id for q in core_corpus.queries if q.kind == "multi-hop"]
    ref = paired_bootstrap([res.results["bm25"].per_query[i]["hr@1"] for i in multi],
                           [res.results["ppr-regex"].per_query[i]["hr@1"] for i in multi],
                           metric="hr@1", names=("bm25", "ppr-regex"), resamples=500, seed=3)
    assert rows[1][2] == ref


def test_a_ci_is_read_in_words():
    from engine.evaluate.evaluate import verdict
    from engine.evaluate.metrics import BootstrapCI

    ci = lambda low, high: BootstrapCI("hr@5", "filing", "dense", (low + high) / 2, low, high, 10, 42, 0.0)  # noqa: E731
    assert verdict(ci(0.42, 0.63)) == "filing better: the whole interval is above 0"
    assert verdict(ci(-0.3, -0.01)) == "dense better: the whole interval is below 0"
    assert verdict(ci(-0.1, 0.2)) == "not significant: the interval includes 0"
    assert verdict(ci(0.0, 0.2)) == "not significant: the interval includes 0"  # touching 0 is including it


def test_the_verdict_of_a_comparison_built_to_be_significant_and_one_built_not_to_be():
    from engine.evaluate.evaluate import EvalResult, RetrieverResult, compare, verdict
    from engine.evaluate.metrics import metric_names
    from engine.indexing.index import SearchConfig

    def result(a_hits, b_hits):
        def per(hits):
            return {f"q{i}": {m: float(h) for m in metric_names((5,))} for i, h in enumerate(hits)}
        rs = {n: RetrieverResult(n, {}, {}, per(h), {}, ()) for n, h in (("a", a_hits), ("b", b_hits))}
        return EvalResult("built", 40, len(a_hits), (5,), SearchConfig(), rs)
    # a finds 30 of 40 that b misses, and misses none b finds: every resample is in a's favour
    ahead = compare(result([1] * 30 + [0] * 10, [0] * 40), "a", "b")
    assert {verdict(c) for c in ahead} == {"a better: the whole interval is above 0"}
    # each finds 10 the other misses: the differences balance, and the interval straddles 0
    even = compare(result([1] * 10 + [0] * 10 + [1] * 20, [0] * 10 + [1] * 10 + [1] * 20), "a", "b")
    assert {verdict(c) for c in even} == {"not significant: the interval includes 0"}
    behind = compare(result([0] * 40, [1] * 30 + [0] * 10), "a", "b")
    assert {verdict(c) for c in behind} == {"b better: the whole interval is below 0"}


def test_a_comparison_opens_on_the_best_graph_retriever_against_the_best_baseline():
    from engine.evaluate.evaluate import EvalResult, RetrieverResult, default_pair

    def r(name, hr5, recall5):
        return RetrieverResult(name, {"hr@5": hr5, "recall@5": recall5, "mrr": 0.0}, {}, {}, {}, ())

    res = EvalResult("c", 10, 4, (5,), None, {n: r(n, *v) for n, v in {
        "bm25": (0.6, 0.3), "dense": (0.7, 0.2), "ppr-regex": (0.5, 0.4), "hybrid-ner": (0.8, 0.35)}.items()})
    graph = ["ppr-regex", "hybrid-ner"]
    assert default_pair(res, graph, multi_gold=True) == ("ppr-regex", "bm25", "recall@5")
    assert default_pair(res, graph, multi_gold=False) == ("hybrid-ner", "dense", "hr@5")
    assert default_pair(res, [], multi_gold=False) == ("hybrid-ner", "dense", "hr@5")  # no graph: the two best
    # a tie on the metric goes to the better MRR, then to the earlier retriever
    tied = EvalResult("c", 10, 4, (5,), None, {
        "filing": RetrieverResult("filing", {"hr@5": 0.9, "recall@5": 0.5, "mrr": 0.7}, {}, {}, {}, ()),
        "filing-learned": RetrieverResult("filing-learned", {"hr@5": 0.9, "recall@5": 0.5, "mrr": 0.8}, {}, {}, {}, ()),
        "dense": RetrieverResult("dense", {"hr@5": 0.7, "recall@5": 0.4, "mrr": 0.6}, {}, {}, {}, ())})
    assert default_pair(tied, ["filing", "filing-learned"], multi_gold=False) == ("filing-learned", "dense", "hr@5")


def test_compare_by_kind_resamples_whole_clusters_when_given_them(core_index):
    from engine.evaluate.evaluate import compare_by_kind, evaluate, question_clusters
    from engine.evaluate.metrics import cluster_bootstrap

    corpus = core_index.corpus
    result = evaluate(core_index, ["bm25", "ppr-regex"], (5,))
    clusters = question_clusters(corpus.queries, "doc", corpus)
    rows = compare_by_kind(result, corpus.queries, "bm25", "ppr-regex", "recall@5", clusters=clusters)
    ids = [q.id for q in corpus.queries]
    ref = cluster_bootstrap([result.results["bm25"].per_query[i]["recall@5"] for i in ids],
                            [result.results["ppr-regex"].per_query[i]["recall@5"] for i in ids],
                            [clusters[i] for i in ids], metric="recall@5", names=("bm25", "ppr-regex"))
    assert rows[0][0] == "all" and (rows[0][2].low, rows[0][2].high, rows[0][2].clusters) == (ref.low, ref.high,
                                                                                            ref.clusters)
    assert rows[0][2].clusters > 1
