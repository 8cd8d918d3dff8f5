"""Query: ask a question, see the ranked passages and why each came back."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.errors import NoSeedError, PathLensError
from engine.graph_retriever import GraphParams, GraphRetriever
from engine.index import SearchConfig
from engine.render import subgraph_html
from engine.retrievers import MAX_QUERY_CHARS, RRFRetriever
from engine.text import tokenize
from pages.common import page_index, downloads, ensure, gold_of, highlight, param, param_in_range, set_params, stages_for

BASE_RETRIEVERS = ["ppr-ner", "ppr-regex", "bm25", "tfidf", "dense", "rrf"]
TOLERANCES = {"none (run the cap)": None, "1e-4": 1e-4, "1e-6": 1e-6, "1e-8": 1e-8}

st.title("Query")
index = page_index()
if index is None:
    st.stop()
corpus = index.corpus
texts = {p.id: p.text for p in corpus.passages}
titles = {p.id: p.title for p in corpus.passages}

# ---------------------------------------------------------------- state from the URL, once per session
if st.session_state.get("query_state_for") != corpus.name:
    default_q = next((q.text for q in corpus.queries if q.kind == "multi-hop"),
                     corpus.queries[0].text if corpus.queries else "")
    wanted = param("retriever", "ppr-ner")
    notes: list[str] = []
    if wanted.replace("bct-", "ppr-") not in BASE_RETRIEVERS:
        notes.append(f"Unknown retriever {wanted!r} in the link; using ppr-ner.")
    st.session_state.update({
        "query_state_for": corpus.name,
        "question": param("q", default_q),
        "base_retriever": wanted.replace("bct-", "ppr-") if wanted.replace("bct-", "ppr-") in BASE_RETRIEVERS else "ppr-ner",
        "bct": param("bct", 1 if wanted.startswith("bct-") else 0, int) == 1,
        "alpha": param_in_range("alpha", 0.15, 0.01, 0.99, float, "α", notes),
        "iterations": param_in_range("iters", 20, 1, 1000, int, "iteration cap", notes),
        "beta": param_in_range("beta", 0.5, 0.0, 2.0, float, "β", notes),
        "k": param_in_range("k", 5, 1, 50, int, "k", notes),
        "link_notes": notes,
        "tol": next((label for label, v in TOLERANCES.items() if str(v) == param("tol", "None")), "none (run the cap)"),
    })


for note in st.session_state.get("link_notes", []):
    st.warning(note)


def use_example() -> None:
    choice = st.session_state.get("example")
    if choice and choice != "—":
        st.session_state["question"] = choice.split(" · ", 1)[1]


if corpus.queries:
    st.selectbox("Labeled example questions", ["—"] + [f"{q.id} ({q.kind}) · {q.text}" for q in corpus.queries],
                 key="example", on_change=use_example)
question = st.text_input("Question", key="question", help=f"Up to {MAX_QUERY_CHARS:,} characters.")

c1, c2, c3, c4 = st.columns([2, 2, 2, 1])
base = c1.selectbox("Retriever", BASE_RETRIEVERS, key="base_retriever",
                    help="ppr-*: Personalized PageRank over the entity graph (regex or spaCy NER); rrf fuses its members")
graph_like = base.startswith("ppr-")
bct = c1.toggle("BCT alias seeding", key="bct", disabled=not graph_like,
                help="Over-seed the query's entities with their aliases (defined terms, nested names, acronyms)")
alpha = c2.slider("α (teleport probability)", 0.01, 0.99, step=0.01, key="alpha", disabled=not graph_like and base != "rrf")
iterations = c2.number_input("Iteration cap", 1, 1000, step=1, key="iterations")
tol_label = c3.selectbox("Tolerance (early stop)", list(TOLERANCES), key="tol")
beta = c3.slider("β (alias weight)", 0.0, 2.0, step=0.05, key="beta", disabled=not (graph_like and bct))
k = c4.number_input("k", 1, 50, step=1, key="k")

name = base.replace("ppr-", "bct-") if graph_like and bct else base
set_params(q=question.strip() or None, retriever=name, alpha=alpha, iters=iterations, beta=beta, k=k,
           bct=int(bct), tol=TOLERANCES[tol_label])

if not question.strip():
    st.warning("The question is empty: type one, or pick a labeled example.")
    st.stop()

try:
    config = SearchConfig(graph=GraphParams(alpha=alpha, iterations=int(iterations), tol=TOLERANCES[tol_label],
                                            bct_weight=beta))
except PathLensError as e:
    st.error(str(e))
    st.stop()
if k > len(corpus):
    st.info(f"k = {k} is larger than the corpus; showing all {len(corpus)} passages.")
if not ensure(index, stages_for([name], config.rrf.members)):
    st.stop()
gold = gold_of(index, question)

try:
    retriever = index.retriever(name, config)
    if isinstance(retriever, GraphRetriever):
        answer = retriever.explain(question, int(k), gold=gold, texts=texts)
        hits, notes = answer.hits, ()
    elif isinstance(retriever, RRFRetriever):
        answer = None
        hits, notes = retriever.search_with_notes(question, int(k))
    else:
        answer = None
        hits, notes = retriever.search(question, int(k)), ()
except NoSeedError as e:
    st.warning(f"No hits. {e}.")
    st.stop()
except PathLensError as e:
    st.error(str(e))
    st.stop()

for n in notes:
    st.info(f"RRF member gave nothing: {n}")
if not hits:
    st.warning(f"{name} returned no passage for this question (no passage shares a term or entity with it).")
    st.stop()

# ---------------------------------------------------------------- graph explanation
if answer is not None:
    st.subheader("Seeds")
    seeds_df = pd.DataFrame([{"entity": s.label, "source": s.source, "weight": round(s.weight, 4),
                              "matched by": s.rule, "from": s.via} for s in answer.seeds])
    st.dataframe(seeds_df, hide_index=True, width="stretch")
    if answer.unmatched:
        st.caption("Query entities not in the graph: " + ", ".join(answer.unmatched))
    left, right = st.columns([3, 2])
    with left:
        st.subheader("Evidence-path subgraph")
        st.caption("Red: seeds (pink: aliases) · blue boxes: hits · green: bridging entities · light boxes: passages on "
                   "paths · ★ gold · node size: PPR mass · thick red edges: evidence paths. Hover for text.")
        st.iframe(subgraph_html(answer), height=580)
    with right:
        st.subheader("PPR residual per iteration")
        fig = go.Figure(go.Scatter(x=list(range(1, len(answer.residuals) + 1)), y=list(answer.residuals),
                                   mode="lines+markers", name="L1 change"))
        fig.update_layout(yaxis_type="log", xaxis_title="iteration", yaxis_title="‖pₜ₊₁ − pₜ‖₁", height=360,
                          margin=dict(l=10, r=10, t=10, b=10))
        st.plotly_chart(fig, width="stretch", key="residuals")
        st.caption(f"{answer.iterations} iterations run at α = {alpha:.2f}; the change shrinks by about (1 − α) "
                   "each step, so a larger α converges faster and keeps the walk nearer its seeds.")

# ---------------------------------------------------------------- ranked passages
st.subheader(f"Top {len(hits)} passages · {name}")
rows = []
explained = {e.hit.passage_id: e for e in answer.explanations} if answer is not None else {}
q_terms = set(tokenize(question))
for h in hits:
    e = explained.get(h.passage_id)
    row = {"rank": h.rank, "passage_id": h.passage_id, "score": h.score, "gold": h.passage_id in gold,
           "title": titles[h.passage_id]}
    if e is not None:
        row["seed shares"] = "; ".join(f"{s}: {v:.0%}" for s, v in e.seed_shares)
        row["evidence paths"] = " | ".join(p.words() for p in e.paths)
    rows.append(row)
    mark = " · ★ gold" if h.passage_id in gold else ""
    with st.container(border=True):
        st.markdown(f"**{h.rank}.** `{h.passage_id}` · score {h.score:.5g}{mark}")
        if e is not None:
            st.caption("Seed shares: " + ", ".join(f"{s} {v:.0%}" for s, v in e.seed_shares))
            for p in e.paths:
                st.caption(f"Evidence path: {p.words()} (mass {p.mass:.2e})")
            terms = list(e.matched_entities)
        else:
            words = [w for w in texts[h.passage_id].split() if set(tokenize(w)) & q_terms]
            terms = words
        st.html(f"<div class='passage'>{highlight(texts[h.passage_id], terms)}</div>")

table = pd.DataFrame(rows)
st.dataframe(table, hide_index=True, width="stretch")
downloads(table, f"pathlens-{name}-hits", key="hits")
