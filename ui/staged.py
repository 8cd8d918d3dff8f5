"""Answers while a room builds: the Query page asks `who_answers`, which answers with the chosen retriever when its
slow stages (encoding, NER) are on disk, and otherwise with its stand-in while they build in the background (the
question's filings encoded first), saying so in one sentence that follows the build and offers to ask again."""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

import pandas as pd

from engine.catalog import CATALOG, spec
from engine.components import label
from engine.indexing.availability import Answerer, answerer, cost_order, ready, room_stages
from engine.indexing.background import BuildJob, running, stopped
from engine.jobs import JobStatus
from engine.indexing.index import Index, SearchConfig
from engine.retrieve.retrievers import Retriever
from engine.retrieve.rrf_retriever import RRFConfig
from ui.builds import (FOLLOW_EVERY_S, FOLLOWED, SMALL_ROOM_PASSAGES, count_words, ensure, follow_build, over_soon,
                       show_built, stages_for, step_words, time_left_words)
from ui.render import show_table
from engine.indexing.factory import Retrievers
from engine.ingest.corpus import bundled_names


@dataclass(frozen=True)
class Choice:
    """Who answers a question now, and the build of what the chosen retriever still waits for."""

    answerer: Answerer
    name: str  # who answers: the chosen retriever, or its stand-in
    job: BuildJob | None  # the background build of the chosen retriever's slow stages; None when nothing waits
    early: tuple[str, ...] = ()  # the filings whose passages were encoded first, when they answer for the whole
    # the answering retriever over the whole index, made once per run (None: the page asks the index for it)
    retriever: Retriever | None = field(default=None, compare=False)


def who_answers(index: Index, name: str, config: SearchConfig, question: str) -> Choice | None:
    """The retriever that answers now (None while its own cheap stages are being built: the page stops)."""
    a = answerer(name, index.stored, config.rrf.members)
    if not a.standing_in:
        return Choice(a, name, None) if ensure(index, stages_for([name], config.rrf.members)) else None
    # a bundled room small enough is built before its first answer, so its demo opens as the README says; a room
    # someone brings, or a build past the wait, is answered at once by a stand-in while it builds
    if _small_bundled(index) and _built_whole(index, name, a, config):
        return Choice(answerer(name, index.stored, config.rrf.members), name, None)
    stand_in_box = st.empty()  # replaced by the whole room's box when the rest is built in the moment waited
    with stand_in_box.container():
        if not ensure(index, stages_for([a.name]), purpose=stand_in_purpose(a.name)):
            return None
    stand_in = index.retriever(a.name, config)
    first: tuple[str, ...] = ()
    if spec(name).stand_in == "filing-graph":  # the filings retriever reads dense seeds from the scoped filings only
        first = tuple(stand_in.scope(question).filings)
    job = follow_build(index, stages_for([name], config.rrf.members), first=first)
    if _first_look(job) and over_soon(job, renew=job.touch) and job.status().error is None:
        # built within the moment waited (from kept parts, or a small room): the chosen retriever answers, nothing
        # stands in, and the one box says the room is ready, not that a stand-in answers meanwhile
        if not ensure(index, stages_for([name], config.rrf.members)):
            return None
        with stand_in_box.container():
            show_built(index, job)
        return Choice(answerer(name, index.stored, config.rrf.members), name, None)
    early = Retrievers(index).early(name, config, first)
    if early is not None:
        return Choice(a, name, job, first, early)
    return Choice(a, a.name, job, (), stand_in)


def stand_in_purpose(name: str) -> str:
    """What a stand-in's build box says it was built for. The box stays on the page once the rest is built, so it
    says nothing of the build to come ("… which answers while the rest is built" read as stale beside "… is ready
    now": a walk-through)."""
    return f"{name}, the quicker retriever that answers first"


def _built_whole(index: Index, name: str, a: Answerer, config: SearchConfig) -> bool:
    """A small bundled room's first look: wait for everything `name` needs, under a spinner saying what is built, and
    show the finished build in one box (the stand-in's would say that it answers meanwhile). False when the build
    is not over within the wait, or failed, or this session has already waited for it: the stand-in then answers."""
    job = follow_build(index, stages_for([name], config.rrf.members))
    if not _first_look(job):
        return False
    if not job.wait(0):
        with st.spinner(f"Building {index.corpus.name} ({len(index.corpus.passages)} passages) for {name} before its "
                        f"first answer: {a.words()}…"):
            over_soon(job, renew=job.touch, passages=len(index.corpus.passages))
    if not job.wait(0) or job.status().error is not None:
        return False
    show_built(index, job)
    return True


