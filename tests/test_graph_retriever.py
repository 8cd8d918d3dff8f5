import numpy as np
import pytest

from engine.errors import NoSeedError, PathLensError
from engine.retrieve.graph_retriever import GraphParams
from engine.graph.entities import entity_key
from engine.indexing.index import Index, SearchConfig
from tests.conftest import make_corpus
from engine.indexing.views import without

MULTI_HOP = "Who manages the fund whose portfolio company signed a lease at the Joliet facility of Brightwater Logistics?"


PAPER_SEEDING = SearchConfig(graph=GraphParams(vocabulary=False, specificity=False))


def test_seeds_by_exact_key_then_containment(tiny):
    r = Index(tiny).retriever("ppr-regex", PAPER_SEEDING)
    s = r.seeding("Who lends to Brightwater Logistics?")
    assert [(x.entity, x.rule, x.weight) for x in s.seeds] == [("brightwater logistics", "extracted", 1.0)]
    s = r.seeding("Tell me about Halvorsen State Pension Fund Trustees")  # not a graph entity; contains one
    assert {x.entity for x in s.seeds} == {"halvorsen state pension fund"}
    assert all(x.rule == "containment" for x in s.seeds)


def test_vocabulary_seeds_lower_case_questions_and_defined_terms(tiny):
    idx = Index(tiny)
    graph = idx.graph("regex")
    deg = dict(zip(graph.entities, graph.entity_degree))
    assert deg["fund"] == 2 and deg["calder bank"] == 1
    r = idx.retriever("ppr-regex")  # vocabulary and specificity on: the default
    s = r.seeding("who does calder bank lend to, and who invests in the fund?")
    got = {x.entity: (x.rule, x.weight, x.passage_count) for x in s.seeds}
    # 1 / passages, normalised: calder bank (1 passage) weighs twice the fund (2 passages)
    assert got == {"calder bank": ("vocabulary", pytest.approx(2 / 3), 1), "fund": ("vocabulary", pytest.approx(1 / 3), 2)}
    assert not idx.retriever("ppr-regex", PAPER_SEEDING).seeding("who does calder bank lend to?").seeds
    # an extracted name keeps its rule when the vocabulary finds it too
    s = r.seeding("Who lends to Brightwater Logistics?")
    assert [(x.entity, x.rule) for x in s.seeds] == [("brightwater logistics", "extracted")]


def test_vocabulary_is_folded_and_skips_function_word_keys():
    corpus = make_corpus(["Wilfried Gröbner met the US delegation. It was cold.", "Gröbner bases. US Steel."])
    r = Index(corpus).retriever("ppr-regex")
    assert {x.entity for x in r.seeding("who was wilfried grobner?").seeds} >= {"wilfried grobner"}
    # "us" is a graph entity (the acronym), but the pronoun in a question must not seed it
    assert "us" in r.graph.entities
    assert "us" not in {x.entity for x in r.seeding("tell us about wilfried grobner").seeds}


def test_specificity_splits_a_names_containment_matches():
    corpus = make_corpus(["Al Markada is a town.", "Al Hasakah is a city.", "Pope John XXIII was born here."])
    r = Index(corpus).retriever("ppr-regex", SearchConfig(graph=GraphParams(vocabulary=False)))
    s = r.seeding("Where did Al go, and what did Pope John XXIII say?")
    w = {x.entity: x.weight for x in s.seeds}
    # "Al" matched two entities by containment; they share one name's weight, so together they
    # weigh what Pope John XXIII weighs alone (each entity occurs in one passage)
    assert w["al markada"] == pytest.approx(0.25) and w["al hasakah"] == pytest.approx(0.25)
    assert w["pope john xxiii"] == pytest.approx(0.5)


def test_ranks_passages_and_explains_with_exact_shares(tiny):
    r = Index(tiny).retriever("ppr-regex", SearchConfig(graph=GraphParams(alpha=0.2, iterations=30)))
    q = "How is Calder Bank related to Elliot Park?"
    hits = r.search(q, 3)
    ans = r.explain(q, 3)
    assert [h.passage_id for h in hits] == [h.passage_id for h in ans.hits]
    assert {s.entity for s in ans.seeds} == {"calder bank", "elliot park"}
    for e in ans.explanations:
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
        assert r.answer_batch([q], 5)[0].hits == hits


