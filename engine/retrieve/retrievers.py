"""The retriever protocol: what every retriever answers (`Hit`, `Answer`, the explanations) and the checks
and ranking helpers they share. Each retriever lives in a module of its own (`bm25_retriever`,
`tfidf_retriever`, `dense_retriever`, `rrf_retriever`, `graph_retriever`, `filing_retriever`).

Every retriever is built once over a corpus. `search(query, k)` ranks: a tuple of `Hit`s, ties
broken by corpus order, so rankings are deterministic. `answer(question, k)` gives the one
`Answer` every caller reads (hits, notes, explanations), and `answer_batch` many at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Protocol, Sequence

import numpy as np

from ..errors import PathLensError


@dataclass(frozen=True)
class Hit:
    passage_id: str
    score: float
    rank: int  # 1-based
    retriever: str


@dataclass(frozen=True)
class TermContribution:
    """One query term's part of a lexical score."""

    term: str
    query_count: int  # times the term occurs in the question
    tf: int  # times it occurs in the passage
    idf: float
    contribution: float  # its part of the score; a passage's contributions sum to its score


@dataclass(frozen=True)
class SentenceMatch:
    sentence: str
    cosine: float  # dense similarity of this sentence to the question


@dataclass(frozen=True)
class RRFVote:
    member: str
    rank: int | None  # the member's rank of the passage, None when it did not rank it within its depth
    weight: float
    contribution: float  # weight / (k + rank); a passage's votes sum to its fused score


@dataclass(frozen=True)
class LexicalExplanation:
    passage_id: str
    score: float
    terms: tuple[TermContribution, ...]  # largest contribution first

    def words(self) -> str:
        if not self.terms:
            return "no question word is in this passage"
        # in words first; the measures after, named, for who knows them
        return "; ".join(f"“{t.term}”: {t.tf}× in the passage, rarity {t.idf:.2f} (idf: the rarer the word in the corpus, the higher): "
                         f"{t.contribution / self.score:.0%} of the score" for t in self.terms)


@dataclass(frozen=True)
class DenseExplanation:
    passage_id: str
    score: float
    sentences: tuple[SentenceMatch, ...]  # the passage's sentences most similar to the question, best first

    def words(self) -> str:
        return " | ".join(f"reads like the question ({m.cosine:.2f} of 1, cosine: 1 would mean the same meaning): "
                          f"“{m.sentence}”" for m in self.sentences)


@dataclass(frozen=True)
class RRFExplanation:
    passage_id: str
    score: float
    votes: tuple[RRFVote, ...]  # one per member, in member order
    k: int  # RRF's constant, written as its value: a page's "k" is the number of hits

    def words(self) -> str:
        return "; ".join(f"{v.member} ranks it #{v.rank}, worth {v.contribution:.4f} ({v.weight:g}/({self.k} + {v.rank}): "
                         "the higher it ranks, the more)" if v.rank else f"{v.member} does not rank it" for v in self.votes)


class Explanation(Protocol):
    passage_id: str
    score: float

    def words(self) -> str: ...


@dataclass(frozen=True, eq=False)
class Answer:
    """One question's answer, in the same shape from every retriever: what the Query page, the
    `query` command, the report and evaluation read, so none of them asks which retriever it has."""

    retriever: str
    question: str
    hits: tuple[Hit, ...]
    notes: tuple[str, ...] = ()  # what the reader should know: no seed, a fused member that found nothing
    no_seed: bool = False  # the graph walk had nowhere to start; `hits` is empty and a note says why
    why: Mapping[str, Explanation] = field(default_factory=lambda: MappingProxyType({}))  # per hit, when explained
    walk: "GraphAnswer | None" = None  # graph retrievers, when explained: seeds, shares, paths, subgraph


class Retriever(Protocol):
    """Every retriever ranks (`search`), answers (`answer`, `answer_batch`), and says in its own
    terms why each of the given passages scored as it did (`explain_hits`; a retriever may leave a
    passage out: nothing to say)."""

    name: str

    def search(self, query: str, k: int) -> tuple[Hit, ...]: ...

    def answer(self, question: str, k: int, explain: bool = True) -> Answer: ...

    def answer_batch(self, questions: Sequence[str], k: int) -> tuple[Answer, ...]: ...

    def explain_hits(self, query: str, passage_ids: Sequence[str]) -> dict[str, Explanation]: ...


