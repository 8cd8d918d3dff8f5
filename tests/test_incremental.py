"""A grown data room: adding, removing or replacing documents runs the models over the changed passages only, and
the index equals a cold build of the final set file for file, ranking for ranking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.indexing.compute import LocalCompute
from engine.indexing.index import Index
from engine.ingest.corpus import load_folder
from engine.store.cache import DiskCache
from engine.store.parts import FILE_NAME, PartStore

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "corpora" / "dataroom-core" / "docs"
STAGES = ["tokens", "embeddings", "extraction:regex", "graph:regex", "extraction:ner", "graph:ner"]
QUESTIONS = ("Who is the CFO of the borrower under the Calder Bank credit agreement?",
             "Which fund holds Brightwater Logistics, and who manages it?")
RETRIEVERS = ("bm25", "dense", "ppr-regex", "hybrid-ner", "bct-ner")


class Recording(LocalCompute):
    """The machine's compute, noting every passage a model runs over (in process: the corpus is small)."""

    def __init__(self):
        super().__init__(processes=1)
        object.__setattr__(self, "seen", {"embeddings": [], "extraction:ner": []})

    def embeddings(self, texts, on_batch, on_rows=None, first=None):
        self.seen["embeddings"] += list(texts)
        return super().embeddings(texts, on_batch, on_rows, first)

    def mentions(self, builder, texts, on_batch):
        self.seen[f"extraction:{builder}"] += list(texts)
        return super().mentions(builder, texts, on_batch)


def _room(tmp: Path, names: list[str], edits: dict[str, str] = {}) -> Path:
    room = tmp / "room"
    if room.exists():
        for f in room.iterdir():
            f.unlink()
    room.mkdir(parents=True, exist_ok=True)
    for name in names:
        (room / name).write_text(edits.get(name, (DOCS / name).read_text()))
    return room


def _build(room: Path, cache_dir: Path) -> tuple[Index, Recording]:
    compute = Recording()
    index = Index(load_folder(room, name="room"), cache=DiskCache(cache_dir), compute=compute)
    index.build_stages(STAGES)
    return index, compute


def _files(cache_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in cache_dir.glob("*.cache")}


def _answers(index: Index) -> list:
    out = []
    for name in RETRIEVERS:
        retriever = index.retriever(name)
        for q in QUESTIONS:
            out.append([(h.passage_id, h.score) for h in retriever.answer(q, 10, explain=False).hits])
    return out


def _same_as_cold(grown: Index, grown_dir: Path, tmp: Path, room: Path) -> None:
    cold, _ = _build(room, tmp / "cold")
    final = {p.name for p in (tmp / "cold").glob("*.cache")}
    assert final and {n: b for n, b in _files(grown_dir).items() if n in final} == _files(tmp / "cold")
    assert _answers(grown) == _answers(cold)
    # the parts of the final set's passages are the cold build's parts, bit for bit
    assert set(PartStore(tmp / "cold").rows()) <= set(PartStore(grown_dir).rows())


ALL = sorted(p.name for p in DOCS.iterdir())


def test_adding_a_document_runs_the_models_over_its_passages_only(tmp_path):
    cache_dir = tmp_path / "cache"
    _build(_room(tmp_path, ALL[:-1]), cache_dir)
    room = _room(tmp_path, ALL)
    index = Index(load_folder(room, name="room"), cache=DiskCache(cache_dir), compute=Recording())
    new = [p for p in index.corpus.passages if p.doc_id.endswith(ALL[-1])]
    unchanged = len(set(index.texts)) - len(new)
    work = index.work(STAGES)
    assert [(w.stage, w.passages, w.stored) for w in work] == [("embeddings", len(new), unchanged),
                                                                ("extraction:ner", len(new), unchanged)]
    assert work[0].new_documents == (new[0].doc_id,) and work[0].changed_documents == ()
    assert work[0].words() == (f"1 new document: {len(new)} passage{'s' * (len(new) > 1)} to encode; {unchanged} "
                               "unchanged, kept from earlier builds")
    index.build_stages(STAGES)
    seen = index.compute.seen
    assert sorted(seen["embeddings"]) == sorted(t for t, p in zip(index.texts, index.corpus.passages) if p in new)
    assert len(seen["extraction:ner"]) == len(new)
    assert index.computed == {"embeddings": len(new), "extraction:ner": len(new)}
    assert index.work(STAGES) == ()
    _same_as_cold(index, cache_dir, tmp_path, room)


