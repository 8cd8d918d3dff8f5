import numpy as np
import pytest

from engine.errors import NoSeedError, PathLensError
from engine.graph_retriever import GraphParams
from engine.index import Index, SearchConfig


def test_seeds_by_exact_key_then_containment(tiny):
    r = Index(tiny).retriever("ppr-regex")
    s = r.seeding("Who lends to Brightwater Logistics?")
    assert [(x.entity, x.rule, x.weight) for x in s.seeds] == [("brightwater logistics", "exact", 1.0)]
    s = r.seeding("Tell me about Halvorsen State Pension Fund Trustees")  # not a graph entity; contains one
    assert {x.entity for x in s.seeds} == {"halvorsen state pension fund"}
    assert all(x.rule == "containment" for x in s.seeds)


def test_ranks_passages_and_explains_with_exact_shares(tiny):
    r = Index(tiny).retriever("ppr-regex", SearchConfig(graph=GraphParams(alpha=0.2, iterations=30)))
    q = "How is Calder Bank related to Elliot Park?"
    hits = r.search(q, 3)
    ans = r.explain(q, 3)
    assert [h.passage_id for h in hits] == [h.passage_id for h in ans.hits]
    assert {s.entity for s in ans.seeds} == {"calder bank", "elliot park"}
    for e in ans.explanations:
        assert sum(v for _, v in e.seed_shares) == pytest.approx(1.0)
        assert e.paths and e.paths == tuple(sorted(e.paths, key=lambda p: -p.mass))
    # p3 (Calder Bank) reaches p1 (Elliot Park) through the bridge entity Brightwater Logistics
    bridged = [p for e in ans.explanations for p in e.paths if len(p.nodes) == 4]
    assert any(p.nodes[2] == "Brightwater Logistics" for p in bridged)
    assert len(ans.residuals) == 30
    kinds = {n.kind for n in ans.nodes}
    assert {"seed", "hit"} <= kinds
    assert any(e.on_path for e in ans.edges)


@pytest.mark.parametrize("name", ["ppr-regex", "bct-regex", "ppr-ner"])
@pytest.mark.parametrize("iterations", [19, 20])
def test_search_scores_are_bit_identical_to_the_full_ppr_of_explain(tiny, name, iterations):
    # search takes the half-cost bipartite kernel; explain runs the full iteration with its residual trace
    r = Index(tiny).retriever(name, SearchConfig(graph=GraphParams(iterations=iterations)))
    for q in ("Calder Bank and Elliot Park", "Who lends to Brightwater Logistics?", "the Fund"):
        try:
            hits = r.search(q, 5)
        except NoSeedError:
            continue
        assert hits == r.explain(q, 5).hits
        assert r.search_batch([q], 5)[0] == hits


def test_shares_are_exact_even_with_early_stop(tiny):
    r = Index(tiny).retriever("ppr-regex", SearchConfig(graph=GraphParams(iterations=200, tol=1e-6)))
    ans = r.explain("Calder Bank and Elliot Park", 4)
    assert ans.iterations < 200
    for e in ans.explanations:
        assert sum(v for _, v in e.seed_shares) == pytest.approx(1.0, abs=1e-12)


def test_no_known_entity_gives_no_hits_and_says_why(tiny):
    r = Index(tiny).retriever("ppr-regex")
    with pytest.raises(NoSeedError, match="BCT"):
        r.search("what happened to the weather?", 3)
    with pytest.raises(NoSeedError, match="(?i)zanzibar"):
        r.search("Tell me about Zanzibar", 3)


def test_bct_adds_aliases_at_beta_and_renormalises(tiny):
    idx = Index(tiny)
    r = idx.retriever("bct-regex", SearchConfig(graph=GraphParams(bct_weight=0.5)))
    s = r.seeding("What did NorthRiver Capital Partners IV, L.P. report?")
    weights = {x.entity: (x.weight, x.source) for x in s.seeds}
    assert weights["northriver capital partners iv l p"] == (pytest.approx(2 / 3), "query")
    assert weights["fund"] == (pytest.approx(1 / 3), "alias")
    zero = idx.retriever("bct-regex", SearchConfig(graph=GraphParams(bct_weight=0.0)))
    assert {x.entity for x in zero.seeding("NorthRiver Capital Partners IV, L.P.").seeds if x.weight > 0} == {
        "northriver capital partners iv l p"}
    with pytest.raises(PathLensError):
        GraphParams(bct_weight=-1)


