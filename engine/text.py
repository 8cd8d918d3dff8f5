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


_POSSESSIVE = re.compile(r"(\w)['’]s\b")
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def normalize_name(text: str) -> str:
    """Entity key: NFKC, possessives dropped, lower case, punctuation to spaces, spaces folded.

    "NorthRiver's" -> "northriver"; "L.P." -> "l p"; "Fee-Related  Earnings" -> "fee related earnings".
    """
    text = unicodedata.normalize("NFKC", text)
    text = _POSSESSIVE.sub(r"\1", text)
    text = _NON_WORD.sub(" ", text.lower()).replace("_", " ")
    return " ".join(text.split())


def name_tokens(text: str) -> list[str]:
    """Tokens of the normalised text, the unit of token-boundary matching."""
    return normalize_name(text).split()
