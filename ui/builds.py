"""Index builds and long jobs as a page shows them: followed live, with progress, and stoppable."""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, Sequence

import streamlit as st

from engine.catalog import spec, stages_for as catalog_stages
from engine.components import label as component_label
from engine.indexing.background import BuildJob, build_in_background
from engine.indexing.compute import Work
from engine.indexing.index import Index
from engine.errors import PathLensError
from engine.ingest.documents import left_out_files
from engine.jobs import Job, JobStatus
from engine.retrieve.rrf_retriever import RRFConfig


def fresh_area(index: Index, stages: Iterable[str], key: str):
    """Where a page draws what depends on `stages` of its index, so that a build never runs under the
    last view's results (another corpus's, or another configuration's), greyed but on screen.

    Streamlit keeps a block's old children until the run that rewrites them ends, but an element
    written where a block was removes it at once. So the area is one of two slots: when a build is
    needed, the results move to the other slot (a fresh block) and an empty element takes the old
    one; otherwise they stay in their slot, and a rerun replaces them in place, without flicker."""
    missing = any(s not in index.built() for s in stages)
    flipped = st.session_state.get(f"fresh_area_{key}", False) ^ missing
    st.session_state[f"fresh_area_{key}"] = flipped
    first, second = st.empty(), st.empty()
    return (first if flipped else second).container()


# A tab that stops following a build (closed) lets its lease lapse, and the build stops at its next progress
# report (engine.indexing.background): within BUILD_LEASE_S plus a fraction of a second.
BUILD_LEASE_S = 3.0
FOLLOW_EVERY_S = 1.0
FOLLOWED = "followed_builds"  # session key: the builds this tab waits on, whose leases its script runs renew


def follow_build(index: Index, stages: Sequence[str], first: Sequence[str] = ()) -> BuildJob:
    """The build of `stages` this tab waits on (engine.indexing.background: started if none runs), its lease renewed
    by every script run of this tab while the run lasts (`renewing_leases`)."""
    job = build_in_background(index, stages, lease=BUILD_LEASE_S, first=first)
    followed = st.session_state.setdefault(FOLLOWED, [])
    if job not in followed:
        followed[:] = [j for j in followed if not j.status().over] + [job]
    return job


