"""An explanation in a reader's words, against hand-computed values; and the demo question is the measured one."""

from types import SimpleNamespace

import pytest
from dataclasses import replace

from engine.explain.reasons import bridged_share, exactness_words, passage_name, path_words, percent, reason
from engine.retrieve.graph_explain import EvidencePath, HitExplanation
from engine.retrieve.retrievers import Hit
from engine.retrieve.seeding import Seed

TITLES = {"APPLE_2022_10K.pdf#p32.1": "Apple Inc. · Form 10-K · fiscal year ended September 24, 2022 · APPLE 2022 10-K",
          "04-update.md#0001": "Brightwater Logistics — Portfolio update Q3 2024",
          "03-credit.md#0000": "Brightwater credit agreement"}


def test_passages_are_named_by_document_and_page_or_part():
    assert passage_name("APPLE_2022_10K.pdf#p32.1", TITLES) == "Apple 2022 10-K p.32, part 2"
    assert passage_name("04-update.md#0001", TITLES) == "Brightwater Logistics — Portf… · part 2"
    assert passage_name("unknown.md#0000", {}) == "unknown.md · part 1"


def test_shares_read_as_whole_percents_and_a_small_one_is_not_nothing():
    assert [percent(x) for x in (0.0, 0.004, 0.294, 1.0)] == ["0%", "<1%", "29%", "100%"]


def _explanation():
    """A hit owing 0.06 to its own passage seed, 0.03 to "Agent" (direct) and 0.01 to Elliot Park, whose heaviest
    route runs through the portfolio update and Brightwater: 60%, 30% and 10% of a score of 0.1."""
    hit = Hit("03-credit.md#0000", 0.1, 1, "hybrid-ner")
    direct = EvidencePath(("Agent", "03-credit.md#0000"), ("e:agent", "p:03-credit.md#0000"), 0.2, 0.2 * 0.15 * 0.85 / 0.1)
    bridged = EvidencePath(("Elliot Park", "04-update.md#0001", "Brightwater", "03-credit.md#0000"),
                           ("e:elliot park", "p:04-update.md#0001", "e:brightwater", "p:03-credit.md#0000"), 0.05, 0.035)
    e = HitExplanation(hit, (("e:agent", 0.03), ("e:elliot park", 0.01), ("p:03-credit.md#0000", 0.06)),
                       (direct, bridged), ("Agent",), ("Agent", "Elliot Park", "dense"))
    seeds = (Seed("agent", "Agent", 0.5, "query", "Agent", "vocabulary", 2),
             Seed("elliot park", "Elliot Park", 0.5, "query", "Elliot Park", "extracted", 1))
    return e, SimpleNamespace(seeds=seeds)


def test_a_hit_is_said_in_one_sentence_of_its_shares():
    e, walk = _explanation()
    assert reason(e) == ("Its score: 60% its similarity to the question, 30% the name “Agent”, "
                               "10% from Elliot Park by way of other passages (strongest route through Brightwater).")
    assert bridged_share(e) == pytest.approx(0.1)
    assert path_words(e.paths[1], TITLES) == ("Elliot Park → Brightwater Logistics — Portfolio update Q3 2024 · part 2 → "
                                              "Brightwater → Brightwater credit agreement · part 1")
    assert path_words(e.paths[1], TITLES, width=30).startswith("Elliot Park → Brightwater Logistics — Portf… · part 2")


def test_seeds_of_one_name_are_said_once_with_their_shares_summed():
    """Two filings' "Income statement" nodes are two seeds with one name: the sentence says the name once."""
    e, _ = _explanation()
    two = replace(e, contributions=(("e:agent", 0.03), ("e:agent 2", 0.01), ("p:03-credit.md#0000", 0.06)),
                  seed_names=("Agent", "Agent", "dense"), paths=e.paths[:1])
    assert reason(two) == "Its score: 60% its similarity to the question, 40% the name “Agent”."


def test_a_part_of_a_filing_is_said_by_its_kind_not_as_a_name():
    """A walk-through's minor: "the name “Income statement”" read a filing's statement as a name in the text."""
    e, _ = _explanation()
    filing = replace(e, contributions=(("e:§statement NIKE.pdf income", 0.05), ("e:§row NIKE.pdf revenues", 0.03),
                                       ("e:§company nike", 0.02)),
                     seed_names=("Income statement", "Revenues", "Nike"), paths=e.paths[:1])
    assert reason(filing) == ("Its score: 50% the statement “Income statement”, 30% the table row “Revenues”, "
                              "20% the company “Nike”.")


def test_the_routes_listed_say_what_they_carry_together_beside_the_seeds_shares():
    from engine.explain.reasons import explanation_lines

    e, _ = _explanation()  # shares 2 × (0.15·0.85/0.1)/… : the direct route 0.2·0.1275/0.1 = 25.5%, the bridged 3.5%
    lines = explanation_lines(e, TITLES)
    assert [kind for kind, _ in lines] == ["reason", "path", "path", "path"]
    assert lines[-1][1] == ("These 2 routes carry 29% of the score together; the shares above count every walk from "
                            "each seed, longer ones included.")
    one = explanation_lines(replace(e, paths=e.paths[:1]), TITLES)
    assert len(one) == 2  # a single route needs no total
    # two routes through passages of one name read alike: said once, with their shares added (a report showed one
    # evidence path twice, a walk-through's minor)
    twice = explanation_lines(replace(e, paths=(e.paths[1], e.paths[1])), TITLES)
    assert twice[1:] == [("path", f"Evidence path: {path_words(e.paths[1], TITLES)} (walks along it carry 7% of the "
                                  "score)")]


