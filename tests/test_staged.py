"""A room that answers while it builds: the bfloat16 passage encoder, embeddings computed early for a question's
filings, a build that resumes from the blocks it kept, and which retriever answers while the slow stages run."""

from __future__ import annotations

import numpy as np
import pytest

from engine.catalog import CATALOG
from engine.errors import PathLensError
from engine.indexing.availability import answerer, ready
from engine.indexing.compute import LocalCompute, Priority
from engine.indexing.index import Index, SearchConfig
from engine.ingest.corpus import Corpus
from engine.store import dense
from engine.store.cache import DiskCache, versions
from tests.filingmaker import filing_pages
from tests.test_filings import passages_of
from engine.indexing.factory import Retrievers


@pytest.fixture
def bf16(monkeypatch):
    monkeypatch.setenv(dense.PRECISION_ENV, "bfloat16")


@pytest.fixture
def native(monkeypatch):
    """The precision this CPU encodes passages in, as the product chooses it (bfloat16 where the CPU multiplies it,
    float32 elsewhere): a staged build is tested on the path it takes here. Forcing bfloat16 on a CPU without it
    emulated every multiply and took 34 of the suite's 49 minutes."""
    monkeypatch.delenv(dense.PRECISION_ENV, raising=False)


def test_a_bfloat16_embedding_depends_on_its_text_only(core_corpus, bf16):
    import torch

    from engine.store.precision import cpu_has_bf16

    # where bfloat16 is emulated (no AVX-512 BF16), fewer and shorter texts: the same properties, far cheaper (a
    # call pads every text to its length group's BATCH rows, so a call's cost is set by its longest text)
    native = cpu_has_bf16()
    texts = ([p.text for p in core_corpus.passages] + ["", "x", "word " * 400] if native
             else [p.text[:160] for p in core_corpus.passages[:2]] + ["", "x", "word " * 40])
    whole = dense.encode(texts)
    cos = (whole * dense.encode_torch(texts)).sum(axis=1)
    assert cos.min() >= 0.9999  # against the float32 reference: measured 0.99996 at the least on the data room
    np.testing.assert_array_equal(dense.encode(texts[::-1]), whole[::-1])
    every = 5 if native else 2
    np.testing.assert_array_equal(np.vstack([dense.encode([t]) for t in texts[::every]]), whole[::every])
    part = slice(7, 19) if native else slice(1, 4)
    np.testing.assert_array_equal(dense.encode(texts[part]), whole[part])
    torch.set_num_threads(2)  # moved by something else: the encoder still runs on one thread
    np.testing.assert_array_equal(dense.encode(texts), whole)


def test_the_onnx_export_leaves_the_shared_model_in_eval_mode(tmp_path, bf16):
    texts = ["The Fund's manager is Juniper Peak Capital.", "x"]
    before = dense.encode(texts)
    dense.export_onnx(tmp_path / "m.onnx")  # it traced the shared model: dropout left on gave cosines of 0.87
    np.testing.assert_array_equal(dense.encode(texts), before)


def test_float32_is_kept_and_the_precision_keys_the_cache(monkeypatch):
    texts = ["alpha beta gamma", "the fund's manager"]
    monkeypatch.setenv(dense.PRECISION_ENV, "float32")
    f32, encoder_f32 = versions("embeddings"), versions("encoder")
    np.testing.assert_array_equal(dense.encode(texts), dense.load_encoder().encode(texts))  # the ONNX graph
    monkeypatch.setenv(dense.PRECISION_ENV, "bfloat16")
    assert versions("embeddings") != f32 and versions("embeddings").endswith("/bfloat16")
    assert versions("encoder") == encoder_f32  # the ONNX graph is float32 either way: one export, read under both
    monkeypatch.setenv(dense.PRECISION_ENV, "half")
    with pytest.raises(PathLensError, match="PATHLENS_ENCODER_PRECISION='half': choose one of bfloat16, float32"):
        dense.encode(texts)


def test_the_cpu_flags_decide_the_default(monkeypatch):
    from engine.store import precision

    monkeypatch.delenv(dense.PRECISION_ENV, raising=False)
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    assert precision.passage_precision() == "float32"
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    assert precision.passage_precision() == "bfloat16"


