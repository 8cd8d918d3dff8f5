"""Where a cited page's PDF is, and what of an answer to mark on it.

A corpus is named as the command line and the app name it (engine.ingest.corpus.load_corpus): a bundled corpus,
a folder (an upload is a folder too), a zip or one file. A passage's document is its path inside that: a
folder's relative path, a zip's member (or `zip name/member` when two zips hold the same path), the file's own
name. `pdf_source` finds the bytes by the same rule, and says exactly what is missing when it cannot: the
bundled corpora hold Markdown, not PDFs; a document may have moved since the room was built.

`evidence_on_page` reads an answer for one page: its best-ranked hit there (the passage to outline), the seed
entities that hit mentions, and the question; with no hit on the page, the walk's seeds are marked wherever they
stand on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Mapping, NoReturn

from ..errors import PathLensError
from ..ingest.corpus import CORPORA_DIR, bundled_manifest, bundled_names
from ..ingest.documents import SourceFile
from ..ingest.passage import PageRef, Passage
from ..ingest.textfiles import source_file
from ..ingest.zips import zip_members


def _not_pdf(doc: str) -> PathLensError:
    return PathLensError(f"{doc} is not a PDF: only a PDF's pages can be drawn (other documents are one page of "
                         "text, shown as the passage)")


def _pdfs_in(names: list[str]) -> str:
    pdfs = sorted(n for n in names if n.lower().endswith(".pdf"))
    if not pdfs:
        return "it holds no PDF"
    return "its PDFs: " + ", ".join(pdfs[:8]) + (f" and {len(pdfs) - 8} more" if len(pdfs) > 8 else "")


def pdf_source(spec: str, doc: str) -> SourceFile:
    """The bytes of the PDF `doc` (a passage's document, e.g. "APPLE_2022_10K.pdf") of the corpus `spec`.
    Raises PathLensError saying what is missing: no such corpus, no such document in it, not a PDF."""
    doc = doc.strip()
    if not doc.lower().endswith(".pdf"):
        raise _not_pdf(doc)
    if spec in bundled_names():
        manifest = bundled_manifest(spec)
        folder = CORPORA_DIR / (manifest.get("core") or spec) / "docs"
        names = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []
        if doc not in names:
            raise PathLensError(f"the bundled corpus {spec!r} has no {doc}: {_pdfs_in(names)} (its documents are "
                                "Markdown; pass a folder of PDFs as --corpus, e.g. ../shared/data/filings)")
        return source_file(folder / doc, doc)
    path = Path(spec)
    if path.is_dir():
        target = (path / doc).resolve()
        if not target.is_relative_to(path.resolve()) or any(part.startswith(".") for part in PurePosixPath(doc).parts):
            raise PathLensError(f"{doc}: a document's name cannot leave its corpus's folder")
        if not target.is_file():
            names = [p.relative_to(path).as_posix() for p in path.rglob("*.[pP][dD][fF]") if p.is_file()]
            zips = sorted(p.name for p in path.glob("*.zip"))
            return _from_zips(path, zips, doc) if zips else _missing(doc, spec, names)
        return source_file(target, doc)
    if path.is_file():
        if path.suffix.lower() == ".zip":
            return _zip_member(path, doc)
        if path.name == doc:
            return source_file(path, doc)
        raise PathLensError(f"the corpus {spec} is the one file {path.name}, not {doc}")
    raise PathLensError(f"the corpus {spec!r} is neither a bundled corpus nor an existing folder, zip or file, so "
                        f"{doc} cannot be read from it")


def _missing(doc: str, spec: str, names: list[str]) -> NoReturn:
    raise PathLensError(f"{doc} is not in {spec} ({_pdfs_in(names)}); was it moved or renamed since the room was "
                        "built?")


def _zip_member(path: Path, doc: str, member: str | None = None) -> SourceFile:
    members, _ = zip_members(source_file(path, path.name).data, path.name)
    want = member or doc
    for m in members:
        if m.name == want or f"{path.name}/{m.name}" == want:
            return SourceFile(doc, m.data)
    return _missing(doc, str(path), [m.name for m in members])


def _from_zips(folder: Path, zips: list[str], doc: str) -> SourceFile:
    """A document of a folder that holds zips: `zip name/member`, or a member of whichever zip has it."""
    head, _, rest = doc.partition("/")
    if head in zips and rest:
        return _zip_member(folder / head, doc, rest)
    for name in zips:
        try:
            return _zip_member(folder / name, doc)
        except PathLensError:
            continue
    raise PathLensError(f"{doc} is not in {folder} nor in its zips ({', '.join(zips)})")


@dataclass(frozen=True)
class PageEvidence:
    """What of an answer to mark on one page: the best-ranked hit there (its id, text and rank; "" and 0 when no
    hit is on the page), the entities to mark, the question, and a note when no hit is on the page."""

    passage_id: str
    passage: str
    rank: int
    entities: tuple[str, ...]
    question: str
    note: str = ""


def evidence_on_page(answer, passages: Mapping[str, Passage], doc: str, page: int) -> PageEvidence:
    """The evidence of `answer` (engine.retrieve.retrievers.Answer) on page `page` of `doc`: its best-ranked hit
    on that page with the seed entities that hit mentions (graph retrievers; none for the others), else the
    walk's seeds, to be marked wherever they stand on the page."""
    for hit in answer.hits:
        if (at := PageRef.from_id(hit.passage_id)) and (at.doc, at.page) == (doc, page):
            why = answer.why.get(hit.passage_id)
            entities = tuple(getattr(why, "matched_entities", ()) or ())
            return PageEvidence(hit.passage_id, passages[hit.passage_id].text, hit.rank, entities, answer.question)
    seeds = tuple(dict.fromkeys(s.label for s in answer.walk.seeds)) if answer.walk is not None else ()
    return PageEvidence("", "", 0, seeds, answer.question,
                        f"no passage of {doc} page {page} is among the {len(answer.hits)} hits; the question's words "
                        "and the walk's seeds are marked wherever they stand on the page")


__all__ = ["PageEvidence", "evidence_on_page", "pdf_source"]
