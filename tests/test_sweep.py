import numpy as np
import pytest

from engine.ingest.corpus import load_corpus
from engine.errors import PathLensError
from engine.indexing.index import Index
from engine.evaluate.sweep import (DEFAULT_SIZES, SweepConfig, SweepResult, Trial, default_sizes, in_words,
                                   resolve_sizes, run_sweep, subsample)
from engine.indexing.views import subset


def test_subsample_keeps_gold_has_size_and_is_seeded():
    gold = [3, 7, 11]
    a = subsample(50, gold, 20, np.random.default_rng([42, 20, 0]))
    b = subsample(50, gold, 20, np.random.default_rng([42, 20, 0]))
    c = subsample(50, gold, 20, np.random.default_rng([42, 20, 1]))
    assert a == b and a != c
    assert len(a) == 20 and set(gold) <= set(a) and a == sorted(a)


def test_sizes_are_checked():
    assert resolve_sizes(["10", 5, "full"], 40, 3) == (5, 10, 40)
    with pytest.raises(PathLensError, match="larger than the corpus"):
        resolve_sizes([50], 40, 3)
    with pytest.raises(PathLensError, match="smaller than the 3 gold"):
        resolve_sizes([2], 40, 3)
    with pytest.raises(PathLensError, match="whole number"):
        resolve_sizes(["lots"], 40, 3)


@pytest.fixture(scope="module")
def grown():
    # the core plus generated passages: a small full-size stand-in
    from engine.ingest.corpus import grown_corpus

    return Index(grown_corpus("grown", {"core": "dataroom-core", "size": 400, "seed": 7}))


def test_default_sizes_fit_the_corpus():
    assert default_sizes(4200, 80) == DEFAULT_SIZES
    # MuSiQue's open corpus: 539 gold passages of 4,543, so 100 and 500 cannot hold them all
    assert default_sizes(4543, 539) == (540, 920, 1600, 2700, "full")
    assert default_sizes(29, 25) == (25, 26, 27, 28, "full")
    assert default_sizes(1, 1) == ("full",) and default_sizes(5000, 4999) == ("full",)
    for n, g in [(4543, 539), (29, 25), (100, 1), (300, 120)]:
        sizes = default_sizes(n, g)
        assert resolve_sizes(sizes, n, g)[-1] == n  # every one passes the sweep's own check


def test_sweep_trials_and_json(grown):
    cfg = SweepConfig(sizes=(100, 200, "full"), resamples=2, retrievers=("bm25", "ppr-regex"), metric="hr@5")
    seen = []
    res = run_sweep(grown, cfg, on_trial=lambda t, done, total: seen.append((done, total)))
    assert res.complete and res.sizes == (100, 200, 400)
    assert len(res.trials) == (2 + 2 + 1) * 2 == len(seen) and seen[-1] == (10, 10)
    js = res.to_json()
    assert set(js) == {"corpus", "n_passages", "sizes", "config", "results", "lead", "in_words"}
    assert js["in_words"] == in_words(res) and js["in_words"]
    # the lead's interval is the whole corpus's leader against the other, as Compare would resample them
    from engine.evaluate.evaluate import compare_by_kind, doc_clusters, evaluate

    full = {t.retriever: t.value for t in res.trials if t.size == 400}
    a, b = sorted(full, key=lambda n: (-round(full[n], 3), n))
    plain = evaluate(grown, ["bm25", "ppr-regex"], (1, 3, 5))
    ci = compare_by_kind(plain, grown.corpus.queries, a, b, "hr@5",
                         clusters=doc_clusters(grown.corpus.queries, grown.corpus))[0][2]
    assert (res.lead.a, res.lead.b, res.lead.low, res.lead.high) == (a, b, ci.low, ci.high)
    assert js["lead"]["low"] == ci.low and js["lead"]["clusters"] == ci.clusters
    r = js["results"]["100"]["bm25"]
    assert len(r["values"]) == 2 and r["min"] <= r["mean"] <= r["max"]
    assert len(js["results"]["400"]["ppr-regex"]["values"]) == 1
    # the same seed gives the same numbers
    assert run_sweep(grown, cfg).to_json() == js


