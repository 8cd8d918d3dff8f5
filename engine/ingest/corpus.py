"""Corpus model and loaders: folders, zips and files of documents, text and JSONL passages; bundled corpora."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from .documents import DOCUMENT_SUFFIXES, DroppedLine, Problem, SourceFile, document_passages, zip_members
from .isolated import READER, ReadLimits, read_many
from ..errors import PathLensError
from .passage import ChunkConfig, Passage, chunk_text
from .worldgen import generate_passages

CORPORA_DIR = Path(__file__).resolve().parents[2] / "corpora"  # beside engine/
MAX_FILE_BYTES = 50 * 1024 * 1024  # a corpus file larger than this is refused, not read


@dataclass(frozen=True)
class LabeledQuery:
    id: str
    text: str
    gold: tuple[str, ...]  # every gold passage id (all passages of a gold page included)
    kind: str = "multi-hop"  # any label; evaluation reports every metric per kind
    gold_pages: tuple[str, ...] = ()  # pages named as gold (`doc#pN`): any passage on one is a hit
    # fields beyond id/text/gold/kind (an answer, the evidence text): kept to be shown, never scored
    extra: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class IngestReport:
    """What loading left out: files or pages skipped (and why), running headers and footers dropped."""

    skipped: tuple[Problem, ...] = ()
    dropped: tuple[DroppedLine, ...] = ()


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
        return any(page_key(p) for p in self.passages)

    @cached_property
    def page_of(self) -> dict[str, str]:
        """passage id → `doc#pN` for the passages of paged documents; computed once."""
        return {p.id: key for p in self.passages if (key := page_key(p))}

    def qrels(self) -> dict[str, dict[str, int]]:
        return {q.id: {g: 1 for g in q.gold} for q in self.queries}


# ---------------------------------------------------------------- chunking


def read_text(path: Path) -> str:
    """A UTF-8 text file, refused with the reason when too large, binary or not UTF-8."""
    return _decode(_source(Path(path), str(path)))


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


def _source(path: Path, name: str) -> SourceFile:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise PathLensError(f"cannot read {path}: {e.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise PathLensError(f"{name} is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit")
    return SourceFile(name, path.read_bytes())


def _decode(source: SourceFile) -> str:
    if b"\x00" in source.data[:8192]:
        raise PathLensError(f"{source.name} looks binary (it contains NUL bytes), not UTF-8 text")
    try:
        return source.data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PathLensError(f"{source.name} is not UTF-8 text (bad byte at offset {e.start})") from None


def load_sources(sources: Iterable[SourceFile], name: str, config: ChunkConfig = ChunkConfig(),
                 queries: SourceFile | None = None, limits: ReadLimits | None = None, reader: str = READER) -> Corpus:
    """A corpus from files of any supported kind, in name order; zips are opened and their files read.

    .txt/.md files are chunked by paragraphs (ids `name#NNNN`), .jsonl files hold passages, and
    documents (PDF, DOCX, HTML) become page-cited passages (see `engine.ingest.documents`), each read in a
    worker process within `limits` (`engine.ingest.isolated`; `reader` is what the workers run). A file that
    cannot be read is skipped and named in `Corpus.report`; the corpus fails only if nothing is left.
    A `queries.jsonl` among the files (at the top of a zip or folder) supplies the labeled questions.
    """
    sources = list(sources)
    problems: list[Problem] = []
    dropped: list[DroppedLine] = []
    files: list[SourceFile] = []
    for src in sources:
        if src.name.lower().endswith(".zip"):
            try:
                members, bad = zip_members(src.data, src.name)
            except PathLensError as e:
                problems.append(Problem(src.name, str(e).removeprefix(f"{src.name} ")))
                continue
            except Exception as e:  # noqa: BLE001 — the zip reader's own failure: named, the other files build
                problems.append(Problem(src.name, f"could not be read: the ZIP reader failed ({type(e).__name__}: "
                                                  f"{e}); skipped"))
                continue
            problems.extend(bad)
            taken = {f.name for f in files} | {s.name for s in sources}
            # a member whose path another file already has is cited under its zip's name, so two zips that
            # both hold report.pdf build side by side instead of failing as duplicate passage ids
            files.extend(m if m.name not in taken else SourceFile(f"{src.name}/{m.name}", m.data) for m in members)
            if not members and not bad:
                problems.append(Problem(src.name, "holds no file to read (empty, or its directory is damaged); "
                                                  "nothing was taken from it"))
        else:
            files.append(src)
    lexicon = ""
    for f in files:
        if _is_queries_file(f.name) and "/" not in f.name.strip("/") and queries is None:
            queries = f
        if f.name.strip("/") == LEXICON_FILE:
            lexicon = _decode(f)
    passages: list[Passage] = []
    # documents are read in worker processes, in parallel, each within its time and memory limit
    documents = [f for f in files if PurePosixPath(f.name).suffix.lower() in DOCUMENT_SUFFIXES]
    read = dict(zip(map(id, documents), read_many(documents, limits or ReadLimits.from_env(), reader)))
    for f in sorted(files, key=lambda f: f.name):
        if _is_queries_file(f.name) or f.name.strip("/") == LEXICON_FILE:
            continue
        suffix = PurePosixPath(f.name).suffix.lower()
        try:
            if suffix in (".txt", ".md"):
                text = _decode(f)
                title = _title_of(text, PurePosixPath(f.name).stem)
                passages.extend(Passage(f"{f.name}#{i:04d}", f.name, title, c)
                                for i, c in enumerate(chunk_text(text, config)))
            elif suffix == ".jsonl":
                passages.extend(_jsonl_passages(_decode(f), f.name))
            elif suffix in DOCUMENT_SUFFIXES:
                outcome = read[id(f)]
                if isinstance(outcome, PathLensError):
                    raise outcome
                doc, bad = outcome
                problems.extend(bad)
                dropped.extend(doc.dropped)
                passages.extend(document_passages(doc))
            else:
                problems.append(Problem(f.name, f"not a file PathLens reads ({', '.join(CORPUS_SUFFIXES)}); skipped"))
        except PathLensError as e:
            problems.append(Problem(f.name, str(e).removeprefix(f"{f.name} ").removeprefix(f"{f.name}: ")))
        except Exception as e:  # noqa: BLE001 — a reader's own failure on a damaged file: named, the rest builds
            problems.append(Problem(f.name, f"could not be read: the {suffix.lstrip('.').upper() or 'file'} reader "
                                            f"failed ({type(e).__name__}: {e}); skipped"))
    if not passages:
        why = "; ".join(str(p) for p in problems) or "no text in any file"
        raise PathLensError(f"{name}: nothing to build from ({why})")
    seen: set[str] = set()
    for p in passages:
        if p.id in seen:
            raise PathLensError(f"corpus {name!r}: duplicate passage id {p.id!r}")
        seen.add(p.id)
    labeled = parse_queries(_decode(queries), queries.name, passages) if queries else ()
    return Corpus(name=name, passages=tuple(passages), queries=labeled,
                  report=IngestReport(tuple(problems), tuple(dropped)), lexicon=lexicon)


def load_folder(folder: Path, name: str | None = None, config: ChunkConfig = ChunkConfig()) -> Corpus:
    """Every readable file under `folder` (see CORPUS_SUFFIXES), in sorted path order."""
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
            sources.append(_source(p, rel))
        except PathLensError as e:
            problems.append(Problem(rel, str(e)))
    corpus = load_sources(sources, name or folder.name, config)
    if problems:
        corpus = dataclasses.replace(corpus, report=IngestReport(tuple(problems) + corpus.report.skipped,
                                                                 corpus.report.dropped))
    return corpus


def read_json_lines(text: str, where: str) -> Iterable[tuple[int, dict]]:
    """(line number, object) for each non-blank line; errors name `where` and the line."""
    if not text.strip():
        raise PathLensError(f"{where} is empty")
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield n, read_json_object(line, f"{where}, line {n}")


def read_json_object(text: str, where: str, what: str = "a JSON object") -> dict:
    """One JSON object; an error names `where` and what was expected."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise PathLensError(f"{where}: not valid JSON ({e.msg})") from None
    if not isinstance(obj, dict):
        raise PathLensError(f"{where}: expected {what}")
    return obj


