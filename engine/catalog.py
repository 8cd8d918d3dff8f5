"""The retriever catalog: every retriever the engine offers, in one table.

Each entry says what a retriever is (family, graph builder, whether it reads aliases or
embeddings), which parameters it reads, the index components it needs, and optionally how
to make it; `engine.indexing.factory.Retrievers` makes one from its entry. The command line's choices and help, the pages' selectors and
tooltips, the sweep's pre-build and perf all read this table; adding a retriever is one
entry plus its class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .components import key
from .errors import PathLensError


@dataclass(frozen=True)
class ParamSpec:
    """A user-settable parameter. Its name is its one name: the config key, the URL key and, with dashes,
    the CLI flag (`passage_weight` → `--passage-weight`); all three are made from this entry."""

    name: str
    label: str
    default: float | int | None
    low: float | int | None
    high: float | int | None
    help: str
    step: float | int | None = None  # a widget's step; None: 1 for a count, 0.05 for a share

    @property
    def increment(self) -> float | int:
        """The step a widget moves this parameter by."""
        return self.step if self.step is not None else 1 if isinstance(self.default, int) else 0.05

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


PARAMS: dict[str, ParamSpec] = {p.name: p for p in (
    ParamSpec("alpha", "α (restart probability)", 0.15, 0.01, 0.99,
              "Personalized PageRank's restart probability: each step the walk jumps back to a seed with "
              "this probability. Larger keeps scores near the seeds; smaller lets them travel further.", 0.01),
    ParamSpec("iterations", "Iteration cap", 20, 1, 1000, "How many PageRank steps are run at most."),
    ParamSpec("beta", "β (alias weight)", 0.5, 0.0, 2.0,
              "Coreference-aware alias seeding (BCT): each seed's aliases are added at β × its weight."),
    ParamSpec("passage_weight", "w (dense passage-seed share)", 0.75, 0.0, 1.0,
              "Hybrid: the share of the restart mass put on the passages most similar to the question "
              "(the rest goes to the question's entities)."),
    ParamSpec("tau", "τ (passage-seed temperature)", 0.05, 0.005, 1.0,
              "Hybrid: how sharply passage seeds favour the most similar passage (softmax temperature "
              "over cosines).", 0.005),
    ParamSpec("filing_passage_weight", "w (filings: passage-seed share)", 0.7, 0.0, 1.0,
              "Filings retriever: the share of the restart mass put on the scoped filings' passages most like the "
              "question (the rest goes to its structure and entity seeds). Chosen on the tuning half of the filings "
              "dev set (docs/filings.md)."),
    ParamSpec("filing_lexical_share", "λ (filings: lexical share of passage seeds)", 0.5, 0.0, 1.0,
              "Filings retriever: the share of its passage seeds taken from BM25 over the question's words and the "
              "words filings print for the lexicon's terms it uses (\"legal battles\" → legal proceedings, "
              "contingencies). Chosen on the tuning half of the filings dev set (docs/filings.md)."),
    ParamSpec("passage_seeds", "Passage seeds", 20, 1, 200, "Hybrid: how many of the most similar passages are seeded."),
    ParamSpec("hop_share", "γ (second-hop share)", 0.0, 0.0, 0.95,
              "Hybrid: the share of the restart mass given to a second walk. Its seeds are the entities that the "
              "first walk's top passages name and the question does not (the next link of a chain), each weighted "
              "by how often the first walk passed through it; left off for a question comparing two names it names (\"A or B?\"). 0: one "
              "walk. It starts at 0.6 in a corpus of passages each about one thing (most with a title of their own, "
              "like encyclopedia articles), where it finds more of a chain's passages, and at 0 in long documents cut "
              "into chunks, where it was measured to push good passages out."),
    ParamSpec("subject_weight", "t (about-edge weight)", 1.0, 0.1, 10.0,
              "Entity graphs: how strongly the walk steps between a name and the passage about it (one whose own "
              "title names it, like an encyclopedia article), against a mere mention's 1. 1: every edge alike. It "
              "starts at 2 where the second hop is on; a long document's chunks share its title, so they are not "
              "marked.", 0.5),
    ParamSpec("lexical_share", "λ (lexical share of passage seeds)", 0.0, 0.0, 1.0,
              "Hybrid: the share of the passage seeds taken from BM25's best passages instead of dense "
              "similarity's, for corpora whose passages look alike to the dense encoder."),
    ParamSpec("rrf_k", "RRF k", 60, 0, 1000, "Reciprocal Rank Fusion's constant: score = Σ weight / (k + rank)."),
    *(ParamSpec(f"edge_{name}", f"{label} edge weight", 1.0, 0.0, 10.0,
                f"Filings: how strongly the walk steps from a passage to {what}, against the other edge types.", 0.25)
      for name, label, what in (("filing", "Filing", "its filing and company"),
                                ("section", "Section", "the statement, Item and note it stands in"),
                                ("line_item", "Line-item", "the rows of its tables (“Total net sales”)"),
                                ("xref", "Cross-reference", "the note or Item it refers to (“see Note 12”)"),
                                ("entity", "Entity", "the names the regex extractor found in it"))),
)}
EDGE_PARAMS = tuple(p for p in PARAMS if p.startswith("edge_"))


@dataclass(frozen=True)
class RetrieverSpec:
    name: str
    family: str  # "lexical", "dense", "graph", "hybrid", "fusion"
    description: str
    builder: str | None = None  # graph builder ("regex", "ner") for graph and hybrid retrievers
    aliases: bool = False  # reads the BCT alias table
    embeddings: bool = False  # reads passage embeddings
    params: tuple[str, ...] = ()  # names in PARAMS it reads
    components: tuple[str, ...] = ()  # index components it reads beyond embeddings and graphs ("tokens", "bm25")
    # what answers while this one's slow stages (encoding, NER) are built: the best retriever needing neither,
    # by the tables of docs/benchmarks.md and docs/filings.md; None when it needs none itself
    stand_in: str | None = None
    # make(retrievers, config) -> the retriever, made by an engine.indexing.factory.Retrievers (whose `index` holds
    # the components); every entry has its own
    make: Callable[[Any, Any], Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.make is None:
            raise ValueError(f"catalog entry {self.name!r} has no maker")

    def stages(self) -> list[str]:
        """The index components this retriever needs, in build order."""
        out = list(self.components)
        if self.embeddings:
            out.append("embeddings")
        if self.builder:
            out += [key("extraction", self.builder), key("graph", self.builder)]
        if self.aliases:
            out.append(key("aliases", self.builder))
        return out


_GRAPH_PARAMS = ("alpha", "iterations")
_ENTITY_GRAPH_PARAMS = _GRAPH_PARAMS + ("subject_weight",)


def _graph_maker(name: str) -> Callable[[Any, Any], Any]:
    return lambda make, config: make.graph(name, config)


def _graph_specs() -> list[RetrieverSpec]:
    out = []
    for builder, how in (("regex", "a regex name extractor"), ("ner", "spaCy named-entity recognition")):
        out += [
            RetrieverSpec(f"ppr-{builder}", "graph",
                          f"Personalized PageRank over the entity graph built by {how}, seeded on the question's "
                          "entities.", builder, params=_ENTITY_GRAPH_PARAMS, make=_graph_maker(f"ppr-{builder}"),
                          stand_in="ppr-regex" if builder == "ner" else None),
            RetrieverSpec(f"bct-{builder}", "graph",
                          f"ppr-{builder} plus coreference-aware alias seeding (BCT): the question's entities also "
                          "seed their defined terms, nested names and acronyms.",
                          builder, aliases=True, params=_ENTITY_GRAPH_PARAMS + ("beta",), make=_graph_maker(f"bct-{builder}"),
                          stand_in="bct-regex" if builder == "ner" else None),
            RetrieverSpec(f"hybrid-{builder}", "hybrid",
                          f"ppr-{builder} whose walk also restarts at the passages most similar to the question by "
                          "dense embeddings, so every question has seeds and every score stays exactly explained.",
                          builder, embeddings=True,
                          params=_ENTITY_GRAPH_PARAMS + ("passage_weight", "tau", "passage_seeds", "lexical_share",
                                                  "hop_share"),
                          components=("tokens", "bm25"),  # lexical passage seeds (λ > 0) read BM25
                          make=_graph_maker(f"hybrid-{builder}"), stand_in="bm25"),
        ]
    return out


CATALOG: dict[str, RetrieverSpec] = {s.name: s for s in [
    RetrieverSpec("bm25", "lexical", "BM25 (Okapi) over lower-cased words: rewards rare question words a passage "
                  "repeats.", components=("tokens", "bm25"), make=lambda make, config: make.bm25()),
    RetrieverSpec("tfidf", "lexical", "Cosine similarity of TF-IDF word vectors.", components=("tokens", "tfidf"),
                  make=lambda make, config: make.tfidf()),
    RetrieverSpec("dense", "dense", "Cosine similarity of all-MiniLM-L6-v2 sentence embeddings: matches meaning, "
                  "not words.", embeddings=True, make=lambda make, config: make.dense(), stand_in="bm25"),
    *_graph_specs(),
    RetrieverSpec("filing", "hybrid", "For filings: the question's company, fiscal period and statement, the lexicon's line "
                  "items and the regex entities seed a graph of the filings' structure (filings, statements, notes, "
                  "table rows, cross-references); dense passage seeds come from the scoped filings; hits are pages.",
                  "regex", embeddings=True, params=_GRAPH_PARAMS + ("filing_passage_weight", "filing_lexical_share", "tau", "passage_seeds") + EDGE_PARAMS,
                  components=("tokens", "bm25", "structure"), make=lambda make, config: make.filing("filing", config),
                  stand_in="filing-graph"),
    RetrieverSpec("filing-learned", "hybrid", "For filings: the filing retriever's top 40 pages reordered by a learned "
                  "ranker (LightGBM LambdaRank) over what an analyst names about a page: what the question asks for "
                  "against what the page is (MD&A, risk factors, a statement, a note), its match to the question, the "
                  "walk's score, boilerplate; every score splits exactly into named parts.",
                  "regex", embeddings=True, params=_GRAPH_PARAMS + ("filing_passage_weight", "filing_lexical_share", "tau", "passage_seeds") + EDGE_PARAMS,
                  components=("tokens", "bm25", "structure"), make=lambda make, config: make.page_ranker("filing-learned", config),
                  stand_in="filing-graph"),
    RetrieverSpec("filing-graph", "graph", "The filings retriever's walk without dense passage seeds: only the "
                  "question's scope, the lexicon's line items and its entities seed the filing graph.",
                  "regex", params=_GRAPH_PARAMS + EDGE_PARAMS, components=("structure",),
                  make=lambda make, config: make.filing("filing-graph", config)),
    RetrieverSpec("rrf", "fusion", "Reciprocal Rank Fusion of its member retrievers' rankings.",
                  params=("rrf_k",), make=lambda make, config: make.rrf(config), stand_in="bm25"),
]}
RETRIEVERS = tuple(CATALOG)
DEFAULT_RETRIEVER = "hybrid-ner"  # the Query page's default: the best on the data room (docs/benchmarks.md)
# the default over paged documents (PDFs): the best on the filings dev sets' pooled test halves (docs/filings.md)
FILINGS_RETRIEVER = "filing-learned"
# the retrievers that read a question's filing scope (and so take its correction), the room's own first
SCOPED_RETRIEVERS = ("filing-learned", "filing", "filing-graph")
# what the Scale sweep and Benchmarks pages start with: none needs the encoder or spaCy, so a first run loads no model
QUICK_RETRIEVERS = ("bm25", "tfidf", "ppr-regex", "bct-regex")


def default_retriever(paged: bool) -> str:
    """The retriever a corpus opens on: the filings retriever when it holds paged documents (PDFs)."""
    return FILINGS_RETRIEVER if paged else DEFAULT_RETRIEVER


def ranks_pages(name: str) -> bool:
    """Whether a retriever's hits are pages, each once: the filings retrievers, which walk the filings' structure
    (the Query page and the report head their answers so). False for a name outside the catalog."""
    return name in CATALOG and "structure" in CATALOG[name].components


def spec(name: str) -> RetrieverSpec:
    if name not in CATALOG:
        raise PathLensError(f"unknown retriever {name!r}; choose from {', '.join(CATALOG)}")
    return CATALOG[name]


def stages_for(names, rrf_members=()) -> list[str]:
    """The index components the named retrievers need (RRF: its members'), in build order."""
    out: list[str] = []
    for name in names:
        s = spec(name)
        out += stages_for(rrf_members) if s.family == "fusion" else s.stages()
    return list(dict.fromkeys(out))
