import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from engine.store.cache import MAGIC, CacheEvent, DiskCache
from engine.indexing.index import Index
from tests.conftest import make_corpus

TEXTS = ["Calder Bank lends to Brightwater Logistics.", "Brightwater Logistics hired Elliot Park."]


def test_second_index_reads_every_component_from_disk(tmp_path, monkeypatch):
    cache = DiskCache(tmp_path)
    first = Index(make_corpus(TEXTS), cache=cache)
    hits = first.retriever("ppr-regex").search("Calder Bank", 2)
    emb = first.embeddings()
    assert {e.kind for e in cache.events} == {"stored"}

    # a warm start must not run the extractor or the encoder again
    import engine.store.dense
    import engine.indexing.compute

    monkeypatch.setattr(engine.indexing.compute, "extract", lambda *a, **k: pytest.fail("re-ran extraction"))
    monkeypatch.setattr(engine.store.dense, "encode", lambda *a, **k: pytest.fail("re-encoded"))
    warm_cache = DiskCache(tmp_path)
    warm = Index(make_corpus(TEXTS), cache=warm_cache)
    assert warm.retriever("ppr-regex").search("Calder Bank", 2) == hits
    np.testing.assert_array_equal(warm.embeddings(), emb)
    assert not warm.embeddings().flags.writeable
    assert {e.kind for e in warm_cache.events} == {"hit"}


def test_changed_corpus_misses(tmp_path):
    Index(make_corpus(TEXTS), cache=DiskCache(tmp_path)).tokens()
    other = DiskCache(tmp_path)
    Index(make_corpus(TEXTS + ["More text."]), cache=other).tokens()
    assert [e.kind for e in other.events] == ["stored"]


def test_a_new_extractor_version_rebuilds_only_that_builders_extraction_and_graph(tmp_path, monkeypatch):
    import engine.store.cache
    import engine.graph.entities

    first = Index(make_corpus(TEXTS), cache=DiskCache(tmp_path))
    first.graph("regex")
    first.tokens()
    monkeypatch.setitem(engine.graph.entities.EXTRACTOR_VERSIONS, "regex", 99)
    engine.store.cache.forget_versions()
    try:
        again = DiskCache(tmp_path)
        idx = Index(make_corpus(TEXTS), cache=again)
        idx.graph("regex")
        idx.tokens()
        kinds = {(e.component, e.kind) for e in again.events}
        assert ("extraction:regex", "stored") in kinds and ("graph:regex", "stored") in kinds
        assert ("tokens", "hit") in kinds
    finally:
        engine.store.cache.forget_versions()


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign", "garbage"])
def test_damaged_files_are_detected_reported_and_rebuilt(tmp_path, damage):
    Index(make_corpus(TEXTS), cache=DiskCache(tmp_path)).graph("regex")
    path = next(tmp_path.glob("graph-regex-*.cache"))
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:-10] + bytes(b ^ 0xFF for b in data[-10:]))
    elif damage == "foreign":
        path.write_bytes(MAGIC + b"0" * 32 + data[len(MAGIC) + 32:])
    else:
        path.write_bytes(b"not a cache file at all")
    cache = DiskCache(tmp_path)
    g = Index(make_corpus(TEXTS), cache=cache).graph("regex")
    assert g.entities  # rebuilt, correct
    kinds = [(e.component, e.kind) for e in cache.events]
    assert ("graph:regex", "rejected") in kinds and ("graph:regex", "stored") in kinds
    assert DiskCache(tmp_path).load(make_corpus(TEXTS).fingerprint, "graph:regex") is not None


