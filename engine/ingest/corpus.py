"""Corpus model and loaders: folders, zips and files of documents, text and JSONL passages; bundled corpora."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from .documents import DOCUMENT_SUFFIXES, Problem, SourceFile, document_passages
from .running_lines import DroppedLine
from .zips import zip_members
from .isolated import READER, ReadLimits, read_many
from ..jobs import Progress
from ..errors import PathLensError
from .passage import ChunkConfig, PageRef, Passage, chunk_text, page_ref
from .questions import LabeledQuery, QueryFile, load_queries, read_queries
from .textfiles import decode_text, json_field, read_json_lines, read_text, source_file
from .worldgen import generate_passages

CORPORA_DIR = Path(__file__).resolve().parents[2] / "corpora"  # beside engine/


@dataclass(frozen=True)
class IngestReport:
    """What loading left out: files or pages skipped (and why), running headers and footers dropped."""

    skipped: tuple[Problem, ...] = ()
    dropped: tuple[DroppedLine, ...] = ()
    questions_left_out: tuple[str, ...] = ()  # each bad line of the labeled questions, by line and field


@dataclass(frozen=True)
class Corpus:
    name: str
    passages: tuple[Passage, ...]
    queries: tuple[LabeledQuery, ...] = ()
    # retriever parameters tuned on this corpus (a bundled manifest's "search"), by catalog name;
    # they replace the catalog's defaults, and anything a user sets replaces them
    defaults: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    report: IngestReport = IngestReport()
    lexicon: str = ""  # the text of a lexicon.json at the corpus's top, extending the financial lexicon
    demo_question: str = ""  # the id of the labeled question the Query page opens on (a manifest's, measured)

    def __post_init__(self) -> None:
        if not self.passages:
            raise PathLensError(f"corpus {self.name!r} has no passages")
        seen: set[str] = set()
        for p in self.passages:
            if p.id in seen:
                raise PathLensError(f"corpus {self.name!r}: duplicate passage id {p.id!r}")
            seen.add(p.id)
        for q in self.queries:
            missing = [g for g in q.gold if g not in seen]
            if missing:
                raise PathLensError(
                    f"corpus {self.name!r}: query {q.id!r} names unknown gold passage {missing[0]!r}"
                )

    def __len__(self) -> int:
        return len(self.passages)

    def position(self) -> dict[str, int]:
        return {p.id: i for i, p in enumerate(self.passages)}

    @cached_property
    def fingerprint(self) -> str:
        """Hash of everything that affects an index: ids, titles, texts (not queries); computed once."""
        h = hashlib.sha256()
        for p in self.passages:
            for part in (p.id, p.doc_id, p.title, p.text):
                h.update(part.encode("utf-8"))
                h.update(b"\x00")
        return h.hexdigest()[:16]

    @cached_property
    def paged(self) -> bool:
        """Whether any passage comes from a paged document (a PDF): such a corpus opens on the filings retriever."""
        return any(page_ref(p) for p in self.passages)

    @cached_property
    def pages(self) -> dict[str, PageRef]:
        """passage id → its page, for the passages of paged documents; computed once."""
        return {p.id: at for p in self.passages if (at := page_ref(p))}

    def qrels(self) -> dict[str, dict[str, int]]:
        return {q.id: {g: 1 for g in q.gold} for q in self.queries}

    @property
    def opening_question(self) -> str:
        """The question the pages open on: the corpus's demo question (chosen by measurement,
        engine.evaluate.demo), else its first multi-hop one, else its first; "" without labeled questions."""
        return next((q.text for q in self.queries if q.id == self.demo_question),
                    next((q.text for q in self.queries if q.kind == "multi-hop"),
                         self.queries[0].text if self.queries else ""))


# ---------------------------------------------------------------- chunking


def _title_of(text: str, fallback: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line.lstrip("#").strip()[:120] or fallback
    return fallback


CORPUS_SUFFIXES = (".txt", ".md", ".jsonl", ".zip") + DOCUMENT_SUFFIXES


LEXICON_FILE = "lexicon.json"  # at a corpus's top: the data room's own additions to the financial lexicon


def _is_queries_file(name: str) -> bool:
    base = PurePosixPath(name).name.lower()
    return base == "queries.jsonl" or base.endswith(".queries.jsonl")


def load_sources(sources: Iterable[SourceFile], name: str, config: ChunkConfig = ChunkConfig(),
                 queries: SourceFile | None = None, limits: ReadLimits | None = None, reader: str = READER,
                 progress: Progress | None = None) -> Corpus:
    """A corpus from files of any supported kind, in name order; zips are opened and their files read.

    .txt/.md files are chunked by paragraphs (ids `name#NNNN`), .jsonl files hold passages, and
    documents (PDF, DOCX, HTML) become page-cited passages (see `engine.ingest.documents`), each read in a
    worker process within `limits` (`engine.ingest.isolated`; `reader` is what the workers run). A file that
    cannot be read is skipped and named in `Corpus.report`; the corpus fails only if nothing is left.
    A `queries.jsonl` at the top of a zip or folder supplies the labeled questions; its bad lines are named.
    """
    problems: list[Problem] = []
    files = _unpacked(list(sources), problems)
    queries, lexicon = _queries_and_lexicon(files, queries)
    # documents are read in worker processes, in parallel, each within its time and memory limit
    documents = [f for f in files if PurePosixPath(f.name).suffix.lower() in DOCUMENT_SUFFIXES]
    read = read_many(documents, limits or ReadLimits.from_env(), reader, progress)
    reading = _Reading(config, dict(zip(map(id, documents), read)), problems)
    passages = _passages(files, reading)
    if not passages:
        why = "; ".join(str(p) for p in problems) or "no text in any file"
        raise PathLensError(f"{name}: nothing to build from ({why})")
    seen: set[str] = set()
    for p in passages:
        if p.id in seen:
            raise PathLensError(f"corpus {name!r}: duplicate passage id {p.id!r}")
        seen.add(p.id)
    unread = {p.file: p.message for p in problems}
    labeled = read_queries(decode_text(queries), queries.name, passages, unread) if queries else QueryFile((), ())
    return Corpus(name=name, passages=tuple(passages), queries=labeled.queries,
                  report=IngestReport(tuple(problems), tuple(reading.dropped), labeled.left_out), lexicon=lexicon)


# ---------------------------------------------------------------- load_sources, kind by kind


def _unpacked(sources: list[SourceFile], problems: list[Problem]) -> list[SourceFile]:
    """Every file the sources hold, in their order: a zip's members in its place, any other source as itself."""
    files: list[SourceFile] = []
    for src in sources:
        files.extend(_zip_files(src, {f.name for f in files} | {s.name for s in sources}, problems)
                     if src.name.lower().endswith(".zip") else [src])
    return files


