import numpy as np
import pytest

from engine.errors import PathLensError
from engine.evaluate.metrics import (BootstrapCI, all_found, cluster_bootstrap, hit_rate, leader_against_each,
                                     leaders_in_words, mean_metrics, metric_words, paired_bootstrap, per_query, ranking, recall, reciprocal_rank)


def test_each_metric_against_hand_computed_values():
    ranked, gold = ["a", "b", "c", "d"], {"c", "z"}
    assert hit_rate(ranked, gold, 2) == 0.0
    assert hit_rate(ranked, gold, 3) == 1.0
    assert reciprocal_rank(ranked, gold) == pytest.approx(1 / 3)
    assert reciprocal_rank(ranked, {"x"}) == 0.0
    assert recall(ranked, gold, 3) == 0.5
    assert recall(ranked, {"a", "d"}, 4) == 1.0
    assert all_found(ranked, gold, 4) == 0.0
    assert all_found(ranked, {"a", "b"}, 2) == 1.0


def test_ranking_sorts_by_score_and_keeps_insertion_order_for_ties():
    assert ranking({"x": 1.0, "y": 3.0, "z": 1.0}) == ["y", "x", "z"]


def test_per_query_and_means():
    run = {"q1": {"a": 3, "b": 2, "c": 1}, "q2": {"d": 1, "e": 0.5}}
    qrels = {"q1": {"b": 1}, "q2": {"x": 1}, "q3": {"a": 1}}  # q3 missing from the run: zero
    values = per_query(run, qrels, [1, 3])
    assert values["q1"] == {"hr@1": 0.0, "hr@3": 1.0, "mrr": 0.5, "recall@1": 0.0, "recall@3": 1.0,
                            "all@1": 0.0, "all@3": 1.0}
    assert values["q2"]["mrr"] == 0.0 and values["q3"]["hr@3"] == 0.0
    means = mean_metrics(values)
    assert means["mrr"] == pytest.approx(0.5 / 3)
    assert means["hr@3"] == pytest.approx(1 / 3)


def test_cutoffs_must_be_positive():
    with pytest.raises(PathLensError):
        per_query({}, {"q": {"a": 1}}, [0])


def test_bootstrap_known_answers():
    a = [1, 0, 1, 1, 0, 1]
    ci = paired_bootstrap(a, a, resamples=500)
    assert (ci.mean_diff, ci.low, ci.high) == (0.0, 0.0, 0.0)
    # a constant difference has a degenerate interval at that difference
    ci = paired_bootstrap([0.7, 0.2, 0.5], [0.2, -0.3, 0.0], resamples=500)
    assert ci.low == pytest.approx(0.5) and ci.high == pytest.approx(0.5) and ci.p_not_better == 0.0


def test_bootstrap_is_seeded():
    rng = np.random.default_rng(0)
    a, b = rng.random(30), rng.random(30)
    ci = paired_bootstrap(a, b, resamples=2000, seed=7)
    assert ci == paired_bootstrap(a, b, resamples=2000, seed=7)
    assert ci != paired_bootstrap(a, b, resamples=2000, seed=8)


def test_bootstrap_against_its_exact_distribution_by_hand():
    # d = (1, 0): a resample of two draws has mean 1 (1/4), 0.5 (1/2) or 0 (1/4), so the 2.5th and 97.5th
    # percentiles are 0 and 1 and P(mean <= 0) is 1/4, up to the Monte Carlo error of 10,000 draws
    ci = paired_bootstrap([1, 0], [0, 0], resamples=10_000, seed=3)
    assert (ci.mean_diff, ci.low, ci.high) == (0.5, 0.0, 1.0)
    assert ci.p_not_better == pytest.approx(0.25, abs=0.015)


def test_bootstrap_agrees_with_scipy():
    from scipy.stats import bootstrap

    rng = np.random.default_rng(1)
    a, b = (rng.random(40) < 0.6).astype(float), (rng.random(40) < 0.4).astype(float)
    ci = paired_bootstrap(a, b, resamples=20_000, seed=5)
    ref = bootstrap((a - b,), np.mean, n_resamples=20_000, method="percentile", rng=np.random.default_rng(11))
    assert ci.low == pytest.approx(ref.confidence_interval.low, abs=0.02)
    assert ci.high == pytest.approx(ref.confidence_interval.high, abs=0.02)


def test_cluster_bootstrap_against_its_exact_distribution_by_hand():
    # clusters A = (1, 1) and B = (0): a resample draws two clusters; AA has mean 4/4, AB and BA 2/3, BB 0/0+…:
    # BB is 0/2 = 0. So the interval is [0, 1], P(mean <= 0) = 1/4, and the point estimate is the plain mean 2/3.
    ci = cluster_bootstrap([1, 1, 0], [0, 0, 0], ["A", "A", "B"], resamples=10_000, seed=3)
    assert ci.mean_diff == pytest.approx(2 / 3)
    assert (ci.low, ci.high, ci.clusters) == (0.0, 1.0, 2)
    assert ci.p_not_better == pytest.approx(0.25, abs=0.015)


