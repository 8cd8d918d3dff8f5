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

from engine.errors import PathLensError
from engine.ingest import corpus as corpus_module
from engine.ingest import documents
from engine.ingest.corpus import load_sources
from engine.ingest.documents import SourceFile
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


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("report.pdf", _pdf(2))
        z.writestr("notes.txt", "Beta Gadgets hired Dana Cho as CFO.")
    return out.getvalue()


def test_a_page_that_fails_is_named_and_the_other_pages_are_kept(monkeypatch):
    import pypdfium2 as pdfium

    real = pdfium.PdfPage.get_textpage
    calls = {"n": 0}

    def flaky(page):
        calls["n"] += 1
        if calls["n"] == 2:  # the second page read
            raise pdfium.PdfiumError("Failed to load page.")
        return real(page)

    monkeypatch.setattr(pdfium.PdfPage, "get_textpage", flaky)
    c = load_sources([SourceFile("ACME.pdf", _pdf(3)), GOOD], "room")
    assert [str(p) for p in c.report.skipped] == [
        "ACME.pdf: page 2 could not be read (Failed to load page.); the other 2 pages are kept"]
    assert sorted({p.metadata["page"] for p in c.passages if p.doc_id == "ACME.pdf"}) == ["1", "3"]


@pytest.mark.parametrize("name, data, target", [
    ("a.pdf", _pdf(1), (documents, "pdf_pages")),
    ("a.docx", _docx(), (documents, "docx_text")),
    ("a.html", b"<p>Acme</p>", (documents, "html_text")),
    ("a.zip", _zip(), (corpus_module, "zip_members")),
    ("a.txt", b"Acme", (corpus_module, "_decode")),
    ("a.jsonl", b'{"id": "x", "text": "Acme"}', (corpus_module, "_jsonl_passages")),
])
def test_a_reader_that_fails_is_named_and_the_other_files_build(monkeypatch, name, data, target):
    """Whatever a reader raises on a damaged file (here: a KeyError deep inside it), only a named problem
    leaves ingestion, and the good file beside it builds."""
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


def test_the_limits_are_named(monkeypatch):
    monkeypatch.setattr(documents, "MAX_PDF_PAGES", 2)
    c = load_sources([SourceFile("long.pdf", _pdf(3))], "room")
    assert "long.pdf: has 3 pages; only the first 2 are read (the limit on pages per PDF)" in map(str, c.report.skipped)
    assert max(int(p.metadata["page"]) for p in c.passages) == 2
    monkeypatch.setattr(documents, "MAX_PAGE_CHARS", 10)
    c = load_sources([SourceFile("dense.pdf", _pdf(1))], "room")
    assert "dense.pdf: page 1 ran past 10 characters and were cut there (the limit on characters per page)" \
        in map(str, c.report.skipped)
    monkeypatch.setattr(documents, "MAX_ZIP_FILES", 1)
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
    rng = random.Random(20261130)
    bases = {"fuzz.pdf": _pdf(3), "fuzz.docx": _docx(), "fuzz.zip": _zip()}
    tally: Counter = Counter()
    for case in range(CASES):
        name = rng.choice(sorted(bases))
        kind, data = mutate(bases[name], rng)
        try:
            c = load_sources([SourceFile(name, data), GOOD], "room")
        except PathLensError as e:  # only a PathLensError may leave ingestion; here GOOD always builds
            pytest.fail(f"case {case} ({name}, {kind}): the good file did not build: {e}")
        named = [p for p in c.report.skipped if p.file.split(":")[0] == name]
        read = any(p.doc_id.split(":")[0].startswith(name) or p.doc_id.startswith(("report.pdf", "notes.txt"))
                   for p in c.passages if p.doc_id != "good.txt")
        assert read or named, f"case {case} ({name}, {kind}): neither read nor named"
        assert all(p.message.strip() for p in named)
        tally[(name.rsplit(".", 1)[1], "read" if read and not named else "read, with a problem named" if read
               else "refused with a named problem")] += 1
    assert sum(tally.values()) == CASES
    print(f"\nfuzz: {CASES} cases, " + ", ".join(f"{k[0]} {k[1]}: {v}" for k, v in sorted(tally.items())))
