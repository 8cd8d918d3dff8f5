"""The reader's kept replies (engine.ingest.read_cache): a file read once is read again with no worker and gives the
same document; a changed file, reader code or damaged entry is read afresh; a failure is never kept."""

from __future__ import annotations

import pytest

from engine.errors import PathLensError
from engine.ingest import isolated, read_cache
from engine.ingest.documents import SourceFile
from tests.pdfmaker import make_pdf, text_page


@pytest.fixture
def workers(monkeypatch, tmp_path):
    """The number of reader processes started, with the cache in a folder of its own."""
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path / "cache"))
    started = []
    real = isolated._Worker

    def counting(*args, **kwargs):
        started.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(isolated, "_Worker", counting)
    return started


def _pdf(word: str) -> SourceFile:
    return SourceFile("acme.pdf", make_pdf([text_page(f"Acme Widgets {word} report", "Revenue 1,200 1,100")]))


def test_a_file_read_again_comes_from_the_cache_with_no_worker_and_the_same_document(workers):
    first = isolated.read_many([_pdf("annual")])
    assert len(workers) == 1 and not isinstance(first[0], PathLensError)
    again = isolated.read_many([_pdf("annual")])
    assert len(workers) == 1 and again == first
    assert "Revenue 1,200 1,100" in again[0][0].pages[0]
    files = list(read_cache.directory().glob("*.json.z"))
    assert len(files) == 1 and not list(read_cache.directory().glob(".tmp-*"))


def test_a_changed_file_a_changed_reader_or_a_damaged_entry_is_read_afresh(workers, monkeypatch):
    isolated.read_many([_pdf("annual")])
    changed = isolated.read_many([_pdf("quarterly")])  # other bytes, same name
    assert len(workers) == 2 and "quarterly" in changed[0][0].pages[0]
    for entry in read_cache.directory().glob("*.json.z"):
        entry.write_bytes(b"not zlib")
    assert isolated.read_many([_pdf("annual")])[0][0].pages[0].startswith("Acme Widgets annual")
    assert len(workers) == 3
    monkeypatch.setattr(read_cache, "fingerprint", lambda: "other reading code")
    isolated.read_many([_pdf("annual")])
    assert len(workers) == 4


def test_a_file_the_reader_fails_is_never_kept(workers):
    damaged = SourceFile("broken.pdf", b"%PDF-1.4\n" + b"\x00garbage" * 50)
    for n in (1, 2):
        result = isolated.read_many([damaged])[0]
        assert isinstance(result, PathLensError) and "broken.pdf" in str(result)
        assert len(workers) == n
    assert not list(read_cache.directory().glob("*.json.z"))
