"""A second hop that the first walk finds, without a model.

A multi-hop question names the first link of a chain ("the fund whose portfolio includes Solano Foods"); the
passage that answers it names the second ("Juniper Peak Growth Fund II"), which the question never does. So after
the first walk, the entities of its top HOP_PASSAGES passages that the question does not seed are candidate
bridges. The HOP_BRIDGES that the first walk reached most strongly seed a second walk, each weighted by the mass
the first walk put on it; the second walk gets share γ of the restart mass and the first walk's seeds keep 1 − γ.

PPR is linear in its seeds, so the walk from that mixed vector is (1 − γ)·walk₁ + γ·walk₂, one walk, and every
bridge is a seed like the question's own: each hit's per-seed shares still sum to its score exactly. A bridge
seed says which passage of the first walk named it (`Seed.via`), so the explanation shows both hops.

HOP_PASSAGES and HOP_BRIDGES, and γ = 0.6 where it is turned on, were chosen on MuSiQue's open corpus and the
data room. Weighting bridges by specificity too (1 / passages) did worse.
With about-edges (`subject_weight` 2, engine.graph.entity_graph) a bridge's walk goes on to the passage about it.

Where it is on by default (`shape_defaults`): the hop lifts a corpus of passages each about one thing (MuSiQue's,
HotpotQA's: encyclopedia paragraphs under their own titles) and lowers one of long documents cut into chunks (the
data room's hybrid-ner), where a chunk's names are its document's and a bridge leads back into it. So a corpus
whose passages mostly carry a title no other passage has (`ABOUT_THINGS`) gets the hop and about-edges; any other
keeps one walk. Measured: MuSiQue 0.78 of passages, HotpotQA 1.00, the data room 0.10, its core 0.03; a filing's
pages share its title, so 0.

A question that compares two names it already names ("Which fund closed on more, A or B?", "Are A and B both …?")
needs no bridge: the passages about A and B answer it, and the second walk from their other names only crowds them
out. `comparison` recognises the English forms of such questions (alternative questions, polar questions over two
names, what two names share) from the question's words alone, and the retriever leaves the hop off for them. The
forms were written from the grammar of comparison questions and checked on questions written for the purpose over
MuSiQue's corpus and the data room (tests/data/*.comparisons.queries.jsonl); they match none of MuSiQue's 292
questions or the data room's 40 (docs/multi-hop.md).
"""

from __future__ import annotations

import re
from dataclasses import replace
from collections import Counter
from typing import Callable, Sequence

import numpy as np

from ..graph.entity_graph import EntityGraph
from .retrievers import top_k
from .seeding import Seed

HOP_PASSAGES = 5  # the first walk's top passages whose entities are candidate bridges
HOP_BRIDGES = 10  # bridges kept, by the first walk's mass on them
RULE = "second hop"
HOP_SHARE, ABOUT_WEIGHT = 0.6, 2.0  # γ and t where the hop is on (docs/multi-hop.md)
ABOUT_THINGS = 0.5  # the share of passages with a title of their own past which a corpus gets the hop


def own_titles(titles: Sequence[str]) -> float:
    """The share of passages whose title no other passage carries (0 for none)."""
    count = Counter(titles)
    return sum(1 for t in titles if t and count[t] == 1) / len(titles) if titles else 0.0


def shape_defaults(titles: Sequence[str]) -> dict[str, float]:
    """The second hop's defaults for a corpus with these passage titles: on (γ, t) for passages about one thing
    each, {} (the catalog's one walk) otherwise."""
    return {"hop_share": HOP_SHARE, "subject_weight": ABOUT_WEIGHT} if own_titles(titles) >= ABOUT_THINGS else {}