@contextmanager
def renewing_leases(jobs: Sequence[BuildJob], every: float = FOLLOW_EVERY_S) -> Iterator[None]:
    """While the block runs, renew the leases of `jobs` every `every` seconds from a thread of its own. A script run
    longer than a lease (an answer computed on a loaded server, after a question) left the tab's build unwatched,
    and every question stopped it: the walk-through saw "0 of 2,123 passages" for minutes. A closed tab runs no
    script, so its builds still lapse."""
    done = threading.Event()

    def renew() -> None:
        while not done.wait(every):
            for job in list(jobs):
                job.touch()

    for job in list(jobs):
        job.touch()
    ticker = threading.Thread(target=renew, name="pathlens-lease", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()


def ensure(index: Index, stages: Iterable[str], purpose: str = "") -> bool:
    """Build the named index components, showing each stage's progress the first time.

    The build runs in a background job shared by every session asking for the same components of
    the same index (engine.indexing.background). A build that is not over within a second is
    followed by a fragment that reruns every second, renewing the build's lease, and reruns the page
    once it is built. So a user who moves to another page leaves it running and comes back to it, and
    a closed tab stops renewing it. Returns True when built; False while building or when a stage
    cannot be built (the reason is shown). `purpose` says what these stages are for when they are not the whole
    index a page wants ("bm25, which answers while the rest is built"): the box then says ready for that only."""
    missing = [s for s in stages if s not in index.built()]
    followed = st.session_state.pop("followed_build", None)
    if not missing:
        if followed is not None and followed[0] is index:  # built while followed: say so once, as a blocking wait does
            _show_build(index, followed[1], followed[2].status(), purpose)
        return True
    planned_work(index, missing)  # what the build will compute, counted before it starts
    job = follow_build(index, missing)
    if over_soon(job, renew=job.touch):  # this run is watching: the lease holds
        return _show_build(index, missing, job.status(), purpose)

    @st.fragment(run_every=FOLLOW_EVERY_S)
    def follow() -> None:
        # asking renews the lease; a build stopped while this tab still followed it (its reruns held up past the
        # lease on a loaded server) is started again from the stages on disk, not reported as given up
        current = follow_build(index, missing) if job.status().cancelled else job
        current.touch()
        s = current.status()
        if s.over and s.error is None:
            st.session_state["followed_build"] = (index, missing, current)
            st.rerun()  # the whole page, now with its results
        _show_build(index, missing, s, purpose)

    follow()
    return False


def show_built(index: Index, job) -> None:
    """The box of a build this run waited for whole (a small bundled room's, before its first answer): each stage
    built, and the index ready."""
    _show_build(index, list(job.stages), job.status())


def planned_work(index: Index, stages: Iterable[str]) -> tuple[Work, ...]:
    """What building `stages` runs a model over (`Index.work`: it hashes every passage and asks the parts store),
    counted once per corpus and stages in a session, not on every rerun: a grown room encodes its new passages only,
    and the page says so before the work starts."""
    key = (index.corpus.fingerprint, tuple(stages))  # by content: a what-if's short-lived index can reuse an id
    held = st.session_state.setdefault("planned_work", {})
    if key not in held:
        held[key] = index.work(key[1])
    return held[key]


def still_to_build(retriever: str, stages: Iterable[str], work: Iterable[Work], building: bool = False) -> str:
    """What the Query page's first question will still build, said on the Corpus page once its graphs are ready:
    the work to come, or, when earlier builds kept every passage's result, that there is none; `building` when a
    build of them runs (a question asked them: a walk-through read "its first question starts building them" over
    a build in progress)."""
    needs = " and ".join(component_label(s) for s in stages)
    if building:
        return (f"The regex graph below is ready. The Query page's default retriever, {retriever}, still needs {needs}: "
                "they are being built now, as the Index build above shows.")
    work = tuple(work)
    if all(not w.passages for w in work):
        kept = "; ".join(f"all {w.stored:,} passages {w.done_words} by earlier builds" for w in work)
        return (f"The regex graph below is ready. The Query page's default retriever, {retriever}, also uses {needs}: "
                f"nothing is left to compute ({kept}), so its first question only gathers them.")
    stand_in = spec(retriever).stand_in
    meanwhile = f", answered by {stand_in} meanwhile" if stand_in else ""
    return (f"The regex graph below is ready. The Query page's default retriever, {retriever}, still needs {needs}: "
            f"its first question starts building them in the background{meanwhile} ("
            + "; ".join(w.words() for w in work) + ").")


SMALL_ROOM_PASSAGES = 500  # a bundled room this small is built before its first answer: its demo opens as the README says
SMALL_ROOM_WAIT_S = 300.0  # at most this long (a cold machine loads spaCy and exports the encoder first)


def over_soon(job, renew: Callable[[], None] = lambda: None, passages: int | None = None) -> bool:
    """Wait a moment for a job: a cache read or a short run is over by then and its page draws at once, with no
    live following. Given `passages` (a bundled room of at most SMALL_ROOM_PASSAGES), the build is waited for whole,
    so its first view is the chosen retriever's, never a stand-in's. (AppTests set PATHLENS_BUILD_WAIT_S to choose the wait themselves.)"""
    small = passages is not None and passages <= SMALL_ROOM_PASSAGES
    wait = os.environ.get("PATHLENS_BUILD_WAIT_S") or (SMALL_ROOM_WAIT_S if small else 1.0)
    deadline = time.monotonic() + float(wait)
    while time.monotonic() < deadline and not job.wait(min(1.0, deadline - time.monotonic())):
        renew()
    return job.wait(0)


def _show_build(index: Index, missing: list[str], s, purpose: str = "") -> bool:
    """The build's status box: finished stages, the one in flight, or why it failed. True when built.

    Written to without a `with` block: leaving one marks a box still "running" complete (a check mark over a build
    that is still at work), so the box keeps its spinner until this says how the build ended."""
    room = room_words(index)
    title = f"Building the index of {room} ({len(index.corpus):,} passages)…"
    box = st.status(title, expanded=not s.over or s.error is not None)
    plan = {w.stage: w for w in planned_work(index, missing)}
    for stage in s.finished:
        hit = index.cache is not None and any(e.component == stage and e.kind == "hit" for e in index.cache.events)
        kept = plan[stage].stored if stage in plan and not hit else 0
        box.write(f"✓ {component_label(stage)} in {index.timings.get(stage, 0.0):.1f} s"
                  + (" (read from the on-disk index cache)" if hit else "")
                  + (f" ({plan[stage].passages:,} passages {plan[stage].done_words}, {kept:,} kept from earlier "
                     "builds)" if kept else ""))
    for w in plan.values():
        if w.stage not in s.finished and not s.over:
            box.write(f"Still to come: {component_label(w.stage)} — {w.words()}")
    if not s.over:
        box.progress(s.step_fraction(), text=step_words(s, len(index.corpus)))  # the bar is the count's share
        return False
    if s.error is not None:
        stage = s.step or (s.steps[len(s.finished)] if len(s.finished) < len(s.steps) else "")
        box.update(label=f"Could not build {component_label(stage)}", state="error")
        box.error(s.error + (" Reload the page to build it again." if s.cancelled else ""))
        return False
    for event in index.cache.events if index.cache else []:
        if event.kind == "rejected" and event.component in missing:
            box.warning(f"Cache file not trusted: {event.detail}")
    box.update(label=f"Index of {room} ready" + (f" for {purpose}" if purpose else ""), state="complete",
               expanded=False)
    return True


def room_words(index: Index) -> str:
    """The room's name, and how many of its files were left out whole ("4 uploaded files (1 left out: see the
    sidebar)"): the name counts what was brought, a walk-through read it as what was indexed."""
    corpus = index.corpus
    whole, _ = left_out_files(corpus.report.skipped, {p.doc_id for p in corpus.passages})
    return corpus.name + (f" ({len(whole)} left out: see the sidebar)" if whole else "")


def time_left_words(seconds: float) -> str:
    """"about 4 min left", "about 40 s left"."""
    return f"about {seconds / 60:.0f} min left" if seconds >= 90 else f"about {seconds:.0f} s left"


def step_words(s: JobStatus, room: int = 0) -> str:
    """A build's step in flight, counted in its own passages: "step 2 of 3, entity extraction (spaCy NER): 1,200 of
    1,942 passages (13 more repeat a text or were kept from earlier builds), about 40 s left in this step". Not a
    share of the whole build: the steps differ in cost by orders of magnitude, so a share of steps stood still, and
    its time left jumped between steps. Given the `room`'s passages, a count short of them says where the rest went.
    The build's box and the answer-while-building sentence both say it."""
    if not s.step:
        return "finishing" if len(s.finished) == len(s.steps) else "starting"
    at = f"step {len(s.finished) + 1} of {len(s.steps)}, {component_label(s.step)}"
    if not s.total:
        return at
    left = s.seconds_left()
    more = len(s.finished) + 1 < len(s.steps)  # later steps' time is not known yet: the estimate is this one's
    eta = "estimating the time left" if left is None else time_left_words(left) + (" in this step" if more else "")
    return f"{at}: {count_words(s, room)}, {eta}"


def count_words(s: JobStatus, room: int = 0) -> str:
    """"1,200 of 1,942 passages (13 more repeat a text or were kept from earlier builds)": a slow stage counts the
    distinct texts it computes, fewer than the room's passages (a walk-through met 2,935 beside 2,949)."""
    rest = (f" ({room - s.total:,} more repeat a text or were kept from earlier builds)"
            if s.step in ("embeddings", "extraction:ner") and 0 < s.total < room else "")
    return f"{s.done:,} of {s.total:,} passages{rest}"


def job_text(s: JobStatus) -> str:
    """A running job's progress in words: what is counted, how far, and the time left at the rate so far."""
    if not s.step:
        return "starting…"
    left = s.seconds_left()
    eta = (f" · about {left:.0f} s left" if left is not None
           else " · estimating the time left…" if s.total and s.done < s.total else "")
    if s.step in ("questions", "trials", "retrievers"):
        return f"{s.step[:-1]} {s.done:,} of {s.total:,}{eta}"
    if s.step == "files":  # an upload's documents, each read in a worker process of its own; one file has no rate
        eta = f" · about {left:.0f} s left" if left is not None else f" · {s.step_seconds:.0f} s so far"
        return f"reading the documents: {s.done:,} of {s.total:,} file{'s' if s.total != 1 else ''} read{eta}"
    return f"building the index, {component_label(s.step)}: {s.done:,} of {s.total:,} passages{eta}"


def follow_job(job: Job, show: Callable[[JobStatus], None] = lambda s: None) -> bool:
    """True once the job is over: the page then reads its result. Otherwise False, and the page stops (`st.stop()`)
    while a fragment rerunning every second shows the job's progress and what it has made so far (`show`: the
    Scale sweep's chart), and reruns the page when the job is over. A click elsewhere ends only this following: the
    job runs on, and the next run of the page follows it again (or shows its result)."""
    if over_soon(job):
        return True

    @st.fragment(run_every=FOLLOW_EVERY_S)
    def follow() -> None:
        s = job.status()
        if s.over:
            st.rerun()  # the whole page, now with the result
        st.progress(s.fraction(), text=("stopping… " if s.cancelled else "") + job_text(s))
        show(s)

    follow()
    return False


def job_result(key: str, cancel: "CancelButton"):
    """The result of the job kept under `key` in the session, once it is over (the page stops while it runs, a
    fragment following it); None when it failed or was cancelled, which is said. Either way it leaves the session."""
    job = st.session_state[key]
    if not follow_job(job):
        st.stop()  # the fragment follows the job and reruns the page when it is over
    cancel.idle()
    del st.session_state[key]
    try:
        return job.result()
    except PathLensError as e:
        (st.warning if job.status().cancelled else st.error)(str(e))
        return None


def cancel_job(key: str) -> None:
    """on_click of a Cancel button: ask the job kept under `key` in the session to stop."""
    job = st.session_state.get(key)
    if job is not None:
        job.cancel()


class CancelButton:
    """A Cancel button for the job kept under `job_key`, live only while there is something to stop:
    greyed out on an idle page, and greyed out again in place when the job ends (the button was drawn
    before the job ran, so without this it would stay live until the next rerun)."""

    def __init__(self, job_key: str, widget_key: str, active: bool, help: str):
        self.help = help
        self.widget_key = widget_key
        self.slot = st.empty()
        self.slot.button("Cancel", key=widget_key, on_click=cancel_job, args=(job_key,), disabled=not active,
                         help=help)

    def idle(self) -> None:
        self.slot.button("Cancel", key=f"{self.widget_key}_idle", disabled=True, help=self.help)


def stages_for(retrievers: Iterable[str], rrf_members: Iterable[str] = RRFConfig().members) -> list[str]:
    """The index components the given retrievers need, in build order (from the catalog); RRF's members are
    its default ones unless named."""
    return catalog_stages(list(retrievers), tuple(rrf_members))
