"""Precedents: past deals like the one a question describes, ranked, each with why (engine.deals)."""

from __future__ import annotations

import streamlit as st

from ui.frame import frame
from ui.precedents_form import ask, deal_list
from ui.precedents_view import draw, run
from ui.url_state import seed_from_url

frame(pick_corpus=False)  # the deals are a list of their own, not a corpus of documents
st.title("Precedents")
st.caption("Which past deals are like this one, and why: the question is read into cues (sector, region, strategy, "
           "exit, period, size), candidates come from the descriptions and from a walk over the typed deal graph, "
           "and a ranker scores them; every score splits exactly into named parts.")
deals = deal_list()
if deals is None:
    st.stop()
request = ask(deals.index)
if request is None:
    st.stop()
rows = deals.index.universe.rows
seed_from_url("pr_deal", "deal", "", lambda v: v in rows)  # the deal whose graph is drawn (#1's when none)
seed_from_url("pr_why", "why", "", lambda v: v in rows)  # the deal set beside #1, scored with the others
for key in ("pr_deal", "pr_why"):
    if st.session_state[key] not in rows:  # a deal of the other list
        st.session_state[key] = ""
found = run(deals, request, st.session_state["pr_why"])
if found is None:
    st.stop()
draw(deals, request, found)