def _zip_files(src: SourceFile, taken: set[str], problems: list[Problem]) -> list[SourceFile]:
    """A zip's files; a member whose path another file already has (`taken`) is cited under its zip's name, so
    two zips that both hold report.pdf build side by side instead of failing as duplicate passage ids. A zip that
    cannot be opened, or that holds nothing, is a problem; so is each member refused."""
    try:
        members, bad = zip_members(src.data, src.name)
    except PathLensError as e:
        problems.append(Problem(src.name, str(e).removeprefix(f"{src.name} ")))
        return []
    except Exception as e:  # noqa: BLE001 — the zip reader's own failure: named, the other files build
        problems.append(Problem(src.name, f"could not be read: the ZIP reader failed ({type(e).__name__}: "
                                          f"{e}); skipped"))
        return []
    problems.extend(bad)
    if not members and not bad:
        problems.append(Problem(src.name, "holds no file to read (empty, or its directory is damaged); "
                                          "nothing was taken from it"))
    return [m if m.name not in taken else SourceFile(f"{src.name}/{m.name}", m.data) for m in members]


def _queries_and_lexicon(files: list[SourceFile], queries: SourceFile | None) -> tuple[SourceFile | None, str]:
    """The labeled questions (`queries` if given, else a queries file at the top) and the lexicon.json's text."""
    lexicon = ""
    for f in files:
        if _is_queries_file(f.name) and "/" not in f.name.strip("/") and queries is None:
            queries = f
        if f.name.strip("/") == LEXICON_FILE:
            lexicon = decode_text(f)
    return queries, lexicon


@dataclass
class _Reading:
    """What the readers of single files share: the chunking, the documents the workers read (by `id` of the
    file: its (document, problems), or the PathLensError it raised), and what reading leaves out."""
    config: ChunkConfig
    read: dict[int, object]
    problems: list[Problem]
    dropped: list[DroppedLine] = field(default_factory=list)


def _from_text(f: SourceFile, reading: _Reading) -> Iterable[Passage]:
    """A .txt or .md file chunked by paragraphs (ids `name#NNNN`), titled by its first line."""
    text = decode_text(f)
    title = _title_of(text, PurePosixPath(f.name).stem)
    return (Passage(f"{f.name}#{i:04d}", f.name, title, c) for i, c in enumerate(chunk_text(text, reading.config)))


