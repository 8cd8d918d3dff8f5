"""Per-passage results kept across corpora, so a grown data room computes only its new passages.

A passage's embedding and its NER mentions depend on its own text and on what computed them (model and
library versions), never on the other passages; they are stored under the SHA-256 of exactly that. Adding,
removing or replacing documents then runs the models over the passages no earlier build has seen, and
the corpus-wide components (the entity filter, the graphs, BM25) are rebuilt from the parts, which takes
seconds. Parts are independent of batching (tested), so a grown index is bit-identical to a cold one.

Why SQLite (the standard library's): a million passages are a million small parts; as files they would
be a million files, as one file rewritten per build the whole corpus each time. A transaction is atomic,
so a killed build leaves whole parts or none, and concurrent builds (two tabs, test workers) share it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..graph.entities import Mention

FILE_NAME = "parts.sqlite3"
CHUNK = 900  # keys per lookup: under SQLite's default limit of 999 bound parameters


def part_key(kind: str, text: str) -> bytes:
    """What a part is stored under: what computed it (`kind`, with its versions) and the exact text."""
    return hashlib.sha256(kind.encode() + b"\x00" + text.encode("utf-8")).digest()


@dataclass(frozen=True)
class Codec:
    """How one kind of part is written and read back (bit for bit)."""

    encode: Callable[[object], bytes]
    decode: Callable[[bytes], object]


def vectors(dim: int) -> Codec:
    """float32 vectors of `dim` numbers, as their raw bytes."""
    def decode(blob: bytes) -> np.ndarray:
        if len(blob) != dim * 4:
            raise ValueError(f"a stored vector of {len(blob)} bytes, not {dim * 4}")
        return np.frombuffer(blob, dtype=np.float32)

    return Codec(lambda v: np.ascontiguousarray(v, dtype=np.float32).tobytes(), decode)


# a passage's mentions as JSON (not pickle: nothing read back from the table can run code)
MENTIONS = Codec(lambda ms: json.dumps([[m.text, m.label] for m in ms], ensure_ascii=False).encode(),
                 lambda blob: [Mention(t, label) for t, label in json.loads(blob)])


class PartStore:
    """Parts by (kind, text) in `directory`/parts.sqlite3. A damaged database is set aside and started
    afresh (reported through `on_rejected`): parts only save work, so losing them costs time, not answers."""

    def __init__(self, directory: Path, on_rejected: Callable[[str], None] = lambda why: None):
        self.path = Path(directory) / FILE_NAME
        self._on_rejected = on_rejected
        self._lock = threading.Lock()  # one writer per process at a time; SQLite orders processes itself

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=120)
        db.execute("CREATE TABLE IF NOT EXISTS parts (kind TEXT NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL, "
                   "PRIMARY KEY (kind, key)) WITHOUT ROWID")
        return db

    def _run(self, work: Callable[[sqlite3.Connection], object], fallback):
        try:
            db = self._connect()
        except sqlite3.DatabaseError as e:
            return self._reject(e, fallback)
        try:
            with db:  # one transaction: all of a write or none of it
                return work(db)
        except sqlite3.DatabaseError as e:
            return self._reject(e, fallback)
        finally:
            db.close()

    def _reject(self, error: Exception, fallback):
        self._on_rejected(f"{self.path.name}: {error}; its parts will be computed again")
        try:
            self.path.replace(self.path.with_name(self.path.name + ".damaged"))
        except OSError:
            pass
        return fallback

    def _found(self, kind: str, keys: list[bytes], column: str) -> dict[bytes, bytes]:
        """key → `column` ("value", or "key" to ask only whether it is there) of the stored ones among `keys`."""
        if not self.path.exists():
            return {}

        def read(db: sqlite3.Connection) -> dict[bytes, bytes]:
            found: dict[bytes, bytes] = {}
            unique = list(dict.fromkeys(keys))
            for start in range(0, len(unique), CHUNK):
                chunk = unique[start:start + CHUNK]
                found.update(db.execute(f"SELECT key, {column} FROM parts WHERE kind = ? AND key IN "
                                        f"({','.join('?' * len(chunk))})", [kind, *chunk]))
            return found

        return self._run(read, {})

    def get(self, kind: str, texts: Sequence[str], codec: Codec) -> list:
        """Each text's stored part, or None where there is none (or it does not decode)."""
        keys = [part_key(kind, t) for t in texts]
        found = self._found(kind, keys, "value")
        out: list = []
        for k in keys:
            blob = found.get(k)
            try:
                out.append(None if blob is None else codec.decode(blob))
            except (ValueError, TypeError, KeyError):  # a part that will not decode is computed again
                out.append(None)
        return out

    def get_keys(self, kind: str, texts: Sequence[str]) -> list[bool]:
        """Whether each of `texts` has a stored part (what a build will not compute again), without reading it."""
        keys = [part_key(kind, t) for t in texts]
        found = self._found(kind, keys, "key")
        return [k in found for k in keys]

    def put(self, kind: str, texts: Sequence[str], blobs: Sequence[bytes]) -> None:
        """Store each text's part, already encoded by its codec."""
        rows = [(kind, part_key(kind, t), b) for t, b in zip(texts, blobs, strict=True)]
        with self._lock:
            self._run(lambda db: db.executemany("INSERT OR IGNORE INTO parts VALUES (?, ?, ?)", rows), None)

    def rows(self) -> list[tuple[str, bytes, bytes]]:
        """Every part, sorted: what two stores are compared by (their files differ in page layout)."""
        if not self.path.exists():
            return []
        return self._run(lambda db: db.execute("SELECT kind, key, value FROM parts ORDER BY kind, key").fetchall(), [])


Keep = Callable[[list[int], Sequence], None]  # (positions among the texts computed, their values)


def with_parts(store: PartStore | None, kind: str, texts: Sequence[str], codec: Codec,
               compute: Callable[[list[str], Keep], Sequence]) -> tuple[list, int]:
    """Every text's part: stored ones read back, the rest computed by `compute(missing texts, keep)` (each distinct
    text once) and stored. `compute` may call `keep(positions, values)` as blocks are done: those are stored at once,
    so a build stopped half-way resumes from them. Returns (parts in the order of `texts`, how many were computed)."""
    if store is None:
        return list(compute(list(texts), lambda rows, values: None)), len(texts)
    parts = store.get(kind, texts, codec)
    missing = list(dict.fromkeys(t for t, p in zip(texts, parts) if p is None))
    if missing:
        def keep(rows: list[int], values: Sequence) -> None:
            store.put(kind, [missing[i] for i in rows], [codec.encode(v) for v in values])

        blobs = [codec.encode(v) for v in compute(missing, keep)]
        store.put(kind, missing, blobs)  # INSERT OR IGNORE: what `keep` stored stays as it is
        # decoded from the stored bytes, so a computed part is the very value a later build reads
        by_text = dict(zip(missing, map(codec.decode, blobs)))
        parts = [by_text[t] if p is None else p for t, p in zip(texts, parts)]
    return parts, len(missing)


__all__ = ["Codec", "FILE_NAME", "MENTIONS", "PartStore", "part_key", "vectors", "with_parts"]