def test_cluster_bootstrap_against_a_brute_force_loop_of_its_own():
    import random

    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 6, size=25)
    clusters = [f"c{i}" for i, n in enumerate(sizes) for _ in range(n)]
    effect = {c: rng.random() < 0.5 for c in sorted(set(clusters))}  # questions of a cluster move together
    a = np.array([float(effect[c] or rng.random() < 0.2) for c in clusters])
    b = np.array([float(rng.random() < 0.3) for _ in clusters])
    ci = cluster_bootstrap(a, b, clusters, resamples=20_000, seed=9)
    by = {}
    for c, d in zip(clusters, a - b):
        by.setdefault(c, []).append(d)
    groups, loop = list(by.values()), random.Random(4)
    means = []
    for _ in range(20_000):
        drawn = [loop.choice(groups) for _ in groups]
        means.append(sum(map(sum, drawn)) / sum(map(len, drawn)))
    assert ci.low == pytest.approx(np.percentile(means, 2.5), abs=0.02)
    assert ci.high == pytest.approx(np.percentile(means, 97.5), abs=0.02)
    # the questions of a cluster agree, so resampling them one by one understates the spread
    plain = paired_bootstrap(a, b, resamples=20_000, seed=9)
    assert ci.high - ci.low > 1.2 * (plain.high - plain.low)


def test_cluster_bootstrap_of_single_questions_draws_what_the_paired_one_draws():
    rng = np.random.default_rng(0)
    a, b = rng.random(30), rng.random(30)
    ci, plain = cluster_bootstrap(a, b, [str(i) for i in range(30)], resamples=2000, seed=7), \
        paired_bootstrap(a, b, resamples=2000, seed=7)
    assert (ci.low, ci.high, ci.clusters) == (pytest.approx(plain.low), pytest.approx(plain.high), 30)


def test_cluster_bootstrap_rejects_mismatched_input():
    with pytest.raises(PathLensError, match="cluster"):
        cluster_bootstrap([1, 0], [1, 0], ["a"])


def test_bootstrap_rejects_unpaired_input():
    with pytest.raises(PathLensError):
        paired_bootstrap([1, 0], [1])


def test_metric_words_by_hand():
    assert metric_words("hr@5", 0.975) == "finds a gold passage in its top 5 for 98% of the questions"
    assert metric_words("recall@3", 0.5) == "finds 50% of the gold passages in its top 3"
    assert metric_words("all@10", 0.25) == "finds every gold passage in its top 10 for 25% of the questions"
    assert metric_words("mrr", 0.8) == (
        "ranks a gold passage nearest the top (MRR is 1 when the first passage is always gold)")
    assert metric_words("mrr", 0.0) == "ranks no gold passage at all"
    # questions scored by page are said by page (walk 23: "88% of the gold passages" on a page-scored set)
    assert metric_words("recall@5", 0.882, "page") == "finds 88% of the gold pages in its top 5"
    lead = {"b": BootstrapCI("hr@5", "a", "b", 0.4, 0.2, 0.6, 1000, 42, 0.0)}
    assert leader_against_each({"a": 0.9, "b": 0.5}, "hr@5", lead, "page").startswith(
        "a finds a gold page in its top 5 for 90% of the questions")
    with pytest.raises(PathLensError, match="unknown metric 'ndcg@5'"):
        metric_words("ndcg@5", 0.5)


def test_leaders_in_words_by_hand():
    assert leaders_in_words({"bm25": 0.975, "dense": 0.675}, "hr@5") == (
        "bm25 finds a gold passage in its top 5 for 98% of the questions; hr@5 0.975, the best of the 2 retrievers")
    # level at the three decimals the tables show: named together
    assert leaders_in_words({"bm25": 0.9004, "rrf": 0.9001, "dense": 0.5}, "all@5") == (
        "bm25 and rrf do best, level: each finds every gold passage in its top 5 for 90% of the questions; all@5 0.900")
    assert leaders_in_words({"dense": 0.25}, "recall@3") == (
        "dense finds 25% of the gold passages in its top 3; recall@3 0.250")
    with pytest.raises(PathLensError, match="no retriever"):
        leaders_in_words({}, "mrr")


