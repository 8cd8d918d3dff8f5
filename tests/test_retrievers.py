import os
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from engine.errors import PathLensError
from engine.retrieve.bm25_retriever import BM25Retriever
from engine.retrieve.dense_retriever import DenseRetriever
from engine.retrieve.retrievers import Hit, top_k
from engine.retrieve.rrf_retriever import RRFConfig, RRFRetriever
from engine.retrieve.tfidf_retriever import TfidfRetriever
from engine.text import tokenize
from engine.indexing.factory import Retrievers

DOCS = [
    "The fund called capital from limited partners.",
    "Brightwater Logistics breached its leverage covenant.",
    "Leverage covenant headroom narrowed at Brightwater.",
    "Distribution notices went to every limited partner.",
    "Unrelated text about weather.",
]
IDS = [f"d{i}" for i in range(len(DOCS))]


def test_tokenizer_is_documented_behaviour():
    assert tokenize("What is the Fund's NAV?") == ["fund", "s", "nav"]
    assert tokenize("Société Générale") == ["société", "générale"]


def test_bm25_scores_equal_rank_bm25():
    tokens = [tokenize(d) for d in DOCS]
    r = BM25Retriever(IDS, tokens)
    ref = BM25Okapi(tokens).get_scores(tokenize("leverage covenant at Brightwater"))
    np.testing.assert_allclose(r.scores("leverage covenant at Brightwater"), ref, rtol=1e-13, atol=1e-15)
    # a repeated query word counts twice, as in rank-bm25; unknown words count nothing
    ref2 = BM25Okapi(tokens).get_scores(tokenize("covenant covenant zebra fund"))
    np.testing.assert_allclose(r.scores("covenant covenant zebra fund"), ref2, rtol=1e-13, atol=1e-15)
    hits = r.search("leverage covenant at Brightwater", 10)
    assert [h.passage_id for h in hits] == [IDS[i] for i in np.argsort(-ref, kind="stable")[:2]]
    assert all(isinstance(h, Hit) and h.retriever == "bm25" for h in hits)
    assert [h.rank for h in hits] == [1, 2]


def test_bm25_batch_is_bit_identical_to_single_queries():
    r = BM25Retriever(IDS, [tokenize(d) for d in DOCS])
    queries = ["leverage covenant", "limited partner capital", "weather", "nothing matches"]
    assert [a.hits for a in r.answer_batch(queries, 3)] == [r.search(q, 3) for q in queries]
    assert r.search("nothing matches", 3) == ()


def test_tfidf_equals_an_independent_reference():
    from sklearn.feature_extraction.text import TfidfVectorizer

    r = TfidfRetriever(IDS, [tokenize(d) for d in DOCS])
    vec = TfidfVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None)
    m = vec.fit_transform(DOCS)
    q = "limited partner capital"
    ref = (m @ vec.transform([q]).T).toarray().ravel()
    np.testing.assert_allclose(r.scores(q), ref, rtol=1e-12, atol=1e-12)
    assert r.search(q, 2)[0].passage_id == "d0"


def test_tfidf_over_passages_without_a_word_scores_nothing():
    r = TfidfRetriever(["a", "b"], [[], []])
    assert r.scores("limited partner").tolist() == [0.0, 0.0]
    assert r.search("limited partner", 2) == ()
    r = TfidfRetriever(["a", "b"], [["fund"], []])
    assert r.search("fund fund", 2)[0].passage_id == "a" and r.scores("nothing here")[0] == 0.0


def test_rrf_against_hand_computed_fusion():
    class Fixed:
        def __init__(self, name, ids):
            self.name, self.ids = name, ids

        def search(self, query, k):
            return tuple(Hit(p, 1.0, r, self.name) for r, p in enumerate(self.ids[:k], start=1))

    a, b = Fixed("a", ["x", "y", "z"]), Fixed("b", ["z", "x"])
    rrf = RRFRetriever([a, b], RRFConfig(members=("a", "b"), weights=(1.0, 2.0), k=60), ["x", "y", "z"])
    hits = rrf.search("q", 3)
    expected = {"x": 1 / 61 + 2 / 62, "y": 1 / 62, "z": 1 / 63 + 2 / 61}
    assert [h.passage_id for h in hits] == sorted(expected, key=lambda p: -expected[p])
    for h in hits:
        assert h.score == pytest.approx(expected[h.passage_id])


def test_rrf_config_is_checked():
    with pytest.raises(PathLensError):
        RRFConfig(members=("bm25",), weights=(1.0, 1.0))
    with pytest.raises(PathLensError):
        RRFConfig(members=())