def test_the_opening_examples_story_is_its_gold_hit_in_the_top_three_owing_most_to_a_bridge():
    from dataclasses import replace

    from engine.evaluate.demo import graph_story
    from engine.retrieve.retrievers import Answer

    e, walk = _explanation()  # 10% from Elliot Park, its strongest route through Brightwater
    hits = [replace(e.hit, passage_id=pid, rank=r) for r, pid in enumerate(["a#0", "b#0", "03-credit.md#0000", "d#0"], 1)]
    why = {h.passage_id: replace(e, hit=h) for h in hits}
    answer = Answer("hybrid-ner", "q", tuple(hits), why=why, walk=walk)
    story = graph_story(answer, gold={"a#0", "03-credit.md#0000"})
    assert (story.rank, story.seed, story.bridge) == (1, "Elliot Park", "Brightwater")
    assert story.share == pytest.approx(0.1) and story.route_share == pytest.approx(0.1)
    # the share is every walk from the seed; the route named is its strongest, not one carrying it all
    assert story.sentence() == ("Why this example: answer #1 owes 10% of its score to Elliot Park, reached by way of "
                                "other passages; the strongest route runs through Brightwater, a name both passages hold.")
    # a gold hit past the first three is not read; no gold hit in them: no story
    assert graph_story(answer, gold={"b#0", "03-credit.md#0000"}).rank == 2
    assert graph_story(answer, gold={"d#0"}) is None
    assert graph_story(replace(answer, walk=None), gold={"a#0"}) is None


def test_the_demo_question_is_the_one_measurement_chooses(core_index):
    from engine.evaluate.demo import demo_candidates, demo_question

    candidates = demo_candidates(core_index)
    assert {c.query_id for c in candidates} == {q.id for q in core_index.corpus.queries if q.kind == "multi-hop"}
    chosen = demo_question(candidates)
    assert chosen.query_id == core_index.corpus.demo_question  # the manifest names what the measurement chooses
    assert chosen.top_is_gold and chosen.bridged_share == max(c.bridged_share for c in candidates if c.top_is_gold)
    # measured: the chain a two-hop question is about carries little of any top hit (the passage naming the
    # question's entities ranks first), and a third of the answer after it
    assert max(c.top_bridged_share for c in candidates) < 0.05 < chosen.bridged_share
    assert (chosen.query_id, chosen.story_rank) == ("m15", 3)
    assert "from Solano Foods by way of other passages (strongest route through Juniper Peak Growth Fund II)" in chosen.reason


def test_a_manifest_naming_an_unknown_demo_question_is_refused(tmp_path, monkeypatch):
    import json
    import shutil

    from engine.errors import PathLensError
    from engine.ingest import corpus as corpus_module

    room = tmp_path / "room"
    shutil.copytree(corpus_module.CORPORA_DIR / "dataroom-core", room)
    manifest = json.loads((room / "manifest.json").read_text())
    (room / "manifest.json").write_text(json.dumps({**manifest, "demo_question": "m99"}))
    monkeypatch.setattr(corpus_module, "CORPORA_DIR", tmp_path)
    with pytest.raises(PathLensError, match="field 'demo_question': 'm99' is not a labeled question's id"):
        corpus_module.load_corpus("room")


def test_a_walk_says_how_exact_its_scores_are():
    exact = SimpleNamespace(pushed=False, bound=0.0, iterations=20)
    assert exactness_words(exact) == "Every score is exact: the walk ran all 20 steps over the whole graph."
    pushed = SimpleNamespace(pushed=True, bound=0.00423, iterations=20, hits=(SimpleNamespace(score=0.0123456),),
                             proven=True)
    # written out to two significant figures beside the top score, so a reader can compare the two
    assert exactness_words(pushed).endswith("Every score shown is exact to within 0.0042 (the top score is 0.012): "
                                            "never above its exact value, and at most that much below it. These "
                                            "bounds prove the order of the first 10 passages.")
    nothing = SimpleNamespace(pushed=True, bound=0.000021, iterations=20, hits=(), proven=False)
    assert exactness_words(nothing).endswith("exact to within 0.000021: never above its exact value, and at most "
                                             "that much below it. Some of the first 10 passages score closer "
                                             "together than these bounds, even with the walk followed finer, so "
                                             "their order may differ from a whole-graph walk's.")
    whole = SimpleNamespace(pushed=True, bound=0.0, iterations=20, hits=(SimpleNamespace(score=0.1),), proven=True)
    assert exactness_words(whole).endswith("Every score shown is exact: nothing it left behind can reach "
                                           "these passages.")
    tied = SimpleNamespace(pushed=True, bound=0.0, iterations=20, hits=(SimpleNamespace(score=0.1),), proven=False)
    assert exactness_words(tied).endswith("nothing it left behind can reach these passages. Some of the first 10 "
                                          "passages score closer together than these bounds, even with the walk "
                                          "followed finer, so their order may differ from a whole-graph walk's.")


