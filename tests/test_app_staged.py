"""AppTests of a room that answers while it builds: the Query page's stand-in and its sentence, the Corpus page's
build panel; and the sentence's words, by hand."""

from __future__ import annotations

import json
import re

from engine.indexing.availability import Answerer
from engine.indexing.background import running
from engine.jobs import JobStatus
from tests.test_app import hit_lines, start, watched
from ui.staged import Choice, sentence

QUESTION = "Who is the CFO of Brightwater Logistics?"


def _fresh_room(monkeypatch, tmp_path, stages=("tokens", "bm25", "extraction:regex", "graph:regex")):
    """The default room over an empty disk cache with its cheap stages built, pages drawing while builds run."""
    import streamlit as st

    from ui.corpora import _bundled_index

    st.cache_resource.clear()
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path))
    index = _bundled_index("dataroom-core")
    index.build_stages(list(stages))
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "0")
    return index


def test_a_question_asked_while_the_room_builds_is_answered_by_a_ready_retriever(monkeypatch, tmp_path):
    index = _fresh_room(monkeypatch, tmp_path)
    at = start(params={"q": QUESTION})
    said = [i.value for i in at.info if i.value.startswith("Answered by ")]
    assert len(said) == 1 and re.fullmatch(
        r"Answered by bm25, still computing dense embeddings \(all-MiniLM-L6-v2\) and entity extraction \(spaCy NER\); "
        r"now (finishing|at step \d of \d, [^:.]+(: [\d,]+ of [\d,]+ passages, (estimating the time left|about \d+ (s|min) "
        r"left( in this step)?))?)\. Ask again then for the full hybrid-ner retriever\.", said[0]), said
    assert [h.value for h in at.subheader if h.value.startswith("Top ")] == ["Top 5 passages · bm25"]
    assert len(hit_lines(at)) == 5
    # the bar is the step's own share, labelled with its count (a walk-through met an unlabelled share of the whole
    # build beside the step's count)
    for bar in at.get("progress"):
        counted = re.fullmatch(r"([\d,]+) of ([\d,]+) passages.*", bar.proto.text)
        assert counted or bar.proto.text in ("starting", "finishing") or bar.proto.text.startswith("step "), bar.proto.text
        if counted:
            done, total = (int(g.replace(",", "")) for g in counted.groups())
            assert bar.proto.value == int(100 * done / total), (bar.proto.value, bar.proto.text)
    assert ("A quicker retriever (bm25) answers now, without dense embeddings (all-MiniLM-L6-v2) and entity "
            "extraction (spaCy NER), which the room is still computing, so its answers can be less apt than those "
            "of hybrid-ner, the one you chose.") in [
        c.value for c in at.caption]  # what the stand-in's answer is worth, in words (second walk-through)
    (job,) = running(index)  # the chosen retriever's stages, building in the background
    assert job.stages[-2:] == ("extraction:ner", "graph:ner") and "embeddings" in job.stages
    # the tab follows it: each of its script runs renews the build's lease while it lasts (app.py), so a question
    # whose answer takes longer than the lease no longer stops the build (#63 walk-through)
    assert job in at.session_state["followed_builds"]
    watched(job)
    at.run()  # asked again once built: the chosen retriever answers, and nothing stands in
    assert [h.value for h in at.subheader if h.value.startswith("Top ")] == ["Top 5 passages · hybrid-ner"]
    assert not [i.value for i in at.info if i.value.startswith("Answered by ")]
    # the stand-in's ranking is no baseline: the first answer of the chosen retriever carries no arrows
    assert not [h for h in hit_lines(at) if re.search(r" · (↑\d+|↓\d+|=|new)( |$)", h)], hit_lines(at)


def test_a_small_bundled_room_is_built_whole_before_its_first_answer_under_one_box(monkeypatch, tmp_path):
    """The README's demo room on a fresh server: its first view is the chosen retriever's, and the one build box says
    the room is ready, not that a stand-in "answers while the rest is built" (it answered nothing)."""
    _fresh_room(monkeypatch, tmp_path, ())
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "600")
    at = start(params={"q": QUESTION})
    assert [h.value for h in at.subheader if h.value.startswith("Top ")] == ["Top 5 passages · hybrid-ner"]
    assert not [i.value for i in at.info if i.value.startswith("Answered by ")]
    assert [s.label for s in at.status] == ["Index of dataroom-core ready"]
    at.run()  # a rerun: nothing left to build, nothing said of a build
    assert not at.status and [h.value for h in at.subheader if h.value.startswith("Top ")] == [
        "Top 5 passages · hybrid-ner"]