def test_sweep_full_size_equals_plain_eval(grown):
    from engine.evaluate.evaluate import evaluate

    res = run_sweep(grown, SweepConfig(sizes=("full",), resamples=1, retrievers=("bm25",), metric="mrr"))
    assert res.trials[0].value == evaluate(grown, ["bm25"], (1, 3, 5)).results["bm25"].means["mrr"]


def test_subset_slices_without_rebuilding(grown):
    grown.graph("regex")
    sub = subset(grown, range(0, 400, 2))
    assert "graph:regex" in sub.built() and "extraction:regex" in sub.built()
    g = sub.graph("regex")
    assert g.n_passages == 200 and np.asarray(g.incidence.sum(axis=0)).min() > 0


def test_cancel_keeps_finished_trials(grown):
    calls = []
    res = run_sweep(grown, SweepConfig(sizes=(100, "full"), resamples=3, retrievers=("bm25",)),
                    on_trial=lambda t, d, n: calls.append(d), should_stop=lambda: len(calls) >= 2)
    assert not res.complete and len(res.trials) == 2


def test_bad_metric(grown):
    with pytest.raises(PathLensError, match="metric"):
        run_sweep(grown, SweepConfig(sizes=("full",), retrievers=("bm25",), metric="ndcg@10"))


def test_generator_is_deterministic_and_sized():
    from engine.ingest.worldgen import generate_passages

    a, b = generate_passages(300, 7), generate_passages(300, 7)
    assert a == b and len(a) == 300 and len({p.id for p in a}) == 300
    assert generate_passages(300, 8) != a
    full = load_corpus("dataroom")
    assert len(full) >= 4123 and len(full.queries) == 40
    assert full.passages[:29] == load_corpus("dataroom-core").passages


def test_generated_statements_agree_with_their_numbers():
    import re

    for p in load_corpus("dataroom").passages:
        m = re.search(r"Commitment ([\d,]+) Contributions to date ([\d,]+) .* Unfunded commitment ([\d,]+)\.", p.text)
        if m and p.id.startswith("gen/"):
            c, paid, unfunded = (int(x.replace(",", "")) for x in m.groups())
            assert c - paid == unfunded, p.id


def _result(values: dict, complete: bool = True, metric: str = "hr@5") -> SweepResult:
    """A sweep of a 400-passage corpus from {retriever: {size: [one value per resample]}}."""
    trials = tuple(Trial(size, i, r, v, {}) for r, per in values.items() for size, vs in per.items()
                   for i, v in enumerate(vs))
    return SweepResult("room", 400, tuple(sorted({t.size for t in trials})),
                       SweepConfig(retrievers=tuple(values), metric=metric), trials, complete)


def test_a_finished_sweep_in_words_by_hand():
    result = _result({"bm25": {100: [1.0, 0.9], 400: [0.95]}, "ppr-regex": {100: [0.9, 0.9], 400: [0.7]},
                      "tfidf": {100: [0.8, 0.8], 400: [0.85]}})
    assert in_words(result) == [
        "On the whole corpus (400 passages) bm25 finds a gold passage in its top 5 for 95% of the questions; "
        "hr@5 0.950, the best of the 3 retrievers.",
        # drops: bm25 0.95 − 0.95 = 0, ppr-regex 0.9 − 0.7 = 0.2, tfidf 0.8 − 0.85 = −0.05 (a gain)
        "From 100 passages to 400, ppr-regex loses the most (0.900 → 0.700) and tfidf gains (0.800 → 0.850)."]
    held = _result({"bm25": {100: [0.95], 400: [0.95]}, "ppr-regex": {100: [0.9], 400: [0.7]}})
    assert in_words(held)[1] == ("From 100 passages to 400, ppr-regex loses the most (0.900 → 0.700) and bm25 holds "
                                 "(0.950 → 0.950).")


