"""PathLens: a multipage Streamlit dashboard over the engine. Run with `make run`.

Navigation only: each page draws its own frame (sidebar, corpus picker, glossary) with `ui.frame`.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # models come from installed packages, never a hub

import streamlit as st  # noqa: E402

from ui.common import FAVICON  # noqa: E402

st.set_page_config(page_title="PathLens", page_icon=FAVICON, layout="wide")

PAGES = [
    st.Page("pages/query.py", title="Query", icon=":material/search:", url_path="query", default=True),
    st.Page("pages/corpus.py", title="Corpus & graph", icon=":material/hub:", url_path="corpus"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    st.Page("pages/sweep.py", title="Scale sweep", icon=":material/show_chart:", url_path="sweep"),
    st.Page("pages/benchmarks.py", title="Benchmarks", icon=":material/science:", url_path="benchmarks"),
]

st.navigation(PAGES).run()
