"""BCT alias table: which graph entities name the same thing, by which rule, seen where.

Rules (each pair is stored both ways, so seeding either side adds the other):
- defined term: `NorthRiver Capital Partners IV, L.P. (the "Fund")` makes "Fund" an alias of
  the longest graph entity that ends right before the parenthesis;
- nested name: an entity whose tokens are a proper prefix of another's ("NorthRiver" ↔
  "NorthRiver Capital Partners IV");
- acronym: the initials of a multi-word entity, hyphenated parts counted, equal another
  entity ("FRE" ↔ "Fee-Related Earnings");
- corporate suffix: an entity without its trailing L.P./LLC/Inc./Ltd. is another entity.
Only entities in the graph can be aliases, since only graph nodes can be seeded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping, Sequence


from .entities import COMMON_CAPS, CONNECTORS, DEFINED_RE, entity_key
from .entity_graph import EntityGraph
from ..text import name_tokens

RULES = ("defined term", "nested name", "acronym", "corporate suffix")
_SKIP_IN_ACRONYM = frozenset(CONNECTORS) | {"the"}
# the legal forms an entity's key keeps (`entity_key` folds "Inc.", "L.P.", "LLC" and the like into the name)
_SUFFIXES = ("limited", "n a", "s a", "co")


@dataclass(frozen=True)
class Alias:
    entity: str  # key of the entity being seeded
    alias: str  # key of the entity added at weight β
    rule: str
    passage_id: str  # where the rule saw the pair


@dataclass(frozen=True, eq=False)
class AliasTable:
    rows: tuple[Alias, ...]
    # defined term key → every (name key, passage id) that defines it: a term several documents
    # define as different names is ambiguous outside its document
    definitions: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    # Both maps are built once per table and shared by every retriever made from it (a retriever
    # is made per page rerun; rebuilding them cost ~45 ms a time on MuSiQue's 33k alias rows).
    @cached_property
    def by_entity(self) -> dict[str, tuple[str, ...]]:
        """entity key → its aliases' keys, in table order."""
        out: dict[str, dict[str, None]] = {}
        for r in self.rows:
            out.setdefault(r.entity, {})[r.alias] = None
        return {k: tuple(v) for k, v in out.items()}

    @cached_property
    def rules(self) -> dict[tuple[str, str], str]:
        """(entity key, alias key) → the rule that paired them."""
        return {(a.entity, a.alias): a.rule for a in self.rows}


def _first_passage(graph: EntityGraph, j: int) -> str:
    col = graph.incidence[:, j].nonzero()[0]
    return graph.passage_ids[int(col.min())] if col.size else ""


def defined_names(text: str, entities: Mapping[str, int]) -> list[tuple[str, str]]:
    """(term key, name key) of each definition `text` makes between two of `entities` (keys): "NorthRiver Capital
    Partners IV, L.P. (the “Fund”)" defines "fund" as the longest entity ending right before the parenthesis."""
    out = []
    for m in DEFINED_RE.finditer(text):
        term = entity_key(m.group(1))
        if term not in entities:
            continue
        before = name_tokens(text[max(0, m.start() - 200):m.start()])
        for n in range(min(len(before), 10), 0, -1):
            name = entity_key(" ".join(before[-n:]))  # "Fund II, L.P. (the “Fund”)" names Fund II
            if name in entities and name != term:
                out.append((term, name))
                break
    return out


def build_alias_table(graph: EntityGraph, texts: Sequence[str]) -> AliasTable:
    index = graph.entity_index
    pairs: dict[tuple[str, str], Alias] = {}
    definitions: dict[str, dict[tuple[str, str], None]] = {}

    def add(a: str, b: str, rule: str, pid: str) -> None:
        if a != b:
            for x, y in ((a, b), (b, a)):
                pairs.setdefault((x, y), Alias(x, y, rule, pid))

    # defined terms, from the passage text where each is defined
    for pid, text in zip(graph.passage_ids, texts):
        for term, name in defined_names(text, index):
            add(name, term, "defined term", pid)
            definitions.setdefault(term, {})[(name, pid)] = None

    for j, key in enumerate(graph.entities):
        toks = key.split()
        pid = _first_passage(graph, j)
        # corporate suffixes first: the most specific rule names the pair
        for suffix in _SUFFIXES:
            if key.endswith(" " + suffix):
                stripped = key[: -len(suffix) - 1].strip()
                if stripped in index:
                    add(key, stripped, "corporate suffix", pid)
        # acronyms from the original surface, so hyphenated parts count
        parts = [w for w in re.split(r"[\s\-]+", graph.display[j]) if w and w.lower() not in _SKIP_IN_ACRONYM]
        if len(parts) >= 2:
            initials = "".join(w[0] for w in parts).lower()
            if initials in index:
                add(key, initials, "acronym", pid)
        # nested names: proper prefixes that are entities and not common words
        for n in range(1, len(toks)):
            prefix = " ".join(toks[:n])
            if prefix in index and not all(t in COMMON_CAPS for t in toks[:n]):
                add(key, prefix, "nested name", pid)
    rows = sorted(pairs.values(), key=lambda a: (a.entity, RULES.index(a.rule), a.alias))
    return AliasTable(tuple(rows), {t: tuple(d) for t, d in sorted(definitions.items())})
