"""The retriever protocol and the non-graph retrievers: BM25, TF-IDF, dense, RRF.

Every retriever is built once over a corpus. `search(query, k)` ranks: a tuple of `Hit`s, ties
broken by corpus order, so rankings are deterministic. `answer(question, k)` gives the one
`Answer` every caller reads (hits, notes, explanations), and `answer_batch` many at once.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping, Protocol, Sequence

import numpy as np
from rank_bm25 import BM25Okapi
from scipy import sparse

from ..errors import NoSeedError, PathLensError
from ..text import split_sentences, tokenize


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
        return "; ".join(f"“{t.term}” (×{t.tf} in the passage, idf {t.idf:.2f}) {t.contribution / self.score:.0%}"
                         for t in self.terms)


@dataclass(frozen=True)
class DenseExplanation:
    passage_id: str
    score: float
    sentences: tuple[SentenceMatch, ...]  # the passage's sentences most similar to the question, best first

    def words(self) -> str:
        return " | ".join(f"cosine {m.cosine:.2f}: “{m.sentence}”" for m in self.sentences)


@dataclass(frozen=True)
class RRFExplanation:
    passage_id: str
    score: float
    votes: tuple[RRFVote, ...]  # one per member, in member order

    def words(self) -> str:
        return "; ".join(f"{v.member} ranks it {v.rank}: {v.weight:g}/(k + {v.rank}) = {v.contribution:.4f}"
                         if v.rank else f"{v.member} does not rank it" for v in self.votes)


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


def check_query(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise PathLensError("the query is empty; type a question")
    if len(query) > MAX_QUERY_CHARS:
        raise PathLensError(f"the query is {len(query):,} characters long; the limit is {MAX_QUERY_CHARS:,}")
    return query.strip()


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


# ---------------------------------------------------------------- BM25


class BM25Retriever(Answers):
    """BM25 with rank-bm25's BM25Okapi statistics (k1=1.5, b=0.75, epsilon=0.25) over
    `text.tokenize` tokens, scored as a sparse product.

    BM25Okapi supplies the idf (with its epsilon floor) and document lengths; its per-term
    weight idf·f·(k1+1) / (f + k1·(1 − b + b·|d|/avgdl)) is laid out once as a passage × term
    matrix, so a query's scores are that matrix times the query's term counts (a repeated
    query word counts twice, as in rank-bm25), and many queries are one matrix product.
    Passages sharing no token with the query are not returned."""

    name = "bm25"

    def __init__(self, ids: Sequence[str], tokens: Sequence[Sequence[str]]):
        self.ids = list(ids)
        # rank-bm25 divides by the mean length; an all-empty corpus would divide by zero
        bm25 = BM25Okapi([list(t) or ["\x00"] for t in tokens])
        # one pass over the (term, count) pairs into flat arrays, then the weights as array arithmetic:
        # at a million passages, per-pair Python lists took ~5 GB and most of the build (docs/performance.md, "A million passages")
        vocab: dict[str, int] = {}
        indptr = np.zeros(len(bm25.doc_freqs) + 1, dtype=np.int64)
        np.cumsum([len(freqs) for freqs in bm25.doc_freqs], out=indptr[1:])
        cols, tf = np.empty(indptr[-1], dtype=np.int32), np.empty(indptr[-1], dtype=np.int64)
        for start, freqs in zip(indptr, bm25.doc_freqs):
            terms = sorted(freqs)  # columns numbered by first sight, in this order
            cols[start:start + len(terms)] = [vocab.setdefault(t, len(vocab)) for t in terms]
            tf[start:start + len(terms)] = [freqs[t] for t in terms]
        self.vocab = vocab
        shape = (len(self.ids), max(len(vocab), 1))
        # canonical layout (columns sorted in each row), so a row sums its terms in column order;
        # the weights and the pattern share its index arrays
        self._tf = sparse.csr_matrix((tf, cols, indptr), shape=shape)
        self._tf.sort_indices()
        tf, cols = self._tf.data.astype(np.float64), self._tf.indices
        idf = np.array([bm25.idf[t] for t in vocab], dtype=np.float64)
        norm = bm25.k1 * (1 - bm25.b + bm25.b * np.asarray(bm25.doc_len, dtype=np.float64) / bm25.avgdl)
        vals = idf[cols] * (tf * (bm25.k1 + 1) / (tf + np.repeat(norm, np.diff(indptr))))
        self.weights = sparse.csr_matrix((vals, cols, indptr), shape=shape)
        self._pattern = sparse.csr_matrix((np.ones_like(vals), cols, indptr), shape=shape)
        self._idf = {term: float(bm25.idf[term]) for term in self.vocab}
        self._pos = {pid: i for i, pid in enumerate(self.ids)}

    def _query_block(self, queries: Sequence[str]) -> np.ndarray:
        Q = np.zeros((self.weights.shape[1], len(queries)))
        for j, query in enumerate(queries):
            for term, count in Counter(tokenize(check_query(query))).items():
                if term in self.vocab:
                    Q[self.vocab[term], j] = count
        return Q

    def scores_batch(self, queries: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(scores, shares-a-term) as passage × query blocks; column j is identical whether
        query j is scored alone or with others (the same row-by-row sums)."""
        Q = self._query_block(queries)
        return np.asarray(self.weights @ Q), np.asarray(self._pattern @ Q) > 0

    def scores(self, query: str) -> np.ndarray:
        return self.scores_batch([query])[0][:, 0]

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        return self.answer_batch([query], k)[0].hits

    def answer_batch(self, questions: Sequence[str], k: int) -> tuple[Answer, ...]:
        """All questions as one passage × term product; each answer's hits equal `search`'s."""
        k = check_k(k)
        S, keep = self.scores_batch(questions)
        return tuple(Answer(self.name, q, hits_from_scores(self.name, self.ids, S[:, j], k, keep[:, j]))
                     for j, q in enumerate(questions))

    def explain_hits(self, query: str, passage_ids: Sequence[str]) -> dict[str, LexicalExplanation]:
        """Each matched term's part of each passage's score: its count in the question times its
        BM25 weight in the passage (idf · f·(k1+1) / (f + k1·(1 − b + b·|d|/avgdl))). The parts sum
        to the score, since the score is exactly that sum."""
        counts = Counter(t for t in tokenize(check_query(query)) if t in self.vocab)
        out = {}
        for pid in passage_ids:
            i = self._pos[pid]
            terms = [TermContribution(t, c, int(self._tf[i, self.vocab[t]]), self._idf[t],
                                      c * float(self.weights[i, self.vocab[t]]))
                     for t, c in counts.items() if self._tf[i, self.vocab[t]]]
            terms.sort(key=lambda x: (-x.contribution, x.term))
            out[pid] = LexicalExplanation(pid, float(sum(x.contribution for x in terms)), tuple(terms))
        return out