def _fresh_ppr(graph, node: str, alpha: float, iterations: int) -> np.ndarray:
    """PPR from a one-hot seed on one node, by the full iteration: the independent reference."""
    from engine.graph.ppr import personalized_pagerank

    n = graph.n_passages
    s = np.zeros(graph.W.shape[0])
    s[graph.passage_ids.index(node[2:]) if node.startswith("p:") else n + graph.entity_index[node[2:]]] = 1.0
    return personalized_pagerank(graph.W, s, alpha, iterations).scores


@pytest.mark.parametrize("name,config", [
    ("ppr-regex", SearchConfig(graph=GraphParams(alpha=0.2, iterations=30))),
    ("bct-regex", SearchConfig()),
    ("ppr-regex", SearchConfig(graph=GraphParams(iterations=200, tol=1e-6))),  # early stop
])
def test_contributions_sum_to_the_unnormalised_score(tiny, name, config):
    """Σᵢ sᵢ·PPR(seedᵢ)[hit] equals the hit's score to 1e-12, with PPR(seedᵢ) run afresh per seed."""
    r = Index(tiny).retriever(name, config)
    ans = r.explain("Calder Bank and Elliot Park, the Fund", 4)
    weights = {f"e:{s.entity}": s.weight for s in ans.seeds}
    assert len(weights) >= 2
    for e in ans.explanations:
        i = r.graph.passage_ids.index(e.hit.passage_id)
        fresh = sum(weights[sid] * _fresh_ppr(r.graph, sid, config.graph.alpha, ans.iterations)[i]
                    for sid in weights)
        assert fresh == pytest.approx(e.hit.score, abs=1e-12, rel=0)
        assert sum(c for _, c in e.contributions) == pytest.approx(e.hit.score, abs=1e-12, rel=0)
        assert dict(e.contributions).keys() == weights.keys()


def test_no_known_entity_gives_no_hits_and_says_why(tiny):
    r = Index(tiny).retriever("ppr-regex")
    with pytest.raises(NoSeedError, match="no name of its graph.*bm25, dense, or a hybrid"):
        r.search("what happened to the weather?", 3)
    with pytest.raises(NoSeedError, match="(?i)zanzibar"):
        r.search("Tell me about Zanzibar", 3)


def test_bct_adds_aliases_at_beta_and_renormalises(tiny):
    idx = Index(tiny)
    r = idx.retriever("bct-regex", SearchConfig(graph=GraphParams(beta=0.5, vocabulary=False)))
    s = r.seeding("What did NorthRiver Capital Partners IV, L.P. report?")
    weights = {x.entity: (x.weight, x.source) for x in s.seeds}
    assert weights["northriver capital partners iv"] == (pytest.approx(2 / 3), "query")
    assert weights["fund"] == (pytest.approx(1 / 3), "alias")
    zero = idx.retriever("bct-regex", SearchConfig(graph=GraphParams(beta=0.0)))
    assert {x.entity for x in zero.seeding("NorthRiver Capital Partners IV, L.P.").seeds if x.weight > 0} == {
        "northriver capital partners iv"}
    with pytest.raises(PathLensError):
        GraphParams(beta=-1)


def test_ner_graph_retriever(tiny):
    r = Index(tiny).retriever("ppr-ner")
    hits = r.search("Who lends to Brightwater Logistics?", 3)
    # the only seed is Brightwater Logistics, so the top 3 are exactly the three passages that name it
    assert [x.entity for x in r.seeding("Who lends to Brightwater Logistics?").seeds] == ["brightwater logistics"]
    assert {h.passage_id for h in hits} == {"p0", "p1", "p3"} and hits[0].retriever == "ppr-ner"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


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
            assert r.seeder.contained(key) == expect, key
            found += bool(expect)
        assert found > 50