class Answers:
    """The answer forms a retriever gets for free: `answer` ranks with `search` and explains the
    hits with `explain_hits`; `answer_batch` (no explanations) is a plain loop. A retriever that
    can do better (a batched product, notes of its own) overrides either."""

    name: str

    def answer(self, question: str, k: int, explain: bool = True) -> Answer:
        hits = self.search(question, k)
        why = self.explain_hits(question, [h.passage_id for h in hits]) if explain and hits else {}
        return Answer(self.name, question, hits, why=MappingProxyType(why))

    def answer_batch(self, questions: Sequence[str], k: int) -> tuple[Answer, ...]:
        return tuple(self.answer(q, k, explain=False) for q in questions)


MAX_QUERY_CHARS = 2000


# a markup tag, or a script or style element whole (what a browser would not show as words)
_MARKUP = re.compile(r"<\s*(script|style)\b[^>]*>.*?<\s*/\s*\1\s*>|</?[A-Za-z!][^<>]*>", re.IGNORECASE | re.DOTALL)


def without_markup(query: str) -> str:
    """The question with its markup tags dropped ("<b>Solano</b> Foods" → "Solano Foods"; a script element
    goes whole): tags are not words anyone asks about."""
    return " ".join(_MARKUP.sub(" ", query).split())


def markup_note(query: str) -> str | None:
    """What to tell the reader when the question held markup, or None."""
    kept = without_markup(query)
    if kept == " ".join(query.split()):
        return None
    return f"Markup in the question was dropped; searched for “{kept}”." if kept else None


def check_query(query: str) -> str:
    """The question without markup, stripped; a question that cannot be searched is refused with a sentence
    saying why."""
    if not isinstance(query, str) or not query.strip():
        raise PathLensError("The question is empty: type a question.")
    if len(query) > MAX_QUERY_CHARS:
        raise PathLensError(f"This question is {len(query):,} characters long; questions can be up to "
                            f"{MAX_QUERY_CHARS:,} characters. Shorten it to search.")
    kept = without_markup(query) if "<" in query else query.strip()
    if not re.search(r"\w", kept):  # punctuation or markup only: no word to match
        raise PathLensError("Nothing in this question can be searched: it holds only punctuation or markup. "
                            "Type the words to search for.")
    return kept


def check_k(k: int) -> int:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise PathLensError(f"k must be a whole number of at least 1, got {k!r}")
    return int(k)


def top_k(scores: np.ndarray, k: int, keep: np.ndarray | None = None) -> np.ndarray:
    """Indices of the k highest scores, best first, ties by lower index.

    `keep` masks which indices may be returned (default: all). One partition of the whole vector
    finds the k-th best score, then a stable sort of the few at or above it, so it is O(n + k log k)
    (at a million passages ~5 ms; masking by gathering the kept indices first took twice that)."""
    n = scores.shape[0]
    masked = scores if keep is None else np.where(keep, scores, -np.inf)
    k = min(k, n)
    if k == 0:
        return np.zeros(0, dtype=np.intp)
    pool = np.arange(n)
    if n > 64 * k and n > 65_536:
        # The k-th best of every 64th score is a floor: at least k scores reach it. Only those
        # are partitioned (about 64·k of a million: ~1 ms instead of ~5).
        sample = masked[::64]
        floor = np.partition(sample, sample.size - k)[sample.size - k]
        pool = np.flatnonzero(masked >= floor)
    sub = masked[pool]
    # every index tied with the k-th score is a candidate, so the tie-break below is exact
    kth = np.partition(sub, sub.size - k)[sub.size - k] if k < sub.size else -np.inf
    cand = pool[sub >= kth]
    if keep is not None:
        cand = cand[keep[cand]]
    order = np.lexsort((cand, -scores[cand]))[:k]
    return cand[order]


def hits_from_scores(name: str, ids: Sequence[str], scores: np.ndarray, k: int,
                     keep: np.ndarray | None = None) -> tuple[Hit, ...]:
    best = top_k(scores, k, keep)
    return tuple(Hit(ids[i], float(scores[i]), r, name) for r, i in enumerate(best, start=1))
