"""How well the question reader scopes: the share of labelled questions scoped to exactly the filings expected,
by kind (`tests/data/question_reading.jsonl`: each line a question, its room, its kind, its half and the filings
it should scope to, "*" for every filing, [] for a question that must stop)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..errors import PathLensError
from ..filings.lexicon import Lexicon
from ..filings.names import Room
from ..filings.scope import read_scope


@dataclass(frozen=True)
class ScopingResult:
    right: Mapping[str, int]  # kind → questions scoped to exactly the expected filings
    asked: Mapping[str, int]  # kind → questions
    wrong: tuple[str, ...]  # ids of the others

    @property
    def share(self) -> float:
        return sum(self.right.values()) / max(1, sum(self.asked.values()))

    def share_of(self, kind: str) -> float:
        return self.right.get(kind, 0) / max(1, self.asked.get(kind, 0))


def read_set(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise PathLensError(f"{path} line {n}: not JSON ({e.msg})") from None
        for field in ("id", "room", "kind", "text", "expect", "half"):
            if field not in row:
                raise PathLensError(f"{path} line {n}: missing field {field!r}")
        rows.append(row)
    return rows


def scoping(rows: list[dict], rooms: Mapping[str, Room], lexicon: Lexicon, half: str = "") -> ScopingResult:
    """The reader against each row (of `half`, when given) over its room."""
    right, asked, wrong = Counter(), Counter(), []
    for q in rows:
        if half and q["half"] != half:
            continue
        room = rooms[q["room"]]
        scope = read_scope(q["text"], room, lexicon)
        got = set(scope.filings) if scope.filings else set() if scope.stop else set(room.filings)
        expected = set(room.filings) if q["expect"] == "*" else set(q["expect"])
        asked[q["kind"]] += 1
        right[q["kind"]] += got == expected
        if got != expected:
            wrong.append(q["id"])
    return ScopingResult(dict(right), dict(asked), tuple(wrong))


__all__ = ["ScopingResult", "read_set", "scoping"]