@pytest.mark.parametrize("name", ["ppr-regex", "hybrid-regex"])
@pytest.mark.parametrize("keep", [1, 3])
def test_evidence_paths_are_the_heaviest_of_every_one_and_two_hop_path(core_index, keep, name):
    """Reference: enumerate every seed → hit, seed → P1 → bridge → hit and passage seed → bridge
    → hit path on the dense W."""
    r = core_index.retriever(name)
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
            for ps in ans.passage_seeds:
                p0 = g.passage_ids.index(ps.passage_id)
                for b in range(n, W.shape[0]):
                    mass = ps.weight * W[b, p0] * W[i, b]
                    if mass > 0 and p0 != i:
                        every.append((-mass, (f"p:{ps.passage_id}", f"e:{g.entities[b - n]}", f"p:{g.passage_ids[i]}")))
            every.sort()
            assert [p.node_ids for p in ex.paths] == [ids for _, ids in every[:keep]]
            np.testing.assert_allclose([p.mass for p in ex.paths], [-m for m, _ in every[:keep]], rtol=1e-12)
            checked += 1
    assert checked >= 20


def test_hybrid_contributions_of_entity_and_passage_seeds_sum_to_the_score(tiny):
    """The hybrid seeds entities and passages; each hit's score still splits exactly over both
    kinds of seed: Σᵢ sᵢ·PPR(seedᵢ)[hit] = score to 1e-12, PPR(seedᵢ) run afresh per seed."""
    from engine.retrieve.seeding import HybridParams

    config = SearchConfig(hybrid=HybridParams(passage_weight=0.6, tau=0.1, top=3))
    r = Index(tiny).retriever("hybrid-regex", config)
    ans = r.explain("Who lends to Brightwater Logistics?", 5)
    assert ans.seeds and len(ans.passage_seeds) == 3
    weights = {f"e:{s.entity}": s.weight for s in ans.seeds}
    weights.update({f"p:{p.passage_id}": p.weight for p in ans.passage_seeds})
    assert sum(p.weight for p in ans.passage_seeds) == pytest.approx(0.6)
    assert sum(weights.values()) == pytest.approx(1.0)
    cos = [p.cosine for p in ans.passage_seeds]
    z = np.exp((np.array(cos) - max(cos)) / 0.1)
    np.testing.assert_allclose([p.weight for p in ans.passage_seeds], 0.6 * z / z.sum(), rtol=1e-12)
    for e in ans.explanations:
        i = r.graph.passage_ids.index(e.hit.passage_id)
        fresh = sum(w * _fresh_ppr(r.graph, sid, 0.15, 20)[i] for sid, w in weights.items())
        assert fresh == pytest.approx(e.hit.score, abs=1e-12, rel=0)
        assert sum(c for _, c in e.contributions) == pytest.approx(e.hit.score, abs=1e-12, rel=0)
    # search (the half-cost kernel) and the batch agree with the full iteration to the last bit
    assert r.search("Who lends to Brightwater Logistics?", 5) == ans.hits
    assert r.answer_batch(["Who lends to Brightwater Logistics?", "nothing named"], 5)[0].hits == ans.hits


def test_hybrid_seeds_every_question_and_paths_start_at_passage_seeds(tiny):
    r = Index(tiny).retriever("hybrid-regex")
    ans = r.explain("what happened to the weather?", 3)  # no entity: all the mass on passage seeds
    assert not ans.seeds and sum(p.weight for p in ans.passage_seeds) == pytest.approx(1.0)
    assert ans.hits
    ans = r.explain("Who is the CFO of the company Calder Bank lends to?", 5)
    from_passages = [p for e in ans.explanations for p in e.paths if p.node_ids[0].startswith("p:")]
    assert from_passages and all(len(p.node_ids) == 3 for p in from_passages)
    assert any(n.kind == "passage-seed" for n in ans.nodes) or all(
        p.passage_id in {h.passage_id for h in ans.hits} for p in ans.passage_seeds)