# ---------------------------------------------------------------- TF-IDF


def _given_tokens(tokens: Sequence[str]) -> Sequence[str]:
    """scikit-learn's analyzer for documents that are already token lists (module level: picklable)."""
    return tokens


class TfidfRetriever(Answers):
    """Cosine over L2-normalised TF-IDF vectors: raw term counts times the smoothed idf
    ln((1 + N) / (1 + df)) + 1, the closed-pool lexical baseline. scikit-learn's CountVectorizer and
    TfidfTransformer (its TfidfVectorizer in two steps, so the raw counts stay for the explanation)
    over the engine's own tokens; why the library, by measurement: docs/performance.md ("TF-IDF and the
    bootstrap")."""

    name = "tfidf"

    def __init__(self, ids: Sequence[str], tokens: Sequence[Sequence[str]]):
        from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

        self.ids = list(ids)
        self._counter = CountVectorizer(analyzer=_given_tokens)
        try:
            self._tf = self._counter.fit_transform(tokens).tocsr()
        except ValueError:  # no passage has a token: an empty vocabulary, so every query scores 0
            self._counter = None
            self._tf = sparse.csr_matrix((len(self.ids), 1))
        self._weigher = TfidfTransformer(norm="l2", smooth_idf=True, sublinear_tf=False).fit(self._tf)
        self.vocab: dict[str, int] = dict(self._counter.vocabulary_) if self._counter else {}
        self.idf = self._weigher.idf_
        self._terms = {j: t for t, j in self.vocab.items()}
        self._pos = {pid: i for i, pid in enumerate(self.ids)}
        self.matrix = self._weigher.transform(self._tf).tocsr()

    def query_vector(self, query: str) -> np.ndarray:
        tokens = tokenize(check_query(query))
        if self._counter is None:
            return np.zeros(self.matrix.shape[1])
        return self._weigher.transform(self._counter.transform([tokens])).toarray().ravel()

    def scores(self, query: str) -> np.ndarray:
        return np.asarray(self.matrix @ self.query_vector(query)).ravel()

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        k = check_k(k)
        s = self.scores(query)
        return hits_from_scores(self.name, self.ids, s, k, s > 0)

    def explain_hits(self, query: str, passage_ids: Sequence[str]) -> dict[str, LexicalExplanation]:
        """Each matched term's part of the cosine: the product of its entries in the unit
        query and passage vectors. The parts sum to the score (a dot product is that sum)."""
        q = self.query_vector(query)
        counts = Counter(tokenize(query))
        out = {}
        for pid in passage_ids:
            i = self._pos[pid]
            row = self.matrix.getrow(i)
            terms = [TermContribution(self._terms[j], counts[self._terms[j]], int(self._tf[i, j]), float(self.idf[j]),
                                      float(q[j] * v))
                     for j, v in zip(row.indices, row.data) if q[j]]
            terms.sort(key=lambda x: (-x.contribution, x.term))
            out[pid] = LexicalExplanation(pid, float(sum(x.contribution for x in terms)), tuple(terms))
        return out