def _first_look(job: BuildJob) -> bool:
    """True the first time this session meets `job`: only then is a moment's wait for it worth it (a small room is
    built by then). Every later rerun under the same build answers at once."""
    seen = st.session_state.setdefault("builds_waited_on", set())
    first = id(job) not in seen
    seen.add(id(job))
    return first


def retriever_for(index: Index, view: Index, choice: Choice, config: SearchConfig) -> Retriever:
    """The answering retriever over `view` (the index with a what-if's removals, or the index itself). A what-if's
    view has no early embeddings of its own: there the stand-in answers."""
    if view is index and choice.retriever is not None:
        return choice.retriever
    return view.retriever(choice.answerer.name if choice.early else choice.name, config)


def progress_words(s: JobStatus, room: int = 0) -> str:
    """"now at step 2 of 3, dense embeddings (all-MiniLM-L6-v2): 600 of 1,000 passages, about 4 min left in this
    step" of a build still under way (`step_words`, as its box says it; `room` the room's passages)."""
    return f"now at {step_words(s, room)}" if s.step else "now finishing"


def _room(choice: Choice) -> int:
    return choice.job.passages if choice.job is not None else 0


def sentence(choice: Choice, s: JobStatus, filings_named: str = "") -> str:
    """What the page says above an answer given while the chosen retriever's stages build."""
    a = choice.answerer
    if s.error is not None:
        # asking again starts a new build (background.build_in_background); a reload would lose a session's uploads
        if s.cancelled:
            return (f"Answered by {choice.name}: the build of {a.words()} stopped before it finished. Ask again to build "
                    "it once more.")
        return f"Answered by {choice.name}: {a.words()} could not be built ({s.error}). Ask again to build it once more."
    if choice.early:
        head = (f"Answered by {a.wanted} from {filings_named or 'the question’s filings'}, encoded first: the answer "
                "the finished index gives.")
        rest = (f" The rest of the room is still being encoded; {progress_words(s, _room(choice))}."
                if not s.over else "")
        return head + rest
    # "still computing dense embeddings", not "dense embeddings is": a stage's name may be plural
    if s.over:
        return f"Answered by {choice.name} while computing {a.words()}; {a.wanted} is ready now."
    return (f"Answered by {choice.name}, still computing {a.words()}; {progress_words(s, _room(choice))}. Ask again "
            f"then for the full {a.wanted} retriever.")


def stand_in_words(choice: Choice) -> str:
    """What a stand-in's answer is worth, for a reader who knows no retriever by name (second walk-through: its
    pages were often worse, and nothing said so)."""
    a = choice.answerer
    # no verb agrees with the stages' words: "dense embeddings" is one stage, and plural (a walk-through read "dense
    # embeddings … is still being computed")
    return (f"A quicker retriever ({choice.name}) answers now, without {a.words()}, which the room is still computing, "
            f"so its answers can be less apt than those of {a.wanted}, the one you chose.")


def follow(choice: Choice, filings_named: str = "") -> None:
    """The sentence, kept current every second while the build runs (which renews its lease); once the chosen
    retriever is ready, a button asks again with it."""
    if choice.job is None:
        return

    @st.fragment(run_every=FOLLOW_EVERY_S)
    def watch() -> None:
        choice.job.touch()
        s = choice.job.status()
        if s.cancelled and s.over:  # stopped while this tab still followed it (its reruns held up past the lease on
            st.rerun()  # a loaded server): the page asks again, which starts it again from the stages on disk
        done = s.over and s.error is None
        box = st.success if done and not choice.early else st.info
        box(sentence(choice, s, filings_named))
        if not choice.early and not s.over:
            st.caption(stand_in_words(choice))
        if done and not choice.early:
            if st.button(f"Ask again with {choice.answerer.wanted}", key="ask_again", type="primary",
                         help="The same question, answered by the retriever you chose, now that it is built."):
                st.rerun()  # the whole page: inside a fragment, a click reruns only the fragment
        elif s.error is not None:
            if st.button("Ask again", key="ask_again", help="The same question: its build starts once more."):
                st.rerun()
        elif not s.over:  # the step's own share, with its count (a walk-through met an unlabelled 52% of the whole
            # build beside "256 of 1,261 passages")
            st.progress(s.step_fraction(), text=count_words(s, _room(choice)) if s.total else step_words(s))

    watch()




