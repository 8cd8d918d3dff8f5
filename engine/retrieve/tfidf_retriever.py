"""TF-IDF cosine, the closed-pool lexical baseline (scikit-learn's vectorizers over the engine's tokens)."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np
from scipy import sparse

from ..text import tokenize
from .retrievers import Answers, Hit, LexicalExplanation, TermContribution, check_k, check_query, hits_from_scores


def _given_tokens(tokens: Sequence[str]) -> Sequence[str]:
    """scikit-learn's analyzer for documents that are already token lists (module level: picklable)."""
    return tokens


class TfidfRetriever(Answers):
    """Cosine over L2-normalised TF-IDF vectors: raw term counts times the smoothed idf
    ln((1 + N) / (1 + df)) + 1, the closed-pool lexical baseline. scikit-learn's CountVectorizer and
    TfidfTransformer (its TfidfVectorizer in two steps, so the raw counts stay for the explanation)
    over the engine's own tokens; why the library, by measurement: docs/performance.md
    ("Decisions")."""

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