def test_an_ambiguous_defined_term_is_reported_not_spread_over_every_fund():
    from engine.ingest.corpus import load_corpus

    q = "Which limited partners committed capital to the Fund?"
    full = Index(load_corpus("dataroom")).retriever("bct-regex")
    s = full.seeding(q)
    (amb,) = s.ambiguous
    assert amb.term == "Fund" and len({doc for doc, _ in amb.meanings}) == 80
    assert ("01-northriver-iv-q3-2024-lp-report.md", "NorthRiver Capital Partners IV, L.P.") in amb.meanings
    defining = {entity_key(name) for _, name in amb.meanings}
    assert "fund" in {x.entity for x in s.seeds} and not defining & {x.entity for x in s.seeds}
    # in the core, one document defines "the Fund": BCT follows it to NorthRiver Capital Partners IV
    core = Index(load_corpus("dataroom-core")).retriever("bct-regex").seeding(q)
    assert not core.ambiguous
    assert any(x.entity == "northriver capital partners iv" and x.rule == "defined term" for x in core.seeds)


def test_what_if_without_an_entity_equals_a_fresh_ppr_on_a_graph_rebuilt_without_it(tiny):
    """Removing a seed entity changes the scores exactly as a PPR over a graph built from scratch
    without that entity would: the reference links the texts again and runs the full iteration."""
    from dataclasses import replace as dc_replace

    from engine.graph.entity_graph import build_graph
    from engine.graph.ppr import personalized_pagerank

    idx = Index(tiny)
    q = "How is Calder Bank related to Elliot Park and Brightwater Logistics?"
    idx.graph("regex")
    what_if = without(idx, entities=["Brightwater Logistics"]).retriever("ppr-regex", PAPER_SEEDING)
    ex = idx.extraction("regex")
    rebuilt = build_graph(dc_replace(ex, entities=tuple(e for e in ex.entities if e != "brightwater logistics")),
                          idx.ids, idx.texts)
    assert "brightwater logistics" not in what_if.graph.entities
    np.testing.assert_array_equal(what_if.graph.incidence.toarray(), rebuilt.incidence.toarray())
    seeds = what_if.seeding(q).seeds
    assert {s.entity for s in seeds} == {"calder bank", "elliot park"}  # the removed name seeds nothing
    s = np.zeros(rebuilt.W.shape[0])
    for seed in seeds:
        s[rebuilt.n_passages + rebuilt.entity_index[seed.entity]] = seed.weight
    fresh = personalized_pagerank(rebuilt.W, s, 0.15, 20).scores
    for h in what_if.search(q, 5):
        assert h.score == pytest.approx(fresh[rebuilt.passage_ids.index(h.passage_id)], abs=1e-15, rel=0)
    before = idx.retriever("ppr-regex", PAPER_SEEDING).search(q, 5)
    assert [h.passage_id for h in before] != [h.passage_id for h in what_if.search(q, 5)]


def test_what_if_without_a_passage_and_bad_names(tiny):
    idx = Index(tiny)
    idx.graph("regex")
    sub = without(idx, passages=["p3"])
    hits = sub.retriever("ppr-regex").search("Who lends to Brightwater Logistics?", 5)
    assert "p3" not in {h.passage_id for h in hits} and hits
    assert sub.graph("regex").n_passages == 4
    with pytest.raises(PathLensError, match="no passage 'p9'"):
        without(idx, passages=["p9"])
    with pytest.raises(PathLensError, match="no entity 'zanzibar'"):
        without(idx, entities=["Zanzibar"])


def test_what_if_without_only_entities_shares_every_other_part(tiny):
    idx = Index(tiny)
    idx.graph("regex")
    idx.bm25()
    sub = without(idx, entities=["Calder Bank"])
    assert sub.bm25() is idx.bm25()  # nothing recounted when no passage goes
    assert "calder bank" not in sub.graph("regex").entities and sub.graph("regex").n_passages == 5


