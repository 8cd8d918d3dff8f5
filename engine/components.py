"""The index's parts, named once: every component a build makes ("tokens", "graph:ner", …), what a person reads
for it, whether the on-disk cache keeps it and what it is made from; and the parts an index derives from them in
memory (`DERIVED`). The index, its memo, the what-if, the cache, the catalog, perf and the pages all read this table.

A part built per graph builder is keyed "kind:builder" (`key`, `parse`); a derived part's key may carry its
parameters after the colon ("about-graph:regex@0.5")."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

BUILDERS = ("regex", "ner")  # the entity extractors a graph is built from


def default_dir() -> Path:
    """Where the kept components live (engine.store.cache), and the readers' replies (engine.ingest.read_cache):
    PATHLENS_CACHE_DIR, else `.pathlens-cache/` in the checkout."""
    env = os.environ.get("PATHLENS_CACHE_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / ".pathlens-cache"


@dataclass(frozen=True)
class Component:
    key: str
    label: str  # what the build's progress calls it
    persisted: bool  # kept in the on-disk cache (engine.store.cache)
    slow: bool = False  # runs a model over every passage (encoding, NER): what a first question may wait on
    made_from: tuple[str, ...] = ()  # the kinds of part it is made from, of its own builder (BM25 from the tokens)


@dataclass(frozen=True)
class Derived:
    """A part an index makes from its components in seconds and keeps in memory only: never a build stage."""

    kind: str
    made_from: tuple[str, ...]  # the kinds of part it is made from


def key(kind: str, builder: str | None = None) -> str:
    return f"{kind}:{builder}" if builder else kind


def parse(component: str) -> tuple[str, str | None]:
    """("graph", "ner") for "graph:ner"; ("tokens", None) for "tokens"."""
    kind, _, builder = component.partition(":")
    return kind, builder or None


_EXTRACTOR = {"regex": "regex", "ner": "spaCy NER"}
COMPONENTS: dict[str, Component] = {c.key: c for c in (
    Component("tokens", "tokenising passages", True),
    Component("bm25", "BM25 statistics", False, made_from=("tokens",)),
    Component("tfidf", "TF-IDF vectors", False, made_from=("tokens",)),
    Component("embeddings", "dense embeddings (all-MiniLM-L6-v2)", True, slow=True),
    Component("ann", "approximate nearest-neighbour index (HNSW)", True, made_from=("embeddings",)),
    *(Component(key("extraction", b), f"entity extraction ({_EXTRACTOR[b]})", True, slow=b == "ner")
      for b in BUILDERS),
    *(Component(key("graph", b), f"entity graph ({_EXTRACTOR[b]})", True, made_from=("extraction",)) for b in BUILDERS),
    *(Component(key("aliases", b), f"alias table ({_EXTRACTOR[b]})", False, made_from=("graph",)) for b in BUILDERS),
    Component("structure", "filing structure (statements, notes, rows)", False),
)}
PERSISTED = tuple(k for k, c in COMPONENTS.items() if c.persisted)
DERIVED: dict[str, Derived] = {d.kind: d for d in (
    Derived("subjects", ("graph",)),  # a builder's about-edges: a passage whose title names the entity
    Derived("about-graph", ("graph", "subjects")),  # the graph stepping along them at a weight
    Derived("filing-graph", ("structure", "graph")),  # the regex graph with the filings' structure, at edge weights
    Derived("page-facts", ("structure",)),  # what each page is: the page ranker's features
    Derived("filing-labels", ("structure",)),  # each filing named as the pages name it
    Derived("passage-titles", ("filing-labels",)),  # each passage named as the pages name it
)}
MADE_FROM: dict[str, tuple[str, ...]] = {**{parse(k)[0]: c.made_from for k, c in COMPONENTS.items()},
                                         **{k: d.made_from for k, d in DERIVED.items()}}


def made_from_any(kinds) -> frozenset[str]:
    """Every kind of part made, directly or through another, from any of `kinds`: what must be made again when
    they change (a what-if's graph without an entity: its alias table, about-edges and filing graph)."""
    out: set[str] = set()
    grew = True
    while grew:
        grew = False
        for kind, inputs in MADE_FROM.items():
            if kind not in out and any(i in kinds or i in out for i in inputs):
                out.add(kind)
                grew = True
    return frozenset(out)


def check_part(part: str) -> None:
    """Refuse a key of no registered kind: a part the index keeps must be named here, or a what-if would not know
    what to make again."""
    if parse(part)[0] not in MADE_FROM:
        raise KeyError(f"{part!r} is no part of engine.components: register its kind and what it is made from")


def available(component: str, stored) -> bool:
    """Whether `component` can be had in seconds: `stored(component)` (built, or on disk) for a kept one, its
    inputs available for one that is not kept (the filings' structure is read off the passages)."""
    c = COMPONENTS[component]
    builder = parse(component)[1]
    return stored(component) if c.persisted else all(available(key(n, builder), stored) for n in c.made_from)


def label(component: str) -> str:
    return COMPONENTS[component].label if component in COMPONENTS else component


__all__ = ["BUILDERS", "COMPONENTS", "Component", "DERIVED", "Derived", "MADE_FROM", "PERSISTED", "available",
           "check_part", "key", "label", "made_from_any", "parse"]