def test_top_k_matches_a_full_sort_with_ties_and_masks():
    rng = np.random.default_rng(11)
    for trial in range(300):
        n = int(rng.integers(0, 40))
        scores = rng.integers(0, 5, n).astype(float)  # many ties
        keep = rng.random(n) < 0.6 if trial % 2 else None
        k = int(rng.integers(1, 45))
        allowed = [i for i in range(n) if keep is None or keep[i]]
        want = sorted(allowed, key=lambda i: (-scores[i], i))[:k]
        assert top_k(scores, k, keep).tolist() == want
    # past 65,536 scores the partition starts from a sampled floor: still exact, ties included
    big = rng.integers(0, 50, 200_000).astype(float)
    for keep in (None, big % 3 > 0, np.zeros(big.size, dtype=bool)):
        allowed = np.arange(big.size) if keep is None else np.flatnonzero(keep)
        want = sorted(allowed.tolist(), key=lambda i: (-big[i], i))[:25]
        assert top_k(big, 25, keep).tolist() == want


def test_top_k_breaks_ties_by_index_and_respects_mask():
    s = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    assert top_k(s, 2).tolist() == [1, 2]
    assert top_k(s, 10).tolist() == [1, 2, 4, 3, 0]
    assert top_k(s, 2, s < 3).tolist() == [3, 0]


def test_bad_query_and_k():
    r = BM25Retriever(IDS, [tokenize(d) for d in DOCS])
    with pytest.raises(PathLensError, match="empty"):
        r.search("   ", 3)
    with pytest.raises(PathLensError, match="k must"):
        r.search("fund", 0)


def test_dense_with_the_real_model():
    from engine.store import dense

    docs = ["The borrower breached its leverage covenant.", "A recipe for apple pie.", "Quarterly fund report."]
    emb = dense.encode(docs)
    assert emb.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    r = DenseRetriever(["a", "b", "c"], emb, dense.encode)
    hits = r.search("covenant default by the borrower", 3)
    assert hits[0].passage_id == "a"
    assert hits[0].score == pytest.approx(float(emb[0] @ dense.encode(["covenant default by the borrower"])[0]), abs=1e-6)
    np.testing.assert_array_equal(dense.encode(docs), emb)  # deterministic


def test_bm25_rankings_match_rank_bm25_on_the_data_room(core_corpus):
    from engine.indexing.index import Index

    idx = Index(core_corpus)
    tokens = [list(t) for t in idx.tokens()]
    ref = BM25Okapi(tokens)
    r = idx.retriever("bm25")
    for q in core_corpus.queries:
        qt = tokenize(q.text)
        s = ref.get_scores(qt)
        shares = [i for i, t in enumerate(tokens) if set(qt) & set(t)]
        want = sorted(shares, key=lambda i: (-s[i], i))[:10]
        assert [h.passage_id for h in r.search(q.text, 10)] == [idx.ids[i] for i in want], q.id


def test_the_onnx_encoder_matches_the_torch_reference(core_corpus):
    # the engine encodes with an ONNX export of the weights; sentence-transformers on torch is the reference
    from engine.store import dense

    texts = [p.text for p in core_corpus.passages] + [q.text for q in core_corpus.queries] + ["", "x", "word " * 400]
    onnx, torch_ = dense.encode(texts), dense.encode_torch(texts)
    assert onnx.shape == torch_.shape == (len(texts), dense.DIM)
    cos = (onnx * torch_).sum(axis=1)
    assert cos.min() >= 0.9999, texts[int(cos.argmin())]
    np.testing.assert_array_equal(dense.encode(texts[::-1]), onnx[::-1])  # order and batching change nothing
    # nor does padding: each text alone (no padding) gives the bits it gets in its padded batch
    np.testing.assert_array_equal(np.vstack([dense.encode([t]) for t in texts[::7]]), onnx[::7])
    assert dense.onnx_path().exists() and dense.onnx_path().parent.parent == Path(os.environ["PATHLENS_CACHE_DIR"])


def test_texts_are_batched_longest_first_in_word_pieces_not_characters():
    from engine.store import dense

    # 23 characters in 8 word pieces (ke ##st ##rel, three times, with [CLS] and [SEP]) against 21 in 13
    texts = ["Kestrel Kestrel Kestrel", "a a a a a a a a a a a", "", "word " * 400, "a a a a a a a a a a a"]
    assert dense.token_counts(texts) == [8, 13, 2, 256, 13]  # truncated at 256, as the encoder reads it
    assert dense.batch_order(texts) == [3, 1, 4, 0, 2]  # ties by position


