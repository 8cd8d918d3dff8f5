"""Query: ask a question, see the ranked passages and why each came back."""

from __future__ import annotations

from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from engine.catalog import CATALOG, DEFAULT_RETRIEVER, PARAMS, default_retriever
from engine.filings.offers import offered_questions
from engine.filings.scope import ScopeCorrection
from engine.filings.structure import STATEMENTS
from engine.ingest.passage import citation
from engine.errors import PathLensError
from engine.evaluate.demo import graph_story
from engine.indexing.index import search_config
from engine.retrieve.retrievers import MAX_QUERY_CHARS, check_query, markup_note
from engine.retrieve.rrf_retriever import RRFConfig
from engine.explain.reasons import IN_TEXT, field_words, k_past_corpus, passage_name
from engine.explain.report import ReportView, build_report, report_file_name
from ui.answer_view import hit_row, show_graph, show_hit, show_scope, show_seeds
from engine.indexing.availability import answerer
from ui.builds import fresh_area, stages_for
from ui.staged import follow, retriever_for, who_answers
from ui.corpora import UPLOAD, session_upload_files
from ui.frame import frame
from ui.render import downloads, escape_markdown, gold_of, show_table
from ui.url_state import param, param_in_range, set_params

# one selector entry per retriever without aliases; the BCT toggle turns ppr-X into bct-X
BCT_OF = {f"ppr-{s.builder}": n for n, s in CATALOG.items() if s.aliases}
BASE_RETRIEVERS = [n for n, s in CATALOG.items() if not s.aliases]
FUSABLE = [n for n, s in CATALOG.items() if s.family != "fusion"]
RRF_DEFAULT = RRFConfig().members
# parameters with a place of their own on the page; any other one the retriever reads goes under "More parameters"
LAID_OUT = {"alpha", "passage_weight", "filing_passage_weight", "iterations", "beta", "tau", "passage_seeds",
            "lexical_share"}
TOLERANCES = {"none (run the cap)": None, "1e-4": 1e-4, "1e-6": 1e-6, "1e-8": 1e-8}


AS_READ = "as read from the question"
NONE = "none"


def _correction(value: str, cast=str):
    """A scope widget's value as a correction: None leaves what was read, "" (or 0) clears it."""
    if value == AS_READ:
        return None
    if value == NONE:
        return cast() if cast is not str else ""
    return cast(value)


def _base_of(name: str) -> str:
    return next((b for b, v in BCT_OF.items() if v == name), name)


def _spec(name: str):
    """(default, low, high) of a parameter; the default is the corpus's tuned one where it has one."""
    p = PARAMS[name]
    return corpus.defaults.get(name, p.default), p.low, p.high


st.title("Query")
index = frame()
if index is None:
    st.stop()
corpus = index.corpus
texts = {p.id: p.text for p in corpus.passages}
titles = index.passage_titles()
passage_of = {p.id: p for p in corpus.passages}  # a hit's citation is made for the hits only

# ---------------------------------------------------------------- state from the URL, once per session
if st.session_state.get("query_state_for") != corpus.name:
    if "query_state_for" in st.session_state:  # another corpus was chosen here: its view starts from its own defaults,
        for key in [k for k in st.query_params if k != "corpus"]:  # not the last corpus's question and parameters
            del st.query_params[key]
        st.session_state.pop("example", None)
    default_q = corpus.opening_question
    opening = default_retriever(corpus.paged)  # a corpus of PDFs opens on the filings retriever
    wanted = param("retriever", opening)
    notes: list[str] = []
    if _base_of(wanted) not in BASE_RETRIEVERS:
        notes.append(f"Unknown retriever {wanted!r} in the link; using {opening}.")
        wanted = opening
    st.session_state.update({
        "query_state_for": corpus.name,
        "question": param("q", default_q),
        "base_retriever": _base_of(wanted),
        "bct": param("bct", 1 if wanted in BCT_OF.values() else 0, int) == 1,
        # every catalog parameter: its widget's key and its URL key are its name
        **{name: param_in_range(name, *_spec(name), type(p.default), p.label, notes) for name, p in PARAMS.items()},
        "vocabulary": param("seeding", "vocabulary") != "paper",
        "k": param_in_range("k", 5, 1, 50, int, "k", notes),
        "rrf_members": [m for m in param("members", ",".join(RRF_DEFAULT)).split(",") if m in FUSABLE] or list(RRF_DEFAULT),
        "wi_entities": [x for x in param("without", "").split(";") if x],
        "wi_passages": [x for x in param("without_passages", "").split(";") if x in texts],
        "link_notes": notes,
        "tol": next((label for label, v in TOLERANCES.items() if str(v) == param("tol", "None")), "none (run the cap)"),
        "scope_company": param("company", AS_READ),
        "scope_year": param("fiscal_year", AS_READ),
        "scope_form": param("form", AS_READ),
        "scope_statement": param("statement", AS_READ),
    })


    weights_in_link = param("weights", "")
    try:
        given = [float(x) for x in weights_in_link.split(",")] if weights_in_link else []
    except ValueError:
        given = []
        notes.append(f"RRF weights {weights_in_link!r} in the link are not numbers; using 1 each.")
    for m, x in zip(st.session_state["rrf_members"], given or [1.0] * len(st.session_state["rrf_members"])):
        st.session_state[f"rrf_w_{m}"] = min(10.0, max(0.0, x))