def test_before_a_first_question_the_query_page_says_what_the_question_will_start(monkeypatch, tmp_path):
    """An upload's slow stages wait for a first question; the page says so, and that the Corpus page builds them
    without one (#63 walk-through: an analyst waited on a build nothing had started)."""
    import ui.staged

    index = _fresh_room(monkeypatch, tmp_path, ("tokens", "extraction:regex", "graph:regex"))
    said = ("Not built yet for this room: dense embeddings (all-MiniLM-L6-v2), entity extraction (spaCy NER), entity "
            "graph (spaCy NER). Your first question starts what its retriever needs, and is answered at once while "
            "that builds. “Build the rest now” on the Corpus page builds it all without a question.")
    assert said not in [c.value for c in start(params={"q": ""}).caption]  # a small bundled room: built whole at once
    monkeypatch.setattr(ui.staged, "SMALL_ROOM_PASSAGES", 0)  # a room as big as an upload
    at = start(params={"q": ""})
    assert said in [c.value for c in at.caption]
    at.text_input(key="question").set_value(QUESTION).run()  # asked: a stand-in answers and the build runs
    assert said not in [c.value for c in at.caption]
    for job in running(index):
        watched(job)


def _stages(at):
    (table,) = [d.value for d in at.dataframe if "stage" in d.value.columns]
    return table


def test_the_corpus_page_lists_each_stage_what_is_ready_and_what_is_next(monkeypatch, tmp_path):
    index = _fresh_room(monkeypatch, tmp_path, ("tokens", "extraction:regex", "graph:regex"))
    at = start("pages/corpus.py", params={"q": "?!"})
    table = _stages(at)
    assert list(table["stage"]) == ["tokenising passages", "entity extraction (regex)", "entity graph (regex)",
                                    "dense embeddings (all-MiniLM-L6-v2)", "entity extraction (spaCy NER)",
                                    "entity graph (spaCy NER)"]
    assert [s.split(" in ")[0] for s in table["state"]] == ["built"] * 3 + ["to come"] * 3
    # the state is drawn wide: "in progress: 0 of 1,267 passages (68 more repeat a text …" was cut (a walk-through)
    (frame,) = [d for d in at.dataframe if "stage" in d.value.columns]
    assert json.loads(frame.proto.columns)["state"]["width"] == "large"
    ready = [c.value for c in at.caption if c.value.startswith("Ready now: ")]
    assert ready == ["Ready now: bm25, tfidf, ppr-regex, bct-regex, filing-graph. Next: dense, once dense embeddings "
                     "(all-MiniLM-L6-v2) is built."]
    at.button(key="build_rest").click().run()
    (job,) = running(index)
    assert job.stages == ("embeddings", "extraction:ner", "graph:ner")
    watched(job)
    at.run()
    assert list(_stages(at)["state"].str.split(" in ").str[0]) == ["built"] * 6
    assert [c.value for c in at.caption if c.value.startswith("Ready now: ")][0].endswith("Every retriever is ready.")


def _status(finished=(), done=0, total=0, seconds=0.0, complete=False, error=None) -> JobStatus:
    stages = ("tokens", "embeddings")
    return JobStatus("" if complete else stages[len(finished)], done, total, seconds, complete, False, error,
                     steps=stages, finished=tuple(finished))


def test_the_answered_by_sentence_by_hand():
    waiting = Answerer("filing", "filing-graph", ("embeddings",))
    stand = Choice(waiting, "filing-graph", None)
    # 1 of 2 stages and 600 of 1,000 passages of the other; 400 left at 100 a second (past the settling share). The
    # count is the step's own: a share of the whole build stood still on a step that counts nothing (#63)
    s = _status(("tokens",), 600, 1000, 6.0)
    assert sentence(stand, s) == ("Answered by filing-graph, still computing dense embeddings (all-MiniLM-L6-v2); now "
                                  "at step 2 of 2, dense embeddings (all-MiniLM-L6-v2): 600 of 1,000 passages, about "
                                  "4 s left. Ask again then for the full filing retriever.")
    # the room's size is the job's: a stage counts distinct texts, and says where the rest went (#63 walk-through:
    # "0 of 2,935 passages" beside a room of 2,949)
    class Job:
        passages = 1014
    counted = sentence(Choice(waiting, "filing-graph", Job()), s)
    assert "600 of 1,000 passages (14 more repeat a text or were kept from earlier builds), about 4 s left" in counted
    slow = _status(("tokens",), 100, 1000, 30.0)  # 900 left at 10 a second
    assert "100 of 1,000 passages, about 4 min left. " in sentence(stand, slow)
    # with a stage still to come after the one in flight, the estimate is said to be this step's
    assert "now at step 1 of 2, tokenising passages: 100 of 1,000 passages, about 4 min left in this step. " in sentence(
        stand, _status((), 100, 1000, 30.0))
    # a step that counts nothing is named, with no share of anything
    assert sentence(stand, _status(("tokens",))).endswith(
        "now at step 2 of 2, dense embeddings (all-MiniLM-L6-v2). Ask again then for the full filing retriever.")
    done = _status(("tokens", "embeddings"), complete=True)
    assert sentence(stand, done) == ("Answered by filing-graph while computing dense embeddings (all-MiniLM-L6-v2); "
                                     "filing is ready now.")
    early = Choice(waiting, "filing", None, ("ACME_2019_10K.pdf",))
    assert sentence(early, s, "Acme Widgets FY2019 10-K") == (
        "Answered by filing from Acme Widgets FY2019 10-K, encoded first: the answer the finished index gives. The "
        "rest of the room is still being encoded; now at step 2 of 2, dense embeddings (all-MiniLM-L6-v2): 600 of "
        "1,000 passages, about 4 s left.")
    failed = _status(("tokens",), complete=True, error="disk full")
    assert sentence(stand, failed) == ("Answered by filing-graph: dense embeddings (all-MiniLM-L6-v2) could not be "
                                       "built (disk full). Ask again to build it once more.")  # a reload loses uploads
    # a build whose lease lapsed is over, but nothing was built: never "ready now"
    from dataclasses import replace

    stopped = replace(failed, cancelled=True, error="the build of room was stopped: nobody watched it for 30 s")
    assert sentence(stand, stopped) == ("Answered by filing-graph: the build of dense embeddings (all-MiniLM-L6-v2) "
                                        "stopped before it finished. Ask again to build it once more.")


