"""Scale sweep: each retriever's metric as the corpus grows, plotted live trial by trial."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from engine.errors import PathLensError
from engine.evaluate.metrics import metric_names
from engine.catalog import CATALOG, QUICK_RETRIEVERS
from engine.indexing.index import search_config
from engine.jobs import Job
from engine.evaluate.sweep import (SweepConfig, SweepResult, Trial, default_sizes, gold_positions, in_words,
                                  run_sweep)
from ui.builds import CancelButton, cancel_job, ensure, follow_job, stages_for
from ui.frame import frame
from ui.render import downloads, retriever_color, show_table
from ui.url_state import asked_by_link, list_param, param, seed_from_url, set_params

st.title("Scale sweep")
index = frame()
if index is None:
    st.stop()
corpus = index.corpus
st.caption("Each trial keeps every gold passage of the labeled queries and fills the rest of the subsample at "
           "random. Subsamples slice the full index: no NER re-run, no re-encoding.")
if not corpus.queries:
    st.info("This corpus has no labeled queries, so a sweep has nothing to measure.")
    st.stop()

n = len(corpus)
n_gold = len(gold_positions(corpus))  # every subsample keeps these, so no size may be smaller
defaults = [int(s) for s in default_sizes(n, n_gold) if s != "full"]
options = sorted({s for s in (50, 100, 200, 500, 1000, 2000, 4000) if n_gold <= s < n} | set(defaults))
if st.session_state.get("sw_sizes_for") != corpus.fingerprint:  # another corpus: its own default sizes
    first = "sw_sizes_for" not in st.session_state  # the first view of the page may come from a link
    st.session_state["sw_sizes_for"] = corpus.fingerprint
    linked = [int(x) for x in list_param(param("sizes", ""), {str(o) for o in options})] if first else []
    st.session_state["sw_sizes"] = linked or defaults
else:  # handed back each run (ui.url_state.seed_from_url says why)
    st.session_state["sw_sizes"] = st.session_state.get("sw_sizes", defaults)
METRICS = metric_names(SweepConfig().ks)
MAX_RESAMPLES = 20
seed_from_url("sw_resamples", "resamples", 5, cast=int, bounds=(1, MAX_RESAMPLES), label="Resamples per size")
seed_from_url("sw_seed", "seed", 42, cast=int, bounds=(0, 2**31 - 1), label="Random seed")
seed_from_url("sw_retrievers", "retrievers", list(QUICK_RETRIEVERS), bool,
              lambda raw: list_param(raw, CATALOG))
seed_from_url("sw_metric", "metric", "hr@5", lambda v: v in METRICS, label="Metric")


def open_full_data_room() -> None:
    st.session_state["corpus_choice"] = "dataroom"


if n < 2 * n_gold:
    st.info(f"{corpus.name} is too small for a meaningful sweep: every subsample keeps the {n_gold} gold passages of "
            f"its labeled questions, so sizes can only run from {n_gold} to {n} passages. The full data room "
            "(4,200 passages) shows how each retriever holds up as look-alike documents accumulate.")
    st.button("Sweep the full data room instead", key="sw_full", on_click=open_full_data_room, type="primary",
              help="Makes the full data room the corpus of every page, as choosing it in the sidebar does.")
c1, c2, c3 = st.columns([2, 1, 1])  # room for every size chip
sizes = c1.multiselect("Sizes (the full corpus is always added)", options, key="sw_sizes",
                       help=f"No size below {n_gold}: every subsample keeps all gold passages of the labeled queries.")
# no bounds on the widget: past one, Streamlit reddens the box and keeps the old value without a word
resamples = int(c2.number_input("Resamples per size", step=1, key="sw_resamples",
                                help=f"At most {MAX_RESAMPLES}: each resample of each size is a full evaluation."))
seed = int(c3.number_input("Random seed", 0, 2**31 - 1, key="sw_seed", help="Seed of the random subsamples, so a sweep can be repeated exactly."))
names = st.multiselect("Retrievers", list(CATALOG), key="sw_retrievers",
                       help="The default four need no model, so a first sweep loads none. The hybrids (hybrid-regex, "
                       "hybrid-ner) and dense also read dense embeddings: the first sweep with one of them builds "
                       "those, with its progress shown.")
metric = st.selectbox("Metric", METRICS, key="sw_metric")
set_params(sizes=",".join(str(s) for s in sizes) or None, resamples=resamples, seed=seed,
           retrievers=",".join(names) or None, metric=metric)

too_many = not 1 <= resamples <= MAX_RESAMPLES
if too_many:
    st.error(f"Resamples per size: from 1 to {MAX_RESAMPLES}, not {resamples:,}. The sweep runs once it is "
             "within them.")
try:
    # an out-of-range value is said above and runs nothing: the config only keys the last sweep's view
    config = SweepConfig(sizes=tuple(sizes) + ("full",), resamples=min(max(resamples, 1), MAX_RESAMPLES), seed=seed,
                         retrievers=tuple(names), metric=metric)
except PathLensError as e:
    st.error(str(e))
    st.stop()


def chart(trials: list[Trial], full_axis: bool) -> alt.LayerChart:
    """Each retriever's mean as a line in its own colour, its spread as a band; the metric's axis fitted to the
    values (so lines near each other are told apart) unless the user asks for the whole 0–1.

    Vega-Lite, not Plotly as on the other pages: the chart is redrawn from a fragment as trials finish, and a
    Plotly chart redrawn there showed twice for a moment on every redraw, one key or not (the browser test's
    recorder read 16 → 32 → 16 points); a Vega-Lite chart has its data replaced in place (tests/test_browser.py
    records the chart at every change of the page)."""
    df = pd.DataFrame([{"size": t.size, "retriever": t.retriever, "value": t.value} for t in trials])
    agg = df.groupby(["retriever", "size"], sort=False)["value"].agg(["mean", "min", "max"]).reset_index()
    names = list(dict.fromkeys(df["retriever"]))
    low, high = float(df["value"].min()), float(df["value"].max())
    pad = max(0.02, (high - low) * 0.1)
    # a metric is a share: its axis never runs past 1 (a line at 1 is drawn on the edge, not clipped: clamp)
    y_scale = alt.Scale(domain=[0, 1] if full_axis else [max(0.0, low - pad), min(1.0, high + pad)], zero=False,
                        clamp=True)
    swept = sorted(int(v) for v in agg["size"].unique())
    ends = {"domain": [swept[0], swept[-1]]} if len(swept) > 1 else {}  # from the first size swept to the last
    x = alt.X("size:Q", title="corpus size (passages)", scale=alt.Scale(type="log", nice=False, **ends),
              axis=alt.Axis(values=swept, format=",", labelFlush=False))
    color = retriever_color(names, symbolOpacity=1)  # the legend's symbols not in the bands' faint fill
    base = alt.Chart(agg)
    band = base.mark_area(opacity=0.15).encode(x, alt.Y("min:Q", scale=y_scale, title=metric), alt.Y2("max:Q"), color)
    line = base.mark_line(point=True, strokeWidth=2.5).encode(
        x, alt.Y("mean:Q", scale=y_scale, title=metric), color,
        tooltip=[alt.Tooltip("retriever:N"), alt.Tooltip("size:Q", format=","), alt.Tooltip("mean:Q", format=".3f"),
                 alt.Tooltip("min:Q", format=".3f"), alt.Tooltip("max:Q", format=".3f")])
    return (band + line).properties(height=430)


# the full room's button leads when this corpus is too small to sweep; this one otherwise
run = st.button("Run sweep", type="secondary" if n < 2 * n_gold else "primary", key="sw_run", disabled=too_many)
# a link to a swept view (ran=1) runs the sweep again on open
run = asked_by_link("ran", "sweep") and "sweep" not in st.session_state or run
# live while a sweep runs, or is about to (asked for before its index was built: it starts in this run)
waiting = st.session_state.get("sweep_pending") == (corpus.name, config)
cancel = CancelButton("sweep_job", "sw_cancel", active=run or waiting or "sweep_job" in st.session_state,
                      help="Stops the running sweep after the trial in flight; finished trials stay on the chart.")
full_axis = st.toggle("Show the whole 0–1 scale", key="sw_full_axis",
          help="Off: the metric's axis is fitted to the values, so close lines are told apart. On: from 0 to 1.")
plot = st.empty()
status = st.empty()
key = (corpus.name, config)

if run:  # kept until the index is built: a build the page follows ends in a rerun, where the button reads False
    st.session_state["sweep_pending"] = key
run = st.session_state.get("sweep_pending") == key
if run:
    if not ensure(index, stages_for(names)):
        cancel.idle()  # nothing started
        st.stop()
    del st.session_state["sweep_pending"]
    trials: list[Trial] = []  # filled by the job's thread as trials finish; read here to draw them

    def work(progress, stop):
        def on_trial(trial: Trial, done: int, total: int) -> None:
            trials.append(trial)
            progress("trials", done, total)

        return run_sweep(index, config, search_config({}, corpus), on_trial=on_trial,
                         should_stop=stop)  # the corpus's tuned defaults, as the CLI

    # the sweep runs beside the page, so Cancel reaches the engine and a click elsewhere does not lose it
    cancel_job("sweep_job")  # a sweep still running from an earlier click is replaced, not left running
    st.session_state["sweep"] = {"key": key, "trials": trials, "complete": False}
    st.session_state["sweep_job"] = Job("sweep", work).start()

job = st.session_state.get("sweep_job")
if job is not None:
    state = st.session_state["sweep"]

    def live(s) -> None:
        trials = list(state["trials"])  # appended by the job's thread as trials finish
        if trials:
            st.altair_chart(chart(trials, full_axis), width="stretch")
            last = trials[-1]
            st.caption(f"latest trial: size {last.size}, {last.retriever} {state['key'][1].metric} = {last.value:.3f}")

    with plot.container():
        over = follow_job(job, show=live)
    if not over:
        st.stop()  # the fragment draws the sweep as it goes and reruns the page when it is over
    cancel.idle()
    del st.session_state["sweep_job"]
    try:
        state["planned"] = job.status().total
        result = job.result()
        state["trials"], state["complete"], state["lead"] = list(result.trials), result.complete, result.lead
        if result.complete:
            status.success(f"Sweep finished: {len(result.trials)} trials.")
    except PathLensError as e:
        status.error(str(e))

state = st.session_state.get("sweep")
set_params(ran=1 if state and state["key"] == key and state["trials"] and "sweep_job" not in st.session_state else None)
if state and state["key"][0] == corpus.name and state["trials"]:
    trials = state["trials"]
    plot.altair_chart(chart(trials, full_axis), width="stretch")
    reached = max(t.size for t in trials) == n
    st.caption(f"Each line is a retriever's mean {state['key'][1].metric} over the resamples of a size; its shaded "
               "band runs from the worst resample to the best. " + (
                   "The last size is the whole corpus." if reached else
                   f"The sweep stopped at {max(t.size for t in trials):,} passages, before the whole corpus "
                   f"({n:,})."))
    if not state["complete"]:
        of = f" of {state['planned']:,}" if state.get("planned") else ""
        status.warning(f"Sweep cancelled after {len(trials)}{of} trials; the chart shows what finished.")
    result = SweepResult(corpus.name, n, tuple(sorted({t.size for t in trials})), state["key"][1], tuple(trials),
                         state["complete"], state.get("lead"))
    if story := in_words(result):  # the chart read out, for a reader who does not know the metric
        st.info(" ".join(story))
    rows = [{"size": size, "retriever": r, "mean": v["mean"], "min": v["min"], "max": v["max"],
             "resamples": len(v["values"])} for size, per in result.summary().items() for r, v in per.items()]
    table = pd.DataFrame(rows)
    show_table(table, hide_index=True, width="stretch")
    downloads(table, "pathlens-sweep", key="sweep")