for note in st.session_state.get("link_notes", []):
    st.warning(note)


def use_example() -> None:
    choice = st.session_state.get("example")
    if choice and choice != "—":
        st.session_state["question"] = choice.split(" · ", 1)[1]


def forget_example() -> None:
    """A question the user typed is not the example the menu names: the menu goes back to "—"."""
    choice = st.session_state.get("example")
    if choice and choice != "—" and choice.split(" · ", 1)[1] != st.session_state.get("question", ""):
        st.session_state["example"] = "—"


# labeled questions, or, for a room of filings without them, questions its structure can answer
offered = () if corpus.queries or not corpus.paged else offered_questions(index.structure())
if corpus.queries or offered:
    examples = ["—"] + ([f"{q.id} ({q.kind}) · {q.text}" for q in corpus.queries] or
                        [f"from what the room holds · {q}" for q in offered])
    if "example" not in st.session_state:  # the menu names the example the page opened on, not "—"
        asked = st.session_state.get("question", "")
        st.session_state["example"] = next((e for e in examples[1:] if e.split(" · ", 1)[1] == asked), "—")
    st.selectbox("Labeled example questions" if corpus.queries else "Questions to start with", examples,
                 key="example", on_change=use_example,
                 help=None if corpus.queries else "Made from what the uploaded filings hold: a company's revenue for "
                                                  "a period it has, a statement it has, and a note it has.")
question = st.text_input("Question", key="question", help=f"Up to {MAX_QUERY_CHARS:,} characters.",
                         on_change=forget_example)
labeled = next((q for q in corpus.queries if q.text.strip() == question.strip()), None)


if labeled is not None and labeled.extra:  # what the labeled question's file says beside its gold
    st.caption(f"Labeled question {escape_markdown(labeled.id)} ({escape_markdown(labeled.kind)}): "
               + "; ".join(f"{escape_markdown(k)}: {escape_markdown(field_words(v, titles))}" for k, v in labeled.extra.items()))
story_slot = st.empty()  # the opening example's story, under its question once its answer is in

c1, c2, c3 = st.columns([3, 3, 1])
base = c1.selectbox("Retriever", BASE_RETRIEVERS, key="base_retriever",
                    help="\n\n".join(f"**{n}**: {CATALOG[n].description}" for n in BASE_RETRIEVERS))
family = CATALOG[base].family
graph_like = family in ("graph", "hybrid")
bct = c1.toggle("BCT alias seeding", key="bct", disabled=base not in BCT_OF,
                help="Coreference-aware alias seeding (BCT, for the ppr retrievers): the question's entities also "
                     "seed their aliases — defined terms such as “the Fund”, nested names and acronyms.")
vocabulary = c1.toggle("Vocabulary seeding", key="vocabulary", disabled=not graph_like,
                       help="Also seed every graph entity named anywhere in the question (any case, accents folded), "
                            "each weighted by how specific it is (1 / passages it occurs in). Off: only the names the "
                            "extractor finds, weighted equally, as in the Aethel paper.")
