"""Corpus model and loaders: folders of .txt/.md files, JSONL passages, bundled corpora."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

from .errors import PathLensError

CORPORA_DIR = Path(__file__).resolve().parent.parent / "corpora"
QUERY_KINDS = ("single-hop", "multi-hop")
MAX_FILE_BYTES = 50 * 1024 * 1024  # a corpus file larger than this is refused, not read


@dataclass(frozen=True)
class Passage:
    id: str
    doc_id: str
    title: str
    text: str
    metadata: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class LabeledQuery:
    id: str
    text: str
    gold: tuple[str, ...]
    kind: str = "multi-hop"


@dataclass(frozen=True)
class Corpus:
    name: str
    passages: tuple[Passage, ...]
    queries: tuple[LabeledQuery, ...] = ()
    # retriever parameters tuned on this corpus (a bundled manifest's "search"), by catalog name;
    # they replace the catalog's defaults, and anything a user sets replaces them
    defaults: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

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

    def qrels(self) -> dict[str, dict[str, int]]:
        return {q.id: {g: 1 for g in q.gold} for q in self.queries}


# ---------------------------------------------------------------- chunking


@dataclass(frozen=True)
class ChunkConfig:
    """Paragraph packing: chunks of whole paragraphs up to `max_chars`; a paragraph
    longer than that is cut into word-aligned windows. Each chunk after the first of a
    document starts with the last `overlap_chars` (word-aligned) of the one before."""

    max_chars: int = 1000
    overlap_chars: int = 100

    def __post_init__(self) -> None:
        if self.max_chars < 50:
            raise PathLensError(f"chunk size must be at least 50 characters, got {self.max_chars}")
        if not 0 <= self.overlap_chars < self.max_chars // 2:
            raise PathLensError(
                f"chunk overlap must be in [0, {self.max_chars // 2}), got {self.overlap_chars}"
            )


def _pack(items: list[str], size: int, sep: str) -> list[str]:
    """Greedily join consecutive items with `sep` into strings of at most `size` characters."""
    out, cur = [], ""
    for item in items:
        if cur and len(cur) + len(sep) + len(item) > size:
            out.append(cur)
            cur = item
        else:
            cur = f"{cur}{sep}{item}" if cur else item
    if cur:
        out.append(cur)
    return out


def _tail(text: str, n: int) -> str:
    if n == 0 or len(text) <= n:
        return "" if n == 0 else text
    cut = text[-n:]
    space = cut.find(" ")
    return cut[space + 1 :] if space >= 0 else cut


def chunk_text(text: str, config: ChunkConfig = ChunkConfig()) -> list[str]:
    paragraphs = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text)]
    pieces: list[str] = []
    body = config.max_chars - config.overlap_chars  # room left after the overlap prefix
    for p in paragraphs:
        if p:
            # a paragraph longer than a chunk is cut into word-aligned windows
            pieces.extend(_pack(p.split(), body, " ") if len(p) > body else [p])
    chunks = _pack(pieces, body, "\n\n")
    out = chunks[:1]
    for prev, nxt in zip(chunks, chunks[1:]):
        tail = _tail(prev, config.overlap_chars)
        out.append(f"{tail} {nxt}" if tail else nxt)
    return out


# ---------------------------------------------------------------- loaders


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise PathLensError(f"cannot read {path}: {e.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise PathLensError(f"{path} is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit")
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise PathLensError(f"{path} looks binary (it contains NUL bytes), not UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PathLensError(f"{path} is not UTF-8 text (bad byte at offset {e.start})") from None


def _title_of(text: str, fallback: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line.lstrip("#").strip()[:120] or fallback
    return fallback


def load_folder(folder: Path, name: str | None = None, config: ChunkConfig = ChunkConfig()) -> Corpus:
    """Every .txt/.md file under `folder`, in sorted path order; ids are `path#chunk`."""
    folder = Path(folder)
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".txt", ".md") and p.is_file())
    if not files:
        raise PathLensError(f"{folder} holds no .txt or .md files")
    passages = []
    for f in files:
        rel = f.relative_to(folder).as_posix()
        text = _read_text(f)
        title = _title_of(text, f.stem)
        for i, chunk in enumerate(chunk_text(text, config)):
            passages.append(Passage(id=f"{rel}#{i:04d}", doc_id=rel, title=title, text=chunk))
    if not passages:
        raise PathLensError(f"{folder}: every file is empty")
    return Corpus(name=name or folder.name, passages=tuple(passages), queries=_load_queries_beside(folder))


def _json_lines(path: Path) -> Iterable[tuple[int, dict]]:
    text = _read_text(path)
    if not text.strip():
        raise PathLensError(f"{path} is empty")
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise PathLensError(f"{path}, line {n}: not valid JSON ({e.msg})") from None
        if not isinstance(obj, dict):
            raise PathLensError(f"{path}, line {n}: expected a JSON object")
        yield n, obj


def _field(obj: dict, key: str, where: str) -> str:
    if key not in obj:
        raise PathLensError(f"{where}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, (str, int)):
        raise PathLensError(f"{where}: field {key!r} must be a string")
    return str(value)


def load_jsonl(path: Path, name: str | None = None) -> Corpus:
    """Passages as JSON Lines: `id`, `text` required; `doc_id`, `title`, `metadata` optional."""
    path = Path(path)
    passages = []
    for n, obj in _json_lines(path):
        where = f"{path}, line {n}"
        pid, text = _field(obj, "id", where), _field(obj, "text", where)
        meta = obj.get("metadata") or {}
        if not isinstance(meta, dict):
            raise PathLensError(f"{where}: field 'metadata' must be an object")
        passages.append(
            Passage(
                id=pid,
                doc_id=str(obj.get("doc_id", pid)),
                title=str(obj.get("title", "")),
                text=text,
                metadata=MappingProxyType({str(k): str(v) for k, v in meta.items()}),
            )
        )
    queries_path = path.with_name(path.stem + ".queries.jsonl")
    queries = load_queries(queries_path) if queries_path.exists() else ()
    return Corpus(name=name or path.stem, passages=tuple(passages), queries=queries)


def load_queries(path: Path) -> tuple[LabeledQuery, ...]:
    out = []
    for n, obj in _json_lines(Path(path)):
        where = f"{path}, line {n}"
        gold = obj.get("gold")
        if not isinstance(gold, list) or not gold:
            raise PathLensError(f"{where}: field 'gold' must be a non-empty list of passage ids")
        kind = str(obj.get("kind", "multi-hop"))
        if kind not in QUERY_KINDS:
            raise PathLensError(f"{where}: kind must be one of {', '.join(QUERY_KINDS)}, got {kind!r}")
        out.append(
            LabeledQuery(id=_field(obj, "id", where), text=_field(obj, "text", where),
                         gold=tuple(str(g) for g in gold), kind=kind)
        )
    return tuple(out)


def _load_queries_beside(folder: Path) -> tuple[LabeledQuery, ...]:
    path = folder / "queries.jsonl"
    return load_queries(path) if path.exists() else ()


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
        from .worldgen import generate_corpus  # the world generator grows the core

        return generate_corpus(name, manifest)
    chunking = ChunkConfig(**manifest.get("chunking", {}))
    corpus = load_folder(folder / "docs", name=name, config=chunking)
    return Corpus(name=name, passages=corpus.passages, queries=_load_queries_beside(folder),
                  defaults=manifest_defaults(name, manifest))


def manifest_defaults(name: str, manifest: dict) -> Mapping[str, float]:
    """A manifest's "search" section: parameter defaults tuned on that corpus, each checked
    against the catalog's range."""
    from .catalog import PARAMS

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


def load_corpus(spec: str | None = None) -> Corpus:
    """A bundled corpus by name, a folder of .txt/.md files, or a .jsonl of passages."""
    spec = spec or DEFAULT_CORPUS
    if spec in bundled_names():
        return load_bundled(spec)
    path = Path(spec)
    if path.is_dir():
        return load_folder(path)
    if path.is_file():
        if path.suffix.lower() == ".jsonl":
            return load_jsonl(path)
        if path.suffix.lower() in (".txt", ".md"):
            text = _read_text(path)
            chunks = chunk_text(text)
            if not chunks:
                raise PathLensError(f"{path} is empty")
            title = _title_of(text, path.stem)
            return Corpus(
                name=path.stem,
                passages=tuple(Passage(f"{path.name}#{i:04d}", path.name, title, c) for i, c in enumerate(chunks)),
            )
        raise PathLensError(f"{path}: expected a folder, a .jsonl, .txt or .md file")
    raise PathLensError(
        f"unknown corpus {spec!r}: not a bundled corpus ({', '.join(bundled_names())}) nor an existing path"
    )
