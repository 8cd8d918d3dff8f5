"""Reciprocal Rank Fusion of member retrievers' rankings, optionally weighted per member."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Sequence

from ..errors import NoSeedError, PathLensError
from .retrievers import Answer, Answers, Hit, RRFExplanation, RRFVote, Retriever, check_k, check_query


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

    def rankings(self, query: str, k: int) -> tuple[list[tuple[Hit, ...]], tuple[str, ...]]:
        """Each member's ranking of a question, read to the depth a fusion of k hits reads (max(depth, k)), and a
        note for each member that found nothing to start from. Fusing and explaining read these same rankings."""
        k, query = check_k(k), check_query(query)
        rankings, notes = [], []
        for m in self.members:
            try:
                rankings.append(m.search(query, max(self.config.depth, k)))
            except NoSeedError as e:
                rankings.append(())
                notes.append(f"RRF member gave nothing: {m.name}: {e}")
        return rankings, tuple(notes)

    def search_with_notes(self, query: str, k: int) -> tuple[tuple[Hit, ...], tuple[str, ...]]:
        rankings, notes = self.rankings(query, k)
        return self.fuse(rankings, k), notes

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        return self.search_with_notes(query, k)[0]

    def answer(self, question: str, k: int, explain: bool = True) -> Answer:
        rankings, notes = self.rankings(question, k)
        hits = self.fuse(rankings, k)
        why = self.votes(rankings, [h.passage_id for h in hits]) if explain and hits else {}
        return Answer(self.name, question, hits, notes, why=MappingProxyType(why))

    def explain_hits(self, query: str, passage_ids: Sequence[str]) -> dict[str, RRFExplanation]:
        """Each member's rank of each passage and its vote w / (k + rank), read as a fusion of that many hits reads
        them; the votes sum to the fused score."""
        return self.votes(self.rankings(query, max(len(passage_ids), 1))[0], passage_ids)

    def votes(self, rankings: Sequence[Sequence[Hit]], passage_ids: Sequence[str]) -> dict[str, RRFExplanation]:
        """The votes of the rankings that were fused, for each passage."""
        ranks = [{h.passage_id: h.rank for h in hits} for hits in rankings]
        out = {}
        for pid in passage_ids:
            votes = tuple(RRFVote(m.name, r.get(pid), w, w / (self.config.k + r[pid]) if pid in r else 0.0)
                          for m, w, r in zip(self.members, self.weights, ranks))
            out[pid] = RRFExplanation(pid, float(sum(v.contribution for v in votes)), votes, self.config.k)
        return out