# which parameters the chosen retriever reads, from its catalog entry
reads = set(CATALOG[BCT_OF[base] if base in BCT_OF and bct else base].params)
c2.slider(PARAMS["alpha"].label, 0.01, 0.99, step=0.01, key="alpha", disabled="alpha" not in reads,
          help=PARAMS["alpha"].help)
if "filing_passage_weight" in reads:  # the filings retriever's own w
    c2.slider(PARAMS["filing_passage_weight"].label, 0.0, 1.0, step=0.05, key="filing_passage_weight",
              help=PARAMS["filing_passage_weight"].help)
else:
    c2.slider(PARAMS["passage_weight"].label, 0.0, 1.0, step=0.05, key="passage_weight",
              disabled="passage_weight" not in reads, help=PARAMS["passage_weight"].help)
k = c3.number_input("k", 1, 50, step=1, key="k", help="How many passages to show.")

with st.expander("More parameters"):
    m1, m2, m3 = st.columns(3)
    m1.number_input("Iteration cap", 1, 1000, step=1, key="iterations", disabled="iterations" not in reads,
                    help=PARAMS["iterations"].help)
    tol_label = m1.selectbox("Tolerance (early stop)", list(TOLERANCES), key="tol",
                             help="Stop the walk once an iteration changes the scores by less than this (L1).")
    m1.slider(PARAMS["beta"].label, 0.0, 2.0, step=0.05, key="beta", disabled="beta" not in reads,
              help=PARAMS["beta"].help)
    m2.number_input(PARAMS["tau"].label, 0.005, 1.0, step=0.005, format="%.3f", key="tau", disabled="tau" not in reads,
                    help=PARAMS["tau"].help)
    m2.number_input(PARAMS["passage_seeds"].label, 1, 200, step=1, key="passage_seeds",
                    disabled="passage_seeds" not in reads, help=PARAMS["passage_seeds"].help)
    m2.slider(PARAMS["lexical_share"].label, 0.0, 1.0, step=0.05, key="lexical_share",
              disabled="lexical_share" not in reads, help=PARAMS["lexical_share"].help)
    # any other parameter the retriever reads (RRF's k, the filing graph's edge weights, one added to the catalog)
    for name in [n for n in PARAMS if n in reads and n not in LAID_OUT]:
        p = PARAMS[name]
        cast = type(p.default)
        m2.number_input(p.label, cast(p.low), cast(p.high), step=cast(1) if cast is int else 0.05, key=name,
                        help=p.help)
    members = m3.multiselect("RRF members", FUSABLE, key="rrf_members", disabled=base != "rrf",
                             help="The retrievers whose rankings RRF fuses.")
    for m in members:
        st.session_state.setdefault(f"rrf_w_{m}", 1.0)  # a member just added votes once
    weights = [m3.number_input(f"weight of {m}", 0.0, 10.0, step=0.25, key=f"rrf_w_{m}", disabled=base != "rrf",
                               help="Weighted RRF: this member's votes count this many times.")
               for m in members]

tuned = ", ".join(f"{PARAMS[n].label} = {v:g}" for n, v in corpus.defaults.items())
st.caption(f"Parameters start from this corpus's tuned defaults ({tuned}, from its manifest.json) and the catalog's "
           "for the rest." if tuned else "Parameters start from the catalog's defaults: this corpus has no tuned ones.")