def test_ner_graph_retriever(tiny):
    hits = Index(tiny).retriever("ppr-ner").search("Who lends to Brightwater Logistics?", 3)
    assert hits[0].passage_id in {"p0", "p1", "p3"} and hits[0].retriever == "ppr-ner"


def test_deterministic(core_corpus):
    a = Index(core_corpus).retriever("bct-regex").search("Who manages the fund that owns Solano Foods?", 10)
    b = Index(core_corpus).retriever("bct-regex").search("Who manages the fund that owns Solano Foods?", 10)
    assert a == b and all(np.isfinite(h.score) for h in a)


def test_corpus_without_entities_disables_graph_retrievers():
    from tests.conftest import make_corpus

    idx = Index(make_corpus(["all lower case words", "nothing named here"]))
    with pytest.raises(PathLensError, match="no entity"):
        idx.retriever("ppr-regex")


def _contained_by_scan(tokens, key):
    """The containment rule by brute force over every entity, as the reference."""
    q = tuple(key.split())

    def inside(small, big):
        return any(big[i:i + len(small)] == small for i in range(len(big) - len(small) + 1))

    containing = {j for j, t in enumerate(tokens) if inside(q, t)}
    within = {j for j, t in enumerate(tokens) if inside(t, q)} - containing
    maximal = {j for j in within if not any(i != j and inside(tokens[j], tokens[i]) for i in within)}
    return sorted(containing | maximal)


def test_containment_seeding_matches_a_scan_of_every_entity(core_index):
    for builder in ("regex", "ner"):
        r = core_index.retriever(f"ppr-{builder}")
        tokens = [tuple(e.split()) for e in r.graph.entities]
        keys = set()
        for t in tokens:  # sub-names, names with a word added either side, and unknown words
            keys.update(" ".join(t[i:j]) for i in range(len(t)) for j in range(i + 1, len(t) + 1))
            keys.update({" ".join(t + ("trustees",)), " ".join(("the",) + t), "zzz " + t[0]})
        keys -= set(r.graph.entities)
        assert len(keys) > 100
        found = 0
        for key in sorted(keys):
            expect = _contained_by_scan(tokens, key)
            assert r._contained(key) == expect, key
            found += bool(expect)
        assert found > 50


@pytest.mark.parametrize("keep", [1, 3])
def test_evidence_paths_are_the_heaviest_of_every_one_and_two_hop_path(core_index, keep):
    """Reference: enumerate every seed → hit and seed → P1 → bridge → hit path on the dense W."""
    r = core_index.retriever("ppr-regex")
    g, n = r.graph, r.graph.n_passages
    W = g.W.toarray()
    checked = 0
    for q in core_index.corpus.queries[:15]:
        try:
            ans = r.explain(q.text, 5, paths_per_hit=keep)
        except NoSeedError:
            continue
        for ex in ans.explanations:
            i = g.passage_ids.index(ex.hit.passage_id)
            every = []
            for s in ans.seeds:
                e = n + g.entities.index(s.entity)
                if W[i, e]:
                    every.append((-s.weight * W[i, e], (f"e:{s.entity}", f"p:{g.passage_ids[i]}")))
                for b in range(n, W.shape[0]):
                    if b == e or not W[i, b]:
                        continue
                    for p1 in range(n):
                        mass = s.weight * W[p1, e] * W[b, p1] * W[i, b]
                        if mass > 0 and p1 != i:
                            every.append((-mass, (f"e:{s.entity}", f"p:{g.passage_ids[p1]}",
                                                  f"e:{g.entities[b - n]}", f"p:{g.passage_ids[i]}")))
            every.sort()
            assert [p.node_ids for p in ex.paths] == [ids for _, ids in every[:keep]]
            np.testing.assert_allclose([p.mass for p in ex.paths], [-m for m, _ in every[:keep]], rtol=1e-12)
            checked += 1
    assert checked >= 20