def test_a_sweep_in_words_names_level_leaders_and_says_nothing_when_cancelled():
    level = _result({"dense": {100: [0.5], 400: [0.4]}, "bm25": {100: [0.6], 400: [0.4]}}, metric="recall@3")
    assert in_words(level) == [
        "On the whole corpus (400 passages) dense and bm25 do best, level: each finds 40% of the gold passages in its "
        "top 3; recall@3 0.400.", "From 100 passages to 400, bm25 loses the most (0.600 → 0.400) and dense "
        "loses the least (0.500 → 0.400)."]
    same = _result({"dense": {100: [0.5], 400: [0.4]}, "bm25": {100: [0.6], 400: [0.5]}})
    assert in_words(same)[1] == "From 100 passages to 400, every retriever loses the same (0.100)."
    assert in_words(_result({"dense": {100: [0.5], 400: [0.4]}}, complete=False)) == []
    assert in_words(_result({"dense": {100: [0.5], 400: [0.4]}})) == [
        "On the whole corpus (400 passages) dense finds a gold passage in its top 5 for 40% of the questions; hr@5 "
        "0.400.", "From 100 passages to 400, dense goes from 0.500 to 0.400."]
    assert in_words(_result({"dense": {400: [0.4]}, "bm25": {400: [0.3]}}, metric="mrr")) == [  # one size: no change
        "On the whole corpus (400 passages) dense ranks a gold passage nearest the top (MRR is 1 when the first passage "
        "is always gold); mrr 0.400, the best of the 2 retrievers."]


def test_a_sweep_says_tied_when_the_interval_of_its_lead_includes_0_and_by_how_much_it_leads_otherwise():
    from dataclasses import replace

    from engine.evaluate.metrics import BootstrapCI

    base = _result({"bm25": {400: [0.95]}, "tfidf": {400: [0.90]}})
    tied = BootstrapCI("hr@5", "bm25", "tfidf", 0.05, -0.02, 0.12, 10_000, 42, 0.2)
    assert in_words(replace(base, lead=tied)) == [
        "On the whole corpus (400 passages) bm25 and tfidf cannot be told apart: bm25 finds a gold passage in its "
        "top 5 for 95% of the questions; hr@5 0.950, tfidf 0.900, but the 95% interval of their difference, "
        "[-0.020, +0.120], includes 0: a gap this size could come from which questions happened to be asked."]
    ahead = BootstrapCI("hr@5", "bm25", "tfidf", 0.05, 0.01, 0.09, 10_000, 42, 0.0)
    assert in_words(replace(base, lead=ahead)) == [
        "On the whole corpus (400 passages) bm25 finds a gold passage in its top 5 for 95% of the questions; hr@5 "
        "0.950, the best of the 2 retrievers; ahead of tfidf, the next, by +0.050 (95% interval [+0.010, +0.090])."]
    # two the table shows level are said level, whatever the interval of a difference under three decimals
    level = _result({"bm25": {400: [0.9501]}, "tfidf": {400: [0.9499]}})
    tiny = BootstrapCI("hr@5", "bm25", "tfidf", 0.0002, 0.0001, 0.0003, 10_000, 42, 0.0)
    assert in_words(replace(level, lead=tiny)) == [
        "On the whole corpus (400 passages) bm25 and tfidf do best, level: each finds a gold passage in its top 5 for "
        "95% of the questions; hr@5 0.950."]


def test_lead_ci_by_hand():
    from engine.evaluate.evaluate import EvalResult, RetrieverResult, lead_ci
    from engine.ingest.corpus import Corpus
    from engine.ingest.passage import Passage
    from engine.ingest.questions import LabeledQuery

    corpus = Corpus("c", tuple(Passage(f"d{i}#0", f"d{i}", f"d{i}", f"text {i}") for i in range(4)),
                    tuple(LabeledQuery(f"q{i}", f"question {i}", (f"d{i}#0",)) for i in range(4)))

    def res(name, values):
        return RetrieverResult(name, {"hr@5": sum(values) / 4}, {}, {f"q{i}": {"hr@5": v} for i, v in enumerate(values)},
                               {}, ())

    # c leads (1.0), then a and b level at 0.5: a comes first by name. The differences are 0, 0, 1, 1: a resample
    # draws all four from one half with chance 1/16 = 6.25% > 2.5%, so the interval is [0, 1] exactly: tied
    result = EvalResult("c", 4, 4, (5,), None, {"b": res("b", [1, 1, 0, 0]), "c": res("c", [1, 1, 1, 1]),
                                                "a": res("a", [1, 1, 0, 0])})
    ci = lead_ci(result, corpus.queries, corpus, "hr@5")
    assert (ci.a, ci.b, ci.mean_diff, ci.clusters) == ("c", "a", 0.5, 0) and (ci.low, ci.high) == (0, 1)
    assert lead_ci(EvalResult("c", 4, 4, (5,), None, {"c": result.results["c"]}), corpus.queries, corpus,
                   "hr@5") is None
