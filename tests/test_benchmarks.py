import pytest

from engine.evaluate.benchmarks import closed_corpus, load_questions, open_corpus, run_bench, sample
from engine.errors import PathLensError
from tests.conftest import ROOT

FIX = ROOT / "tests" / "fixtures"


def test_musique_loader_reads_gold_from_is_supporting():
    qs = load_questions("musique", FIX / "musique.jsonl")
    assert [q.id for q in qs] == ["2hop__1", "2hop__2"]
    q = qs[0]
    assert len(q.paragraphs) == 4 and len(q.gold) == 2
    titles = {p.id: p.title for p in q.paragraphs}
    assert {titles[g] for g in q.gold} == {"Arden Bridge", "Holloway Engineering"}


@pytest.mark.parametrize("fmt,name", [("hotpotqa", "hotpotqa.json"), ("2wiki", "2wiki.jsonl")])
def test_hotpot_layout_gold_from_supporting_fact_titles(fmt, name):
    qs = load_questions(fmt, FIX / name)
    assert len(qs) == 2
    q = qs[0]
    texts = {p.title: p.text for p in q.paragraphs}
    assert texts["Veloria"] == "Veloria is a kingdom. Its capital is Mirth."
    assert {p.title for p in q.paragraphs if p.id in q.gold} == {"Veloria", "Mirth"}


def test_closed_and_open_pooling_counts():
    qs = load_questions("musique", FIX / "musique.jsonl")
    assert [len(closed_corpus(q)) for q in qs] == [4, 3]
    pooled = open_corpus(qs, "m")
    assert len(pooled) == 6  # "Holloway Engineering" appears in both questions and is pooled once
    assert len(pooled.queries) == 2 and all(q.kind == "multi-hop" for q in pooled.queries)


def test_malformed_file_names_line_and_field(tmp_path):
    with pytest.raises(PathLensError, match=r"line 2, paragraph 1: missing field 'is_supporting'"):
        load_questions("musique", FIX / "musique_bad.jsonl")
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"id": "a", "question": "q"}\n', encoding="utf-8")
    with pytest.raises(PathLensError, match=r"line 1: missing field 'paragraphs'"):
        load_questions("musique", bad)
    with pytest.raises(PathLensError, match=r"record 1: missing field '_id'"):
        load_questions("hotpotqa", _as_array(tmp_path))
    with pytest.raises(PathLensError, match="unknown benchmark format"):
        load_questions("squad", FIX / "musique.jsonl")


def _as_array(tmp_path):
    p = tmp_path / "arr.json"
    p.write_text('[{"question": "q", "context": [], "supporting_facts": []}]', encoding="utf-8")
    return p


def test_wrong_format_is_reported():
    with pytest.raises(PathLensError, match="missing field '_id'"):
        load_questions("hotpotqa", FIX / "musique.jsonl")


def test_sample_is_seeded():
    import random

    qs = load_questions("musique", FIX / "musique.jsonl")
    many = qs * 10  # 20 questions: seeds that drew the same one would hide a sample that ignores its seed
    assert sample(many, 5, 42) == random.Random(42).sample(many, 5)  # the documented draw, by an independent call
    assert [sample(many, 5, seed) for seed in (1, 2, 3)] != [sample(many, 5, 42)] * 3
    assert sample(qs, None, 42) == qs


@pytest.mark.parametrize("mode", ["closed", "open"])
def test_run_bench_on_fixture(mode):
    res = run_bench("musique", FIX / "musique.jsonl", mode, ["bm25", "tfidf", "ppr-regex", "bct-regex"], (1, 3))
    js = res.to_json()
    assert js["n_questions"] == 2 and js["mode"] == mode
    assert set(js["results"]) == {"bm25", "tfidf", "ppr-regex", "bct-regex"}
    # both questions name a gold paragraph's title; BM25 finds one at rank 1
    assert js["results"]["bm25"]["hr@1"] == 1.0
    assert res.n_passages == (7 if mode == "closed" else 6)


