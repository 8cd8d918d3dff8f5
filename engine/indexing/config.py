"""What a user can set on the retrievers, as one frozen config: made from the catalog's parameter values (the
catalog's defaults, then a corpus's tuned ones, then the user's), and read back into them for links and reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..catalog import EDGE_PARAMS, PARAMS, spec
from ..errors import PathLensError
from ..filings.graph import EdgeWeights
from ..filings.scope import ScopeCorrection
from ..ingest.corpus import Corpus
from ..retrieve.graph_retriever import GraphParams
from ..retrieve.rrf_retriever import RRFConfig
from ..retrieve.second_hop import shape_defaults as hop_defaults
from ..retrieve.seeding import HybridParams


@dataclass(frozen=True)
class SearchConfig:
    """Every retriever parameter a user can set; frozen so it can key caches."""

    graph: GraphParams = GraphParams()
    rrf: RRFConfig = RRFConfig()
    hybrid: HybridParams = HybridParams()
    edges: EdgeWeights = EdgeWeights()  # the filing graph's edge weights
    filing_passage_weight: float = 0.7  # the filings retriever's w (its own: its other seeds are structure)
    filing_lexical_share: float = 0.5  # the filings retriever's λ: BM25's share of its passage seeds
    scope: ScopeCorrection = ScopeCorrection()  # a user's correction of a question's scope (filings)
    # the catalog parameters that have no field above, by name (a retriever added through the catalog reads its own)
    extra: tuple[tuple[str, float | int], ...] = ()

    def value(self, name: str) -> float | int:
        """A catalog parameter's value by its name, whether a field above holds it or `extra` does."""
        return param_values(self)[name]


_SHAPES: dict[int, tuple[Corpus, dict[str, float]]] = {}  # by corpus identity: read once, not on each rerun


def shape_defaults(corpus: Corpus) -> dict[str, float]:
    """The defaults a corpus's shape sets (second_hop.shape_defaults: the hop for passages about one thing each)."""
    kept = _SHAPES.get(id(corpus))
    if kept is None or kept[0] is not corpus:
        if len(_SHAPES) > 16:
            _SHAPES.clear()
        kept = _SHAPES[id(corpus)] = (corpus, hop_defaults([p.title for p in corpus.passages]))
    return kept[1]


def corpus_defaults(corpus: Corpus) -> dict[str, float]:
    """Where a corpus's parameters start: its shape's defaults, then its manifest's tuned ones (`Corpus.defaults`)."""
    return {**shape_defaults(corpus), **corpus.defaults}


def search_config(values: Mapping[str, object] = {}, corpus: Corpus | None = None, *, tol: float | None = None,
                  vocabulary: bool = True, rrf_members: tuple[str, ...] | None = None,
                  rrf_weights: tuple[float, ...] = (), scope: ScopeCorrection = ScopeCorrection()) -> SearchConfig:
    """A SearchConfig from catalog parameter values: the catalog's defaults, then the corpus's
    (`corpus_defaults`: its shape's and its manifest's), then `values` (what the user set; None means unset)."""
    v = {name: p.default for name, p in PARAMS.items()}
    v.update(corpus_defaults(corpus) if corpus is not None else {})
    v.update({k: x for k, x in values.items() if x is not None})
    unknown = set(v) - set(PARAMS)
    if unknown:
        raise PathLensError(f"unknown parameter {sorted(unknown)[0]!r}; choose from {', '.join(PARAMS)}")
    return SearchConfig(
        graph=GraphParams(alpha=float(v["alpha"]), iterations=int(v["iterations"]), tol=tol,
                          beta=float(v["beta"]), vocabulary=vocabulary, specificity=vocabulary,
                          hop_share=float(v["hop_share"]), subject_weight=float(v["subject_weight"])),
        rrf=RRFConfig(members=rrf_members or RRFConfig().members, weights=rrf_weights, k=int(v["rrf_k"])),
        hybrid=HybridParams(passage_weight=float(v["passage_weight"]), tau=float(v["tau"]), top=int(v["passage_seeds"]),
                            lexical=float(v["lexical_share"])),
        edges=EdgeWeights(**{name.removeprefix("edge_"): float(v[name]) for name in EDGE_PARAMS}),
        filing_passage_weight=float(v["filing_passage_weight"]),
        filing_lexical_share=float(v["filing_lexical_share"]),
        scope=scope,
        extra=tuple((name, type(PARAMS[name].default)(v[name])) for name in PARAMS if name not in _FIELDS))


def _fields(config: SearchConfig) -> dict[str, float | int]:
    """The catalog parameters SearchConfig's fields hold, by name (what `search_config` reads them into)."""
    g, h = config.graph, config.hybrid
    return {"alpha": g.alpha, "iterations": g.iterations, "beta": g.beta, "hop_share": g.hop_share,
            "subject_weight": g.subject_weight,
            "passage_weight": h.passage_weight,
            "tau": h.tau, "passage_seeds": h.top, "lexical_share": h.lexical, "rrf_k": config.rrf.k,
            "filing_passage_weight": config.filing_passage_weight, "filing_lexical_share": config.filing_lexical_share,
            **{name: getattr(config.edges, name.removeprefix("edge_")) for name in EDGE_PARAMS}}


_FIELDS = frozenset(_fields(SearchConfig()))


def param_values(config: SearchConfig) -> dict[str, float | int]:
    """Every catalog parameter's value in `config`, by its name: the inverse of `search_config` (tested), which
    the evidence report's link and the pages write into URLs."""
    return {**{name: p.default for name, p in PARAMS.items()}, **dict(config.extra), **_fields(config)}


def check_retriever(name: str) -> str:
    return spec(name).name
