"""Query: ask a question, see the ranked passages and why each came back."""

from __future__ import annotations

import streamlit as st

from engine.indexing.availability import answerer
from ui.builds import fresh_area, stages_for
from ui.corpora import left_out_here
from ui.frame import frame
from ui.query_answer import draw, run
from ui.query_form import ask, read_link
from ui.staged import build_waits_words

st.title("Query")
index = frame()
if index is None:
    st.stop()
read_link(index.corpus)
files_out, pages_out = left_out_here(index.corpus)  # said where the files were brought, not only on the Corpus page
if files_out:
    st.warning(files_out)
if pages_out:
    st.caption(pages_out)
request = ask(index)
if request is None:
    if words := build_waits_words(index):
        st.caption(words)
    st.stop()
now = answerer(request.name, index.stored, request.config.rrf.members).name
with fresh_area(index, stages_for([now], request.config.rrf.members), "query"):  # no stale answer under a build
    ran = run(index, request)
    if ran is None:
        st.stop()
    draw(index, request, ran)