def test_loading_the_bi_encoder_leaves_numpy_blas_one_thread():
    # OpenBLAS threads beside the encoder's threads oversubscribe two cores (see dense._single_thread_blas)
    from threadpoolctl import threadpool_info

    from engine.store import dense

    dense.load_encoder()
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    assert blas and all(i["num_threads"] == 1 for i in blas)


# ---------------------------------------------------------------- every retriever explained


def test_bm25_term_contributions_sum_to_the_score_and_match_rank_bm25(core_index):
    from rank_bm25 import BM25Okapi

    from engine.text import tokenize

    r = core_index.bm25()
    q = "Which bank is administrative agent on the Brightwater credit agreement agent?"
    hits = r.search(q, 5)
    ex = r.explain_hits(q, [h.passage_id for h in hits])
    ref = BM25Okapi([list(t) or ["\x00"] for t in core_index.tokens()])
    for h in hits:
        e = ex[h.passage_id]
        assert sum(t.contribution for t in e.terms) == pytest.approx(h.score, rel=1e-12)
        assert e.score == pytest.approx(h.score, rel=1e-12)
        i = core_index.ids.index(h.passage_id)
        for t in e.terms:  # each part is rank-bm25's score of that term alone, times its count in the question
            assert t.contribution == pytest.approx(t.query_count * ref.get_scores([t.term])[i], rel=1e-12)
            assert t.tf == core_index.tokens()[i].count(t.term) and t.idf == pytest.approx(ref.idf[t.term])
        assert [t.contribution for t in e.terms] == sorted((t.contribution for t in e.terms), reverse=True)
    agent = next(t for t in ex[hits[0].passage_id].terms if t.term == "agent")
    assert agent.query_count == 2 and tokenize(q).count("agent") == 2


def test_tfidf_term_contributions_sum_to_the_cosine(core_index):
    r = core_index.tfidf()
    q = "Calder Bank credit agreement covenant"
    hits = r.search(q, 4)
    ex = r.explain_hits(q, [h.passage_id for h in hits])
    for h in hits:
        assert sum(t.contribution for t in ex[h.passage_id].terms) == pytest.approx(h.score, rel=1e-12)
        assert all(t.contribution > 0 and t.tf >= 1 for t in ex[h.passage_id].terms)


def test_rrf_votes_sum_to_the_fused_score(core_index):
    from engine.indexing.index import search_config

    config = search_config({}, rrf_members=("bm25", "ppr-regex", "tfidf"), rrf_weights=(1.0, 2.0, 0.5))
    r = core_index.retriever("rrf", config)
    q = "Who lends to Brightwater Logistics?"
    hits = r.search(q, 6)
    ex = r.explain_hits(q, [h.passage_id for h in hits])
    bm25_ranks = {h.passage_id: h.rank for h in core_index.bm25().search(q, 100)}
    for h in hits:
        e = ex[h.passage_id]
        assert sum(v.contribution for v in e.votes) == pytest.approx(h.score, rel=1e-12)
        assert [v.member for v in e.votes] == ["bm25", "ppr-regex", "tfidf"]
        assert e.votes[0].rank == bm25_ranks.get(h.passage_id)
        assert e.votes[1].weight == 2.0
        for v in e.votes:
            assert v.contribution == (v.weight / (60 + v.rank) if v.rank else 0.0)


def test_dense_explanation_gives_the_passage_sentences_nearest_the_question(core_index):
    from engine.store import dense
    from engine.text import split_sentences

    texts = dict(zip(core_index.ids, core_index.texts))  # what was encoded: the title line and the text
    r = Retrievers(core_index).dense()
    q = "What is the total net leverage ratio covenant?"
    hits = r.search(q, 3)
    ex = r.explain_hits(q, [h.passage_id for h in hits])
    qv = dense.encode_queries([q])[0]  # questions and the sentences that explain a hit: the query encoder
    for h in hits:
        e = ex[h.passage_id]
        assert e.score == pytest.approx(h.score)
        sentences = split_sentences(texts[h.passage_id])
        cos = dense.encode_queries(sentences) @ qv
        best = sorted(range(len(sentences)), key=lambda j: -cos[j])[:2]
        assert [m.sentence for m in e.sentences] == [sentences[j] for j in best]
        np.testing.assert_allclose([m.cosine for m in e.sentences], cos[best], rtol=1e-5)
    assert any("Leverage" in m.sentence for m in ex[hits[0].passage_id].sentences)