def test_removing_a_document_computes_nothing_and_equals_a_cold_build(tmp_path):
    cache_dir = tmp_path / "cache"
    _build(_room(tmp_path, ALL), cache_dir)
    room = _room(tmp_path, ALL[1:])
    index, compute = _build(room, cache_dir)
    assert compute.seen == {"embeddings": [], "extraction:ner": []}
    _same_as_cold(index, cache_dir, tmp_path, room)


def test_replacing_a_document_computes_its_changed_passages_only(tmp_path):
    cache_dir = tmp_path / "cache"
    before, _ = _build(_room(tmp_path, ALL), cache_dir)
    target = ALL[0]  # three passages: an added closing paragraph changes the last
    text = (DOCS / target).read_text()
    edited = text.rstrip() + "\n\nThe analyst notes that the fund's next report is due in January.\n"
    assert edited != text
    room = _room(tmp_path, ALL, {target: edited})
    index = Index(load_folder(room, name="room"), cache=DiskCache(cache_dir), compute=Recording())
    work = index.work(STAGES)[0]
    assert work.new_documents == () and [d.rsplit("/", 1)[-1] for d in work.changed_documents] == [target]
    index.build_stages(STAGES)
    compute = index.compute
    changed = set(index.texts) - set(before.texts)
    assert 1 <= len(changed) <= sum(p.doc_id.endswith(target) for p in index.corpus.passages)
    assert set(compute.seen["embeddings"]) == changed and len(compute.seen["embeddings"]) == len(changed)
    _same_as_cold(index, cache_dir, tmp_path, room)


def test_a_damaged_parts_database_is_set_aside_named_and_rebuilt(tmp_path):
    cache_dir = tmp_path / "cache"
    room = _room(tmp_path, ALL[:2])
    first, _ = _build(room, cache_dir)
    (cache_dir / FILE_NAME).write_bytes(b"not a database" * 100)
    for f in cache_dir.glob("*.cache"):
        f.unlink()
    cache = DiskCache(cache_dir)
    index = Index(load_folder(room, name="room"), cache=cache, compute=Recording())
    index.build_stages(STAGES)
    assert any(e.component == "parts" and e.kind == "rejected" and FILE_NAME in e.detail for e in cache.events)
    assert (cache_dir / (FILE_NAME + ".damaged")).exists()
    assert index.computed["embeddings"] == len(set(index.texts))
    assert np.array_equal(index.embeddings(), first.embeddings())


def test_no_cache_computes_everything_as_before(tmp_path):
    index = Index(load_folder(_room(tmp_path, ALL[:1]), name="room"), compute=Recording())
    work = index.work(["embeddings", "extraction:ner", "graph:ner"])
    assert [(w.stage, w.passages, w.stored) for w in work] == [("embeddings", len(set(index.texts)), 0),
                                                                ("extraction:ner", len(set(index.graph_texts)), 0)]
    assert work[0].words() == f"{len(set(index.texts))} passages to encode"
    assert index.embeddings().shape == (len(index.texts), 384)


@pytest.mark.parametrize("kind", ["embeddings", "extraction:ner"])
def test_a_part_that_does_not_decode_is_computed_again(tmp_path, kind):
    import sqlite3

    cache_dir = tmp_path / "cache"
    room = _room(tmp_path, ALL[:1])
    first, _ = _build(room, cache_dir)
    with sqlite3.connect(cache_dir / FILE_NAME) as db:
        db.execute("UPDATE parts SET value = ? WHERE kind LIKE ?", (b"\xff\x00", f"{kind}/%"))
    db.close()
    for f in cache_dir.glob("*.cache"):
        f.unlink()
    index, compute = _build(room, cache_dir)
    assert len(compute.seen[kind]) == len(set(index.texts if kind == "embeddings" else index.graph_texts))
    assert _answers(index) == _answers(first)


def test_the_work_said_counts_passages_that_repeat_a_text_apart():
    """A filing whose pages repeat a text (a cover, a blank page) is encoded once per distinct text: the corpus
    counted 323 passages and the build said 311 to encode, with nothing said of the other 12."""
    from engine.ingest.corpus import Corpus
    from engine.ingest.passage import Passage

    texts = ["Acme revenue rose.", "Intentionally left blank.", "Acme capex fell.", "Intentionally left blank.",
             "Intentionally left blank."]
    corpus = Corpus("blank", tuple(Passage(f"a.pdf#p{i}", "a.pdf", "a.pdf", t) for i, t in enumerate(texts)))
    (work,) = Index(corpus).work(["embeddings"])
    assert (work.passages, work.repeats) == (3, 2)
    assert work.words() == "3 passages to encode (2 more repeat the text of one of them)"
