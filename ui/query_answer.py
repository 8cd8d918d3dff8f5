"""The Query page's answer: who answers and what they return (`run`), then the evidence, the ranked passages and the
report (`draw`). The question and settings come from `ui.query_form.ask`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from engine.catalog import DEFAULT_RETRIEVER, ranks_pages
from engine.errors import PathLensError
from engine.evaluate.demo import graph_story
from engine.explain.entity_notes import walk_definitions
from engine.explain.reasons import IN_TEXT, move_words, passage_name
from engine.explain.report import ReportView, build_report, report_file_name
from engine.indexing.config import param_values, search_config
from engine.indexing.index import Index
from engine.indexing.views import without
from engine.ingest.passage import citation
from engine.retrieve.retrievers import Answer, markup_note
from ui import page_view
from ui.answer_view import hit_row, show_graph, show_hit, show_scope, show_seeds
from ui.corpora import UPLOAD, session_upload_files
from ui.query_form import Request
from ui.render import downloads, escape_markdown, gold_of, show_table
from ui.staged import Choice, follow, retriever_for, who_answers
from ui.url_state import set_params


@dataclass(frozen=True)
class Ran:
    """An answer and what it was computed over."""

    choice: Choice  # who answered: the chosen retriever, or its stand-in while the chosen one's stages build
    answer: Answer
    removed_entities: tuple[str, ...]  # the what-if's
    removed_passages: tuple[str, ...]
    gold: frozenset[str]  # the labeled question's gold passages, if it is one

    @property
    def answering(self) -> str:
        return self.choice.name


def what_if_widgets(entity_options: list[str], passage_options: list[str]) -> None:
    """The what-if panel; drawn below the answer (or below the error its choices caused)."""
    removed_entities = st.session_state.get("wi_entities", [])
    removed_passages = st.session_state.get("wi_passages", [])
    with st.expander("What if… take out an entity or a passage", expanded=bool(removed_entities or removed_passages)):
        st.caption("Rank again as if the extractor had never found these entities, or the corpus lacked these "
                   "passages. The arrows on the passages below then compare with the ranking with nothing taken "
                   "out; otherwise with the previous view. What was taken out shows in the evidence graph, crossed "
                   "out.")
        w1, w2 = st.columns(2)
        # no "Select all": taking every entity or passage out leaves nothing to rank
        w1.multiselect("Take out entities", sorted(set(entity_options) | set(removed_entities)), key="wi_entities",
                       help="Their nodes and links leave the graph; the walk is rerun exactly.", select_all=False)
        w2.multiselect("Take out passages", sorted(set(passage_options) | set(removed_passages)), key="wi_passages",
                       help="The passage leaves the corpus: the graph, BM25 and the dense index.", select_all=False)


def run(index: Index, request: Request) -> Ran | None:
    """Who answers (the chosen retriever, or a stand-in while its stages build, in one sentence that follows the
    build), and their answer over the index without what the what-if took out; None with the reason shown."""
    choice = who_answers(index, request.name, request.config, request.question)
    if choice is None:
        return None
    filings = index.structure().filings if choice.early else {}  # read only when filings answered early
    follow(choice, ", ".join(filings[d].label for d in choice.early if d in filings))
    removed_entities = tuple(st.session_state.get("wi_entities", []))
    removed_passages = tuple(st.session_state.get("wi_passages", []))
    set_params(without=";".join(removed_entities) or None, without_passages=";".join(removed_passages) or None)
    try:
        view = without(index, removed_passages, removed_entities) if removed_entities or removed_passages else index
        answer = retriever_for(index, view, choice, request.config).answer(request.question, request.k)
    except PathLensError as e:
        st.error(escape_markdown(str(e)))  # a message may quote a file's or a filing's own words
        what_if_widgets([], [])
        return None
    if note := markup_note(request.question):
        st.info(note)
    if answer.no_seed:
        st.warning(f"No hits. {escape_markdown(_as_sentence(answer.notes[0]))}")  # notes quote filings' names
        if "scope_everywhere" in st.session_state and not st.session_state["scope_everywhere"] and \
                "names no company of this data room" in answer.notes[0]:  # the scope stopped it: lifted in one click
            st.button("Search every filing", key="search_everywhere", icon=":material/travel_explore:",
                      on_click=lambda: st.session_state.update(scope_everywhere=True))
        if removed_entities or removed_passages:  # to put back what the what-if took out; else nothing to take out
            what_if_widgets([], [])
        return None
    for n in answer.notes:
        st.info(escape_markdown(_as_sentence(n)))
    if not answer.hits:
        st.warning(f"{choice.name} returned no passage for this question (no passage shares a term or entity with "
                   "it).")
        return None
    return Ran(choice, answer, removed_entities, removed_passages, gold_of(index, request.question))


def _as_sentence(note: str) -> str:
    """An engine note as a sentence: notes read as messages do, some without a full stop."""
    return note if note.endswith((".", "?", "!")) else f"{note}."


def _ranks(hits) -> dict[str, tuple[int, float]]:
    return {h.passage_id: (h.rank, h.score) for h in hits}


def _earlier_ranking(index: Index, request: Request, ran: Ran) -> tuple[dict[str, tuple[int, float]] | None, str]:
    """What the rank arrows compare with: with something taken out, the ranking with everything in (what the
    what-if changed); otherwise the previous view of the same question (α, β or any other change)."""
    view_key = (index.corpus.name, request.question.strip())
    previous = st.session_state.get("previous_view")
    # a stand-in's answer (bm25 while hybrid-ner builds) is never what a later view's arrows compare with
    stood_in = ran.choice.name != ran.choice.answerer.wanted
    st.session_state["previous_view"] = None if stood_in else (view_key, _ranks(ran.answer.hits))
    if ran.removed_entities or ran.removed_passages:
        everything = retriever_for(index, index, ran.choice, request.config).search(request.question, request.k)
        return _ranks(everything), "the ranking with nothing taken out"
    return (previous[1] if previous and previous[0] == view_key else None), "the previous view"


def draw(index: Index, request: Request, ran: Ran) -> None:
    """The evidence (seeds, scope, graph), the what-if panel, the ranked passages with their moves, the table and
    the evidence report."""
    corpus, answer, hits, answering = index.corpus, ran.answer, ran.answer.hits, ran.answering
    titles = index.passage_titles()
    texts = {p.id: p.text for p in corpus.passages}
    passage_of = {p.id: p for p in corpus.passages}
    walk = answer.walk
    if walk is not None:
        show_scope(walk)
        filing_of: dict[str, str] = {}
        if corpus.paged and len({s.label for s in walk.seeds}) < len(walk.seeds):  # only when two seeds share a name
            seeded, labels = {s.entity for s in walk.seeds}, index.filing_labels()
            filing_of = {n.key: labels.get(n.doc_id, "") for n in index.structure().nodes if n.key in seeded}
        show_seeds(walk, answering, titles, filing_of)
        show_graph(walk, titles, texts, ran.gold, request.config.graph.alpha, list(ran.removed_entities),
                   walk_definitions(index, walk))
    labels = [s.label for s in walk.seeds] + [n.label for n in walk.nodes if n.kind == "bridge"] if walk else []
    what_if_widgets(labels, [h.passage_id for h in hits])

    earlier, against = _earlier_ranking(index, request, ran)
    unit = "page" if ranks_pages(answering) else "passage"
    st.subheader(f"Top {len(hits)} {unit}{'s' if len(hits) != 1 else ''} · {answering}")
    if earlier is not None:
        st.caption(f"Arrows: each passage's move against {against}, with its score then when the score changed.")
        gone = [pid for pid in earlier if pid not in {h.passage_id for h in hits}]
        if gone:
            st.caption(f"Gone from the top, against {against}: " + ", ".join(passage_name(pid, titles, IN_TEXT)
                                                                              for pid in gone))
    # the story's "explain most" was measured at the corpus's own settings (`engine demo`): a link at α 0.99 is not it
    opening_view = (request.labeled is not None and request.labeled.id == corpus.demo_question
                    and answering == DEFAULT_RETRIEVER and not (ran.removed_entities or ran.removed_passages)
                    and param_values(request.config) == param_values(search_config({}, corpus)))
    story = graph_story(answer, ran.gold) if opening_view else None
    if story is not None:  # the opening example says what it is there to show
        request.story_slot.info(story.sentence() + " The page opens on this question because, of the corpus's "
                                "labeled two-hop questions, it is the one whose answers the graph's links explain "
                                "most (measured by `python -m engine demo`).")
    pages = page_view.start(index, answer, request.question, texts)  # drawn beside the page's run, shown after the hits
    strip = page_view.strip_slot(pages)
    rows = []
    for h in hits:
        source = citation(passage_of[h.passage_id], titles.get(h.passage_id, ""))
        rows.append(hit_row(h, answer, titles, source, ran.gold))
        box = show_hit(h, answer, titles, texts[h.passage_id], source, request.question, ran.gold,
                       move_words(earlier, h.passage_id, h.rank, h.score), anchored=bool(pages))
        if h.passage_id in pages:
            with box:
                pages[h.passage_id] = page_view.slot(pages[h.passage_id])
    table = pd.DataFrame(rows)
    show_table(table, hide_index=True, width="stretch", wide=("passage", "source"))  # a walk-through saw titles cut
    downloads(table, f"pathlens-{answering}-hits", key="hits")

    files = session_upload_files() if st.session_state.get("corpus_selected") == UPLOAD else ()
    pdfs = page_view.pdf_corpus(index)  # read here: the report is built on the click, outside this run

    def evidence_report() -> str:
        """Built only when the button is pressed: the same file `python -m engine report` writes."""
        view = ReportView(corpus.name, request.question.strip(), answering, request.k, request.config,
                          ran.removed_entities, ran.removed_passages, files)
        return build_report(index, view, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                            pdfs=pdfs)

    st.download_button("Download the evidence report (HTML)", data=evidence_report,
                       file_name=report_file_name(request.question, datetime.now(timezone.utc).date()),
                       mime="text/html", key="report", type="primary", on_click="ignore",
                       help="One self-contained file to hand over: the question, the answers and why each came back, "
                            "with the pages they cite, the evidence graph, then how it was computed (every parameter "
                            "and seed); it opens offline.")
    page_view.fill(pages, strip, request.question, answer)  # last: the pages never hold the answer up


__all__ = ["Ran", "draw", "run", "what_if_widgets"]