# ---------------------------------------------------------------- dense


class DenseRetriever(Answers):
    """all-MiniLM-L6-v2 embeddings, L2-normalised, ranked by cosine (a dot product)."""

    name = "dense"

    def __init__(self, ids: Sequence[str], embeddings: np.ndarray, encode: Callable[[list[str]], np.ndarray],
                 texts: Sequence[str] = (), ann=None):
        if embeddings.shape[0] != len(ids):
            raise PathLensError("dense retriever: one embedding per passage is needed")
        self.ann = ann  # an HnswIndex over `embeddings` on large corpora (engine.store.ann), or None: exact
        self.ids = list(ids)
        self.embeddings = embeddings
        self.texts = tuple(texts)  # the encoded texts, for explanations
        self._encode = encode
        self._pos = {pid: i for i, pid in enumerate(self.ids)}

    def scores(self, query: str) -> np.ndarray:
        q = self._encode([check_query(query)])[0]
        return (self.embeddings @ q).astype(np.float64)

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        k = check_k(k)
        if self.ann is None:
            return hits_from_scores(self.name, self.ids, self.scores(query), k)
        pos, sims = self.ann.search(self._encode([check_query(query)])[0], k)
        ranked = sorted(zip(pos.tolist(), sims.tolist()), key=lambda ps: (-ps[1], ps[0]))
        return tuple(Hit(self.ids[i], float(s), r, self.name) for r, (i, s) in enumerate(ranked, start=1))

    def answer_batch(self, questions: Sequence[str], k: int) -> tuple[Answer, ...]:
        """Exact, always: evaluation reads this, and its numbers must not depend on an approximation.
        The questions are encoded together; one product per question, as `scores` does."""
        k = check_k(k)
        q = self._encode([check_query(x) for x in questions])
        return tuple(Answer(self.name, text, hits_from_scores(self.name, self.ids,
                                                             (self.embeddings @ row).astype(np.float64), k))
                     for text, row in zip(questions, q))

    def explain_hits(self, query: str, passage_ids: Sequence[str], top: int = 2) -> dict[str, DenseExplanation]:
        """The sentences of each passage most similar to the question, with their cosines. The
        passage's own score is the cosine of its whole text, which no sentence alone equals."""
        q = self._encode([check_query(query)])[0]
        split = {pid: split_sentences(self.texts[self._pos[pid]]) for pid in passage_ids}
        flat = [snt for pid in passage_ids for snt in split[pid]]
        vecs = self._encode(flat) if flat else np.zeros((0, q.shape[0]))
        cos = vecs @ q
        out, at = {}, 0
        scores = self.scores(query)
        for pid in passage_ids:
            n = len(split[pid])
            best = sorted(range(n), key=lambda j: (-cos[at + j], j))[:top]
            out[pid] = DenseExplanation(pid, float(scores[self._pos[pid]]),
                                        tuple(SentenceMatch(split[pid][j], float(cos[at + j])) for j in best))
            at += n
        return out


