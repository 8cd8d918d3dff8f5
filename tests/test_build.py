"""Background builds: shared per (index, stages), progress inside stages, errors reported."""

import threading

import pytest

import json

from engine.indexing.background import build_in_background, stopped
from engine.jobs import JobStatus
from engine.indexing.index import Index
from engine.indexing.sharded import shards
from engine.cli import main
from engine.graph.entities import Mention, extraction_from, filter_mentions, merge_tallies, tally_mentions
from tests.conftest import make_corpus


def test_a_background_build_reports_progress_inside_the_long_stages_and_finishes(core_corpus):
    index = Index(core_corpus)
    heard = []
    index.build("embeddings", progress=lambda stage, done, total: heard.append((stage, done, total)))
    assert heard[-1] == ("embeddings", 29, 29) and [d for _, d, _ in heard] == sorted(d for _, d, _ in heard)
    job = build_in_background(index, ["tokens", "extraction:ner"])
    assert job.wait(120)
    status = job.status()
    assert status.over and status.error is None and status.finished == ("tokens", "extraction:ner")
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
    assert status.over and status.finished == ("tokens",)
    assert status.error == "unknown index component 'no-such-stage'"
    assert build_in_background(index, ["tokens", "no-such-stage"]) is not job


def test_time_left_comes_from_the_recent_rate():
    s = JobStatus("embeddings", 100, 400, 10.0, False, False, None, steps=("embeddings", "bm25"))
    assert s.seconds_left() == pytest.approx(30.0) and s.fraction() == pytest.approx(0.125)
    assert s.step_fraction() == pytest.approx(0.25)  # what a bar beside "100 of 400 passages" shows
    assert JobStatus("x", 0, 0, 1.0, False, False, None, steps=("x",)).seconds_left() is None
    # sped up: 100 in the first 60 s, 100 more in the last 10 s; the recent rate says 10 s a hundred, not 35
    fast = JobStatus("embeddings", 200, 400, 70.0, False, False, None, steps=("embeddings",), since=(60.0, 100))
    assert fast.seconds_left() == pytest.approx(20.0)
    # a window before any count falls back to the rate since the step began; one past the warm-up but shorter than
    # the settling time gives none yet (the rate since the start holds the warm-up: 8 min said for a 90 s step)
    assert JobStatus("embeddings", 200, 400, 70.0, False, False, None, since=(69.0, 190)).seconds_left() is None
    assert JobStatus("embeddings", 200, 400, 70.0, False, False, None, since=(0.0, 0)).seconds_left() == \
        pytest.approx(70.0)
    assert JobStatus("embeddings", 100, 400, 10.0, False, False, None, steps=("embeddings", "bm25"),
                     finished=()).fraction() == pytest.approx(0.125)


def test_a_jobs_window_follows_its_recent_reports(monkeypatch):
    """The window where the rate is read starts RECENT_SECONDS back, on a report of this step."""
    import engine.jobs as jobs

    clock = [0.0]
    monkeypatch.setattr(jobs.time, "perf_counter", lambda: clock[0])
    job = jobs.Job("w", lambda progress, stop: None)
    for t, done in ((0, 0), (10, 10), (40, 20), (50, 60)):
        clock[0] = float(t)
        job._progress("embeddings", done, 100)
    s = job.status()
    assert s.since == (10.0, 10) and s.step_seconds == 50.0  # (40, 20) is less than 30 s back from 50: kept
    assert s.seconds_left() == pytest.approx((50 - 10) / (60 - 10) * 40)
    clock[0] = 60.0
    job._progress("bm25", 1, 10)  # a new step starts its own window
    assert job.status().since == (0.0, 1)


