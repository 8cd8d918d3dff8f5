"""The docs are references: each opens with today's figures beside the commands that print them, decisions are
table rows, and history lives in git. So the docs stay short enough to read, and neither they nor the code's
comments carry a lab notebook's words."""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
from pathlib import Path

from tests.conftest import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
LIMITS = {"performance.md": 15_000}  # characters; every other doc DOC_LIMIT
DOC_LIMIT = 20_000
# In docs, the history words themselves: a reference says what is, and the command that shows it.
DOC_WORDS = re.compile(r"\b(before|rounds?|sessions?|throwaway)\b|\bissue #\d+", re.IGNORECASE)
# In comments and docstrings "before" and "session" also order steps and name a browser's session, so there only
# the history markers: a one-off script's name for itself, a work period, a dated change, an issue number.
COMMENT_WORDS = re.compile(r"\bthrowaway\b|\bround \d|\b(this|last|next|earlier|previous) round\b"
                           r"|\b(last|next|earlier|previous) session\b"
                           r"|\b(before|after|since|until) \d{4}-\d\d-\d\d|\bissue #\d+", re.IGNORECASE)


def _history(text: str, pattern: re.Pattern) -> list[str]:
    return [f"{n}: {m.group(0)!r} in {line.strip()[:100]}" for n, line in enumerate(text.splitlines(), 1)
            for m in pattern.finditer(line)]


def _comments(path: Path) -> str:
    """Every comment and docstring-like string of a Python file, each on its own lines (its line numbers kept)."""
    lines = [""] * (len(path.read_text("utf-8").splitlines()) + 1)
    with path.open(encoding="utf-8") as f:
        for tok in tokenize.generate_tokens(f.readline):
            if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING
                                                and tok.string.lstrip("rbuRBU").startswith(('"""', "'''"))):
                for i, line in enumerate(tok.string.splitlines()):
                    lines[tok.start[0] - 1 + i] += " " + line
    return "\n".join(lines)


def test_no_doc_is_too_long_to_read():
    sizes = {p.name: len(p.read_text("utf-8")) for p in DOCS}
    over = {name: n for name, n in sizes.items() if n > LIMITS.get(name, DOC_LIMIT)}
    assert over == {}, f"over their limits (characters): {over}; keep today's figures and move history to git"
    assert "performance.md" in sizes


def test_the_docs_carry_no_history_words():
    found = {p.name: hits for p in DOCS if (hits := _history(p.read_text("utf-8"), DOC_WORDS))}
    assert found == {}


def test_comments_and_docstrings_carry_no_history_markers():
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    files = [ROOT / name for name in tracked.stdout.split()] or sorted(ROOT.glob("**/*.py"))
    found = {str(p.relative_to(ROOT)): hits for p in files if p.exists()
             and (hits := _history(_comments(p), COMMENT_WORDS))}
    assert found == {}


def test_the_checks_catch_what_they_are_for(tmp_path):
    """The patterns against sentences of the kind they ban and of the kind they allow."""
    assert _history("Measured with a throwaway script; before this round it read 0.5.", DOC_WORDS)
    assert _history("Sessions of the app", DOC_WORDS) and _history("see issue #25", DOC_WORDS)
    assert not _history("The walk is bound by its work per edge, rounded to ms.", DOC_WORDS)
    code = tmp_path / "m.py"
    code.write_text('"""Kept since 2026-12-03 (issue #7)."""\nx = round(2.5)  # sorted before the walk\n'
                    '# the last session measured it\ny = "this round"\n', "utf-8")
    hits = _history(_comments(code), COMMENT_WORDS)
    assert [h.split(":")[0] for h in hits] == ["1", "1", "3"]  # the string literal and `round(` are code
