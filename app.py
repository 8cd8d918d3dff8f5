"""PathLens: a multipage Streamlit dashboard over the engine. Run with `make run`.

Navigation only: each page draws its own frame (sidebar, corpus picker, glossary) with `ui.frame`.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # models come from installed packages, never a hub

import streamlit as st  # noqa: E402

from ui.frame import FAVICON, PAGES

st.set_page_config(page_title="PathLens", page_icon=FAVICON, layout="wide")

# each page draws its frame (menu, corpus picker, glossary; ui.frame), so Streamlit's own menu is hidden
st.navigation([st.Page(path, title=title, icon=icon, url_path=url, default=url == "query")
               for path, title, icon, url in PAGES], position="hidden").run()
