"""BM25 over the engine's tokens (rank-bm25's statistics, scored as one sparse product)."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np
from rank_bm25 import BM25Okapi
from scipy import sparse

from ..text import tokenize
from .retrievers import Answer, Answers, Hit, LexicalExplanation, TermContribution, check_k, check_query, hits_from_scores


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
        # at a million passages, per-pair Python lists took ~5 GB and most of the build (docs/performance.md, "Decisions")
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
