"""A zip's files, each checked before it is read: no path outside the zip's folder, no more files than a limit,
and no more bytes expanded than a limit (counted while reading, not trusted from the headers)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import PurePosixPath

from ..errors import PathLensError
from .documents import Problem, SourceFile

MAX_EXPANDED_BYTES = 50 * 1024 * 1024  # what a zip may expand to; past this it is refused as a bomb
MAX_ZIP_FILES = 10_000  # files read from one zip


def zip_members(data: bytes, name: str, limit: int = MAX_EXPANDED_BYTES) -> tuple[list[SourceFile], list[Problem]]:
    """The files of a zip, each checked: no path outside the zip's folder, and no more than `limit`
    bytes expanded in all (counted while reading, not trusted from the headers)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except Exception as e:  # noqa: BLE001 — a damaged zip raises BadZipFile, EOFError, ValueError, struct.error…
        raise PathLensError(f"{name} is not a readable zip file ({type(e).__name__})") from None
    if len(infos) > MAX_ZIP_FILES:
        raise PathLensError(f"{name} holds {len(infos):,} files, over the limit of {MAX_ZIP_FILES:,} files per zip; "
                            "split it")
    files, problems = [], []
    declared = sum(i.file_size for i in infos)
    if declared > limit:
        raise PathLensError(f"{name} would expand to {declared:,} bytes, over the {limit:,}-byte limit "
                            "(a zip bomb?); nothing in it was read")
    budget = limit
    with archive:
        for info in infos:
            member = info.filename
            if info.is_dir():
                continue
            parts = PurePosixPath(member.replace("\\", "/")).parts
            if member.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", member) or ".." in parts:
                problems.append(Problem(f"{name}:{member}", "its path leads outside the zip's folder; skipped"))
                continue
            if any(p.startswith(".") or p == "__MACOSX" for p in parts):
                continue  # hidden files and macOS resource forks are not documents
            try:
                with archive.open(info) as f:
                    blob = f.read(budget + 1)
            except Exception as e:  # noqa: BLE001 — one damaged member is named; the others are read
                problems.append(Problem(f"{name}:{member}", f"cannot be read from the zip ({type(e).__name__}: {e}); "
                                                            "skipped"))
                continue
            if len(blob) > budget:
                raise PathLensError(f"{name} expands past the {limit:,}-byte limit at {member} "
                                    "(its headers understate the sizes: a zip bomb?); nothing in it was used")
            budget -= len(blob)
            files.append(SourceFile("/".join(parts), blob))
    return files, problems
