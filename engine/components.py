"""The index's components, named once: every key ("tokens", "graph:ner", …), what a person reads for it, and
whether the on-disk cache keeps it. The index, the cache, the catalog, perf and the pages all read this table.

A component built per graph builder is keyed "kind:builder" (`key`, `parse`)."""

from __future__ import annotations

from dataclasses import dataclass

BUILDERS = ("regex", "ner")  # the entity extractors a graph is built from


@dataclass(frozen=True)
class Component:
    key: str
    label: str  # what the build's progress calls it
    persisted: bool  # kept in the on-disk cache (engine.store.cache)
    slow: bool = False  # runs a model over every passage (encoding, NER): what a first question may wait on
    needs: tuple[str, ...] = ()  # what an unpersisted component is made from, in seconds (BM25 from the tokens)


def key(kind: str, builder: str | None = None) -> str:
    return f"{kind}:{builder}" if builder else kind


def parse(component: str) -> tuple[str, str | None]:
    """("graph", "ner") for "graph:ner"; ("tokens", None) for "tokens"."""
    kind, _, builder = component.partition(":")
    return kind, builder or None


_EXTRACTOR = {"regex": "regex", "ner": "spaCy NER"}
COMPONENTS: dict[str, Component] = {c.key: c for c in (
    Component("tokens", "tokenising passages", True),
    Component("bm25", "BM25 statistics", False, needs=("tokens",)),
    Component("tfidf", "TF-IDF vectors", False, needs=("tokens",)),
    Component("embeddings", "dense embeddings (all-MiniLM-L6-v2)", True, slow=True),
    Component("ann", "approximate nearest-neighbour index (HNSW)", True),
    *(Component(key("extraction", b), f"entity extraction ({_EXTRACTOR[b]})", True, slow=b == "ner")
      for b in BUILDERS),
    *(Component(key("graph", b), f"entity graph ({_EXTRACTOR[b]})", True) for b in BUILDERS),
    *(Component(key("aliases", b), f"alias table ({_EXTRACTOR[b]})", False, needs=(key("graph", b),)) for b in BUILDERS),
    Component("structure", "filing structure (statements, notes, rows)", False),
)}
PERSISTED = tuple(k for k, c in COMPONENTS.items() if c.persisted)


def available(component: str, stored) -> bool:
    """Whether `component` can be had in seconds: `stored(component)` (built, or on disk) for a kept one, its
    inputs available for one that is not kept (the filings' structure is read off the passages)."""
    c = COMPONENTS[component]
    return stored(component) if c.persisted else all(available(n, stored) for n in c.needs)


def label(component: str) -> str:
    return COMPONENTS[component].label if component in COMPONENTS else component


__all__ = ["BUILDERS", "COMPONENTS", "Component", "PERSISTED", "available", "key", "label", "parse"]