def test_the_corpus_page_reads_one_status_in_its_table_and_its_sentences(monkeypatch, tmp_path):
    """A room with nothing built: the regex graph is built before the table draws, so the table, its "Ready now"
    and the graph section's sentences say the same."""
    _fresh_room(monkeypatch, tmp_path, ())
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "600")  # the cheap stages are waited for, as on a real page
    at = start("pages/corpus.py", params={"q": "?!"})
    states = dict(zip(_stages(at)["stage"], _stages(at)["state"].str.split(" in ").str[0]))
    assert states["entity graph (regex)"] == states["entity extraction (regex)"] == "built"
    ready = [c.value for c in at.caption if c.value.startswith("Ready now: ")][0]
    assert "ppr-regex" in ready and "no retriever yet" not in ready
    said = " ".join(i.value for i in at.info)
    assert "The regex graph below is ready" in said and "still needs dense embeddings" in said
    assert states["dense embeddings (all-MiniLM-L6-v2)"] == "to come"
    # the regex graph's box, then its aliases' under words of their own, not the same sentence twice
    assert [b.label for b in at.status] == ["Index of dataroom-core ready for its regex entity graph",
                                            "Index of dataroom-core ready for the regex graph's aliases (BCT)"]


def test_a_build_box_says_what_it_was_built_for_when_that_is_not_the_whole_index(tmp_path):
    """The stand-in's stages built are not the room's index: the box said "Index of dataroom ready" beside "still
    being computed (40%)"."""
    from streamlit.testing.v1 import AppTest

    def page(cache: str) -> None:
        from engine.indexing.index import Index
        from engine.ingest.corpus import load_corpus
        from engine.store.cache import DiskCache
        from ui.builds import ensure
        from ui.staged import stand_in_purpose

        index = Index(load_corpus("dataroom-core"), cache=DiskCache(cache))
        ensure(index, ["tokens", "bm25"], purpose=stand_in_purpose("bm25"))

    at = AppTest.from_function(page, args=(str(tmp_path),), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    # true still once the rest is built, beside "… is ready now" (a walk-through read "which answers while the rest
    # is built" there)
    assert [s.label for s in at.status] == ["Index of dataroom-core ready for bm25, the quicker retriever that answers "
                                            "first"]


def test_a_room_built_in_the_moment_waited_says_it_is_ready_not_that_a_stand_in_answers(monkeypatch, tmp_path):
    """A room whose slow stages come back at once (kept parts of its passages, or a quick build) was answered by the
    chosen retriever under a box saying the stand-in "answers while the rest is built" (#63 walk-through)."""
    import streamlit as st

    from tests.test_app import uploaded

    st.cache_resource.clear()
    monkeypatch.setenv("PATHLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATHLENS_BUILD_WAIT_S", "600")  # the moment waited holds the whole build
    room = tmp_path / "room"
    room.mkdir()
    (room / "notes.txt").write_text("Calder Bank lends to Brightwater Logistics under a Credit Agreement.\n\n"
                                    "Brightwater Logistics reported growth. Its CFO is Elliot Park.\n\n"
                                    "The weather was fine and nothing else happened.")
    at = uploaded(room, "notes-room", "notes room", timeout=600, q="Who is the CFO of Brightwater Logistics?")
    assert [h.value for h in at.subheader if h.value.startswith("Top ")] == ["Top 1 passage · hybrid-ner"]
    assert not [i.value for i in at.info if i.value.startswith("Answered by ")]
    assert [s.label for s in at.status] == ["Index of notes room ready"]


def test_a_build_box_says_where_the_passages_its_count_leaves_out_went():
    """The NER step counted 1,942 passages of a 1,955-passage room, and nothing said why (#63 walk-through)."""
    from ui.builds import step_words

    s = JobStatus("extraction:ner", 1200, 1942, 12.0, False, False, None, steps=("tokens", "extraction:ner"),
                  finished=("tokens",))
    assert step_words(s, 1955).startswith(
        "step 2 of 2, entity extraction (spaCy NER): 1,200 of 1,942 passages (13 more repeat a text or were kept from "
        "earlier builds), ")
    assert "more repeat" not in step_words(s, 1942)