# ---------------------------------------------------------------- early and resumed encoding


@pytest.fixture
def acme() -> Corpus:
    passages = passages_of("ACME_2019_10K.pdf", filing_pages(2019, 1_028)) + passages_of(
        "ACME_2020_10K.pdf", filing_pages(2020, 1_119))
    return Corpus("acme", tuple(passages))


QUESTION = "What was Acme's capex in FY2019? Use the cash flow statement."


def test_a_question_s_filings_encoded_first_answer_as_the_whole_index_does(acme, tmp_path, native):
    cold = Index(acme, cache=DiskCache(tmp_path / "cold"))
    early = Index(acme, cache=DiskCache(tmp_path / "early"))
    scope = early.retriever("filing-graph").scope(QUESTION)
    assert scope.filings == ("ACME_2019_10K.pdf",)
    assert early.encoded(scope.filings) is None  # nothing encoded yet
    assert Retrievers(early).early("filing", SearchConfig(), scope.filings) is None

    # what a background build does first: the question's filing, kept in the parts store
    seen: list[int] = []
    early.build("embeddings", progress=lambda stage, done, total: seen.append((done, total)), first=scope.filings)
    assert seen[-1] == (len(set(early.texts)), len(set(early.texts)))  # one count from 0 to all, first ones in it
    np.testing.assert_array_equal(early.embeddings(), cold.embeddings())  # the order changes no bit

    # a fresh index over the same parts (a page's view while the rest is still being encoded)
    partial = Index(acme, cache=DiskCache(tmp_path / "early"))
    rows = [i for i, p in enumerate(acme.passages) if p.doc_id == "ACME_2019_10K.pdf"]
    got = partial.encoded(scope.filings)
    np.testing.assert_array_equal(got[rows], cold.embeddings()[rows])
    assert not got[[i for i in range(len(acme)) if i not in rows]].any()
    first = Retrievers(partial).early("filing", SearchConfig(), scope.filings).answer(QUESTION, 5)
    whole = cold.retriever("filing").answer(QUESTION, 5)
    assert [(h.passage_id, h.score) for h in first.hits] == [(h.passage_id, h.score) for h in whole.hits]
    assert first.hits[0].passage_id == "ACME_2019_10K.pdf#p5.0"
    assert Retrievers(partial).early("filing-graph", SearchConfig(), scope.filings) is None  # not encoding's to give


class _StopsAfter(LocalCompute):
    """In-process encoding that fails once it has encoded `blocks` blocks: a build killed mid-stage."""

    def __init__(self, blocks: int):
        super().__init__(processes=1)
        object.__setattr__(self, "left", [blocks])
        object.__setattr__(self, "encoded", [])

    def embeddings(self, texts, on_batch, on_rows=None, first=None):
        def keep(rows, vectors):
            if not self.left[0]:
                raise PathLensError("stopped")
            self.left[0] -= 1
            self.encoded.extend(texts[i] for i in rows)
            on_rows(rows, vectors)

        return super().embeddings(texts, on_batch, keep, first)


def test_a_stopped_build_resumes_from_the_blocks_it_kept(core_corpus, tmp_path, monkeypatch, native):
    from engine.indexing import compute

    monkeypatch.setattr(compute, "KEEP_EVERY", 8)
    stopped = Index(core_corpus, cache=DiskCache(tmp_path), compute=_StopsAfter(2))
    with pytest.raises(PathLensError, match="stopped"):
        stopped.embeddings()
    kept = stopped.compute.encoded
    assert len(kept) == 16
    again = Index(core_corpus, cache=DiskCache(tmp_path), compute=_StopsAfter(99))
    (work,) = again.work(["embeddings"])
    assert (work.passages, work.stored) == (len(set(again.texts)) - 16, 16)
    again.embeddings()
    assert not set(kept) & set(again.compute.encoded)  # the kept blocks are not encoded again
    np.testing.assert_array_equal(again.embeddings(), Index(core_corpus).embeddings())


