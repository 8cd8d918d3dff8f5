"""Checks on the public benchmark files in ../shared/data (skipped with the reason when absent)."""

from __future__ import annotations

import pytest

from engine.benchmarks import run_bench
from tests.conftest import ROOT

DATA = ROOT.parent / "shared" / "data"
FILES = {"musique": DATA / "musique_ans_dev_292.jsonl", "hotpotqa": DATA / "hotpotqa_dev_distractor_300.jsonl"}


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_the_hybrids_seed_every_benchmark_question(fmt):
    if not FILES[fmt].exists():
        pytest.skip(f"{FILES[fmt]} is absent: the shared benchmark data lies beside the checkout in CI")
    # closed pools of 8 questions: under two hundred passages to encode, so the test stays quick
    res = run_bench(fmt, FILES[fmt], "closed", ["hybrid-regex", "hybrid-ner", "ppr-ner"], (5,), 8, 42)
    for name in ("hybrid-regex", "hybrid-ner"):
        r = res.eval.results[name]
        assert r.no_seed == () and len(r.per_query) == 8
        assert all(r.run[q] for q in r.per_query)  # every question has hits
    # and each hybrid finds at least as many gold passages as its entity-only sibling does
    assert res.eval.results["hybrid-ner"].means["recall@5"] >= res.eval.results["ppr-ner"].means["recall@5"]
