"""Dense search: cosine over all-MiniLM-L6-v2 embeddings, exact or through the HNSW index."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..text import split_sentences
from ..errors import PathLensError
from .retrievers import Answer, Answers, DenseExplanation, Hit, SentenceMatch, check_k, check_query, hits_from_scores


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
