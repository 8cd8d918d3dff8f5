"""Tokenisation for the lexical retrievers and name normalisation for the entity graph."""

from __future__ import annotations

import re
import unicodedata

# A small English stop list: question words and function words that carry no topic.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves""".split()
)

_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lexical tokens: NFKC, lower case, runs of Unicode word characters, stop words dropped.

    No stemming, so "commitment" and "commitments" differ; this is the tokenizer of
    both `bm25` and `tfidf`, applied to passages and queries alike.
    """
    words = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
    return [w for w in words if w not in STOPWORDS]


def char_class(categories: frozenset[str]) -> str:
    """The body of a regex character class holding every BMP character of these Unicode
    categories, as ranges (`re` has no \\p{Lu})."""
    ranges: list[list[int]] = []
    for c in range(0x10000):
        if unicodedata.category(chr(c)) in categories:
            if ranges and ranges[-1][1] == c - 1:
                ranges[-1][1] = c
            else:
                ranges.append([c, c])
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


_POSSESSIVE = re.compile(r"(\w)['’]s\b")
# combining marks belong to their word: Devanagari's vowel signs are marks, and `\w` lacks them
_NON_WORD = re.compile(rf"[^\w{char_class(frozenset({'Mn', 'Mc', 'Me'}))}]+", re.UNICODE)
# Letters that carry their accent in the letter itself, so NFKD does not split them off.
_COMBINING = re.compile("[\u0300-\u036f]")
_UNSPLIT = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "þ": "th"})


def fold_accents(text: str) -> str:
    """Lower-case text with Latin, Greek and Cyrillic accents removed: "gröbner" -> "grobner".

    Only the Combining Diacritical Marks block (U+0300–U+036F) is dropped after NFKD, so
    the vowel signs of Indic and other scripts, which are letters of their own, stay."""
    if text.isascii():  # nothing to fold (most text, and the hot path of linking a corpus)
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNSPLIT))
    return unicodedata.normalize("NFC", _COMBINING.sub("", decomposed))


def normalize_name(text: str) -> str:
    """Entity key: NFKC, possessives dropped, lower case, accents folded, punctuation to spaces,
    spaces folded. The display form keeps the accents; the key lets "Wilfried Grobner" find
    "Wilfried Gröbner".

    "NorthRiver's" -> "northriver"; "L.P." -> "l p"; "Fee-Related  Earnings" -> "fee related earnings".
    """
    if not text.isascii():  # NFKC leaves ASCII as it is
        text = unicodedata.normalize("NFKC", text)
    text = _POSSESSIVE.sub(r"\1", text)
    text = _NON_WORD.sub(" ", fold_accents(text.lower())).replace("_", " ")
    return " ".join(text.split())


def name_tokens(text: str) -> list[str]:
    """Tokens of the normalised text, the unit of token-boundary matching."""
    return normalize_name(text).split()


def _written(text: str) -> tuple[list[str], list[str] | None]:
    """(`name_tokens(text)`, the same tokens as the text writes them, or None where a letter's case changes the
    tokens)."""
    folded = name_tokens(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    written = _NON_WORD.sub(" ", _POSSESSIVE.sub(r"\1", text)).replace("_", " ").split()
    return folded, written if len(written) == len(folded) else None


def written_tokens(text: str) -> list[str]:
    """`name_tokens(text)` as the text writes them ("NorthRiver", "board", "eBay"); folded where they do not line
    up."""
    folded, written = _written(text)
    return folded if written is None else written


def capitalised_tokens(text: str) -> list[bool]:
    """For each of `name_tokens(text)`, whether the text writes it with a capital ("Board", "BXP", "eBay"; not
    "board"). All True where they do not line up: none of them is then told from a name."""
    folded, written = _written(text)
    return [True] * len(folded) if written is None else [any(c.isupper() for c in t) for t in written]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[]?[A-Z0-9])|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences for the dense explanation: split after . ! ? before a capital or digit, and at
    line breaks. Abbreviations such as "L.P. Fund" may split too; the cost is a shorter sentence."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()] or [text.strip()]