def test_a_jobs_window_starts_past_the_warm_up(monkeypatch):
    """A walk-through's minor: the time left read 8, 5, then 3 min within 20 s of a step that took 90 s, its rate
    read over the slow first passages. The window starts at the first report past SETTLE_SHARE of the count."""
    import engine.jobs as jobs

    clock = [0.0]
    monkeypatch.setattr(jobs.time, "perf_counter", lambda: clock[0])
    job = jobs.Job("w", lambda progress, stop: None)
    for t, done in ((0, 0), (20, 20), (40, 60), (42, 100), (50, 300)):  # 5% of 1,000 is 50: (40, 60) is past it
        clock[0] = float(t)
        job._progress("embeddings", done, 1000)
        if t == 40:
            assert job.status().since == (40.0, 60) and job.status().seconds_left() is None  # too short a window
        if t == 42:
            assert job.status().seconds_left() is None
    s = job.status()
    assert s.since == (40.0, 60) and s.seconds_left() == pytest.approx(10 / 240 * 700)  # not 50 / 300 * 700


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


def test_worker_processes_build_what_one_process_builds_bit_for_bit(tmp_path):
    """Past POOL_MIN_PASSAGES a local build runs NER and encoding on a pool of spawned processes over
    shards (engine.indexing.sharded); forced here on the small core."""
    import numpy as np

    from engine.indexing.compute import LocalCompute
    from engine.indexing.index import Index
    from engine.ingest.corpus import load_corpus
    from engine.store.cache import DiskCache

    corpus = load_corpus("dataroom-core")
    one = Index(corpus, cache=DiskCache(tmp_path / "one"), compute=LocalCompute(processes=1))
    pool = Index(corpus, cache=DiskCache(tmp_path / "pool"), compute=LocalCompute(processes=2, min_passages=1, shard=8))
    ticks = []
    for stage in ("embeddings", "extraction:ner", "graph:ner"):
        one.build(stage)
        pool.build(stage, progress=lambda s, done, total: ticks.append((s, done, total)))
    assert np.array_equal(one.embeddings(), pool.embeddings())
    assert one.extraction("ner") == pool.extraction("ner")
    for name in sorted(p.name for p in (tmp_path / "one").glob("*.cache")):  # the same cache files, byte for byte
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "pool" / name).read_bytes()
    # progress counts finished shards (8 passages, or 16 for encoding: whole batches), up to every passage,
    # and is repeated while a shard runs (that report is where a build hears it should stop)
    ner = [done for stage, done, total in ticks if stage == "extraction:ner"]
    assert ner == sorted(ner) and ner[0] == 0 and ner[-1] == 29 and len(set(ner)) >= 3
    assert ("embeddings", 29, 29) in ticks


def test_shards_cover_every_position_once_at_batch_boundaries():
    assert shards(10, 4) == [range(0, 4), range(4, 8), range(8, 10)]
    assert shards(40, 20, align=16) == [range(0, 32), range(32, 40)]  # 20 rounds up to 32
    assert shards(5, 1, align=16) == [range(0, 5)]
    assert shards(0, 8) == []


def test_tallies_of_parts_add_up_to_the_tally_of_the_whole():
    a = [[Mention("Calder Bank", "NAME"), Mention("42", "CARDINAL")], [Mention("the Calder Bank", "NAME")]]
    b = [[Mention("Calder Bank", "NAME"), Mention("Brightwater", "NAME")], [Mention("Page", "NAME")]]
    whole = filter_mentions("regex", a + b)
    merged = extraction_from("regex", merge_tallies([tally_mentions(b), tally_mentions(a)]))
    assert merged == whole
    assert whole.entities == ("brightwater", "calder bank")
    assert whole.display["calder bank"] == "Calder Bank"  # 2 of 3 mentions
    assert whole.raw_mentions == 6 and whole.raw_unique == 5
    assert whole.dropped == {"numeric label": 1, "stop phrase": 1}