def test_no_partial_file_is_left_by_a_failed_write(tmp_path, monkeypatch):
    import os

    cache = DiskCache(tmp_path)

    def boom(*a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    Index(make_corpus(TEXTS), cache=cache).tokens()
    assert list(tmp_path.iterdir()) == []
    assert cache.events[-1].kind == "rejected" and "No space" in cache.events[-1].detail


def test_a_killed_writer_never_leaves_a_readable_half_file(tmp_path):
    """Kill a process while it writes a component, once its temporary file has bytes in it: afterwards the
    component is absent, never half-written, and the half-written temporary is never read. (The kills used to land
    at fixed delays before the temporary existed, so nothing was killed mid-write.)"""
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT

    code = ("import numpy as np, sys; sys.path.insert(0, %r); from engine.store.cache import DiskCache; "
            "c = DiskCache(%r); v = np.arange(6_000_000, dtype=np.float64); print('go', flush=True); "
            "c.store('fp', 'embeddings', v)") % (str(ROOT), str(tmp_path))
    killed_mid_write = 0
    for _ in range(3):
        for f in tmp_path.iterdir():
            f.unlink()
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        p.stdout.readline()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and p.poll() is None:
            temporaries = [f for f in tmp_path.glob(".tmp-*") if f.exists() and f.stat().st_size > 0]
            if temporaries:
                p.send_signal(signal.SIGKILL)
                break
        p.wait()
        if p.returncode == -signal.SIGKILL:
            killed_mid_write += 1
            assert list(tmp_path.glob(".tmp-*")), "killed while writing: its temporary stays behind"
        cache = DiskCache(tmp_path)
        value = cache.load("fp", "embeddings")
        assert value is None or (value.shape == (6_000_000,) and value[-1] == 5_999_999)
        assert not any(e.kind == "rejected" for e in cache.events)  # a leftover temp file is never even looked at
    assert killed_mid_write >= 1


def test_stale_temporaries_are_swept_fresh_ones_kept(tmp_path):
    import os
    import time

    old, new = tmp_path / ".tmp-old", tmp_path / ".tmp-new"
    old.write_bytes(b"x")
    new.write_bytes(b"y")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    Index(make_corpus(TEXTS), cache=DiskCache(tmp_path)).tokens()
    assert not old.exists() and new.exists()  # a fresh one may belong to a writer still running


def test_a_temporary_whose_writer_is_dead_is_swept_at_once(tmp_path):
    import os
    import subprocess
    import sys

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead, live = tmp_path / f".tmp-{gone.pid}-abc", tmp_path / f".tmp-{os.getpid()}-def"
    dead.write_bytes(b"x")
    live.write_bytes(b"y")
    Index(make_corpus(TEXTS), cache=DiskCache(tmp_path)).tokens()
    assert not dead.exists() and live.exists()


def test_a_changed_stopword_in_the_engines_code_is_a_cache_miss(tmp_path):
    """The engine's own code keys what it made: a copy of the engine with one more stopword, run in a child
    process against the same cache, rebuilds the tokens (and the graph, whose text it reads) instead of reading
    the old ones; the unchanged engine reads them back."""
    import shutil
    import subprocess
    import sys

    from tests.conftest import ROOT

    edited = tmp_path / "edited"
    shutil.copytree(ROOT / "engine", edited / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    text = (edited / "engine" / "text.py").read_text("utf-8")
    (edited / "engine" / "text.py").write_text(text.replace('"""a about above', '"""brightwater a about above', 1),
                                              "utf-8")
    script = ("import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2])\n"
              "from engine.store.cache import DiskCache\nfrom engine.indexing.index import Index\n"
              "from tests.conftest import make_corpus\nfrom engine.text import tokenize\n"
              f"cache = DiskCache(sys.argv[3]); index = Index(make_corpus({TEXTS!r}), cache=cache)\n"
              "index.tokens(); index.graph('regex')\n"
              "print([(e.component, e.kind) for e in cache.events], 'brightwater' in tokenize('Brightwater'))")

    def run(engine_root):
        out = subprocess.run([sys.executable, "-c", script, str(engine_root), str(ROOT), str(tmp_path / "cache")],
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert run(ROOT) == "[('tokens', 'stored'), ('extraction:regex', 'stored'), ('graph:regex', 'stored')] True"
    assert run(edited) == "[('tokens', 'stored'), ('extraction:regex', 'stored'), ('graph:regex', 'stored')] False"
    assert run(ROOT) == "[('tokens', 'hit'), ('graph:regex', 'hit')] True"  # a graph read back needs no extraction


# ---------------------------------------------------------------- the file format: data, never pickle

RICHER = TEXTS + ["Apple Inc. sold iPhones in Cupertino, California on 12 March 2024.",
                  "Calder Bank and Apple Inc. signed a Credit Agreement in Cupertino."]


def _same(a, b) -> None:
    """`b` is `a` as stored: the same types all the way down, equal values, arrays bit for bit, dicts in order."""
    import dataclasses

    from scipy import sparse

    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    elif sparse.issparse(a):
        assert a.shape == b.shape
        for part in ("data", "indices", "indptr"):
            _same(getattr(a, part), getattr(b, part))
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) and a != a:
        assert b != b  # NaN
    else:
        assert a == b


@pytest.mark.parametrize("component", ["tokens", "embeddings", "extraction:regex", "extraction:ner", "graph:regex",
                                       "graph:ner", "ann"])
def test_each_component_reads_back_as_the_very_value_stored(tmp_path, component):
    from engine.components import PERSISTED, parse

    assert component in PERSISTED
    corpus = make_corpus(RICHER)
    index = Index(corpus, cache=DiskCache(tmp_path))
    kind, builder = parse(component)
    built = getattr(index, kind)(*([builder] if builder else []))
    assert next(tmp_path.glob(f"{component.replace(':', '-')}-*.cache"))
    cache = DiskCache(tmp_path)
    loaded = cache.load(corpus.fingerprint, component)
    assert [e.kind for e in cache.events] == ["hit"]
    if component == "ann":
        import faiss

        assert type(loaded) is type(built) and len(loaded) == len(built) == len(RICHER)
        assert loaded._index.hnsw.efSearch == built._index.hnsw.efSearch
        _same(faiss.serialize_index(built._index), faiss.serialize_index(loaded._index))
        for q in index.embeddings():
            _same(built.search(q, 3), loaded.search(q, 3))
    else:
        _same(built, loaded)
    if kind in ("extraction", "graph"):
        assert loaded.entities  # a real value, not an empty one


def test_a_warm_index_ranks_bit_for_bit_as_the_cold_one(tmp_path):
    questions = ["Who lends to Brightwater Logistics?", "Where did Apple Inc. sell iPhones?"]
    names = ["bm25", "tfidf", "dense", "ppr-regex", "ppr-ner", "hybrid-ner"]

    def answers(index):
        return [[(h.passage_id, h.score) for h in index.retriever(n).search(q, 5)] for n in names for q in questions]

    cold = answers(Index(make_corpus(RICHER), cache=DiskCache(tmp_path)))
    cache = DiskCache(tmp_path)
    assert answers(Index(make_corpus(RICHER), cache=cache)) == cold
    assert cache.events and {e.kind for e in cache.events} == {"hit"}


def test_plain_values_round_trip_with_their_types():
    from scipy import sparse

    from engine.store import codec

    csc = sparse.csc_matrix(np.array([[0.0, 1.5], [2.0, 0.0], [0.0, -0.0]]))
    csc.indices, csc.indptr = csc.indices.astype(np.int64), csc.indptr.astype(np.int64)  # wide indices stay wide
    value = {
        "tuple": ("a", ("b", 1), (), [1, 2.5, None, True, False]),
        ("a", 2): "a key of any kind, in its order", 3: -0.0, None: float("nan"), 2.5: 10 ** 30,
        "text": "Zürich — “quoted” \ud800 (a lone surrogate)", "bytes": b"\x00\xffpickle\n",
        "arrays": [np.arange(6, dtype=np.int16).reshape(2, 3), np.asfortranarray(np.eye(3, dtype=np.float32)),
                   np.array([True, False]), np.zeros((0, 384), dtype=np.float32), np.array(3.5)],
        "sparse": (sparse.csr_matrix((2, 3)), csc),
        "empty": {}, "list": [],
    }
    back = codec.decode(codec.encode(value))
    _same(value, back)
    assert back["sparse"][1].indices.dtype == np.int64
    assert codec.encode(value) == codec.encode(back)  # the same bytes again: a rebuilt file is the same file


@pytest.mark.parametrize("value, named", [
    ({"a", "b"}, "builtins.set"), (frozenset(), "builtins.frozenset"),
    ({"counts": Counter(a=1)}, "collections.Counter"),
    ((1, np.float64(2.0)), "numpy.float64"), ([np.int64(3)], "numpy.int64"),
    (np.array([object()], dtype=object), "dtype object"), (np.array(["a"]), "dtype <U1"),
    (lambda: 0, "builtins.function"), (Path("x"), "PosixPath"),
    (CacheEvent("tokens", "hit"), "engine.store.cache.CacheEvent"),  # a dataclass, but not one the cache rebuilds
])
def test_a_value_the_codec_does_not_know_fails_loudly_when_stored(tmp_path, value, named):
    cache = DiskCache(tmp_path)
    with pytest.raises(TypeError, match=re.escape(named)):
        cache.store("fp", "tokens", value)
    assert not list(tmp_path.glob("*.cache")) and not list(tmp_path.glob(".tmp-*"))  # nothing written, not pickled


def _plant(cache: DiskCache, fingerprint: str, component: str, payload: bytes):
    """A cache file with a valid header and checksum around `payload`: what only the payload's decoding can refuse."""
    import hashlib

    path = cache.path(fingerprint, component)
    key = cache._key(fingerprint, component).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(MAGIC + key + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    return path


class _Armed:
    """Unpickled, it creates the marker file: what a pickle read back from a cache could do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def test_a_pickled_payload_is_rejected_and_rebuilt_never_run(tmp_path):
    import pickle

    marker = tmp_path / "ran"
    cache_dir = tmp_path / "cache"
    corpus = make_corpus(TEXTS)
    payload = pickle.dumps(_Armed(marker), protocol=pickle.HIGHEST_PROTOCOL)
    cache = DiskCache(cache_dir)
    for component in ("tokens", "graph:regex"):
        _plant(cache, corpus.fingerprint, component, payload)
    index = Index(corpus, cache=cache)
    assert index.tokens() and index.graph("regex").entities  # rebuilt, correct
    assert not marker.exists()  # the pickle was never loaded
    kinds = [(e.component, e.kind) for e in cache.events]
    for component in ("tokens", "graph:regex"):
        assert (component, "rejected") in kinds and (component, "stored") in kinds
    assert any("unloadable" in e.detail for e in cache.events if e.kind == "rejected")
    assert DiskCache(cache_dir).load(corpus.fingerprint, "tokens") == index.tokens()
    pickle.loads(payload).close()  # and the payload was armed: loaded as a pickle, it makes the marker
    assert marker.exists()


@pytest.mark.parametrize("doc", [
    b'{"dataclass":["os.system",{"dict":[]}]}',  # a class named in the file is never imported
    b'{"dataclass":["engine.graph.entities.Mention",{"dict":[["text","x"],["label","NAME"]]}]}',  # not allowed
    b'{"dataclass":["engine.graph.entities.Extraction",{"dict":[["builder","regex"]]}]}',  # fields missing
    b'{"__reduce__":["os","system"]}', b'{"tuple":[1],"dict":[]}', b'{"array":0}', b'{"hnsw":"abc"}',
    b'{"csr_matrix":[[2,2],[1.0],[0],[0,1,1]]}',  # parts that are not arrays
])
def test_a_payload_naming_anything_outside_the_codec_is_rejected(tmp_path, doc):
    cache = DiskCache(tmp_path)
    path = _plant(cache, "fp", "extraction:regex", b"%d\n" % len(doc) + doc)
    assert cache.load("fp", "extraction:regex") is None
    assert cache.events[-1].kind == "rejected" and "unloadable" in cache.events[-1].detail
    assert not path.exists()


def test_a_sparse_matrix_with_an_index_out_of_range_is_rejected(tmp_path):
    from scipy import sparse

    from engine.store import codec

    payload = bytearray(codec.encode(sparse.csr_matrix(np.eye(3))))
    stored = np.arange(3, dtype=np.int32).tobytes()
    at = payload.rindex(stored, 0, payload.rindex(np.arange(4, dtype=np.int32).tobytes()))
    payload[at:at + len(stored)] = np.array([0, 1, 7], dtype=np.int32).tobytes()  # column 7 of 3
    cache = DiskCache(tmp_path)
    _plant(cache, "fp", "graph:regex", bytes(payload))
    assert cache.load("fp", "graph:regex") is None and cache.events[-1].kind == "rejected"


def test_pickles_of_the_old_layout_are_deleted_unread(tmp_path):
    old = tmp_path / f"tokens-{'0' * 32}.pkl"
    other = tmp_path / "notes.pkl"  # not a name the cache gives: left alone
    tmp_path.mkdir(exist_ok=True)
    old.write_bytes(b"\x80\x05 not even read")
    other.write_bytes(b"mine")
    Index(make_corpus(TEXTS), cache=DiskCache(tmp_path)).tokens()
    assert not old.exists() and other.exists()
    assert [p.suffix for p in tmp_path.glob("tokens-*")] == [".cache"]


def test_a_cache_key_reads_the_functions_that_make_a_passages_text_not_the_whole_index(monkeypatch):
    """Another change to the index (a constructor's new parameter) leaves every cache file readable; a change to what
    a stage reads of a passage makes them all again."""
    from engine.indexing import index
    from engine.store import cache

    def fresh(component: str) -> str:
        cache.code_fingerprint.cache_clear()
        return cache.code_fingerprint(component)

    before = {c: fresh(c) for c in ("tokens", "embeddings", "graph")}
    original = index.Index.__init__

    def other_init(self, *args, **kwargs):  # another constructor
        original(self, *args, **kwargs)

    monkeypatch.setattr(index.Index, "__init__", other_init)
    assert {c: fresh(c) for c in before} == before

    def other_text(title: str, text: str) -> str:  # another reading of a passage
        return text

    monkeypatch.setattr(index, "_passage_text", other_text)
    assert all(fresh(c) != before[c] for c in before)
    monkeypatch.undo()
    assert {c: fresh(c) for c in before} == before
