"""Untrusted files never take ingestion down: a page that fails is named and the rest kept, a file whose
reader fails is named and the other files build, every limit is named, and a seeded mutation fuzzer
over small PDFs, Word files and zips finds no case that ends in anything but a document or a named problem."""

from __future__ import annotations

import io
import os
import random
import zipfile
from collections import Counter

import pytest

from engine.ingest import corpus as corpus_module
from engine.ingest import documents, zips
from engine.ingest.corpus import load_sources
from engine.ingest.documents import SourceFile
from engine.ingest.isolated import ReadLimits
from tests.pdfmaker import make_pdf, text_page

GOOD = SourceFile("good.txt", b"Calder Bank lends to Brightwater Logistics.\n\nElliot Park is its CFO.")


def _pdf(pages: int = 3) -> bytes:
    return make_pdf([text_page(f"Page {n} of the Acme report.", f"Total net sales {n},000 {n},100")
                     for n in range(1, pages + 1)])


def _docx() -> bytes:
    import docx

    d = docx.Document()
    d.add_paragraph("Acme Widgets signed a lease in Ohio.")
    table = d.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Total assets", "22,536"
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def _zip(prefix: str = "") -> bytes:
    """The same bytes on every call: a member's time is fixed, because pytest-xdist's workers each collect the
    parametrized tests and refuse to start when the ids (which hold these bytes) differ."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        members = {f"{prefix}report.pdf": _pdf(2), f"{prefix}notes.txt": b"Beta Gadgets hired Dana Cho as CFO."}
        for name, data in members.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data)
    return out.getvalue()


def test_a_page_that_fails_is_named_and_the_other_pages_are_kept(monkeypatch):
    """In the reader itself (what each worker runs): one page PDFium cannot load costs that page only."""
    import pypdfium2 as pdfium

    from engine.ingest.documents import document_passages, read_document

    real = pdfium.PdfPage.get_textpage
    calls = {"n": 0}

    def flaky(page):
        calls["n"] += 1
        if calls["n"] == 2:  # the second page read
            raise pdfium.PdfiumError("Failed to load page.")
        return real(page)

    monkeypatch.setattr(pdfium.PdfPage, "get_textpage", flaky)
    doc, problems = read_document(SourceFile("ACME.pdf", _pdf(3)))
    assert [str(p) for p in problems] == [
        "ACME.pdf: page 2 could not be read (Failed to load page); the other 2 pages are kept"]
    assert sorted({p.metadata["page"] for p in document_passages(doc)}) == ["1", "3"]


@pytest.mark.parametrize("name, data, target", [
    ("a.zip", _zip(), (corpus_module, "zip_members")),
    ("a.txt", b"Acme", (corpus_module, "decode_text")),
    ("a.jsonl", b'{"id": "x", "text": "Acme"}', (corpus_module, "_jsonl_passages")),
], ids=["zip", "txt", "jsonl"])
def test_a_reader_that_fails_in_process_is_named_and_the_other_files_build(monkeypatch, name, data, target):
    """Text, JSON lines and zips are read in process: whatever their reader raises on a damaged file (here a
    KeyError deep inside it), only a named problem leaves ingestion, and the good file beside it builds."""
    real = getattr(*target)

    def broken(*args, **kwargs):
        first = args[0]
        if getattr(first, "name", None) == name or (isinstance(args[-1], str) and args[-1] == name) or first == data:
            raise KeyError("/Root")
        return real(*args, **kwargs)

    monkeypatch.setattr(*target, broken)
    c = load_sources([SourceFile(name, data), GOOD], "room")
    assert {p.doc_id for p in c.passages} == {"good.txt"}
    (problem,) = c.report.skipped
    assert problem.file == name and "reader failed (KeyError: '/Root'); skipped" in problem.message


@pytest.mark.parametrize("name, message", [
    ("a_BUG.pdf", "a_BUG.pdf: could not be read: the reader failed (KeyError: '/Root')"),
    ("b_BUG.docx", "b_BUG.docx: could not be read: the reader failed (KeyError: '/Root')"),
    ("c_BUG.html", "c_BUG.html: could not be read: the reader failed (KeyError: '/Root')"),
    ("d_SEGV.pdf", "d_SEGV.pdf: the reader crashed (signal 11, SIGSEGV); the file is damaged or not what its name says"),
    ("e_HANG.pdf", "e_HANG.pdf: stopped after 2 s (the time limit per file); the file may be damaged or built to "
                   "stall a reader"),
    ("f_HOG.pdf", "f_HOG.pdf: ran past the 256 MiB memory cap per file"),
    ("g_SPIN.pdf", "g_SPIN.pdf: stopped after 2 s (the time limit per file); the file may be damaged or built to "
                   "stall a reader"),
])
def test_documents_are_read_in_workers_whose_crash_hang_or_memory_is_named(name, message):
    """A reader that segfaults, sleeps past its limit or allocates past its cap costs its own file only: it
    is named with what happened, the good PDF beside it builds, and this process lives on."""
    limits = ReadLimits(seconds=2, memory_bytes=256 * 1024 ** 2)
    c = load_sources([SourceFile(name, _pdf(1)), SourceFile("good.pdf", _pdf(2))], "room", limits=limits,
                     reader="tests.evil_readers:by_name")
    assert [str(p) for p in c.report.skipped] == [message]
    assert {p.doc_id for p in c.passages} == {"good.pdf"}


def test_the_time_limit_is_the_readers_own_cpu_time_so_a_busy_machine_stops_no_good_file():
    """A reader given a little CPU time now and then (a machine busy with other work) reads past the limit in wall
    time, 3 s against 1, and its file is read: only CPU time spent, or a standstill, stops a reader."""
    limits = ReadLimits(seconds=1, memory_bytes=256 * 1024 ** 2)
    c = load_sources([SourceFile("h_SLOW.pdf", _pdf(1))], "room", limits=limits, reader="tests.evil_readers:by_name")
    assert not c.report.skipped and {p.doc_id for p in c.passages} == {"h_SLOW.pdf"}


def test_each_document_over_is_counted_read_or_not():
    """What a page follows while an upload is read: a report at the start, then one per document as it is over,
    a crash included, up to the number of documents (the text file is not read in a worker, so not counted)."""
    seen = []
    limits = ReadLimits(seconds=2, memory_bytes=256 * 1024 ** 2)
    load_sources([SourceFile("d_SEGV.pdf", _pdf(1)), SourceFile("good.pdf", _pdf(2)), GOOD], "room",
                 limits=limits, reader="tests.evil_readers:by_name", progress=lambda *a: seen.append(a))
    assert seen == [("files", 0, 2), ("files", 1, 2), ("files", 2, 2)]


def test_a_workers_own_start_is_not_counted_against_a_files_time_limit(monkeypatch):
    """A worker that takes longer to start than the limit per file (seen under load: a good PDF 'stopped after
    2 s' in a fresh worker) still reads the file: the file's clock starts once the worker says it is ready."""
    monkeypatch.setenv("PATHLENS_TEST_SLOW_START", "3")
    c = load_sources([SourceFile("good.pdf", _pdf(2))], "room", limits=ReadLimits(seconds=2),
                     reader="tests.evil_readers:slow_start")
    assert not c.report.skipped and {p.doc_id for p in c.passages} == {"good.pdf"}


def test_the_limits_are_named(monkeypatch):
    """Pages per PDF and characters per page (in the reader the workers run), files per zip (in process)."""
    from engine.ingest.documents import read_document

    monkeypatch.setattr(documents, "MAX_PDF_PAGES", 2)
    doc, problems = read_document(SourceFile("long.pdf", _pdf(3)))
    assert "long.pdf: has 3 pages; only the first 2 are read (the limit on pages per PDF)" in map(str, problems)
    assert len(doc.pages) == 2
    monkeypatch.setattr(documents, "MAX_PAGE_CHARS", 10)
    doc, problems = read_document(SourceFile("dense.pdf", _pdf(1)))
    assert "dense.pdf: page 1 ran past 10 characters and were cut there (the limit on characters per page)" \
        in map(str, problems)
    monkeypatch.setattr(zips, "MAX_ZIP_FILES", 1)
    c = load_sources([SourceFile("many.zip", _zip()), GOOD], "room")
    assert "many.zip: holds 2 files, over the limit of 1 files per zip; split it" in map(str, c.report.skipped)


# ---------------------------------------------------------------- the fuzzer

CASES = int(os.environ.get("PATHLENS_FUZZ_CASES", "300"))  # nightly size: PATHLENS_FUZZ_CASES=3000


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One of four mutations at a random place: bit flips, truncation, a zeroed block, a duplicated range."""
    b = bytearray(data)
    kind = rng.choice(("flip", "truncate", "zero", "duplicate"))
    if kind == "flip":
        for _ in range(rng.randint(1, 16)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        b = b[:rng.randrange(1, len(b))]
    elif kind == "zero":
        i = rng.randrange(len(b))
        n = rng.randint(1, 256)
        b[i:i + n] = bytes(len(b[i:i + n]))
    else:
        i = rng.randrange(len(b))
        n = rng.randint(1, 512)
        j = rng.randrange(len(b))
        b[j:j] = b[i:i + n]
    return kind, bytes(b)


def test_fuzzed_files_end_in_a_document_or_a_named_problem():
    """Every mutated file goes through ingestion as a user's upload does (one data room of all the cases,
    documents read in worker processes within their limits) and ends read or named; the good file builds."""
    rng = random.Random(20261130)
    pdf, docx = _pdf(3), _docx()
    cases: list[tuple[str, str, bytes]] = []
    for case in range(CASES):
        fmt = rng.choice(("docx", "pdf", "zip"))
        base = {"pdf": pdf, "docx": docx}.get(fmt) or _zip(prefix=f"case{case:04d}-")
        kind, data = mutate(base, rng)
        cases.append((f"case{case:04d}.{fmt}", kind, data))
    c = load_sources([SourceFile(name, data) for name, _, data in cases] + [GOOD], "room",
                     limits=ReadLimits(seconds=20, memory_bytes=1024 ** 3))
    assert any(p.doc_id == "good.txt" for p in c.passages)
    named: dict[str, list[str]] = {}
    for problem in c.report.skipped:
        named.setdefault(problem.file.split(":")[0], []).append(problem.message)
    read = {p.doc_id.split("-")[0].split(":")[0].removesuffix(".pdf").removesuffix(".docx") for p in c.passages}
    tally: Counter = Counter()
    for name, kind, _ in cases:
        stem = name.rsplit(".", 1)[0]
        was_read = stem in read or any(d.startswith(stem) for d in read)
        assert was_read or name in named, f"{name} ({kind}): neither read nor named"
        assert all(m.strip() for m in named.get(name, []))
        tally[(name.rsplit(".", 1)[1], "read" if was_read and name not in named else "read, with a problem named"
               if was_read else "refused with a named problem")] += 1
    assert sum(tally.values()) == CASES
    print(f"\nfuzz: {CASES} cases, " + ", ".join(f"{k[0]} {k[1]}: {v}" for k, v in sorted(tally.items())))


def test_a_room_of_damaged_pdfs_and_one_good_filing_answers_on_the_cli(tmp_path):
    """The command line over damaged PDFs beside a good one: it answers from the good one and names every
    damaged file, with no traceback."""
    import subprocess
    import sys

    from tests.conftest import ROOT
    from tests.filingmaker import write_pdfs

    room = write_pdfs(tmp_path / "room")
    (room / "ACME_2020_10K.pdf").unlink()  # one good filing
    good = (room / "ACME_2019_10K.pdf").read_bytes()
    (room / "TRUNCATED.pdf").write_bytes(good[: len(good) // 3])
    (room / "GARBAGE.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)
    (room / "EMPTY.pdf").write_bytes(b"")
    out = subprocess.run([sys.executable, "-m", "engine", "query", "--corpus", str(room), "--retriever", "filing-graph",
                          "--k", "3", "What was Acme's capex in FY2019 according to the cash flow statement?"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert " 1. " in out.stdout and "ACME_2019_10K.pdf#p5.0" in out.stdout.split("\n 2. ")[0]
    for name in ("TRUNCATED.pdf", "GARBAGE.pdf", "EMPTY.pdf"):
        assert f"note: skipped {name}: " in out.stderr, out.stderr


def test_two_zips_holding_the_same_path_build_side_by_side():
    c = load_sources([SourceFile("a.zip", _zip()), SourceFile("b.zip", _zip())], "room")
    assert {p.doc_id for p in c.passages} == {"report.pdf", "notes.txt", "b.zip/report.pdf", "b.zip/notes.txt"}
    assert c.report.skipped == ()