# ---------------------------------------------------------------- dense search at scale (engine.store.ann)


def test_the_hnsw_index_finds_the_exact_neighbours_of_clustered_vectors_and_pickles():
    import pickle

    from engine.store.ann import HnswIndex

    rng = np.random.default_rng(3)
    centres = rng.standard_normal((50, 64))
    x = centres[rng.integers(0, 50, 5000)] + 0.3 * rng.standard_normal((5000, 64))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    queries = x[rng.choice(5000, 100, replace=False)] + 0.05 * rng.standard_normal((100, 64)).astype(np.float32)
    ann = HnswIndex.build(x)
    found = [set(ann.search(q, 10)[0].tolist()) for q in queries]
    exact = [set(np.argsort(-(x @ q))[:10].tolist()) for q in queries]
    recall = np.mean([len(f & e) / 10 for f, e in zip(found, exact)])
    assert recall >= 0.98, recall
    pos, sims = ann.search(queries[0], 10)
    np.testing.assert_allclose(sims, x[pos] @ queries[0], rtol=1e-5)  # scores are the inner products
    again = pickle.loads(pickle.dumps(ann))  # as the on-disk cache stores it
    assert [a.tolist() for a in again.search(queries[0], 10)] == [b.tolist() for b in (pos, sims)]
    assert [HnswIndex.build(x).search(q, 10)[0].tolist() for q in queries[:20]] == \
        [ann.search(q, 10)[0].tolist() for q in queries[:20]]  # built on one thread: the same graph each time


def test_dense_search_uses_the_ann_index_and_evaluation_stays_exact(core_index):
    from engine.store.ann import HnswIndex

    exact = Retrievers(core_index).dense()
    assert exact.ann is None  # 29 passages: exact
    approx = DenseRetriever(exact.ids, exact.embeddings, exact._encode, exact.texts, HnswIndex.build(exact.embeddings))
    q = "Which bank is administrative agent on the Brightwater credit facility?"
    assert [(h.passage_id, round(h.score, 5)) for h in approx.search(q, 5)] == \
        [(h.passage_id, round(h.score, 5)) for h in exact.search(q, 5)]  # a small graph is searched whole
    batch = approx.answer_batch([q, "Who is the CFO?"], 5)
    assert batch[0].hits == exact.search(q, 5) and batch[1].hits == exact.search("Who is the CFO?", 5)  # exact, bit for bit


def test_rrf_explains_from_the_rankings_it_fused_when_k_passes_its_depth(core_index):
    from engine.indexing.config import SearchConfig

    r = core_index.retriever("rrf", SearchConfig(rrf=RRFConfig(depth=3)))
    ans = r.answer("Who is the CFO of Brightwater Logistics?", 6)
    assert len(ans.hits) == 6
    for h in ans.hits:  # hits 4-6 are fused from ranks past the depth; their votes must still hold them
        why = ans.why[h.passage_id]
        assert why.score == pytest.approx(h.score, rel=1e-12) and why.score > 0
        assert any(v.rank is not None for v in why.votes)
    again = r.explain_hits("Who is the CFO of Brightwater Logistics?", [h.passage_id for h in ans.hits])
    assert {p: e.score for p, e in again.items()} == {p: e.score for p, e in ans.why.items()}


def test_every_retrievers_explanations_sum_to_its_scores_over_random_k_and_depth(core_index):
    """A property over seeded random cut-offs: for every retriever of the catalog, each explained hit's parts add
    up to the score it ranked by."""
    import random

    from engine.catalog import RETRIEVERS
    from engine.indexing.config import SearchConfig

    rng = random.Random(7)
    questions = [q.text for q in core_index.corpus.queries[:4]]
    for name in RETRIEVERS:
        for _ in range(3):
            k, depth = rng.randint(1, 40), rng.randint(1, 30)
            r = core_index.retriever(name, SearchConfig(rrf=RRFConfig(depth=depth)))
            for q in questions:
                ans = r.answer(q, k)
                for h in ans.hits:
                    why = ans.why[h.passage_id]
                    assert why.score == pytest.approx(h.score, rel=1e-9, abs=1e-12), (name, k, depth, q)
                    parts = getattr(why, "contributions", None)
                    if parts is not None:
                        assert sum(c for _, c in parts) == pytest.approx(h.score, rel=1e-9, abs=1e-12), (name, k)