@pytest.mark.parametrize("keep", [1, 3])
def test_evidence_paths_through_hub_entities_break_ties_as_a_full_enumeration_does(keep):
    """On a grown data room, hub entities (in hundreds of passages) give thousands of equally heavy
    paths; the explanation keeps only tie-break winners. Reference: every seed → P1 → bridge → hit
    path enumerated over the sparse graph, sorted by (−mass, node ids)."""
    from engine.ingest.corpus import grown_corpus

    corpus = grown_corpus("grown-600", {"core": "dataroom-core", "size": 600, "seed": 7})
    r = Index(corpus).retriever("ppr-regex")
    g = r.graph
    to_p, to_e = g.blocks
    to_p_csc = to_p.tocsc()
    assert np.diff(to_p_csc.indptr).max() > 100  # hubs are there
    checked = 0
    for q in corpus.queries[:12]:
        try:
            ans = r.explain(q.text, 5, paths_per_hit=keep)
        except NoSeedError:
            continue
        for ex in ans.explanations:
            i = g.passage_index[ex.hit.passage_id]
            every = []
            for s in ans.seeds:
                e = g.entity_index[s.entity]
                if to_p[i, e]:
                    every.append((-s.weight * to_p[i, e], (f"e:{s.entity}", f"p:{g.passage_ids[i]}")))
                for p1 in to_p_csc.indices[to_p_csc.indptr[e]:to_p_csc.indptr[e + 1]]:
                    if p1 == i:
                        continue
                    for b in to_p.indices[to_p.indptr[p1]:to_p.indptr[p1 + 1]]:
                        if b != e and to_p[i, b]:
                            mass = s.weight * to_p[p1, e] * to_e[b, p1] * to_p[i, b]
                            every.append((-mass, (f"e:{s.entity}", f"p:{g.passage_ids[p1]}",
                                                  f"e:{g.entities[b]}", f"p:{g.passage_ids[i]}")))
            every.sort()
            assert [p.node_ids for p in ex.paths] == [ids for _, ids in every[:keep]]
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize("name", ["ppr-regex", "hybrid-regex"])
def test_a_routes_share_is_what_walks_along_it_add_to_the_score(core_index, name):
    """Reference: the score is the sum over every walk from a seed of α(1−α)ᴸ × seed weight × the transition
    probabilities along it (computed here by powers of the dense W, not by the kernel), so a route's share is its
    own term over the score, and the shares of all routes sum to 1."""
    r = core_index.retriever(name)
    g, n = r.graph, r.graph.n_passages
    W = g.W.toarray()
    alpha = r.params.alpha
    checked = 0
    for q in core_index.corpus.queries[:8]:
        try:
            ans = r.explain(q.text, 3)
        except NoSeedError:
            continue
        s = np.zeros(W.shape[0])
        for seed in ans.seeds:
            s[n + g.entities.index(seed.entity)] = seed.weight
        for ps in ans.passage_seeds:
            s[g.passage_ids.index(ps.passage_id)] = ps.weight
        by_length, x = [], s.copy()
        for _ in range(ans.iterations):
            by_length.append(x)
            x = W @ x
        for ex in ans.explanations:
            i = g.passage_ids.index(ex.passage_id)
            walks = sum(alpha * (1 - alpha) ** L * v[i] for L, v in enumerate(by_length)) \
                + (1 - alpha) ** ans.iterations * x[i]
            assert walks == pytest.approx(ex.score, rel=1e-9)  # every walk's term, summed, is the score
            for p in ex.paths:
                idx = [n + g.entities.index(nid[2:]) if nid.startswith("e:") else g.passage_ids.index(nid[2:])
                       for nid in p.node_ids]
                term = s[idx[0]] * np.prod([W[b, a] for a, b in zip(idx, idx[1:])])
                steps = len(idx) - 1
                assert p.share == pytest.approx(alpha * (1 - alpha) ** steps * term / ex.score, rel=1e-9)
            assert 0 < sum(p.share for p in ex.paths) <= 1
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("name", ["ppr-regex", "hybrid-regex"])
def test_a_walk_by_push_ranks_as_the_exact_walk_and_its_shares_add_up_to_each_score(core_index, name):
    """ε = 0 pushes everything: the exact walk's hits, scores to 1e-15. At a coarser ε every score lies in
    [score, score + bound] of the exact one (below, never above), and each hit's per-seed shares, each its seed's
    own push, add up to its score; search, the batch and the explanation give the same hits."""
    question = MULTI_HOP
    exact = core_index.retriever(name, SearchConfig(graph=GraphParams(walk_mode="exact"))).explain(question, 10)
    assert not exact.pushed and exact.bound == 0.0
    whole = core_index.retriever(name, SearchConfig(graph=GraphParams(walk_mode="push", eps=0))).explain(question, 10)
    assert whole.pushed and whole.bound == 0.0
    assert [h.passage_id for h in whole.hits] == [h.passage_id for h in exact.hits]
    np.testing.assert_allclose([h.score for h in whole.hits], [h.score for h in exact.hits], rtol=0, atol=1e-15)
    coarse = GraphParams(walk_mode="push", eps=1e-4, eps_floor=1e-4)  # a small graph: coarse ε, never pushed finer
    r = core_index.retriever(name, SearchConfig(graph=coarse))
    pushed = r.explain(question, 10)
    assert pushed.pushed and pushed.bound > 0
    exact_scores = {h.passage_id: h.score for h in core_index.retriever(
        name, SearchConfig(graph=GraphParams(walk_mode="exact"))).explain(question, 40).hits}
    for e in pushed.explanations:
        gap = exact_scores[e.hit.passage_id] - e.hit.score
        assert -1e-15 <= gap <= pushed.bound
        assert sum(c for _, c in e.contributions) == pytest.approx(e.hit.score, abs=1e-15, rel=0)
    assert r.search(question, 10) == pushed.hits
    assert r.answer_batch([question, "nothing named"], 10)[0].hits == pushed.hits
    # what each level added: α of the seeds' whole weight first, then at most (1 − α) of the level before
    assert pushed.residuals[0] == pytest.approx(0.15, abs=1e-15)
    assert all(b <= 0.85 * a + 1e-15 for a, b in zip(pushed.residuals, pushed.residuals[1:]))