def test_two_retrievers_whose_interval_includes_0_are_tied_not_the_best():
    from engine.evaluate.metrics import BootstrapCI

    means = {"hybrid-ner": 0.938, "bm25": 0.933, "dense": 0.6}
    tied = BootstrapCI("recall@5", "hybrid-ner", "bm25", 0.005, -0.025, 0.038, 10_000, 42, 0.4)
    assert leaders_in_words(means, "recall@5", tied) == (
        "hybrid-ner and bm25 cannot be told apart: hybrid-ner finds 94% of the gold passages in its top 5; recall@5 "
        "0.938, bm25 0.933, but the 95% interval of their difference, [-0.025, +0.038], includes 0: a gap this size "
        "could come from which questions happened to be asked")
    apart = BootstrapCI("recall@5", "hybrid-ner", "bm25", 0.005, 0.001, 0.038, 10_000, 42, 0.01)
    assert leaders_in_words(means, "recall@5", apart).endswith("the best of the 3 retrievers")
    # an interval between two retrievers neither of which leads says nothing of the leader
    others = BootstrapCI("recall@5", "bm25", "dense", 0.3, -0.1, 0.5, 10_000, 42, 0.2)
    assert leaders_in_words(means, "recall@5", others).endswith("the best of the 3 retrievers")


def test_hr_mrr_at_10_and_recall_agree_with_ranx_on_seeded_random_runs():
    """ranx (Bassani, ECIR 2022) as an independent reference over 200 random queries. Tie policy: the project ranks
    equal scores in the run's insertion order (a stable sort); ranx has its own, so the scores here are distinct.
    MRR is MRR@10: evaluation reads each ranking 10 deep (evaluate.MRR_DEPTH), as the runs below are cut. ranx runs
    in its own interpreter with numba's compiler off (NUMBA_DISABLE_JIT, numba's documented switch): the same
    Python code, without compiling each metric, which took most of the suite's slowest minute on a loaded machine."""
    import json
    import os
    import random
    import subprocess
    import sys

    rng = random.Random(11)
    docs = [f"d{i}" for i in range(40)]
    qrels, run = {}, {}
    for q in range(200):
        qrels[f"q{q}"] = {d: 1 for d in rng.sample(docs, rng.randint(1, 4))}
        ranked = rng.sample(docs, rng.randint(1, 25))
        run[f"q{q}"] = {d: 1.0 - i / 100 for i, d in enumerate(ranked[:10])}  # distinct, descending, 10 deep
    ours = per_query(run, qrels, (1, 3, 5, 10))
    names = {"hit_rate@1": "hr@1", "hit_rate@5": "hr@5", "hit_rate@10": "hr@10", "mrr@10": "mrr",
             "recall@3": "recall@3", "recall@10": "recall@10"}
    script = ("import json, sys, warnings\nwarnings.simplefilter('ignore')\n"  # numba's notes on its own casts
              "from ranx import Qrels, Run, evaluate\nqrels, run, names = json.load(sys.stdin)\n"
              "reference = Qrels(qrels)\nscores = evaluate(reference, Run(run), names, return_mean=False)\n"
              "print(json.dumps([list(reference.keys()), {m: [float(v) for v in scores[m]] for m in names}]))")
    out = subprocess.run([sys.executable, "-c", script], input=json.dumps([qrels, run, list(names)]), text=True,
                         capture_output=True, env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    order, theirs = json.loads(out.stdout)  # ranx reports its queries in its own order
    assert sorted(order) == sorted(qrels)
    for metric, ours_name in names.items():
        assert [ours[q][ours_name] for q in order] == pytest.approx(theirs[metric], abs=1e-12), metric


def test_the_leader_is_the_best_only_when_it_leads_every_other_whatever_pair_is_shown():
    """Compare said "the best of the 3" beside one pair and "tied" beside another, with the same means (#63)."""
    from engine.evaluate.metrics import BootstrapCI, leader_against_each

    def ci(b, low, high):
        return BootstrapCI("hr@5", "a", b, (low + high) / 2, low, high, 10_000, 42, 0.0)
    means = {"a": 0.8, "b": 0.7, "c": 0.5}
    said = leader_against_each(means, "hr@5", {"b": ci("b", 0.02, 0.18), "c": ci("c", 0.1, 0.5)})
    assert said == ("a finds a gold passage in its top 5 for 80% of the questions; hr@5 0.800, the best of the 3 "
                    "retrievers: its lead over each other has a 95% interval above 0")
    said = leader_against_each(means, "hr@5", {"b": ci("b", -0.05, 0.25), "c": ci("c", 0.1, 0.5)})
    assert said == ("a finds a gold passage in its top 5 for 80% of the questions; hr@5 0.800, but not told apart "
                    "from b (the 95% interval of each difference includes 0, so the gap could come from which questions happened to be asked: b 0.700, "
                    "[-0.050, +0.250]); ahead of c")
    # two that rank every question's gold alike: no interval to read, the same on every question (a walk-through
    # read "[+0.000, +0.000]")
    said = leader_against_each({"a": 0.9, "b": 0.9}, "hr@5", {"b": ci("b", 0.0, 0.0)})
    assert said.endswith("b 0.900, the same on every question)"), said