def stage_rows(index: Index, jobs: tuple[BuildJob, ...]) -> list[dict[str, str]]:
    """The room's stages as the Corpus page lists them: built, in progress (count and time left), or to come."""
    flight = {s.step: s for s in (job.status() for job in jobs) if s.step}
    rows = []
    for stage in room_stages():
        if index.stored(stage):
            took = index.timings.get(stage)
            state = "built" + (f" in {took:.1f} s" if took is not None and took >= 0.05 else "")
        elif stage in flight:
            s = flight[stage]
            left = s.seconds_left()
            state = (f"in progress: {count_words(s, len(index.corpus))}" if s.total else "in progress") + (
                f", {time_left_words(left)}" if left is not None else "")
        else:
            state = "to come"
        rows.append({"stage": label(stage), "state": state})
    return rows


def next_ready(index: Index) -> str:
    """"Next: filing, once dense embeddings (all-MiniLM-L6-v2) are built." — or that every retriever is ready."""
    now = ready(index.stored)
    waiting = [n for n in CATALOG if n not in now]
    if not waiting:
        return "Every retriever is ready."
    nxt = min(waiting, key=lambda n: max((cost_order(s) for s in stages_for([n], RRFConfig().members)
                                          if not index.stored(s)), default=0))
    needs = [s for s in room_stages() if s in stages_for([nxt], RRFConfig().members) and not index.stored(s)]
    return f"Next: {nxt}, once {' and '.join(label(s) for s in needs)} {'is' if len(needs) == 1 else 'are'} built."


def revive(index: Index) -> None:
    """A build of `index` this tab followed that stopped for want of its lease (`background.stopped`) is started
    again and followed, as the Query page's own build is."""
    for job in stopped(index, tuple(st.session_state.get(FOLLOWED, ()))):
        follow_build(index, job.stages)


def _small_bundled(index: Index) -> bool:
    return index.corpus.name in bundled_names() and len(index.corpus.passages) <= SMALL_ROOM_PASSAGES


def build_waits_words(index: Index) -> str:
    """What the Query page says before a first question when the room's slow stages are not built and no build runs:
    a walk-through waited on an upload for a build that only a question starts."""
    left = [label(s) for s in room_stages() if cost_order(s) and not index.stored(s)]
    if not left or running(index) or _small_bundled(index):  # a small bundled room is built whole at its first question
        return ""
    return (f"Not built yet for this room: {', '.join(left)}. Your first question starts what its retriever needs, "
            "and is answered at once while that builds. “Build the rest now” on the Corpus page "
            "builds it all without a question.")


def show_room_build(index: Index) -> None:
    """The Corpus page's build panel: each stage's state, the retrievers ready now and the next one; a button
    builds the rest in the background, and the panel follows any build of this room, whoever started it."""
    left = [s for s in room_stages() if not index.stored(s)]
    revive(index)
    jobs = running(index)
    if left and not jobs and st.button("Build the rest now", key="build_rest",
                                       help="Encode and read names for the whole room in the background, so every "
                                            "retriever is ready; you can go on asking meanwhile."):
        jobs = (follow_build(index, left),)

    @st.fragment(run_every=FOLLOW_EVERY_S if jobs else None)
    def panel() -> None:
        revive(index)
        current = running(index)
        if jobs and not current:  # the build this page drew under is over: the whole page reads the new status
            st.rerun()
        for job in current:
            job.touch()  # followed here: the build goes on
        show_table(pd.DataFrame(stage_rows(index, current)), wide=("state",), hide_index=True, width="stretch")
        now = ready(index.stored)
        st.caption(f"Ready now: {', '.join(now) if now else 'no retriever yet'}. {next_ready(index)}")

    panel()


__all__ = ["Choice", "build_waits_words", "follow", "next_ready", "progress_words", "retriever_for", "sentence",
           "show_room_build", "stage_rows", "who_answers"]
