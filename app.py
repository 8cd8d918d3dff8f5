"""PathLens: a multipage Streamlit dashboard over the engine. Run with `make run`.

Navigation only: each page draws its own frame (sidebar, corpus picker, glossary) with `ui.frame`.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # models come from installed packages, never a hub

import streamlit as st  # noqa: E402

from ui.builds import FOLLOWED, renewing_leases  # noqa: E402
from ui.frame import FAVICON, PAGES  # noqa: E402

st.set_page_config(page_title="PathLens", page_icon=FAVICON, layout="wide")



def _to_query() -> None:
    """/query: the Query page is the default, served at / (Streamlit reserves a default page's path yet answers it
    "Page not found"), so its path is this hidden page, which opens it with the link's question and settings."""
    st.switch_page("pages/query.py", query_params=st.query_params.to_dict())


# each page draws its frame (menu, corpus picker, glossary; ui.frame), so Streamlit's own menu is hidden
page = st.navigation([st.Page(path, title=title, icon=icon, url_path="home" if url == "query" else url,
                              default=url == "query") for path, title, icon, url in PAGES]
                     + [st.Page(_to_query, title="Query", url_path="query", visibility="hidden")], position="hidden")
with renewing_leases(st.session_state.setdefault(FOLLOWED, [])):  # the builds this tab waits on live while it runs
    page.run()