def _from_jsonl(f: SourceFile, reading: _Reading) -> Iterable[Passage]:
    return _jsonl_passages(decode_text(f), f.name)


def _from_document(f: SourceFile, reading: _Reading) -> Iterable[Passage]:
    """A document's page-cited passages, from what its worker read; unread pages and running lines noted."""
    outcome = reading.read[id(f)]
    if isinstance(outcome, PathLensError):
        raise outcome
    doc, bad = outcome
    reading.problems.extend(bad)
    reading.dropped.extend(doc.dropped)
    return document_passages(doc)


def _not_read(f: SourceFile, reading: _Reading) -> Iterable[Passage]:
    reading.problems.append(Problem(f.name, f"not a file PathLens reads ({', '.join(CORPUS_SUFFIXES)}); skipped"))
    return ()


READERS = {**dict.fromkeys(DOCUMENT_SUFFIXES, _from_document), ".txt": _from_text, ".md": _from_text,
           ".jsonl": _from_jsonl}  # by lower-case suffix; any other file is _not_read


def _passages(files: list[SourceFile], reading: _Reading) -> list[Passage]:
    """Every file's passages in name order (queries and lexicon aside) by its kind's reader; a failure is a problem."""
    passages: list[Passage] = []
    for f in sorted(files, key=lambda f: f.name):
        if _is_queries_file(f.name) or f.name.strip("/") == LEXICON_FILE:
            continue
        suffix = PurePosixPath(f.name).suffix.lower()
        try:
            passages.extend(READERS.get(suffix, _not_read)(f, reading))
        except PathLensError as e:
            reading.problems.append(Problem(f.name, str(e).removeprefix(f"{f.name} ").removeprefix(f"{f.name}: ")))
        except Exception as e:  # noqa: BLE001 — a reader's own failure on a damaged file: named, the rest builds
            reading.problems.append(Problem(f.name, f"could not be read: the {suffix.lstrip('.').upper() or 'file'} "
                                                    f"reader failed ({type(e).__name__}: {e}); skipped"))
    return passages


