"""The Query page's question and settings: the view a link describes (`read_link`), and the widgets that turn it
into a request for an answer (`ask`). What comes back and why is `ui.query_answer`'s."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from engine.catalog import CATALOG, PARAMS, SCOPED_RETRIEVERS, default_retriever
from engine.errors import PathLensError
from engine.explain.reasons import field_words, k_past_corpus
from engine.explain.report import UPLOADED
from engine.filings.offers import offered_questions
from engine.filings.scope import ScopeCorrection
from engine.filings.structure import STATEMENTS
from engine.indexing.config import SearchConfig, corpus_defaults, search_config, shape_defaults
from engine.indexing.index import Index
from engine.ingest.corpus import Corpus
from engine.ingest.questions import LabeledQuery
from engine.retrieve.retrievers import MAX_QUERY_CHARS, check_query
from engine.retrieve.rrf_retriever import RRFConfig
from ui.frame import forget_query_view
from ui.params import hop_widgets, param_widget
from ui.render import escape_markdown
from ui.url_state import param, param_in_range, set_params

RRF_DEFAULT = RRFConfig().members
# parameters with a place of their own in "Advanced settings"; any other one the retriever reads goes in its last column
LAID_OUT = {"alpha", "passage_weight", "filing_passage_weight", "iterations", "beta", "tau", "passage_seeds",
            "lexical_share", "hop_share"}
TOLERANCES = {"none (run the cap)": None, "1e-4": 1e-4, "1e-6": 1e-6, "1e-8": 1e-8}
AS_READ = "as asked"  # short: five menus share a row, and a longer word was cut ("as read from the que")
NONE = "none"


@dataclass(frozen=True)
class Request:
    """What the user asked for: the question, the retriever and its settings."""

    question: str
    name: str  # the retriever chosen (bct-X when the BCT toggle is on)
    k: int
    config: SearchConfig
    labeled: LabeledQuery | None  # the labeled question it is, if any
    story_slot: object  # where the opening example's story goes, under the question


def bct_of() -> dict[str, str]:
    """ppr-X → bct-X: one selector entry per retriever without aliases, and the BCT toggle. Read off the catalog
    at each run, as are the lists below: a retriever added to it is on the page at once."""
    return {f"ppr-{s.builder}": n for n, s in CATALOG.items() if s.aliases}


def base_retrievers() -> list[str]:
    return [n for n, s in CATALOG.items() if not s.aliases]


def fusable() -> list[str]:
    return [n for n, s in CATALOG.items() if s.family != "fusion"]


def _correction(value: str, cast=str):
    """A scope widget's value as a correction: None leaves what was read, "" (or 0) clears it."""
    if value == AS_READ:
        return None
    if value == NONE:
        return cast() if cast is not str else ""
    return cast(value)


def _base_of(name: str) -> str:
    return next((b for b, v in bct_of().items() if v == name), name)


def _spec(corpus: Corpus, name: str):
    """(default, low, high) of a parameter; the default is the corpus's tuned one where it has one."""
    p = PARAMS[name]
    return corpus_defaults(corpus).get(name, p.default), p.low, p.high


def view_key(corpus: Corpus) -> str:
    """What a kept view belongs to: a corpus by name, and the session's uploaded room as one, however many files
    were added to it (adding one cleared the question: a walk-through's minor)."""
    return UPLOADED if st.session_state.get("corpus_selected") == UPLOADED else corpus.name