def _json_lines(path: Path) -> Iterable[tuple[int, dict]]:
    return read_json_lines(read_text(path), str(path))


def _field(obj: dict, key: str, where: str) -> str:
    if key not in obj:
        raise PathLensError(f"{where}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, (str, int)):
        raise PathLensError(f"{where}: field {key!r} must be a string")
    return str(value)


def _jsonl_passages(text: str, where: str) -> list[Passage]:
    passages = []
    for n, obj in read_json_lines(text, where):
        at = f"{where}, line {n}"
        pid, body = _field(obj, "id", at), _field(obj, "text", at)
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


def page_key(p: Passage) -> str | None:
    """`doc#pN` for a passage of a paged document (a PDF), else None."""
    page = p.metadata.get("page")
    return f"{p.doc_id}#p{page}" if page else None


def page_number(p: Passage) -> int | None:
    page = p.metadata.get("page")
    return int(page) if page else None


def citation(p: Passage) -> str:
    """How a passage is cited: its document's title, and the page for a paged document."""
    page = page_number(p)
    where = p.title or p.doc_id
    return f"{where}, page {page} of {p.doc_id}" if page else where


def parse_queries(text: str, where: str, passages: Sequence[Passage]) -> tuple[LabeledQuery, ...]:
    """Labeled questions, one JSON object a line: `id`, `text`, `gold`, optional `kind` (any label).
    Other fields (an answer, the evidence text) are kept in `LabeledQuery.extra`.

    A gold entry is a passage id, or `{"doc": "APPLE_2022_10K.pdf", "page": 28}`: any passage on
    that page counts as a hit (evaluation scores such a question by pages; see engine.evaluate.evaluate).
    Bad gold is named by line and field.
    """
    ids = {p.id for p in passages}
    on_page: dict[str, list[str]] = {}
    pages_of: dict[str, int] = {}
    docs: dict[str, str] = {}
    for p in passages:
        docs.setdefault(p.doc_id, p.doc_id)
        docs.setdefault(PurePosixPath(p.doc_id).name, p.doc_id)
        key = page_key(p)
        if key:
            on_page.setdefault(key, []).append(p.id)
            pages_of[p.doc_id] = int(p.metadata.get("pages", p.metadata["page"]))
    out, seen = [], set()
    for n, obj in read_json_lines(text, where):
        at = f"{where}, line {n}"
        qid, qtext = _field(obj, "id", at), _field(obj, "text", at)
        if qid in seen:
            raise PathLensError(f"{at}: field 'id': {qid!r} is used by an earlier question")
        seen.add(qid)
        gold = obj.get("gold")
        if not isinstance(gold, list) or not gold:
            raise PathLensError(f"{at}: field 'gold' must be a non-empty list of passage ids or "
                                '{"doc": …, "page": …} objects')
        passage_gold: list[str] = []
        page_gold: list[str] = []
        for i, g in enumerate(gold):
            field_name = f"gold[{i}]"
            if isinstance(g, str):
                if g not in ids:
                    raise PathLensError(f"{at}: field '{field_name}': unknown passage id {g!r}")
                passage_gold.append(g)
                continue
            if not isinstance(g, dict) or set(g) != {"doc", "page"}:
                raise PathLensError(f"{at}: field '{field_name}' must be a passage id or an object with "
                                    "exactly 'doc' and 'page'")
            doc = docs.get(str(g["doc"]))
            if doc is None:
                raise PathLensError(f"{at}: field '{field_name}.doc': unknown document {g['doc']!r}")
            page = g["page"]
            if doc not in pages_of:
                raise PathLensError(f"{at}: field '{field_name}.page': {doc} has no pages (only PDFs do); "
                                    "name its passage ids instead")
            if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= pages_of[doc]:
                raise PathLensError(f"{at}: field '{field_name}.page': {page!r} is out of range; "
                                    f"{doc} has pages 1 to {pages_of[doc]}")
            key = f"{doc}#p{page}"
            if key not in on_page:
                raise PathLensError(f"{at}: field '{field_name}.page': page {page} of {doc} has no text, "
                                    "so no passage can be found there")
            page_gold.append(key)
        kind = obj.get("kind", "multi-hop")
        if not isinstance(kind, str) or not kind.strip() or len(kind) > 80:
            raise PathLensError(f"{at}: field 'kind' must be a short non-empty label, got {kind!r}")
        extra = {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                 for k, v in obj.items() if k not in ("id", "text", "gold", "kind")}
        expanded = list(dict.fromkeys(passage_gold + [pid for key in page_gold for pid in on_page[key]]))
        out.append(LabeledQuery(id=qid, text=qtext, gold=tuple(expanded), kind=kind.strip(),
                                gold_pages=tuple(dict.fromkeys(page_gold)), extra=MappingProxyType(extra)))
    return tuple(out)


def load_queries(path: Path, passages: Sequence[Passage]) -> tuple[LabeledQuery, ...]:
    path = Path(path)
    return parse_queries(read_text(path), str(path), passages)


def _load_queries_beside(folder: Path, passages: Sequence[Passage]) -> tuple[LabeledQuery, ...]:
    path = folder / "queries.jsonl"
    return load_queries(path, passages) if path.exists() else ()


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
    return Corpus(name=name, passages=corpus.passages, queries=_load_queries_beside(folder, corpus.passages),
                  defaults=manifest_defaults(name, manifest))


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


DEFAULT_CORPUS = "dataroom-core"


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
        return load_sources([_source(path, path.name)], path.stem,
                            queries=_source(beside, beside.name) if beside.exists() else None)
    raise PathLensError(
        f"unknown corpus {spec!r}: not a bundled corpus ({', '.join(bundled_names())}) nor an existing path"
    )