def test_a_walk_by_push_whose_order_is_not_proven_pushes_finer_until_it_is(core_index):
    """At ε = 1e-4 the data room's demo question's top 10 is not proven; pushed again at tenths of ε, it is, and
    then it is the exact walk's top 10."""
    question = MULTI_HOP
    exact = core_index.retriever("ppr-regex", SearchConfig(graph=GraphParams(walk_mode="exact"))).search(question, 10)
    coarse = core_index.retriever("ppr-regex", SearchConfig(graph=GraphParams(walk_mode="push", eps=1e-4, eps_floor=1e-4)))
    _, first = coarse.run(question)
    assert not first.proven and first.eps == 1e-4
    degrees = coarse.graph.local_walk.degrees[:coarse.graph.n_passages]
    assert 0 < first.errors(degrees).max() < first.bound / 2  # a passage's own bound: 0.06 at most, against 0.14
    refined = core_index.retriever("ppr-regex", SearchConfig(graph=GraphParams(walk_mode="push", eps=1e-4)))
    _, walk = refined.run(question)
    assert walk.proven and walk.eps < 1e-4
    assert [h.passage_id for h in refined.search(question, 10)] == [h.passage_id for h in exact]
    from engine.explain.jsonout import walk_json

    said = walk_json(coarse.explain(question, 10))
    assert (said["walk"], said["order_proven"]) == ("push", False) and 0 < said["bound"] < first.bound
    assert walk_json(refined.explain(question, 10))["order_proven"] is True


def test_the_walk_is_by_push_from_a_graph_size_on(core_index, monkeypatch):
    import engine.retrieve.graph_retriever as gr

    r = core_index.retriever("ppr-regex")
    assert not r.pushes and r.graph.W.nnz < gr.LOCAL_FROM_EDGES  # the data room is walked exactly
    monkeypatch.setattr(gr, "LOCAL_FROM_EDGES", r.graph.W.nnz)
    assert r.pushes and r.explain(MULTI_HOP, 3).pushed
    tol = core_index.retriever("ppr-regex", SearchConfig(graph=GraphParams(iterations=200, tol=1e-6)))
    assert not tol.pushes  # an early stop is the exact walk's


