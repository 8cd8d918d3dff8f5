"""Background builds: shared per (index, stages), progress inside stages, errors reported."""

import threading

import pytest

from engine.build.build import BuildStatus, build_in_background
from engine.build.index import Index
from tests.conftest import make_corpus


def test_a_background_build_reports_progress_inside_the_long_stages_and_finishes(core_corpus):
    index = Index(core_corpus)
    heard = []
    index.build("embeddings", progress=lambda stage, done, total: heard.append((stage, done, total)))
    assert heard[-1] == ("embeddings", 29, 29) and [d for _, d, _ in heard] == sorted(d for _, d, _ in heard)
    job = build_in_background(index, ["tokens", "extraction:ner"])
    assert job.wait(120)
    status = job.status()
    assert status.complete and status.error is None and status.finished == ("tokens", "extraction:ner")
    assert status.fraction() == 1.0 and {"tokens", "extraction:ner"} <= set(index.built())


def test_two_askers_of_the_same_components_share_one_job(core_corpus):
    index = Index(core_corpus)
    a = build_in_background(index, ["tokens", "bm25"])
    b = build_in_background(index, ["tokens", "bm25"])
    assert a is b and a.wait(30)
    assert build_in_background(Index(core_corpus), ["tokens", "bm25"]) is not a  # another index, another job


def test_a_failed_build_says_why_and_is_retried_when_asked_again():
    index = Index(make_corpus(["alpha beta", "gamma delta"]))
    job = build_in_background(index, ["tokens", "no-such-stage"])
    assert job.wait(10)
    status = job.status()
    assert status.complete and status.finished == ("tokens",)
    assert status.error == "unknown index component 'no-such-stage'"
    assert build_in_background(index, ["tokens", "no-such-stage"]) is not job


def test_time_left_comes_from_the_rate_so_far():
    s = BuildStatus(("embeddings", "bm25"), (), "embeddings", 100, 400, 10.0, None, False)
    assert s.seconds_left() == pytest.approx(30.0) and s.fraction() == pytest.approx(0.125)
    assert BuildStatus(("x",), (), "x", 0, 0, 1.0, None, False).seconds_left() is None


def test_a_query_on_built_parts_does_not_wait_for_another_parts_build(core_corpus):
    index = Index(core_corpus)
    index.build("bm25")
    release, started = threading.Event(), threading.Event()

    def slow_stage(stage, done, total):
        started.set()
        release.wait(30)  # hold the embeddings build mid-way

    t = threading.Thread(target=index.build, args=("embeddings",), kwargs={"progress": slow_stage})
    t.start()
    assert started.wait(60)
    hits = index.retriever("bm25").search("Brightwater credit agreement", 3)  # answered while embeddings build
    assert len(hits) == 3 and t.is_alive()
    release.set()
    t.join(60)


def test_a_killed_build_resumes_from_the_stages_already_on_disk(core_corpus, tmp_path):
    from engine.store.cache import DiskCache

    first = Index(core_corpus, cache=DiskCache(tmp_path))
    first.build("tokens")
    first.build("extraction:regex")  # …and then the process died
    again = Index(core_corpus, cache=DiskCache(tmp_path))
    assert again.stored("tokens") and again.stored("extraction:regex") and not again.stored("embeddings")
    job = build_in_background(again, ["tokens", "extraction:regex", "graph:regex"])
    assert job.wait(60) and job.status().error is None
    hits = {(e.component, e.kind) for e in again.cache.events}
    assert {("tokens", "hit"), ("extraction:regex", "hit"), ("graph:regex", "stored")} <= hits
