"""Corpora at the edges: one passage, duplicates, no entities, non-Latin and right-to-left text, long passages."""

import pytest

from engine.ingest.passage import chunk_text, ChunkConfig
from engine.errors import NoSeedError, PathLensError
from engine.evaluate.evaluate import evaluate
from engine.indexing.index import Index
from tests.conftest import make_corpus


def test_one_passage_corpus_answers_every_retriever():
    idx = Index(make_corpus(["Calder Bank lends to Brightwater Logistics."]))
    for name in ("bm25", "tfidf", "dense", "ppr-regex", "bct-regex", "rrf"):
        hits = idx.retriever(name).search("Who lends to Brightwater Logistics?", 5)
        assert [h.passage_id for h in hits] == ["p0"], name


def test_identical_duplicate_passages_tie_in_corpus_order():
    idx = Index(make_corpus(["Calder Bank lends money.", "Calder Bank lends money.", "Other text here."]))
    for name in ("bm25", "tfidf", "dense", "ppr-regex"):
        hits = idx.retriever(name).search("Calder Bank", 2)
        assert [h.passage_id for h in hits] == ["p0", "p1"] and hits[0].score == hits[1].score, name


def test_passage_without_entities_is_isolated_not_fatal():
    idx = Index(make_corpus(["Calder Bank lends to Brightwater.", "all lower case, no names at all"]))
    assert idx.graph("regex").stats().isolated_passages == 1
    assert [h.passage_id for h in idx.retriever("ppr-regex").search("Calder Bank", 5)] == ["p0"]


def test_non_latin_and_right_to_left_text():
    idx = Index(make_corpus(["صندوق الاستثمار يملك شركة النور", "東京の投資ファンドが株式を取得した", "Calder Bank lends."]))
    assert idx.retriever("bm25").search("شركة النور", 1)[0].passage_id == "p0"
    assert idx.retriever("dense").search("صندوق الاستثمار", 1)[0].passage_id == "p0"
    assert idx.retriever("dense").search("東京の投資ファンド", 1)[0].passage_id == "p1"
    with pytest.raises(NoSeedError):
        idx.retriever("ppr-regex").search("شركة النور", 3)  # the regex builder names Latin capitals only


def test_very_long_passage_is_chunked_on_word_boundaries():
    text = " ".join(["Brightwater Logistics expanded again."] * 2000)
    chunks = chunk_text(text, ChunkConfig(max_chars=1000, overlap_chars=100))
    assert len(chunks) > 60 and all(len(c) <= 1000 for c in chunks)
    idx = Index(make_corpus([text]))  # one huge passage still indexes
    assert idx.retriever("ppr-regex").search("Brightwater Logistics", 1)[0].passage_id == "p0"


def test_k_larger_than_corpus_returns_all():
    idx = Index(make_corpus(["Calder Bank", "Calder Bank again", "Brightwater"]))
    assert len(idx.retriever("dense").search("bank", 50)) == 3


def test_eval_without_labeled_queries_says_so():
    with pytest.raises(PathLensError, match="no labeled queries"):
        evaluate(Index(make_corpus(["x y z"])), ["bm25"])


@pytest.mark.parametrize("question", ["?!", "<br><b></b>", "… — ;", "<script></script>", "<script>alert(1)</script>"])
def test_a_question_of_punctuation_or_markup_only_is_refused_with_why(question):
    idx = Index(make_corpus(["Calder Bank lends to Brightwater.", "Elliot Park is its CFO."]))
    with pytest.raises(PathLensError, match="^Nothing in this question can be searched: it holds only punctuation"):
        idx.retriever("bm25").answer(question, 3)
    assert idx.retriever("bm25").answer("Calder?", 1).hits[0].passage_id == "p0"  # a word among the marks is enough


def test_markup_in_a_question_is_dropped_and_said():
    from engine.retrieve.retrievers import check_query, markup_note

    idx = Index(make_corpus(["Calder Bank lends to Brightwater.", "The script of the alert is here."]))
    # the tags are not searched: "script" would have matched p1
    hits = idx.retriever("bm25").answer("<script>x</script><b>Calder</b> Bank?", 2).hits
    assert [h.passage_id for h in hits] == ["p0"]
    assert check_query("<b>Calder</b>  Bank?") == "Calder Bank?"
    assert markup_note("<b>Calder</b> Bank?") == "Markup in the question was dropped; searched for “Calder Bank?”."
    assert markup_note("Is revenue < 5 billion?") is None and check_query("Is revenue < 5 billion?") == "Is revenue < 5 billion?"


def test_the_words_no_seed_covers_are_the_searched_words_not_the_markups():
    idx = Index(make_corpus(["Calder Bank lends to Brightwater.", "Elliot Park is its CFO."]))
    walk = idx.retriever("ppr-regex").explain("<b>Calder Bank</b><script>alert(1)</script> lenders", 2)
    assert walk.uncovered_words() == ("lenders",)