def test_the_local_build_shows_progress_and_then_reads_its_cache(tmp_path, capsys):
    assert main(["build", "--corpus", "dataroom-core", "--cache-dir", str(tmp_path), "--stages",
                 "tokens,embeddings,extraction:regex,graph:regex"]) == 0
    out, err = capsys.readouterr()
    assert "embeddings: 100%" in err and "29/29" in err  # tqdm's bar for the stage that reports passages
    assert "embeddings: 29 passages to encode\n" in err  # said before the work starts
    assert "dataroom-core: 29 passages built local in" in out
    assert main(["build", "--corpus", "dataroom-core", "--cache-dir", str(tmp_path), "--json",
                 "--stages", "tokens,embeddings,extraction:regex,graph:regex"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["from"] for s in out["stages"]] == ["cache"] * 4 and out["computed"] == []
    # the corpus's embeddings file gone, its passages' parts kept: nothing is encoded again
    next(tmp_path.glob("embeddings-*.cache")).unlink()
    assert main(["build", "--corpus", "dataroom-core", "--cache-dir", str(tmp_path), "--stages", "embeddings"]) == 0
    err = capsys.readouterr().err
    assert "embeddings: nothing to encode: all 29 passages unchanged, kept from earlier builds" in err
    assert "29/29" not in err


def test_a_worker_process_that_dies_fails_the_stage_by_name():
    import os

    from engine.indexing.sharded import PoolRunner
    from engine.errors import PathLensError

    with pytest.raises(PathLensError, match=r"build, extraction:ner: shard [12] of 2 failed: the worker process "
                                            r"died \(exit status 3\)"):
        PoolRunner(2).run("extraction:ner", os._exit, [(3,), (3,)], [1, 1], None)
    with pytest.raises(PathLensError, match=r"build, tokens: shard 2 of 2 failed: TypeError: object of type 'int'"):
        PoolRunner(2).run("tokens", len, [("ab",), (3,)], [1, 1], None)  # an error in a task is sent back, named
    heard = []
    assert PoolRunner(2).run("tokens", len, [("ab",), ("abc",), ("",)], [2, 3, 1],
                             lambda done, total: heard.append((done, total))) == [2, 3, 0]  # results in call order
    assert heard[0] == (0, 6) and heard[-1] == (6, 6) and heard == sorted(heard)


def test_a_finished_build_does_not_keep_its_index_alive():
    import gc
    import weakref

    index = Index(make_corpus(["Calder Bank lends to Brightwater.", "Brightwater owns Quarry Lane."]))
    job = build_in_background(index, ["tokens", "extraction:regex"])
    assert job.wait(60) and job.status().over and job.status().step == ""
    ref = weakref.ref(index)
    del index
    gc.collect()
    assert ref() is None  # the app drops indexes it no longer shows; their jobs must not pin them


def test_worker_processes_never_run_the_parents_main_script(tmp_path, monkeypatch):
    """In the Streamlit server the main module is the page script running at that moment; a worker
    that imported it again (as multiprocessing's spawned children do) would run the page."""
    import sys
    import types

    from engine.indexing.sharded import PoolRunner

    marker = tmp_path / "ran"
    script = tmp_path / "page.py"
    script.write_text(f"open({str(marker)!r}, 'w').write('the page ran in a worker')\n")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", page)
    assert PoolRunner(2).run("tokens", len, [("ab",), ("abc",)], [1, 1], None) == [2, 3]
    assert not marker.exists()


def children_of(pid: int) -> set[int]:
    """Live child processes of `pid`, from /proc (zombies excluded: they have already stopped)."""
    from pathlib import Path

    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


class _HeldCompute:
    """A compute whose encoding reports progress until released: a build that is mid-stage on demand."""

    def __init__(self):
        self.release, self.started = threading.Event(), threading.Event()

    def extraction(self, builder, texts, on_batch):
        raise AssertionError("not used")

    def embeddings(self, texts, on_batch, on_rows=None, first=None):
        import numpy as np

        self.started.set()
        while not self.release.wait(0.05):
            on_batch(0, len(texts))
        return np.zeros((len(texts), 4), dtype=np.float32)


def test_a_build_nobody_watches_stops_once_its_lease_lapses_and_is_started_again_when_asked():
    import time

    compute = _HeldCompute()
    LEASE = 2.0  # four times the renewals' 0.2 s: a loaded machine delays a renewal, it does not skip four
    index = Index(make_corpus(["alpha beta", "gamma delta"]), compute=compute)
    job = build_in_background(index, ["tokens", "embeddings"], lease=LEASE)
    assert compute.started.wait(10)
    for _ in range(6):  # watched: the lease is renewed and the build goes on
        assert build_in_background(index, ["tokens", "embeddings"], lease=LEASE) is job
        time.sleep(0.2)
    assert not job.wait(0)
    assert job.wait(10)  # then nobody asks for it
    s = job.status()
    assert s.cancelled and s.finished == ("tokens",)
    assert s.error == "the build of tiny was stopped: nobody watched it for 2 s"
    compute.release.set()
    again = build_in_background(index, ["tokens", "embeddings"], lease=LEASE)
    assert again is not job and again.wait(10) and again.status().error is None


def test_a_lapsed_build_a_tab_followed_is_started_again_and_no_other():
    """A walk-through's room stood still on the Corpus page for 9.5 minutes: a late rerun let the lease lapse and
    nothing started the build again. `stopped` names each stopped build the tab followed, which asking for its stages
    starts again, and leaves out a build it did not follow (a closed tab's) and one still running."""
    compute = _HeldCompute()
    index = Index(make_corpus(["alpha beta", "gamma delta"]), compute=compute)
    job = build_in_background(index, ["tokens", "embeddings"], lease=2.0)  # a loaded machine's pause is shorter
    assert compute.started.wait(10) and job.wait(10) and job.status().cancelled  # nobody renewed it
    other = build_in_background(index, ["tokens"], lease=None)  # finished, never followed
    assert other.wait(10)
    assert stopped(index, ()) == ()  # a build nobody here followed stays stopped
    assert stopped(index, (job, other)) == (job,)
    again = build_in_background(index, job.stages, lease=2.0)
    assert again is not job and again.stages == job.stages
    assert stopped(index, (job, again)) == ()  # the new one runs: nothing more to start
    again.touch()  # followed again, it goes on while renewed
    compute.release.set()
    assert again.wait(10) and again.status().error is None


def test_a_script_run_longer_than_the_lease_keeps_the_build_it_waits_on():
    """#63 walk-through: each question's rerun (an answer computed on a loaded server) outlasted the 3 s lease, so
    asking stopped the very build the tab waited on. A run renews its tab's builds while it lasts; once no run
    renews them, the lease lapses as a closed tab's does."""
    import time

    from ui.builds import renewing_leases

    compute = _HeldCompute()
    LEASE = 1.0
    index = Index(make_corpus(["alpha beta", "gamma delta"]), compute=compute)
    job = build_in_background(index, ["tokens", "embeddings"], lease=LEASE)
    assert compute.started.wait(10)
    with renewing_leases([job], every=0.2):
        time.sleep(3 * LEASE)  # a long script run: nobody asks for the build meanwhile
        assert not job.wait(0) and not job.status().cancelled
    assert job.wait(10) and job.status().cancelled  # no run renews it now: it lapses
    compute.release.set()


def test_a_stopped_pool_stage_kills_its_workers_at_once():
    import os
    import time

    from engine.indexing.sharded import PoolRunner
    from engine.jobs import Cancelled

    reports = []

    def on_batch(done, total):
        reports.append(done)
        if len(reports) == 3:
            raise Cancelled("stop")

    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        PoolRunner(2).run("test", time.sleep, [(60,), (60,)], [1, 1], on_batch)
    assert time.monotonic() - t0 < 5  # not after the 60 s shards
    assert reports == [0, 0, 0] and not children_of(os.getpid())