@pytest.mark.parametrize("params, message", [
    (dict(walk_mode="local"), "walk_mode must be auto, exact or push, got 'local'"),
    (dict(walk_mode="push", tol=1e-6), "takes no tolerance"),
    (dict(eps=-1.0), "push threshold ε must be 0 or more"),
    (dict(eps_floor=-1.0), "finest threshold eps_floor must be 0 or more"),
])
def test_bad_walk_parameters_are_named(params, message):
    with pytest.raises(PathLensError, match=message):
        GraphParams(**params)


def test_json_keeps_its_keys_where_the_python_names_differ(tiny):
    """`--json` prints the walk's mode as `walk` and a seed's passage count as `passages` (the keys scripts read),
    whatever the attributes are called."""
    from engine.explain.jsonout import config_json, walk_json

    graph = config_json(SearchConfig(graph=GraphParams(walk_mode="push")))["graph"]
    assert graph["walk"] == "push" and "walk_mode" not in graph
    said = walk_json(Index(tiny).retriever("ppr-regex").explain("who does calder bank lend to?", 3))
    assert [(s["entity"], s["passages"]) for s in said["seeds"]] == [("calder bank", 1)]
    assert not any("passage_count" in s for s in said["seeds"])


def test_a_name_no_passage_holds_seeds_nothing_and_divides_by_no_zero():
    """A structure node with no page of its own (a filing graph's) has degree 0: seeding it gave 1/0 weights and a
    NaN seed distribution (a RuntimeWarning while training the page ranker)."""
    import warnings

    from scipy import sparse

    from engine.graph.entity_graph import build_from_incidence
    from engine.retrieve.seeding import EntitySeeder, SeedingParams

    incidence = sparse.csr_matrix(np.array([[1, 0], [1, 0]], dtype=float))  # "orphan" is in no passage
    graph = build_from_incidence("t", ("p0", "p1"), ("calder bank", "orphan"), ("Calder Bank", "Orphan"), incidence)
    seeder = EntitySeeder(graph, lambda q: ["calder bank", "orphan"], SeedingParams(vocabulary=False))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seeds = seeder.seeding("Calder Bank and Orphan").seeds
    assert [(s.entity, s.weight) for s in seeds] == [("calder bank", 1.0)]


def test_what_a_what_if_makes_again_is_read_from_the_parts_registry():
    """#63.19: every part an index keeps is registered with what it is made from, and a what-if makes again exactly
    the parts made from a graph (hand list below), sharing the rest; an unregistered part is refused, never kept."""
    from engine.components import made_from_any
    from engine.filings.graph import EdgeWeights
    from engine.ingest.corpus import Corpus
    from tests.filingmaker import filing_pages
    from tests.test_filings import passages_of

    idx = Index(Corpus("acme", tuple(passages_of("ACME_2019_10K.pdf", filing_pages(2019, 1_028))
                                     + passages_of("ACME_2020_10K.pdf", filing_pages(2020, 1_119)))))
    idx.bm25(), idx.tfidf(), idx.aliases("regex"), idx.subject_graph("regex", 0.5), idx.page_facts()
    idx.filing_graph(EdgeWeights()), idx.passage_titles()
    assert made_from_any({"graph"}) == {"aliases", "subjects", "about-graph", "filing-graph"}
    gone = idx.graph("regex").entities[0]
    sub = without(idx, entities=[gone])
    kept = sub.memo.snapshot()
    for key, value in idx.memo.snapshot().items():
        kind = key.partition(":")[0]
        if kind in made_from_any({"graph"}):
            assert key not in kept, key  # made again from the graph without the entity
        elif kind != "graph":
            assert kept[key] is value, key  # shared: nothing recounted
    assert gone not in sub.graph("regex").entity_index and sub.removed_entities == {gone}
    assert gone in idx.filing_graph(EdgeWeights()).graph.entity_index  # the kept one still walks through it…
    assert gone not in sub.filing_graph(EdgeWeights()).graph.entity_index  # …the what-if's never does
    assert sub.aliases("regex") is not idx.aliases("regex")
    with pytest.raises(KeyError, match="'stale-part' is no part of engine.components"):
        idx.memo.get("stale-part", lambda: 1)
    assert Index(idx.corpus, removed_entities=frozenset({gone})).graph("regex").entities == sub.graph("regex").entities