scope = ScopeCorrection()
if base in ("filing", "filing-graph"):
    filings = index.structure().filings
    with st.expander("Scope: which filings, period and statement the question is about", expanded=False):
        st.caption("Read off the question: its company (name or ticker), fiscal year, form and statement. If the "
                   "reading below the answer is wrong, correct it here; “none” clears it.")
        s1, s2, s3, s4 = st.columns(4)
        companies = sorted({f.company for f in filings.values()})
        years = sorted({str(f.fiscal_year) for f in filings.values() if f.fiscal_year})
        forms = sorted({f.form for f in filings.values() if f.form})
        statement_names = {kind: label for kind, (label, _) in STATEMENTS.items()}
        for key, options in (("scope_company", companies), ("scope_year", years), ("scope_form", forms),
                             ("scope_statement", list(statement_names))):
            if st.session_state.get(key) not in [AS_READ, NONE, *options]:
                st.session_state[key] = AS_READ  # a link naming what this room lacks
        s1.selectbox("Company", [AS_READ, NONE, *companies], key="scope_company")
        s2.selectbox("Fiscal year", [AS_READ, NONE, *years], key="scope_year")
        s3.selectbox("Form", [AS_READ, NONE, *forms], key="scope_form")
        s4.selectbox("Statement", [AS_READ, NONE, *statement_names], key="scope_statement",
                     format_func=lambda kind: statement_names.get(kind, kind))
    scope = ScopeCorrection(_correction(st.session_state["scope_company"]),
                            _correction(st.session_state["scope_year"], int),
                            _correction(st.session_state["scope_form"]),
                            _correction(st.session_state["scope_statement"]))
    set_params(**{url: (None if st.session_state[key] == AS_READ else st.session_state[key])
                  for url, key in (("company", "scope_company"), ("fiscal_year", "scope_year"), ("form", "scope_form"),
                                   ("statement", "scope_statement"))})

name = BCT_OF[base] if base in BCT_OF and bct else base
values = {n: type(p.default)(st.session_state.get(n, _spec(n)[0])) for n, p in PARAMS.items()}
set_params(q=question.strip() or None, retriever=name, k=k, bct=int(bct), tol=TOLERANCES[tol_label], **values,
           seeding=None if vocabulary else "paper", members=",".join(members),
           weights=",".join(f"{x:g}" for x in weights) if any(x != 1 for x in weights) else None)

if not question.strip():
    st.warning("The question is empty: type one" + (", or pick a labeled example." if corpus.queries else "."))
    st.stop()
try:  # a question no retriever can search is said here, before any build, with nothing below it
    check_query(question)
except PathLensError as e:
    st.error(str(e))
    st.stop()
if base == "rrf" and not members:
    st.warning("Choose at least one RRF member under “More parameters”.")
    st.stop()

try:
    config = search_config(values, corpus,
                           tol=TOLERANCES[tol_label], vocabulary=vocabulary, rrf_members=tuple(members),
                           rrf_weights=tuple(weights) if any(x != 1 for x in weights) else (), scope=scope)
except PathLensError as e:
    st.error(str(e))
    st.stop()
if k > len(corpus):
    st.info(k_past_corpus(k, len(corpus)) + ".")