def load_folder(folder: Path, name: str | None = None, config: ChunkConfig = ChunkConfig(),
                progress: Progress | None = None) -> Corpus:
    """Every readable file under `folder` (see CORPUS_SUFFIXES), in sorted path order; `progress` counts the
    documents read (`isolated.read_many`)."""
    folder = Path(folder)
    paths = sorted(p for p in folder.rglob("*") if p.is_file()
                   and (p.suffix.lower() in CORPUS_SUFFIXES or p.relative_to(folder).as_posix() == LEXICON_FILE)
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    if not [p for p in paths if not _is_queries_file(p.name) and p.name != LEXICON_FILE]:
        raise PathLensError(f"{folder} holds no file PathLens reads ({', '.join(CORPUS_SUFFIXES)})")
    sources = []
    problems = []
    for p in paths:
        rel = p.relative_to(folder).as_posix()
        try:
            sources.append(source_file(p, rel))
        except PathLensError as e:
            problems.append(Problem(rel, str(e)))
    corpus = load_sources(sources, name or folder.name, config, progress=progress)
    if problems:
        corpus = dataclasses.replace(corpus, report=IngestReport(tuple(problems) + corpus.report.skipped,
                                                                 corpus.report.dropped))
    return corpus


def _jsonl_passages(text: str, where: str) -> list[Passage]:
    passages = []
    for n, obj in read_json_lines(text, where):
        at = f"{where}, line {n}"
        pid, body = json_field(obj, "id", at), json_field(obj, "text", at)
        meta = obj.get("metadata") or {}
        if not isinstance(meta, dict):
            raise PathLensError(f"{at}: field 'metadata' must be an object")
        passages.append(Passage(id=pid, doc_id=str(obj.get("doc_id", pid)), title=str(obj.get("title", "")),
                                text=body, metadata=MappingProxyType({str(k): str(v) for k, v in meta.items()})))
    return passages


def load_jsonl(path: Path, name: str | None = None) -> Corpus:
    """Passages as JSON Lines: `id`, `text` required; `doc_id`, `title`, `metadata` optional."""
    path = Path(path)
    passages = _jsonl_passages(read_text(path), str(path))
    queries_path = path.with_name(path.stem + ".queries.jsonl")
    queries = load_queries(queries_path, passages) if queries_path.exists() else ()
    return Corpus(name=name or path.stem, passages=tuple(passages), queries=queries)


# ---------------------------------------------------------------- bundled corpora


def bundled_names() -> list[str]:
    """Bundled corpora: folders under corpora/ with a manifest.json."""
    return sorted(p.parent.name for p in CORPORA_DIR.glob("*/manifest.json"))


def bundled_manifest(name: str) -> dict:
    if name not in bundled_names():  # never used as a path before this check
        raise PathLensError(f"unknown corpus {name!r}; bundled corpora: {', '.join(bundled_names())}")
    return json.loads((CORPORA_DIR / name / "manifest.json").read_text("utf-8"))


def load_bundled(name: str) -> Corpus:
    manifest = bundled_manifest(name)
    folder = CORPORA_DIR / name
    if manifest.get("generator"):
        return grown_corpus(name, manifest)
    chunking = ChunkConfig(**manifest.get("chunking", {}))
    corpus = load_folder(folder / "docs", name=name, config=chunking)
    queries = load_queries(folder / "queries.jsonl", corpus.passages) if (folder / "queries.jsonl").exists() else ()
    demo = manifest.get("demo_question", "")
    if demo and demo not in {q.id for q in queries}:
        raise PathLensError(f"{folder / 'manifest.json'}: field 'demo_question': {demo!r} is not a labeled question's id")
    return Corpus(name=name, passages=corpus.passages, queries=queries, defaults=manifest_defaults(name, manifest),
                  demo_question=demo)


def grown_corpus(name: str, manifest: dict) -> Corpus:
    """The bundled core `manifest['core']` plus passages of the seeded world generator (engine.ingest.worldgen)
    up to `manifest['size']` in all."""
    core = load_bundled(manifest["core"])
    extra = generate_passages(max(0, int(manifest["size"]) - len(core)), int(manifest.get("seed", 7)))
    return Corpus(name, core.passages + tuple(extra), core.queries, defaults=manifest_defaults(name, manifest))


def manifest_defaults(name: str, manifest: dict) -> Mapping[str, float]:
    """A manifest's "search" section: parameter defaults tuned on that corpus, each checked
    against the catalog's range."""
    from ..catalog import PARAMS

    out = {}
    for key, value in (manifest.get("search") or {}).items():
        where = f"corpora/{name}/manifest.json, field 'search.{key}'"
        if key not in PARAMS:
            raise PathLensError(f"{where}: unknown parameter; choose from {', '.join(PARAMS)}")
        spec = PARAMS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not spec.low <= value <= spec.high:
            raise PathLensError(f"{where}: expected a number from {spec.low} to {spec.high}, got {value!r}")
        out[key] = value
    return MappingProxyType(out)


DEFAULT_CORPUS = "dataroom-core"  # what the app opens on and load_corpus() loads: the hand-written core builds in seconds


def load_corpus(spec: str | None = None, queries: str | Path | Sequence[str | Path] | None = None) -> Corpus:
    """A bundled corpus by name, or a folder, a zip or a single file (see CORPUS_SUFFIXES).

    `queries` names one labeled-questions file, or several read in order, that replace any found
    beside the corpus (a benchmark's own file and a project's additions, say); ids must not repeat.
    """
    corpus = _load_spec(spec or DEFAULT_CORPUS)
    if queries is not None:
        files = [queries] if isinstance(queries, (str, Path)) else list(queries)
        merged: list[LabeledQuery] = []
        seen: dict[str, Path] = {}
        for f in files:
            for q in load_queries(Path(f), corpus.passages):
                if q.id in seen:
                    raise PathLensError(f"{f}: question id {q.id!r} is also in {seen[q.id]}")
                seen[q.id] = Path(f)
                merged.append(q)
        corpus = dataclasses.replace(corpus, queries=tuple(merged))
    return corpus


def _load_spec(spec: str) -> Corpus:
    if spec in bundled_names():
        return load_bundled(spec)
    path = Path(spec)
    if path.is_dir():
        return load_folder(path)
    if path.is_file():
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            return load_jsonl(path)
        if suffix not in CORPUS_SUFFIXES:
            raise PathLensError(f"{path}: expected a folder or a {', '.join(CORPUS_SUFFIXES)} file")
        beside = path.with_name(path.stem + ".queries.jsonl")
        return load_sources([source_file(path, path.name)], path.stem,
                            queries=source_file(beside, beside.name) if beside.exists() else None)
    raise PathLensError(
        f"unknown corpus {spec!r}: not a bundled corpus ({', '.join(bundled_names())}) nor an existing path"
    )
