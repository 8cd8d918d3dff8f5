"""Why an entity is among the largest: words for the Corpus page beside each of them.

A filing's largest entities are often words a reader takes for generic ones ("Corporation", "Securities",
"United"). Each is there for a reason the graph can state: the filing defines the word as a name (`(the
"Corporation")`), or most of its passages are linked to a longer name holding it: substring adjacency links a passage
naming "United States" to "United" (or many such names: "General and Administrative", "General Counsel"), and a
filing's identity links its every page to its company's whole name.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..catalog import CATALOG
from ..graph.aliases import defined_names
from ..graph.entity_graph import EntityGraph
from ..ingest.passage import PageRef
from ..indexing.index import Index
from ..retrieve.graph_explain import GraphAnswer

# a share of an entity's passages linked to one longer name holding it, from which that name is what makes it large
INSIDE_SHARE = 0.5
# what a holding company's name adds to its business's ("PayPal Holdings, Inc."; the legal form is not in a key)
HOLDING_WORDS = frozenset({"holdings", "holding", "group"})
# a document this long is a filing or a report, not a note of a few chunks, each of which its title names anyway
WHOLE_MIN = 20


@dataclass(frozen=True)
class EntityNote:
    entity: str  # display name
    passages: int
    note: str  # "" when the entity is large on its own


def defined_as(graph: EntityGraph, texts: Sequence[str], entity: int) -> str:
    """What the documents define entity column `entity` as, in words, read from its own passages (`texts`: the
    graph's, one a passage); "" when none defines it. The reading most passages give comes first."""
    key, position = graph.entities[entity], graph.entity_index
    found = [(name, graph.passage_ids[i]) for i in graph.passages_of(entity)
             for term, name in defined_names(texts[i], position) if term == key]
    if not found:
        return ""
    named = Counter(name for name, _ in found)
    first, *rest = [graph.display[position[n]] for n, _ in sorted(named.items(), key=lambda kv: (-kv[1], kv[0]))]
    more = f" or “{rest[0]}”" if len(rest) == 1 else f" and as {len(rest)} other names" if rest else ""
    # a definition holds where it is made (an exhibit's "Participant" is its grantee): one document, or one page
    docs = sorted({pid.split("#", 1)[0] for _, pid in found})
    pages = sorted({at.page for _, pid in found if (at := PageRef.from_id(pid))})
    where = f" p.{pages[0]}" if len(docs) == 1 and len(pages) == 1 and len(found) == 1 else ""
    who = f"{docs[0]}{where} defines" if len(docs) == 1 else "the documents define"
    return f"a term {who} as “{first}”{more}"


def ordinary_passages(graph: EntityGraph, texts: Sequence[str], entity: int) -> int:
    """How many of a one-word entity's passages write it only in lower case: an ordinary word there ("participant"),
    linked by substring adjacency, which folds case."""
    key = graph.entities[entity]
    if " " in key or not key.isalpha():
        return 0
    word = re.compile(rf"(?<![\w-]){re.escape(key)}(?![\w-])", re.IGNORECASE)
    written = (word.findall(texts[i]) for i in graph.passages_of(entity))
    return sum(bool(forms) and all(f.islower() for f in forms) for forms in written)


def whole_documents(graph: EntityGraph, entity: int) -> list[tuple[str, int]]:
    """(document, passages) of each document of WHOLE_MIN passages or more whose every passage is linked to
    `entity`, largest first: a filing's company, which each page's title names (`entity_graph.link_names`)."""
    doc_of = [pid.split("#", 1)[0] for pid in graph.passage_ids]
    sizes = Counter(doc_of)
    linked = Counter(doc_of[i] for i in graph.passages_of(entity))
    return sorted(((d, n) for d, n in linked.items() if n == sizes[d] and n >= WHOLE_MIN), key=lambda dn: (-dn[1], dn[0]))


def note_of(graph: EntityGraph, texts: Sequence[str], entity: int) -> str:
    defined, degree = defined_as(graph, texts, entity), int(graph.entity_degree[entity])
    ordinary = ordinary_passages(graph, texts, entity)
    if ordinary >= INSIDE_SHARE * degree:
        word = f"in {ordinary:,} of its {degree:,} passages only the ordinary word “{graph.entities[entity]}”"
        return f"{defined}; {word}" if defined else word
    if defined:
        return defined
    whole = whole_documents(graph, entity)
    if whole and sum(n for _, n in whole) >= INSIDE_SHARE * degree:
        more = f" and of {len(whole) - 1} more document{'s' * (len(whole) > 2)}" if len(whole) > 1 else ""
        return f"linked to every one of the {whole[0][1]:,} passages of {whole[0][0]}{more}"
    held, longer = graph.held(entity)
    if longer and longer[0][1] >= INSIDE_SHARE * degree:
        j, shared = longer[0]
        rest = graph.entities[j].removeprefix(graph.entities[entity] + " ")
        if rest != graph.entities[j] and set(rest.split()) <= HOLDING_WORDS:  # "PayPal" of "PayPal Holdings, Inc."
            return (f"short for “{graph.display[j]}”, a party of its own; {shared:,} of its {degree:,} passages are "
                    "linked to it too")
        return f"{shared:,} of its {degree:,} passages are linked to the longer “{graph.display[j]}” too"
    if held >= INSIDE_SHARE * degree:
        more = f" and {len(longer) - 1} more" if len(longer) > 1 else ""
        return (f"{held:,} of its {degree:,} passages are linked to longer names holding it: "
                f"“{graph.display[longer[0][0]]}”{more}")
    return ""


def largest_entities(graph: EntityGraph, texts: Sequence[str], top: int) -> tuple[EntityNote, ...]:
    """`graph.stats(top)`'s largest entities, each with why it is large when a reader may not see it."""
    return tuple(EntityNote(graph.display[j], int(graph.entity_degree[j]), note_of(graph, texts, j))
                 for j in graph.largest(top))


def definitions_of(graph: EntityGraph, texts: Sequence[str], keys: Iterable[str]) -> dict[str, str]:
    """entity key → what the documents define it as (`defined_as`), for those of `keys` some document defines: what
    an evidence graph's hover says of a name such as “Partnership”."""
    position = graph.entity_index
    found = {k: defined_as(graph, texts, position[k]) for k in keys if k in position}
    return {k: words for k, words in found.items() if words}


def walk_definitions(index: Index, walk: GraphAnswer) -> dict[str, str]:
    """`definitions_of` the names a walk's evidence graph draws, on the graph of the builder its retriever reads."""
    builder = CATALOG[walk.retriever].builder if walk.retriever in CATALOG else None
    if builder is None:
        return {}
    keys = [n.id[2:] for n in walk.nodes if n.id.startswith("e:")]
    return definitions_of(index.graph(builder), index.graph_texts, keys)
