import numpy as np
import pytest

from engine.store.cache import MAGIC, DiskCache
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
    path = next(tmp_path.glob("graph-regex-*.pkl"))
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
    """Kill a process while it writes a large component, at several moments: afterwards the
    component is either absent or whole, never half-written."""
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT

    code = ("import numpy as np, sys; sys.path.insert(0, %r); from engine.store.cache import DiskCache; "
            "c = DiskCache(%r); print('go', flush=True); "
            "c.store('fp', 'embeddings', np.arange(40_000_000, dtype=np.float64))") % (str(ROOT), str(tmp_path))
    for delay in (0.05, 0.3, 0.8):
        for f in tmp_path.iterdir():
            f.unlink()
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        p.stdout.readline()
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        cache = DiskCache(tmp_path)
        value = cache.load("fp", "embeddings")
        assert value is None or (value.shape == (40_000_000,) and value[-1] == 39_999_999)
        assert not any(e.kind == "rejected" for e in cache.events)  # a leftover temp file is never even looked at


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