def test_a_pool_hands_each_shard_back_as_it_finishes():
    from engine.indexing.sharded import PoolRunner, casing_task

    calls = [(["Alpha Beta gamma"],), (["delta Epsilon"],), (["zeta"],)]
    heard: list[int] = []
    results = PoolRunner(2).run("casing", casing_task, calls, [1, 1, 1], None,
                                on_result=lambda i, value: heard.append(i))
    assert sorted(heard) == [0, 1, 2] and len(results) == 3


class _Turns(LocalCompute):
    """In-process encoding that records the texts of each block it keeps, and after the first block asks for
    `then`'s passages next: a later question over other filings, asked while the build runs."""

    def __init__(self, priority: Priority, then: tuple[str, ...]):
        super().__init__(processes=1)
        object.__setattr__(self, "order", [])
        object.__setattr__(self, "turn", lambda: priority.prefer(then))

    def embeddings(self, texts, on_batch, on_rows=None, first=None):
        def keep(rows, vectors):
            self.order.append([texts[i] for i in rows])
            self.turn()
            on_rows(rows, vectors)

        return super().embeddings(texts, on_batch, keep, first)


def test_a_later_question_s_filings_are_encoded_next_while_the_build_runs(acme, tmp_path, monkeypatch, native):
    from engine.indexing import compute

    monkeypatch.setattr(compute, "KEEP_EVERY", 4)
    later = ("ACME_2020_10K.pdf",)
    priority = Priority()  # the build starts with no question: in corpus order, the 2019 10-K's passages first
    index = Index(acme, cache=DiskCache(tmp_path), compute=_Turns(priority, later))
    index.build("embeddings", first=priority)
    of_2020 = {t for t, p in zip(index.texts, acme.passages) if p.doc_id in later}
    blocks = index.compute.order
    assert not set(blocks[0]) & of_2020  # the first block, ahead of the question
    covered: set[str] = set()
    for block in blocks[1:]:  # then blocks holding the question's filing, until all of it is encoded
        assert set(block) & of_2020
        covered |= set(block)
        if covered >= of_2020:
            break
    assert covered >= of_2020 and len(blocks) > 2
    np.testing.assert_array_equal(index.embeddings(), Index(acme).embeddings())  # and no bit moved


class _OneAtATime:
    """A runner that starts calls one at a time, in the order `pick` gives, in this process."""

    def __init__(self):
        self.started: list[list[str]] = []  # the texts of each call, as it started

    def run(self, stage, fn, calls, sizes, on_batch, on_result=None, pick=None):
        pending, results = list(range(len(calls))), [None] * len(calls)
        while pending:
            i = pick(pending) if pick else pending[0]
            pending.remove(i)
            self.started.append(calls[i][0])
            results[i] = fn(*calls[i])
        return results


def test_a_filing_whose_pages_repeat_a_text_is_encoded_first_without_a_fault(tmp_path, native):
    """Two pages of one filing with the same text (a repeated exhibit page, a blank form's boilerplate) are one text
    to encode, named twice among the wanted: the build must encode it once (it failed with KeyError)."""
    same = "Forward-looking statements. This release contains forward-looking statements about Acme Widgets."
    pages = filing_pages(2019, 1_028) + [same, same]
    corpus = Corpus("acme", tuple(passages_of("ACME_2019_10K.pdf", pages)))
    index = Index(corpus, cache=DiskCache(tmp_path / "cache"))
    index.build("embeddings", first=Priority(["ACME_2019_10K.pdf"]))
    np.testing.assert_array_equal(index.embeddings(), Index(corpus, cache=DiskCache(tmp_path / "cold")).embeddings())


