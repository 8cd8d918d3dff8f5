"""Benchmarks: MuSiQue / HotpotQA / 2Wiki files, closed pool or open corpus, Aethel-style table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from engine.evaluate.benchmarks import FORMATS, MODES, run_bench
from engine.jobs import Job
from engine.errors import PathLensError
from engine.evaluate.evaluate import compare, verdict
from engine.evaluate.metrics import leaders_in_words, metric_names
from engine.catalog import CATALOG, QUICK_RETRIEVERS
from ui.builds import CancelButton, cancel_job, job_result
from ui.corpora import save_upload
from ui.frame import frame
from ui.render import best_in_bold, downloads, metric_bars, pick_pair, show_table
from ui.url_state import asked_by_link, list_param, param, seed_from_url, set_params

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # beside the checkout, when it is there


def shared_files() -> set[str]:
    """Benchmark files directly in the shared data folder: the only files a link may name."""
    return {p.name for p in SHARED.glob("*.json*") if p.is_file()} if SHARED.is_dir() else set()


def shared_name(path_text: str) -> str | None:
    """The name a link may carry for this path: a file directly in the shared data folder, else None."""
    if not path_text.strip():
        return None
    path = Path(path_text.strip()).expanduser()
    return path.name if path.name in shared_files() and path.resolve().parent == SHARED.resolve() else None


NO_SEED = ("questions a graph retriever could not start on: none of their names is in its graph, so it returned "
           "nothing and they count as misses (a hybrid always starts, from its passage seeds; bm25 and dense read "
           "every word).")

frame(pick_corpus=False)  # benchmarks bring their own file: the corpus picker does nothing here
st.title("Benchmarks")
st.caption("Closed pool: each question gets a fresh index over its own paragraphs. Open corpus: the unique "
           "paragraphs of all questions are pooled into one index. The file stays where it is; uploads are kept "
           "in the app's own temporary folder.")

# a link reproduces the settings; of the file, only a shared-data file's name goes in it (see `shared_name`)
seed_from_url("bm_format", "format", FORMATS[0], lambda v: v in FORMATS)
seed_from_url("bm_mode", "mode", MODES[0], lambda v: v in MODES)
seed_from_url("bm_sample", "sample", 50, cast=int, bounds=(0, 100_000), label="Sample size")
seed_from_url("bm_seed", "seed", 42, cast=int, bounds=(0, 2**31 - 1), label="Random seed")
seed_from_url("bm_retrievers", "retrievers", list(QUICK_RETRIEVERS), bool,
              lambda raw: list_param(raw, CATALOG))
c1, c2 = st.columns(2)
fmt = c1.selectbox("Format", FORMATS, key="bm_format")
mode = c2.radio("Mode", MODES, horizontal=True, key="bm_mode",
                format_func=lambda m: {"closed": "closed pool", "open": "open corpus"}[m])
# a file in the shared data folder beside the checkout may be named in a link (by its name alone); any other path
# stays out of it, since a shared link must not make the server read files of its choosing
samples = sorted(shared_files())
# the example path is one of the chosen format's own files when one is here, so the two never disagree
example = next((s for s in samples if fmt in s.lower()), None)
if "bm_path" not in st.session_state:
    linked = param("file", "")
    st.session_state["bm_path"] = str(SHARED / linked) if linked in shared_files() else ""
# with no file named, the chosen format's shared file fills the field, and follows the format while nobody edits it
auto = str(SHARED / example) if example else ""
if st.session_state["bm_path"] in ("", st.session_state.get("bm_path_auto")):
    st.session_state["bm_path"] = st.session_state["bm_path_auto"] = auto
path_text = st.text_input("File path (JSON or JSON Lines)", key="bm_path",
                          placeholder=str(SHARED / example) if example else f"/path/to/{fmt}_dev.jsonl",
                          help=f"Files in {SHARED} can be shared in the page's link; other paths are not put in it.")
typed = Path(path_text.strip()).expanduser() if path_text.strip() else None  # the file the box names, if any
if samples:
    st.caption(f"Sample files beside the checkout, in {SHARED}: " + ", ".join(samples) + ". Paste one's path, or "
               "upload a file below.")
elif not (typed and typed.is_file()):  # a file given by path needs no samples
    st.caption("No sample files here: the shared data folder beside the checkout (../shared/data) holds the MuSiQue "
               "and HotpotQA dev files when it is there. Give the path of a MuSiQue, HotpotQA or 2Wiki file, or "
               "upload one.")
linkable = shared_name(path_text)  # the name a link may carry for this file, or None
upload = st.file_uploader("…or upload the file", type=["jsonl", "json"], key="bm_upload")
if upload is None and typed and not typed.is_file():
    st.warning(f"No file at {typed}: give the path of a MuSiQue, HotpotQA or 2Wiki file, or upload one.")
c3, c4 = st.columns(2)
sample_n = int(c3.number_input("Sample size (0 = all questions)", 0, 100_000, key="bm_sample"))
seed = int(c4.number_input("Random seed", 0, 2**31 - 1, key="bm_seed", help="Seed of the random question sample, so a run can be repeated exactly."))
names = st.multiselect("Retrievers", list(CATALOG), key="bm_retrievers")
set_params(format=fmt, mode=mode, sample=sample_n, seed=seed, retrievers=",".join(names) or None)

run = st.button("Run benchmark", type="primary", key="bm_run")
# a link to a benchmark that ran on a shared file (ran=1) runs it again on open
run = asked_by_link("ran", "benchmarks") and bool(linkable) and "bench_result" not in st.session_state or run
cancel = CancelButton("bench_job", "bm_cancel", active=run or "bench_job" in st.session_state,
                      help="Stops a running benchmark after the question in flight; the questions finished are shown.")
if run:
    try:
        if upload is not None:
            path = save_upload(upload)
        elif typed:
            path = typed
            if not path.is_file():
                raise PathLensError(f"no file at {path}")
        else:
            raise PathLensError("give a benchmark file: a path or an upload")
        if not names:
            raise PathLensError("choose at least one retriever")
        args = (fmt, path, mode, list(names), (1, 3, 5), sample_n or None, seed)
        cancel_job("bench_job")  # a run still going from an earlier click is replaced, not left running
        # the benchmark runs beside the page, so a click elsewhere does not lose it and Cancel reaches the engine
        st.session_state["bench_job"] = Job("bench", lambda progress, stop: run_bench(
            *args, on_progress=progress, should_stop=stop)).start()
        st.session_state.pop("bench_result", None)
        st.session_state["bench_file"] = linkable if upload is None else None
        st.session_state["bench_ran_on"] = upload.name if upload is not None else str(path)
        st.session_state["bench_sample"] = sample_n
    except PathLensError as e:
        st.error(str(e))
        cancel.idle()  # nothing started

if "bench_job" in st.session_state:
    ran = job_result("bench_job", cancel)
    if ran is not None:
        st.session_state["bench_result"] = ran

result = st.session_state.get("bench_result")
set_params(file=linkable, ran=1 if result is not None and linkable and st.session_state.get("bench_file") == linkable
           else None)
if result is not None:
    st.subheader(f"{result.format} · {'closed pool' if result.mode == 'closed' else 'open corpus'} · "
                 f"{result.n_questions} questions · {result.n_passages:,} passages")
    ran_on = st.session_state.get("bench_ran_on", "")
    shown_path = upload.name if upload is not None else str(typed or "")
    if ran_on:  # a table stays under a path typed since: it says which file it measured
        st.caption(f"Measured on {ran_on}" + ("" if shown_path == ran_on else
                                                "; the file named above is another: Run benchmark to measure it") + ".")
    if not result.complete:
        st.warning(f"Benchmark cancelled after {result.n_questions} of {result.n_asked} questions; "
                   f"the table covers those {result.n_questions}.")
    elif st.session_state.get("bench_sample", 0) > result.n_questions:  # asked for more than the file holds
        st.info(f"Sample size {st.session_state['bench_sample']:,} is more than the file's {result.n_questions:,} "
                f"questions: all {result.n_questions:,} were asked.")
    metrics = result.metrics()
    hidden = [m for m in metric_names(result.eval.ks) if m not in metrics]
    table = pd.DataFrame([{"retriever": n, **{m: r.means[m] for m in metrics}, "no seed": len(r.no_seed)}
                          for n, r in result.eval.results.items()])
    show_table(best_in_bold(table, metrics), hide_index=True, width="stretch", column_config={
        "no seed": st.column_config.NumberColumn("no seed", help=NO_SEED)})
    st.caption("The best value of each column is in bold. “no seed”: " + NO_SEED)
    if hidden:
        st.caption(f"Not shown: {', '.join(hidden)}. Every question here has at least {result.min_gold} gold "
                   "passages, so no ranking can have them all in so few places: it is 0 by construction.")
    downloads(table, f"pathlens-bench-{result.format}-{result.mode}", key="bench")
    long = table.melt(id_vars=["retriever"], value_vars=metrics, var_name="metric")
    metric_bars(long, key="bench_chart")

    names_run = list(result.eval.results)
    if len(names_run) >= 2:
        st.subheader("Paired bootstrap 95% CI")
        a, b, metric = pick_pair(result.eval, names_run, metrics, result.min_gold > 1, "bm_ci")
        ci = next(c for c in compare(result.eval, a, b) if c.metric == metric)
        st.info(f"On these {result.n_questions} questions, "  # the table read out, on the metric the CI is about
                f"{leaders_in_words({n: result.eval.results[n].means[metric] for n in names_run}, metric, ci)}.")
        ci_df = pd.DataFrame([{"questions": result.n_questions, f"Δ {metric} (A − B)": ci.mean_diff,
                               "95% CI low": ci.low, "95% CI high": ci.high, "verdict": verdict(ci),
                               "P(Δ ≤ 0)": ci.p_not_better}])
        show_table(ci_df, hide_index=True, width="stretch")
        st.caption(f"Resampling the {result.n_questions} questions 10,000 times (seed 42): P(Δ ≤ 0) is the share of "
                   f"resamples in which {a} did no better than {b}; 0 means {a} was ahead in every one.")
        downloads(ci_df, f"pathlens-bench-{result.format}-bootstrap", key="bench_ci")
