"""What a document's reader answered, kept on disk so the same file is read once: a room opened again (a new
session, a restarted server, another room holding the same filing) takes its pages from here in milliseconds
instead of a worker's seconds a file.

A reply is kept under a hash of the file's name and bytes, the reader, and the source of every module of
`engine.ingest` and the versions of the parsing libraries (`fingerprint`): a changed file, reader or parser never
reads a stale reply, and no number is bumped by hand. Only a reply that read the file is kept; a crash, a hang or a
memory cap is a fact about that run (a loaded machine stops a large file a quiet one reads), so it is tried again.
A file is written under a temporary name and renamed (atomic on POSIX); one that does not parse is ignored and
read afresh. Plain JSON, compressed: reading one back runs nothing named in it.

The replies live in `reads/` under the index cache's directory (`.pathlens-cache/`, or PATHLENS_CACHE_DIR).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zlib
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ..components import default_dir
from .documents import SourceFile

PARSERS = ("pypdfium2", "python-docx", "beautifulsoup4", "lxml")  # what turns a file's bytes into its pages


def directory() -> Path:
    return default_dir() / "reads"


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """A hash of the reading code: every module of this package, and the parsing libraries' versions."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    for name in PARSERS:
        try:
            h.update(f"{name}={version(name)}".encode())
        except PackageNotFoundError:
            h.update(f"{name}=none".encode())
    return h.hexdigest()


def key(source: SourceFile, reader: str) -> str:
    h = hashlib.sha256(f"{fingerprint()}\0{reader}\0{source.name}\0".encode())
    h.update(source.data)
    return h.hexdigest()[:40]


def get(k: str) -> dict | None:
    """The reply kept under `k`, or None (never kept, or a file that does not read back)."""
    try:
        return json.loads(zlib.decompress((directory() / f"{k}.json.z").read_bytes()))
    except (OSError, zlib.error, ValueError):
        return None


def put(k: str, reply: dict) -> None:
    """Keep a reply; a cache that cannot be written costs a read next time, never this one."""
    folder = directory()
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(zlib.compress(json.dumps(reply).encode(), 6))
        os.replace(tmp, folder / f"{k}.json.z")
    except OSError:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


__all__ = ["directory", "fingerprint", "get", "key", "put"]