def test_a_share_is_called_the_name_only_when_the_hit_holds_it_listed_route_or_not(core_index):
    """A what-if took out the bridge every listed route to #3 ran through: its Solano Foods share was then said as
    "the name “Solano Foods”" of a passage that does not hold it. Checked here on every hit: a share said as a name
    is a seed the passage holds (its graph mentions), a share said as reached by way of other passages is not."""
    import re

    from engine.explain.reasons import parts
    from engine.indexing.views import without

    demo = "Who is the largest investor in the fund that owns Solano Foods?"
    views = [core_index, without(core_index, entities=["Juniper Peak Growth Fund II"])]
    told = []
    for view in views:
        for name in ("ppr-regex", "hybrid-ner"):
            r = view.retriever(name)
            g = r.graph
            for q in (demo, "Which bank is administrative agent on the credit facility of the company whose CFO is "
                            "Elliot Park?"):
                ans = r.explain(q, 5)
                label_key = {s.label: s.entity for s in ans.seeds}
                label_key |= {f"the question's word “{s.via}”": s.entity for s in ans.seeds if s.rule == "vocabulary"}
                for e in ans.explanations:
                    i = g.passage_index[e.passage_id]
                    held = {g.entities[j] for j in g.blocks[0].indices[g.blocks[0].indptr[i]:g.blocks[0].indptr[i + 1]]}
                    for _, words, _ in parts(e):
                        if m := re.fullmatch(r"the name “(.+)”|(the question's word “.+”)", words):
                            assert label_key[m[1] or m[2]] in held, (name, e.passage_id, words)
                        elif m := re.match(r"from (.+) by way of other passages", words):
                            assert label_key[m[1]] not in held, (name, e.passage_id, words)
                            told.append((view is views[1], e.passage_id, words))
    # the demo's #3 after the what-if: Solano Foods reached through another bridge, said so
    assert any(after and pid.endswith("juniper-peak-ii-q3-2024-lp-report.md#0001") and words.startswith(
        "from Solano Foods by way of other passages (strongest route through ") for after, pid, words in told), told


def test_whole_percents_add_up_as_the_shares_do():
    from engine.explain.reasons import whole_percents

    assert whole_percents([0.335, 0.335, 0.33]) == [34, 33, 33]  # one by one: 34 + 34 + 33 = 101
    assert whole_percents([0.446, 0.334, 0.22]) == [45, 33, 22]  # one by one: 45 + 33 + 22 = 100 already
    assert whole_percents([0.5, 0.25]) == [50, 25]  # a part of a score: its own 75
    assert whole_percents([0.994, 0.006]) == [99, 1]
    # 0.66, 0.66 and 98.68 floor to 98: the two spare go to the largest remainders, .68 then the first .66 (in order)
    assert whole_percents([0.0066, 0.0066, 0.9868]) == [1, 0, 99]
    assert whole_percents([]) == []


def test_each_phrase_a_hits_sentence_uses_is_in_the_glossary():
    """A stakeholder reads "passages like the question that share a name with it" and "by way of other passages"
    under every hit: the glossary says what each means (a walk-through found neither)."""
    import inspect

    from engine.explain import reasons
    from engine.explain.glossary import definition, lookup

    said = definition(lookup("Its score"))
    source = inspect.getsource(reasons.parts)
    for phrase in ("its similarity to the question", "passages like the question that share a name with it",
                   "by way of other passages", "the second hop", "the name “"):
        assert phrase in source and phrase.rstrip("“") in said, phrase


def test_a_seed_the_question_names_by_a_lower_case_word_is_said_as_its_word_not_a_name():
    """The demo's "the fund that owns Solano Foods" matches the data room's defined term "Fund": the score owes it to
    the question's word, which the sentence says, not to a name the question wrote."""
    e, _ = _explanation()
    worded = replace(e, seed_words=("agent", "", ""))
    assert reason(worded) == ("Its score: 60% its similarity to the question, 30% the question's word “agent”, "
                              "10% from Elliot Park by way of other passages (strongest route through Brightwater).")


def test_a_vocabulary_seed_keeps_the_question_s_own_writing():
    from engine.indexing.index import Index
    from engine.ingest.corpus import load_bundled

    r = Index(load_bundled("dataroom-core")).retriever("ppr-regex")
    seeds = {s.label: s for s in r.seeder.seeding("Who is the largest investor in the fund that owns Solano Foods?").seeds}
    assert (seeds["Fund"].rule, seeds["Fund"].via) == ("vocabulary", "fund")
    walk = r.explain("Who is the largest investor in the fund that owns Solano Foods?", 5)
    said = [reason(e) for e in walk.explanations]
    assert any("the question's word “fund”" in s for s in said) and not any("“Fund”" in s for s in said)
    assert r.seeder.seeding("Who invests in the Fund?").seeds[0].rule == "extracted"  # written as a name: a name