# ---------------------------------------------------------------- RRF


@dataclass(frozen=True)
class RRFConfig:
    members: tuple[str, ...] = ("bm25", "ppr-ner")
    weights: tuple[float, ...] = ()  # empty: every member weighs 1
    k: int = 60
    depth: int = 100  # how deep each member's ranking is read

    def __post_init__(self) -> None:
        if not self.members:
            raise PathLensError("RRF needs at least one member retriever")
        if "rrf" in self.members:
            raise PathLensError("RRF cannot fuse itself")
        if self.weights and len(self.weights) != len(self.members):
            raise PathLensError(
                f"RRF has {len(self.members)} members but {len(self.weights)} weights"
            )
        if any(w < 0 for w in self.weights):
            raise PathLensError("RRF weights must not be negative")
        if self.k < 0:
            raise PathLensError(f"RRF k must be at least 0, got {self.k}")
        if self.depth < 1:
            raise PathLensError(f"RRF depth must be at least 1, got {self.depth}")


class RRFRetriever(Answers):
    """Reciprocal Rank Fusion (Cormack et al., 2009): score(d) = Σ_r w_r / (k + rank_r(d)).

    A graph member that finds no query entity contributes nothing (`search_with_notes`
    says which and why); fused ties are broken by corpus order."""

    name = "rrf"

    def __init__(self, members: Sequence[Retriever], config: RRFConfig, order: Sequence[str]):
        self.members = list(members)
        self.config = config
        self.weights = config.weights or tuple(1.0 for _ in members)
        self._pos = {pid: i for i, pid in enumerate(order)}

    def fuse(self, rankings: Sequence[Sequence[Hit]], k: int) -> tuple[Hit, ...]:
        fused: dict[str, float] = {}
        for w, hits in zip(self.weights, rankings):
            for h in hits:
                fused[h.passage_id] = fused.get(h.passage_id, 0.0) + w / (self.config.k + h.rank)
        ordered = sorted(fused.items(), key=lambda kv: (-kv[1], self._pos[kv[0]]))[:k]
        return tuple(Hit(pid, s, r, self.name) for r, (pid, s) in enumerate(ordered, start=1))

    def search_with_notes(self, query: str, k: int) -> tuple[tuple[Hit, ...], tuple[str, ...]]:
        k, query = check_k(k), check_query(query)
        rankings, notes = [], []
        for m in self.members:
            try:
                rankings.append(m.search(query, max(self.config.depth, k)))
            except NoSeedError as e:
                rankings.append(())
                notes.append(f"{m.name}: {e}")
        return self.fuse(rankings, k), tuple(notes)

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        return self.search_with_notes(query, k)[0]

    def answer(self, question: str, k: int, explain: bool = True) -> Answer:
        hits, notes = self.search_with_notes(question, k)
        why = self.explain_hits(question, [h.passage_id for h in hits]) if explain and hits else {}
        return Answer(self.name, question, hits, notes, why=MappingProxyType(why))

    def explain_hits(self, query: str, passage_ids: Sequence[str]) -> dict[str, RRFExplanation]:
        """Each member's rank of each passage and its vote w / (k + rank); the votes sum to the
        fused score."""
        query = check_query(query)
        ranks = []
        for m in self.members:
            try:
                ranks.append({h.passage_id: h.rank for h in m.search(query, self.config.depth)})
            except NoSeedError:
                ranks.append({})
        out = {}
        for pid in passage_ids:
            votes = tuple(RRFVote(m.name, r.get(pid), w, w / (self.config.k + r[pid]) if pid in r else 0.0)
                          for m, w, r in zip(self.members, self.weights, ranks))
            out[pid] = RRFExplanation(pid, float(sum(v.contribution for v in votes)), votes)
        return out