def test_a_stopped_closed_pool_returns_the_questions_it_finished():
    full = run_bench("musique", FIX / "musique.jsonl", "closed", ["bm25", "ppr-regex"], (1, 3))
    heard = []
    stopped = run_bench("musique", FIX / "musique.jsonl", "closed", ["bm25", "ppr-regex"], (1, 3),
                        on_progress=lambda step, done, total: heard.append((step, done, total)),
                        should_stop=lambda: len(heard) >= 2)  # the start, then one question done
    assert heard == [("questions", 0, 2), ("questions", 1, 2)]
    assert (stopped.complete, stopped.n_questions, stopped.n_asked) == (False, 1, 2)
    assert full.complete and full.n_asked == 2
    first = "2hop__1"
    for r in ("bm25", "ppr-regex"):
        assert stopped.eval.results[r].per_query == {first: full.eval.results[r].per_query[first]}
        assert stopped.eval.results[r].means == full.eval.results[r].per_query[first]
    assert stopped.to_json()["complete"] is False


def test_a_benchmark_stopped_before_any_question_says_so():
    with pytest.raises(PathLensError, match="cancelled after 0 of 2 questions"):
        run_bench("musique", FIX / "musique.jsonl", "closed", ["bm25"], (1,), should_stop=lambda: True)
    with pytest.raises(PathLensError, match=r"cancelled after 0 of 2 questions \(while building the index\)"):
        run_bench("musique", FIX / "musique.jsonl", "open", ["bm25"], (1,), should_stop=lambda: True)


def test_the_open_corpus_reports_its_index_stages_then_its_questions():
    heard = []
    run_bench("musique", FIX / "musique.jsonl", "open", ["bm25", "ppr-regex"], (1,),
              on_progress=lambda step, done, total: heard.append((step, done, total)))
    steps = list(dict.fromkeys(step for step, _, _ in heard))
    assert steps == ["tokens", "bm25", "extraction:regex", "graph:regex", "questions"]
    assert heard[-1] == ("questions", 2, 2) and ("tokens", 0, 6) in heard


def test_labeled_questions_of_another_kind_are_asked_of_the_whole_open_corpus(tmp_path):
    import json

    asked = tmp_path / "comparisons.queries.jsonl"
    asked.write_text(json.dumps({"id": "c1", "text": "Which is in Yorkshire, Leeds or York?", "kind": "comparison",
                                 "gold": ["p-04113e1ec60e", "p-38d30561e2da"]}) + "\n", encoding="utf-8")
    res = run_bench("musique", FIX / "musique.jsonl", "open", ["bm25"], (1, 2), queries=asked)
    assert (res.n_questions, res.n_passages) == (1, 6)  # the benchmark's 6 pooled passages, the file's 1 question
    bm25 = res.eval.results["bm25"]
    assert set(bm25.per_query) == {"c1"} and bm25.by_kind["comparison"]["recall@2"] == 1.0
    # both passages name a place of the question, and nothing else does: both on top
    run = bm25.run["c1"]
    assert set(sorted(run, key=lambda pid: -run[pid])[:2]) == {"p-04113e1ec60e", "p-38d30561e2da"}
    with pytest.raises(PathLensError, match="asked of the whole open corpus: use --mode open without --sample"):
        run_bench("musique", FIX / "musique.jsonl", "closed", ["bm25"], (1,), queries=asked)
    with pytest.raises(PathLensError, match="asked of the whole open corpus"):
        run_bench("musique", FIX / "musique.jsonl", "open", ["bm25"], (1,), n=1, queries=asked)
    asked.write_text(json.dumps({"id": "c1", "text": "Where?", "gold": ["p-nowhere"]}) + "\n", encoding="utf-8")
    with pytest.raises(PathLensError, match=r"comparisons\.queries\.jsonl.*line 1.*p-nowhere"):
        run_bench("musique", FIX / "musique.jsonl", "open", ["bm25"], (1,), queries=asked)
