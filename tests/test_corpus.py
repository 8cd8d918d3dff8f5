import json

import pytest

from engine.ingest.corpus import Corpus, load_corpus, load_folder, load_jsonl
from engine.ingest.passage import chunk_text, ChunkConfig, Passage
from engine.errors import PathLensError


def test_chunks_pack_paragraphs_up_to_the_limit_with_overlap():
    paras = ["alpha " * 20, "beta " * 20, "gamma " * 20]  # ~120, ~100, ~120 characters
    chunks = chunk_text("\n\n".join(paras), ChunkConfig(max_chars=260, overlap_chars=20))
    assert len(chunks) == 2
    assert chunks[0].startswith("alpha") and "beta" in chunks[0]
    assert chunks[1].endswith("gamma")
    assert chunks[1].startswith("beta")  # the overlap: the tail of the chunk before
    assert all(len(c) <= 260 for c in chunks)


def test_long_paragraph_is_cut_on_word_boundaries():
    text = " ".join(f"word{i}" for i in range(200))
    chunks = chunk_text(text, ChunkConfig(max_chars=100, overlap_chars=0))
    assert all(len(c) <= 100 for c in chunks)
    assert " ".join(chunks).split() == text.split()


def test_folder_ids_are_file_and_position_and_deterministic(tmp_path):
    (tmp_path / "b.md").write_text("# Bee\n\nfirst para\n\nsecond para", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("only one", encoding="utf-8")
    c1 = load_folder(tmp_path, config=ChunkConfig(max_chars=60, overlap_chars=0))
    c2 = load_folder(tmp_path, config=ChunkConfig(max_chars=60, overlap_chars=0))
    assert [p.id for p in c1.passages] == ["b.md#0000", "sub/a.txt#0000"]
    assert c1.passages[0].title == "Bee" and c1.passages[0].doc_id == "b.md"
    assert c1 == c2 and c1.fingerprint == c2.fingerprint


def test_jsonl_loader_names_the_bad_line(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text('{"id": "a", "text": "x"}\n{"id": "b"}\n', encoding="utf-8")
    with pytest.raises(PathLensError, match=r"line 2: missing field 'text'"):
        load_jsonl(f)
    f.write_text('{"id": "a", "text": "x"}\nnot json\n', encoding="utf-8")
    with pytest.raises(PathLensError, match="line 2: not valid JSON"):
        load_jsonl(f)


def test_jsonl_with_queries_beside_it(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(json.dumps({"id": i, "text": f"text {i}"}) for i in "ab"), encoding="utf-8")
    (tmp_path / "c.queries.jsonl").write_text(json.dumps({"id": "q", "text": "?", "gold": ["b"], "kind": "single-hop"}))
    c = load_jsonl(f)
    assert len(c) == 2 and c.queries[0].gold == ("b",) and c.qrels() == {"q": {"b": 1}}


def test_bad_files_say_what_is_wrong(tmp_path):
    binary = tmp_path / "x.txt"
    binary.write_bytes(b"\x00\x01\x02abc")
    with pytest.raises(PathLensError, match="binary"):
        load_corpus(str(binary))
    latin = tmp_path / "y.txt"
    latin.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(PathLensError, match="not UTF-8"):
        load_corpus(str(latin))
    empty = tmp_path / "z.jsonl"
    empty.write_text("")
    with pytest.raises(PathLensError, match="empty"):
        load_corpus(str(empty))
    with pytest.raises(PathLensError, match="unknown corpus"):
        load_corpus("no-such-corpus")


def test_corpus_validates_ids_and_gold():
    p = Passage("a", "d", "", "t")
    with pytest.raises(PathLensError, match="duplicate"):
        Corpus("c", (p, p))
    with pytest.raises(PathLensError, match="no passages"):
        Corpus("c", ())


def test_bundled_core_corpus(core_corpus):
    assert core_corpus.name == "dataroom-core"
    assert len(core_corpus) >= 25
    kinds = [q.kind for q in core_corpus.queries]
    assert kinds.count("single-hop") >= 20 and kinds.count("multi-hop") >= 20


def test_every_gold_passage_holds_the_fact_its_query_asks_for(core_corpus):
    from engine.ingest.corpus import CORPORA_DIR

    texts = {p.id: p.text for p in core_corpus.passages}
    rows = [json.loads(line) for line in (CORPORA_DIR / "dataroom-core" / "queries.jsonl").read_text().splitlines()]
    assert len(rows) == len(core_corpus.queries)
    for row in rows:
        assert set(row["evidence"]) == set(row["gold"]), row["id"]
        for pid, fact in row["evidence"].items():
            assert fact in texts[pid], (row["id"], pid, fact)


def test_query_kinds_are_free_labels_and_extra_fields_are_kept(tmp_path):
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(json.dumps({"id": i, "text": f"text {i}"}) for i in "ab"), encoding="utf-8")
    rows = [{"id": "q1", "text": "?", "gold": ["a"], "kind": "metrics-generated", "answer": "$1,028 million",
             "evidence": "Additions to property, plant and equipment (1,028)", "needs": ["year"]},
            {"id": "q2", "text": "?", "gold": ["b"]}]
    (tmp_path / "c.queries.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    q1, q2 = load_jsonl(f).queries
    assert q1.kind == "metrics-generated" and q2.kind == "unlabeled"  # never a kind the file did not give
    assert dict(q1.extra) == {"answer": "$1,028 million", "evidence": "Additions to property, plant and equipment (1,028)",
                              "needs": '["year"]'}
    assert dict(q2.extra) == {}
    (tmp_path / "c.queries.jsonl").write_text(json.dumps({"id": "q", "text": "?", "gold": ["a"], "kind": " "}))
    with pytest.raises(PathLensError, match=r"line 1: field 'kind' must be a short non-empty label"):
        load_jsonl(f)


def test_the_opening_question_is_the_demo_question_else_the_first_multi_hop_else_the_first():
    from dataclasses import replace

    from engine.ingest.questions import LabeledQuery

    one = LabeledQuery("a", "Who lends?", ("p0",), "single-hop")
    two = LabeledQuery("b", "Who owns the lender?", ("p0",), "multi-hop")
    three = LabeledQuery("c", "Who owns the owner?", ("p0",), "multi-hop")
    base = Corpus("c", (Passage("p0", "d0", "", "Calder Bank lends."),), (one, two, three), demo_question="c")
    assert base.opening_question == "Who owns the owner?"
    assert replace(base, demo_question="").opening_question == "Who owns the lender?"
    assert replace(base, demo_question="gone").opening_question == "Who owns the lender?"  # an id no query has
    assert replace(base, queries=(one,), demo_question="").opening_question == "Who lends?"
    assert replace(base, queries=(), demo_question="").opening_question == ""
    assert load_corpus("dataroom-core").opening_question.startswith("Who is the largest investor in the fund that owns")


def test_each_kind_of_file_is_read_by_its_own_reader_and_passages_come_in_name_order():
    """load_sources hands each file to its kind's reader (READERS, by suffix): text chunked by paragraphs, JSON lines
    as passages, a document page by page, a zip's files in its place; a kind it does not read is a named problem."""
    import io
    import zipfile

    from engine.ingest.corpus import CORPUS_SUFFIXES, READERS, load_sources
    from engine.ingest.documents import SourceFile

    assert set(READERS) | {".zip"} == set(CORPUS_SUFFIXES)
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as z:
        z.writestr("inner/c.txt", "Gamma Corp sold a plant.")
    c = load_sources([SourceFile("x.csv", b"a,b"), SourceFile("d.jsonl", b'{"id": "d1", "text": "Delta Inc."}\n'),
                      SourceFile("e.zip", packed.getvalue()),
                      SourceFile("b.html", b"<html><body><p>Beta Ltd hired Dana Cho.</p></body></html>"),
                      SourceFile("a.md", b"# Alpha\n\nAlpha Bank lends.")], "room")
    assert [(p.id, p.title) for p in c.passages if p.doc_id != "b.html"] == [
        ("a.md#0000", "Alpha"), ("d1", ""), ("inner/c.txt#0000", "Gamma Corp sold a plant.")]
    assert [p.doc_id for p in c.passages] == ["a.md", "b.html", "d1", "inner/c.txt"]
    assert [(p.file, p.message) for p in c.report.skipped] == [
        ("x.csv", f"not a file PathLens reads ({', '.join(CORPUS_SUFFIXES)}); skipped")]