# A name starts with a capital or a digit and runs to at most 8 words; the words between a polar question's opening
# and its names are at most 12. Bounded, so a long hostile question costs linear time, not a backtracking blow-up.
_NAME = r"(?:the\s+)?[A-Z0-9][^\s?]*(?:\s+[^\s?]+){0,7}?"
_AUX = r"^\s*(?:Is|Are|Was|Were|Do|Does|Did|Has|Have|Had|Can|Could|Will|Would)\s+"  # a polar question's opening
_GAP = r"(?:[^\s?]+\s+){0,12}?"
_WHICH, _POLAR, _SHARE = "asks which of two names", "asks yes or no of two names", "asks what two names share"
_COMPARISONS = tuple((kind, re.compile(form)) for kind, form in (
    (_WHICH, rf"[,:]\s*{_NAME}\s+(?:or|vs\.?|versus)\s+{_NAME}\s*\?\s*$"),  # "Which is older, A or B?"
    (_WHICH, rf"^\s*{_NAME}\s+(?:or|vs\.?|versus)\s+{_NAME}\s*[:,]\s*(?:[Ww]hich|[Ww]ho|[Ww]hat)\b"),  # "A or B: which …?"
    (_WHICH, rf"^\s*{_NAME}\s+and\s+{_NAME}\s*:\s*(?:[Ww]hich|[Ww]ho|[Ww]hat)\b"),  # "A and B: who …?"
    (_WHICH, rf"{_AUX}{_NAME}\s+or\s+[A-Z0-9]"),  # "Did A or B grow faster?"
    (_WHICH, rf"\b[Ww]hich\s+(?:one\s+)?of\s+{_NAME}\s+(?:and|or)\s+[A-Z0-9]"),  # "Which of A and B …?"
    (_WHICH, rf"\b[Bb]etween\s+{_NAME}\s+and\s+[A-Z0-9]"),  # "Between A and B, who …?"
    (_POLAR, rf"{_AUX}{_GAP}and\s+{_NAME}\s+both\b|{_AUX}both\s+{_NAME}\s+and\s+[A-Z0-9]"),  # "Are A and B both …?"
    (_POLAR, rf"{_AUX}{_GAP}and\s+{_NAME}\s+(?:\w+\s+)?(?:the\s+)?same\b"),  # "Were A and B of the same nationality?"
    (_POLAR, rf"{_AUX}{_GAP}the\s+same\s+\w+\s+as\s+(?:the\s+)?[A-Z0-9]"),  # "Is A in the same country as B?"
    (_POLAR, rf"{_AUX}{_GAP}(?:\w+er|more|less|fewer)\s+than\s+(?:the\s+)?[A-Z0-9]"),  # "Is A older than B?"
    (_SHARE, rf"\b{_NAME}\s+and\s+{_NAME}\s+(?:share|have\s+in\s+common)\b"),  # "What do A and B share?"
    (_SHARE, rf"\bboth\s+{_NAME}\s+and\s+[A-Z0-9]"),  # "What nationality were both A and B?"
))


def comparison(question: str) -> str:
    """How `question` compares two names it names ("asks which of two names" for "Which fund closed first,
    NorthRiver Capital Partners IV or Juniper Peak Growth Fund II?"), or "" when it does not: a second hop is left
    off for such a question."""
    return next((kind for kind, form in _COMPARISONS if form.search(question)), "")


def bridges(graph: EntityGraph, rows: np.ndarray, scores: np.ndarray,
            entity_mass: Callable[[np.ndarray], np.ndarray], seeded: set[str]) -> tuple[Seed, ...]:
    """The second walk's seeds, weights summing to 1 (none when the top passages name nothing new).

    `rows`, `scores`: the passages the first walk scored (ascending) and their scores; `entity_mass(columns)`: its
    mass on those entity columns; `seeded`: the entity keys the question already seeds. Only the walk's top
    passages and their entities are read, so a walk over a million passages costs little here."""
    top = rows[top_k(scores, HOP_PASSAGES)]
    named_by: dict[int, int] = {}  # entity column → the first of the top passages (by rank) that names it
    incidence = graph.incidence
    for rank, row in enumerate(top.tolist()):
        for col in incidence.indices[incidence.indptr[row]:incidence.indptr[row + 1]].tolist():
            if graph.entities[col] not in seeded:
                named_by.setdefault(col, rank)
    if not named_by:
        return ()
    cols = np.array(sorted(named_by))
    mass = entity_mass(cols)
    order = np.argsort(-mass, kind="stable")[:HOP_BRIDGES]
    keep, weights = cols[order], mass[order]
    if not weights.sum() > 0:
        return ()
    weights = weights / weights.sum()
    return tuple(Seed(graph.entities[col], graph.display[col], w, "bridge", graph.passage_ids[int(top[named_by[col]])],
                      RULE, int(graph.entity_degree[col]), named_at=named_by[col] + 1)
                 for col, w in zip(keep.tolist(), weights.tolist()))


def scaled(seeds: tuple[Seed, ...], share: float) -> tuple[Seed, ...]:
    return tuple(replace(s, weight=s.weight * share) for s in seeds)


__all__ = ["HOP_BRIDGES", "HOP_PASSAGES", "RULE", "bridges", "comparison", "scaled"]