now = answerer(name, index.stored, config.rrf.members).name
with fresh_area(index, stages_for([now], config.rrf.members), "query"):  # no stale answer under a build
    choice = who_answers(index, name, config, question)
    if choice is None:
        st.stop()
    answering = choice.name  # the chosen retriever, or its stand-in while the chosen one's stages build
    follow(choice, ", ".join(index.structure().filings[d].label for d in choice.early
                             if d in index.structure().filings))
    gold = gold_of(index, question)

    def what_if_widgets(entity_options: list[str], passage_options: list[str]) -> None:
        """The what-if panel; drawn below the answer (or below the error its choices caused)."""
        with st.expander("What if… take out an entity or a passage", expanded=bool(removed_entities or removed_passages)):
            st.caption("Rank again as if the extractor had never found these entities, or the corpus lacked these "
                       "passages. The arrows on the passages below then compare with the ranking with nothing taken "
                       "out; otherwise with the view before your last change. What was taken out shows in the "
                       "evidence graph, crossed out.")
            w1, w2 = st.columns(2)
            w1.multiselect("Take out entities", sorted(set(entity_options) | set(removed_entities)), key="wi_entities",
                           help="Their nodes and links leave the graph; the walk is rerun exactly.")
            w2.multiselect("Take out passages", sorted(set(passage_options) | set(removed_passages)), key="wi_passages",
                           help="The passage leaves the corpus: the graph, BM25 and the dense index.")


    # what-if: entities and passages taken out (widgets below the answer; their state is read here)
    removed_entities = list(st.session_state.get("wi_entities", []))
    removed_passages = list(st.session_state.get("wi_passages", []))
    set_params(without=";".join(removed_entities) or None, without_passages=";".join(removed_passages) or None)
    try:
        view = index.without(removed_passages, removed_entities) if removed_entities or removed_passages else index
        answer = retriever_for(index, view, choice, config).answer(question, int(k))
    except PathLensError as e:
        st.error(str(e))
        what_if_widgets([], [])
        st.stop()
    hits, walk = answer.hits, answer.walk
    if note := markup_note(question):
        st.info(note)
    if answer.no_seed:
        st.warning(f"No hits. {answer.notes[0]}.")
        what_if_widgets([], [])
        st.stop()
    for n in answer.notes:
        st.info(f"RRF member gave nothing: {n}")
    if not hits:
        st.warning(f"{answering} returned no passage for this question (no passage shares a term or entity with it).")
        st.stop()

    # ---------------------------------------------------------------- graph explanation
    if walk is not None:
        show_scope(walk)
        show_seeds(walk, answering, config.hybrid.lexical, titles)
        show_graph(walk, titles, texts, gold, config.graph.alpha, removed_entities)

    # ---------------------------------------------------------------- what-if
    labels = [s.label for s in walk.seeds] + [n.label for n in walk.nodes if n.kind == "bridge"] if walk else []
    what_if_widgets(labels, [h.passage_id for h in hits])

    # rank arrows: with something taken out, against the ranking with everything in (what the what-if changed);
    # otherwise against the previous view of the same question (α, β or any other change)
    view_key = (corpus.name, question.strip())
    previous = st.session_state.get("previous_view")
    if removed_entities or removed_passages:
        before = [h.passage_id for h in retriever_for(index, index, choice, config).search(question, int(k))]
        against = "the ranking with nothing taken out"
    else:
        before = previous[1] if previous and previous[0] == view_key else None
        against = "the previous view"
    st.session_state["previous_view"] = (view_key, [h.passage_id for h in hits])


    def arrow(pid: str, rank: int) -> str:
        if before is None:
            return ""
        if pid not in before:
            return " · new"
        moved = before.index(pid) + 1 - rank
        return f" · ↑{moved}" if moved > 0 else f" · ↓{-moved}" if moved < 0 else " · ="


    # ---------------------------------------------------------------- ranked passages
    st.subheader(f"Top {len(hits)} passage{'s' if len(hits) != 1 else ''} · {answering}")
    if before is not None:
        st.caption(f"Arrows: each passage's move against {against}.")
        gone = [pid for pid in before if pid not in {h.passage_id for h in hits}]
        if gone:
            st.caption(f"Gone from the top, against {against}: " + ", ".join(passage_name(pid, titles, IN_TEXT)
                                                                              for pid in gone))
    opening_view = (labeled is not None and labeled.id == corpus.demo_question and answering == DEFAULT_RETRIEVER
                    and not (removed_entities or removed_passages))
    story = graph_story(answer, gold) if opening_view else None
    if story is not None:  # the opening example says what it is there to show
        story_slot.info(story.sentence() + " The page opens on this question because, of the corpus's labeled "
                        "two-hop questions, it is the one whose answers the graph's links explain most (measured by "
                        "`python -m engine demo`).")
    rows = []
    for h in hits:
        source = citation(passage_of[h.passage_id])
        rows.append(hit_row(h, answer, titles, source, gold))
        show_hit(h, answer, titles, texts[h.passage_id], source, question, gold, arrow(h.passage_id, h.rank))

    table = pd.DataFrame(rows)
    show_table(table, hide_index=True, width="stretch")
    downloads(table, f"pathlens-{answering}-hits", key="hits")


    files = session_upload_files() if st.session_state.get("corpus_selected") == UPLOAD else ()

    def evidence_report() -> str:
        """Built only when the button is pressed: the same file `python -m engine report` writes."""
        view = ReportView(corpus.name, question.strip(), answering, int(k), config, tuple(removed_entities),
                          tuple(removed_passages), files)
        return build_report(index, view, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


    st.download_button("Download the evidence report (HTML)", data=evidence_report,
                       file_name=report_file_name(question, datetime.now(timezone.utc).date()),
                       mime="text/html", key="report", type="primary", on_click="ignore",
                       help="One self-contained file to hand over: the question, the answers and why each came back, the "
                            "evidence graph, then how it was computed (every parameter and seed); it opens offline.")
