"""The frame every page draws first: page config, the menu of pages, the corpus picker, the glossary.

Pages stay thin: they turn widgets into engine configs and render what the engine returns; what they share
lives beside this module by concern (`url_state`, `corpora`, `builds`, `render`).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.catalog import PARAMS
from engine.indexing.index import Index
from ui.corpora import sidebar_corpus
from ui.render import glossary_sidebar

def frame(pick_corpus: bool = True) -> Index | None:
    """What every page draws first: the page config and the sidebar (title, corpus picker,
    glossary). Returns the chosen corpus's index, or None with the reason shown; None also on a page that
    brings its own data (`pick_corpus=False`: no picker, which would do nothing there).

    Each page draws its own frame, so a page looks the same whether Streamlit runs it through
    app.py's `st.navigation` or on its own (its pages-folder mode, which it uses for the first
    request of a fresh server and in its test harness)."""
    # no page icon here: app.py sets ours once per run (a second one replaced the first while the browser could
    # still be fetching it: a 404); a fresh server's pages-folder mode shows Streamlit's own, served locally
    st.set_page_config(page_title="PathLens", layout="wide")
    for path, title, icon, _ in PAGES:  # drawn here, not by Streamlit, so both ways of running a page show it
        st.sidebar.page_link(path, label=title, icon=icon)
    st.sidebar.divider()
    st.sidebar.title("PathLens")
    st.sidebar.caption("Graph-augmented retrieval you can explain.")
    keep_query_view()  # before anything is drawn: the Query page's view survives a visit to another page
    index = sidebar_corpus() if pick_corpus else None
    if not pick_corpus:
        st.sidebar.caption("This page reads its own file; the corpus chosen on the other pages is kept for them.")
    glossary_sidebar()
    st.sidebar.caption(LINK_WORDS, help=PROBE_WORDS)
    return index


LINK_WORDS = "Each page's address holds its view: copy it to share the view or come back to it."
# streamlit/streamlit#7074 (open): no setting turns the probe off, so the app says what a console shows
PROBE_WORDS = ("Opened from its address, a page other than Query logs two 404 errors in the browser's console "
               "(…/_stcore/health and …/_stcore/host-config under the page's path): Streamlit's frontend looks for "
               "its server there first, in case the app is served below a base path, then finds it at the root. "
               "The page is not affected. It is Streamlit's own (streamlit/streamlit#7074).")


# (script, title, icon, URL path) of each page, in menu order: app.py registers them with st.navigation and
# `frame()` draws their links. Streamlit's own menu is off (client.showSidebarNavigation): a fresh server runs a
# deep link's first request in its pages-folder mode, whose menu would list the scripts' file names.
PAGES = [("pages/query.py", "Query", ":material/search:", "query"),
         ("pages/corpus.py", "Corpus & graph", ":material/hub:", "corpus"),
         ("pages/compare.py", "Compare", ":material/compare_arrows:", "compare"),
         ("pages/sweep.py", "Scale sweep", ":material/show_chart:", "sweep"),
         ("pages/benchmarks.py", "Benchmarks", ":material/science:", "benchmarks"),
         ("pages/precedents.py", "Precedents", ":material/handshake:", "precedents")]
# a local picture: a Material-symbol page icon makes the browser fetch the favicon from a font CDN
FAVICON = str(Path(__file__).resolve().parent / "favicon.png")


# the Query page's view: its widgets' keys (each catalog parameter's is its name)
QUERY_VIEW = ("question", "base_retriever", "bct", "vocabulary", "k", "tol", "rrf_members", "wi_entities",
              "wi_passages", "scope_company", "scope_year", "scope_quarter", "scope_form", "scope_statement", "example", *PARAMS)


KEPT = "query_view_kept"  # a plain session key (never a widget's, so Streamlit never drops it): the view's copy


def keep_query_view() -> None:
    """Streamlit drops the state of a widget a run does not draw: every Query-page widget while the user is on
    another page, a parameter's while its retriever does not read it. Handing each value back to the session at
    the top of every run is Streamlit's documented way to keep it, so coming back shows the same view. The values
    are also copied under KEPT, and a value gone from the session comes back from there: a walk-through came back
    from the Corpus page, while an upload was building, to every widget at its first option or minimum (bm25, one
    passage, α 0.01, the question empty), which later answers then used without a word."""
    kept = st.session_state.setdefault(KEPT, {})
    for key in dict.fromkeys([*QUERY_VIEW, *(k for k in [*st.session_state, *kept] if str(k).startswith("rrf_w_"))]):
        if key in st.session_state:
            kept[key] = st.session_state[key] = st.session_state[key]
        elif key in kept:
            st.session_state[key] = kept[key]


def forget_query_view() -> None:
    """The view's copy goes with the view, when a corpus's view starts afresh from its link or defaults."""
    st.session_state[KEPT] = {}