def test_sharded_encoding_starts_the_shards_of_the_wanted_texts_first(core_corpus, acme, monkeypatch, native):
    from engine.indexing import sharded

    monkeypatch.setattr(sharded, "WINDOW", 32)
    texts = [p.text for p in core_corpus.passages] + [p.text for p in acme.passages]
    wanted = range(len(texts) - 5, len(texts))  # in the last window
    runner = _OneAtATime()
    got = sharded.ShardedCompute(runner, sharded.ShardConfig(shard=16)).embeddings(texts, None, None,
                                                                                     first=lambda: wanted)
    np.testing.assert_array_equal(got, dense.encode(texts))
    asked = {texts[i] for i in wanted}
    assert set(runner.started[0]) & asked and set().union(*runner.started[:2]) >= asked  # their shards first
    assert len(runner.started) >= -(-len(texts) // 32) and max(map(len, runner.started)) <= 16
    pick = sharded.wanted_first([[0, 1], [2, 3], [4, 5]], lambda: [4])
    assert (pick([0, 1, 2]), pick([0, 1]), sharded.wanted_first([[0], [1]], None)([1])) == (2, 0, 1)


def test_a_pool_starts_shards_in_the_order_it_is_given():
    from engine.indexing.sharded import PoolRunner, casing_task

    calls = [(["Alpha Beta gamma"],), (["delta Epsilon"],), (["zeta"],)]
    heard: list[int] = []
    PoolRunner(1).run("casing", casing_task, calls, [1, 1, 1], None, on_result=lambda i, value: heard.append(i),
                      pick=lambda pending: pending[-1])
    assert heard == [2, 1, 0]


def test_a_running_build_asked_for_other_filings_takes_them_next(acme, tmp_path):
    import threading

    from engine.indexing.background import build_in_background

    release = threading.Event()

    class Held(LocalCompute):
        def embeddings(self, texts, on_batch, on_rows=None, first=None):
            release.wait(30)
            return np.zeros((len(texts), dense.DIM), dtype=np.float32)

    index = Index(acme, cache=DiskCache(tmp_path), compute=Held(processes=1))
    job = build_in_background(index, ["embeddings"], first=["ACME_2019_10K.pdf"])
    assert job.priority.documents() == ("ACME_2019_10K.pdf",)
    assert build_in_background(index, ["embeddings"], first=["ACME_2020_10K.pdf"]) is job  # the same build…
    assert job.priority.documents() == ("ACME_2020_10K.pdf",)  # …now taking the later question's filing next
    release.set()
    assert job.wait(30) and job.status().error is None
    assert build_in_background(index, ["embeddings"], first=["ACME_2019_10K.pdf"]).priority.documents() == (
        "ACME_2020_10K.pdf",)  # a finished build has nothing left to reorder


# ---------------------------------------------------------------- who answers while the rest is built


def _stored(*stages: str):
    return lambda stage: stage in stages


CHEAP = ("tokens", "extraction:regex", "graph:regex")


def test_a_retriever_waiting_on_a_slow_stage_is_answered_by_its_stand_in():
    a = answerer("filing", _stored(*CHEAP))
    assert (a.name, a.waiting_on, a.standing_in) == ("filing-graph", ("embeddings",), True)
    assert a.words() == "dense embeddings (all-MiniLM-L6-v2)"
    assert answerer("filing", _stored(*CHEAP, "embeddings")).name == "filing"
    assert answerer("hybrid-ner", _stored(*CHEAP, "embeddings")).waiting_on == ("extraction:ner",)
    assert answerer("hybrid-ner", _stored(*CHEAP)).name == "bm25"
    assert answerer("bct-ner", _stored(*CHEAP)).name == "bct-regex"
    assert answerer("ppr-regex", _stored()).name == "ppr-regex"  # nothing slow to wait on: it builds in seconds
    for name, spec in CATALOG.items():  # every stand-in needs no slow stage of its own
        if spec.stand_in:
            assert not answerer(spec.stand_in, _stored()).standing_in, name


def test_retrievers_are_ready_as_their_stages_are():
    assert ready(_stored()) == ()
    assert ready(_stored("tokens")) == ("bm25", "tfidf")
    assert ready(_stored(*CHEAP)) == ("bm25", "tfidf", "ppr-regex", "bct-regex", "filing-graph")
    assert ready(_stored(*CHEAP, "embeddings")) == ("bm25", "tfidf", "dense", "ppr-regex", "bct-regex",
                                                    "hybrid-regex", "filing", "filing-learned", "filing-graph")
    assert len(ready(_stored(*CHEAP, "embeddings", "extraction:ner", "graph:ner"))) == len(CATALOG)