def read_link(corpus: Corpus) -> None:
    """The view the link describes, into the page's widgets: once per corpus in a browser's session (afterwards the
    widgets are the user's), with a warning for each value the link got wrong."""
    if st.session_state.get("query_state_for") != view_key(corpus):
        if "query_state_for" in st.session_state:  # another corpus chosen here: its view starts from its defaults,
            for key in [k for k in st.query_params if k not in ("corpus", "files")]:  # not the last corpus's view
                del st.query_params[key]
            st.session_state.pop("example", None)
        forget_query_view()  # the last corpus's kept view must not come back into this one's
        opening = default_retriever(corpus.paged)  # a corpus of PDFs opens on the filings retriever
        wanted = param("retriever", opening)
        notes: list[str] = []
        if _base_of(wanted) not in base_retrievers():
            notes.append(f"Unknown retriever {wanted!r} in the link; using {opening}.")
            wanted = opening
        ids = {p.id for p in corpus.passages}
        st.session_state.update({
            "query_state_for": view_key(corpus),
            "question": param("q", corpus.opening_question),
            "base_retriever": _base_of(wanted),
            "bct": param("bct", 1 if wanted in bct_of().values() else 0, int) == 1,
            # every catalog parameter: its widget's key and its URL key are its name
            **{name: param_in_range(name, *_spec(corpus, name), type(p.default), p.label, notes)
               for name, p in PARAMS.items()},
            "vocabulary": param("seeding", "vocabulary") != "paper",
            "k": param_in_range("k", 5, 1, 50, int, "k", notes),
            "rrf_members": [m for m in param("members", ",".join(RRF_DEFAULT)).split(",") if m in fusable()]
                           or list(RRF_DEFAULT),
            "wi_entities": [x for x in param("without", "").split(";") if x],
            "wi_passages": [x for x in param("without_passages", "").split(";") if x in ids],
            "link_notes": notes,
            "tol": next((label for label, v in TOLERANCES.items() if str(v) == param("tol", "None")),
                        "none (run the cap)"),
            "scope_company": param("company", AS_READ),
            "scope_year": param("fiscal_year", AS_READ),
            "scope_quarter": param("fiscal_quarter", AS_READ),
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


SCOPE_KEYS = ("scope_company", "scope_year", "scope_quarter", "scope_form", "scope_statement")


def _new_question() -> None:
    """A scope correction is for the question it corrected: a new question is read as written (a correction to one
    company, kept, answered the next questions about others from it), and the page says the corrections went."""
    if any(st.session_state.get(k, AS_READ) != AS_READ for k in SCOPE_KEYS) or st.session_state.get("scope_everywhere"):
        st.session_state.update({k: AS_READ for k in SCOPE_KEYS}, scope_everywhere=False, scope_cleared=True)


def _use_example() -> None:
    choice = st.session_state.get("example")
    if choice and choice != "—":
        st.session_state["question"] = choice.split(" · ", 1)[1]
        _new_question()


def _forget_example() -> None:
    """A question the user typed is not the example the menu names: the menu goes back to "—"."""
    _new_question()
    choice = st.session_state.get("example")
    if choice and choice != "—" and choice.split(" · ", 1)[1] != st.session_state.get("question", ""):
        st.session_state["example"] = "—"


READ_WHOLE = 0.95  # the share of its pages a file read whole enough to offer questions from


def _partly_read(corpus) -> frozenset[str]:
    """The files a damaged read left short, offered from last: more than one page in 20 left out. A 10-K's blank or
    image-only pages are not damage: two of Walmart's 215 kept its 10-K out of every offer (a walk-through)."""
    named = {p.file for p in corpus.report.skipped}
    if not named:
        return frozenset()
    read: dict[str, set[int]] = {}
    total: dict[str, int] = {}
    for p in corpus.passages:
        if p.doc_id in named and (at := corpus.pages.get(p.id)):
            read.setdefault(p.doc_id, set()).add(at.page)
            total[p.doc_id] = int(p.metadata.get("pages") or 0)
    return frozenset(f for f in named if len(read.get(f, ())) < READ_WHOLE * total.get(f, 1))


def _question(index: Index) -> tuple[str, LabeledQuery | None, tuple[str, ...]]:
    """The question box, under a menu of the room's labeled questions or of questions made from its filings;
    returns the question, its labeled form if any, and the questions offered."""
    corpus = index.corpus
    # labeled questions, or, for a room of filings without them, questions its structure can answer
    offered = () if corpus.queries or not corpus.paged else offered_questions(index.structure(),
                                                                               damaged=_partly_read(corpus))
    if corpus.queries or offered:
        examples = ["—"] + ([f"{q.id} ({q.kind}) · {q.text}" for q in corpus.queries] or
                            [f"suggested · {q}" for q in offered])
        if "example" not in st.session_state:  # the menu names the example the page opened on, not "—"
            asked = st.session_state.get("question", "")
            st.session_state["example"] = next((e for e in examples[1:] if e.split(" · ", 1)[1] == asked), "—")
        st.selectbox("Labeled example questions" if corpus.queries else "Questions to start with", examples,
                     key="example", on_change=_use_example,
                     help=None if corpus.queries else "Made from what the uploaded filings hold: a company's revenue "
                                                      "for a period it has, a figure of a statement it has, and a note "
                                                      "it has.")
    question = st.text_input("Question", key="question", help=f"Up to {MAX_QUERY_CHARS:,} characters.",
                             on_change=_forget_example)
    labeled = next((q for q in corpus.queries if q.text.strip() == question.strip()), None)
    if labeled is not None and labeled.extra:  # what the labeled question's file says beside its gold
        titles = index.passage_titles()
        # folded away: a demo's audience should meet the answer in the ranking, not above the question's answer
        with st.expander("The labeled answer and its evidence", expanded=False):
            st.caption(f"Labeled question {escape_markdown(labeled.id)} ({escape_markdown(labeled.kind)}): "
                       + "; ".join(f"{escape_markdown(k)}: {escape_markdown(field_words(v, titles))}"
                                   for k, v in labeled.extra.items()))
    return question, labeled, offered


# Each method in a few words a stakeholder reads; the menu shows them beside the catalog's name, which links and
# the evidence report use. A method added to the catalog shows its name alone until it has words here.
PLAIN = {"bm25": "word match", "tfidf": "word match, weighted", "dense": "meaning match",
         "ppr-regex": "graph of names", "ppr-ner": "graph of names (NER)",
         "bct-regex": "graph of names + their aliases", "bct-ner": "graph of names (NER) + their aliases",
         "hybrid-regex": "graph of names + meaning", "hybrid-ner": "graph of names (NER) + meaning",
         "filing": "filings: their structure + meaning", "filing-learned": "filings: pages ranked by a learned model",
         "filing-graph": "filings: their structure only", "rrf": "several methods' votes combined"}


def method_words(name: str) -> str:
    return f"{PLAIN[name]} ({name})" if name in PLAIN else name


def _settings(corpus: Corpus) -> tuple[str, bool, bool, int, str, list[str], list[float]]:
    """The search method and how many passages to show, then everything else under one "Advanced settings" fold (a
    stakeholder meets the question and its answer, not α): (base retriever, BCT, vocabulary seeding, k, tolerance,
    RRF members and their weights); every catalog parameter's value stays in the session under its name."""
    c1, c2 = st.columns([5, 1])
    bases, bcts = base_retrievers(), bct_of()
    base = c1.selectbox("Search method", bases, key="base_retriever", format_func=method_words,
                        help="\n\n".join(f"**{n}**: {CATALOG[n].description}" for n in bases))
    k = c2.number_input("Passages to show", 1, 50, step=1, key="k", help="How many passages to show (k).")
    graph_like = CATALOG[base].family in ("graph", "hybrid")
    # which parameters the chosen retriever reads, from its catalog entry
    reads = set(CATALOG[bcts[base] if base in bcts and bct_on() else base].params)
    with st.expander("Advanced settings: how the search walks"):
        a1, a2, a3 = st.columns(3)
        bct = a1.toggle("Also seed aliases (BCT)", key="bct", disabled=base not in bcts,
                        help="Coreference-aware alias seeding (BCT, for the ppr retrievers): the question's names "
                             "also seed their aliases — defined terms such as “the Fund”, nested names and acronyms.")
        vocabulary = a1.toggle("Seed every known name", key="vocabulary", disabled=not graph_like,
                               help="Vocabulary seeding: also seed every graph entity named anywhere in the question "
                                    "(any case, accents folded), each weighted by how specific it is (1 / passages "
                                    "it occurs in). Off: only the names the extractor finds, weighted equally, as in "
                                    "the Aethel paper.")
        if "hop_share" in reads:
            hop_widgets(a1)
        param_widget(a2, "alpha", disabled="alpha" not in reads)
        if "filing_passage_weight" in reads:  # the filings retriever's own w
            param_widget(a2, "filing_passage_weight")
        else:
            param_widget(a2, "passage_weight", disabled="passage_weight" not in reads)
        param_widget(a2, "iterations", disabled="iterations" not in reads)
        tol_label = a2.selectbox("Tolerance (early stop)", list(TOLERANCES), key="tol",
                                 help="Stop the walk once an iteration changes the scores by less than this (L1).")
        param_widget(a2, "beta", disabled="beta" not in reads)
        for name in ("tau", "passage_seeds", "lexical_share"):
            param_widget(a3, name, disabled=name not in reads)
        # any other parameter the retriever reads (RRF's k, the filing graph's edge weights, one added later)
        for name in [n for n in PARAMS if n in reads and n not in LAID_OUT]:
            param_widget(a3, name)
        members = a3.multiselect("RRF members", fusable(), key="rrf_members", disabled=base != "rrf",
                                 help="The retrievers whose rankings RRF fuses.")
        for m in members:
            st.session_state.setdefault(f"rrf_w_{m}", 1.0)  # a member just added votes once
        weights = [a3.number_input(f"weight of {m}", 0.0, 10.0, step=0.25, key=f"rrf_w_{m}", disabled=base != "rrf",
                                   help="Weighted RRF: this member's votes count this many times.")
                   for m in members]
        tuned = ", ".join(f"{PARAMS[n].label} = {v:g}" for n, v in corpus.defaults.items())
        shaped = ", ".join(f"{PARAMS[n].label} = {v:g}" for n, v in shape_defaults(corpus).items())
        st.caption(" ".join(
            ([f"Settings start from this corpus's tuned defaults ({tuned}, from its manifest.json)."] if tuned else []) +
            ([f"Its passages are mostly about one thing each (most have a title of their own), so the second hop "
              f"starts on ({shaped})."] if shaped else []) +
            ["The rest start from the catalog's defaults." if tuned or shaped else
             "Settings start from the catalog's defaults: this corpus has no tuned ones."]))
    return base, bct, vocabulary, int(k), tol_label, members, weights


def bct_on() -> bool:
    return bool(st.session_state.get("bct", False))


def _scope(index: Index) -> ScopeCorrection:
    """The filings retriever's scope, as read from the question unless the user corrects it here."""
    filings = index.structure().filings
    if st.session_state.pop("scope_cleared", False):
        st.caption("Your scope corrections were for the last question: this one is read as written.")
    with st.expander("Scope: which filings, period and statement the question is about", expanded=False):
        st.caption("Read off the question: its company (name or ticker), fiscal year, form and statement. If the "
                   "reading below the answer is wrong, correct it here; “as asked” keeps the question's reading, "
                   "“none” clears it. A new question starts from “as asked” again.")
        s1, s2, s3, s4, s5 = st.columns(5)
        companies = sorted({f.company for f in filings.values() if f.company})
        years = sorted({str(f.fiscal_year) for f in filings.values() if f.fiscal_year})
        quarters = ["1", "2", "3", "4"]
        forms = sorted({f.form for f in filings.values() if f.form})
        statement_names = {kind: label for kind, (label, _) in STATEMENTS.items()}
        for key, options in (("scope_company", companies), ("scope_year", years), ("scope_quarter", quarters),
                             ("scope_form", forms), ("scope_statement", list(statement_names))):
            if st.session_state.get(key) not in [AS_READ, NONE, *options]:
                st.session_state[key] = AS_READ  # a link naming what this room lacks
        s1.selectbox("Company", [AS_READ, NONE, *companies], key="scope_company")
        s2.selectbox("Fiscal year", [AS_READ, NONE, *years], key="scope_year")
        s3.selectbox("Fiscal quarter", [AS_READ, NONE, *quarters], key="scope_quarter",
                     format_func=lambda q: f"Q{q}" if q in quarters else q)
        s4.selectbox("Form", [AS_READ, NONE, *forms], key="scope_form")
        s5.selectbox("Statement", [AS_READ, NONE, *statement_names], key="scope_statement",
                     format_func=lambda kind: statement_names.get(kind, kind))
        if "scope_everywhere" not in st.session_state:
            st.session_state["scope_everywhere"] = param("everywhere", "0") == "1"
        st.checkbox("Search every filing, even when the question names a company this room does not hold",
                    key="scope_everywhere")
    set_params(**{url: (None if st.session_state[key] == AS_READ else st.session_state[key])
                  for url, key in (("company", "scope_company"), ("fiscal_year", "scope_year"),
                                   ("fiscal_quarter", "scope_quarter"), ("form", "scope_form"),
                                   ("statement", "scope_statement"))},
               everywhere="1" if st.session_state["scope_everywhere"] else None)
    return ScopeCorrection(_correction(st.session_state["scope_company"]),
                           _correction(st.session_state["scope_year"], int),
                           _correction(st.session_state["scope_form"]),
                           _correction(st.session_state["scope_statement"]),
                           everywhere=bool(st.session_state["scope_everywhere"]),
                           quarter=_correction(st.session_state["scope_quarter"], int))


def ask(index: Index) -> Request | None:
    """The question and settings widgets, written back to the URL; the request they make, or None with the reason
    shown (an empty or unsearchable question, RRF without members, a bad parameter)."""
    corpus = index.corpus
    question, labeled, offered = _question(index)
    story_slot = st.empty()  # the opening example's story, under its question once its answer is in
    base, bct, vocabulary, k, tol_label, members, weights = _settings(corpus)
    scope = _scope(index) if base in SCOPED_RETRIEVERS else ScopeCorrection()
    name = bct_of().get(base, base) if bct else base
    values = {n: type(p.default)(st.session_state.get(n, _spec(corpus, n)[0])) for n, p in PARAMS.items()}
    if not st.session_state.get("hop_on", values["hop_share"] > 0):  # the switch off: one walk, whatever γ reads
        values["hop_share"] = 0.0
    weighted = any(x != 1 for x in weights)
    set_params(q=question.strip() or None, retriever=name, k=k, bct=int(bct), tol=TOLERANCES[tol_label], **values,
               seeding=None if vocabulary else "paper", members=",".join(members),
               weights=",".join(f"{x:g}" for x in weights) if weighted else None)
    if not question.strip():  # where every room without labeled questions opens: a prompt, not a failure
        st.info("Type a question" + (", or pick a labeled example." if corpus.queries else
                                     ", or pick one under “Questions to start with”." if offered else "."))
        return None
    try:  # a question no retriever can search is said here, ahead of any build, with nothing below it
        check_query(question)
    except PathLensError as e:
        st.error(str(e))
        return None
    if base == "rrf" and not members:
        st.warning("Choose at least one RRF member under “Advanced settings”.")
        return None
    try:
        config = search_config(values, corpus, tol=TOLERANCES[tol_label], vocabulary=vocabulary,
                               rrf_members=tuple(members), rrf_weights=tuple(weights) if weighted else (), scope=scope)
    except PathLensError as e:
        st.error(str(e))
        return None
    if k > len(corpus):
        st.info(k_past_corpus(k, len(corpus)) + ".")
    return Request(question, name, k, config, labeled, story_slot)


__all__ = ["AS_READ", "NONE", "PLAIN", "Request", "TOLERANCES", "ask", "base_retrievers", "bct_of", "fusable", "method_words",
           "read_link"]
