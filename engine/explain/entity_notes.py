"""Why an entity is among the largest: words for the Corpus page beside each of them.

A filing's largest entities are often words a reader takes for generic ones ("Corporation", "Securities",
"United"). Each is there for a reason the graph can state: the filing defines the word as a name (`(the
"Corporation")`), or most of its passages are linked to a longer name holding it: substring adjacency links a passage
naming "United States" to "United", and a filing's identity links its every page to its company's whole name.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..graph.aliases import AliasTable
from ..graph.entity_graph import EntityGraph

# a share of an entity's passages linked to one longer name holding it, from which that name is what makes it large
INSIDE_SHARE = 0.5


@dataclass(frozen=True)
class EntityNote:
    entity: str  # display name
    passages: int
    note: str  # "" when the entity is large on its own


def note_of(graph: EntityGraph, aliases: AliasTable, entity: int) -> str:
    key, degree = graph.entities[entity], len(graph.passages_of(entity))
    position = graph.entity_index
    named = Counter(name for name, _ in aliases.definitions.get(key, ()))
    if named:
        first, *rest = [graph.display[position[n]] for n, _ in sorted(named.items(), key=lambda kv: (-kv[1], kv[0]))]
        more = f" or “{rest[0]}”" if len(rest) == 1 else f" and as {len(rest)} other names" if rest else ""
        return f"a term the documents define as “{first}”{more}"  # the reading most places give first
    inside = graph.inside(entity)
    if inside is not None and inside[1] >= INSIDE_SHARE * degree:
        return (f"{inside[1]:,} of its {degree:,} passages are linked to “{graph.display[inside[0]]}” too, "
                "a longer name that holds it")
    return ""


def largest_entities(graph: EntityGraph, aliases: AliasTable, top: int) -> tuple[EntityNote, ...]:
    """`graph.stats(top)`'s largest entities, each with why it is large when a reader may not see it."""
    return tuple(EntityNote(graph.display[j], int(graph.entity_degree[j]), note_of(graph, aliases, j))
                 for j in graph.largest(top))
