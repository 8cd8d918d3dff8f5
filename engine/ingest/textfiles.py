"""Reading a user's text files: size-limited, refused when binary or not UTF-8, and JSON read with errors that
name the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..errors import PathLensError
from .documents import SourceFile


MAX_FILE_BYTES = 50 * 1024 * 1024  # a corpus file larger than this is refused, not read



def source_file(path: Path, name: str) -> SourceFile:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise PathLensError(f"cannot read {path}: {e.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise PathLensError(f"{name} is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit")
    return SourceFile(name, path.read_bytes())



def decode_text(source: SourceFile) -> str:
    if b"\x00" in source.data[:8192]:
        raise PathLensError(f"{source.name} looks binary (it contains NUL bytes), not UTF-8 text")
    try:
        return source.data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PathLensError(f"{source.name} is not UTF-8 text (bad byte at offset {e.start})") from None



def read_text(path: Path) -> str:
    """A UTF-8 text file, refused with the reason when too large, binary or not UTF-8."""
    return decode_text(source_file(Path(path), str(path)))



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



def json_field(obj: dict, key: str, where: str) -> str:
    if key not in obj:
        raise PathLensError(f"{where}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, (str, int)):
        raise PathLensError(f"{where}: field {key!r} must be a string")
    return str(value)
