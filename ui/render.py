"""Rendering helpers the pages share: tables with glossary tooltips, downloads, escaped corpus text."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd
import streamlit as st

from engine.catalog import CATALOG
from engine.evaluate.evaluate import EvalResult, default_pair
from engine.explain.glossary import definition, entries, lookup
from engine.explain.palette import color_of
from engine.indexing.index import Index
from ui.url_state import seed_from_url, set_params


def retriever_color(names, **legend) -> alt.Color:
    """Vega-Lite's colour channel for a chart by retriever: each in its own colour (engine.explain.palette), the
    legend under the chart."""
    names = list(names)
    return alt.Color("retriever:N", title=None, scale=alt.Scale(domain=names, range=[color_of(r) for r in names]),
                     legend=alt.Legend(orient="bottom", **legend))


def metric_bars(long: pd.DataFrame, key: str) -> None:
    """Each metric's value per retriever as grouped bars on the 0–1 scale, each retriever in its colour; `long`
    has the columns retriever, metric and value.

    Every chart of the app is Vega-Lite (Altair), not plotly: plotly's bundle costs the browser ~1.6 s and ~2
    CPU-s a page. Six Query page loads took 36.2 s with the residual chart in plotly, 28.7 s in Vega-Lite and
    26.8 s without it (headless Chromium on two cores)."""
    names = list(dict.fromkeys(long["retriever"]))
    st.altair_chart(alt.Chart(long).mark_bar().encode(
        alt.X("metric:N", title=None, sort=list(dict.fromkeys(long["metric"])), axis=alt.Axis(labelAngle=0)),
        alt.XOffset("retriever:N", sort=names), alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title=None),
        retriever_color(names), tooltip=["retriever", "metric", alt.Tooltip("value:Q", format=".3f")]
    ).properties(height=300), width="stretch", key=key)


BEST = "font-weight: bold; background-color: #e8f3e8"


def best_in_bold(table: pd.DataFrame, metrics: list[str], group: str | None = None):
    """The table styled with each metric's best value in bold (within each value of `group`, when given). A best of
    0 marks nothing: where every retriever scores 0 (all@1 with two gold passages) no one is best."""
    def bold(column: pd.Series) -> list[str]:
        best = column.groupby(table[group]).transform("max") if group else pd.Series(column.max(), index=column.index)
        return [BEST if v == b and b > 0 else "" for v, b in zip(column, best)]
    return table.style.format({m: "{:.3f}" for m in metrics}).apply(bold, subset=metrics)


def show_table(data, column_config: dict | None = None, wide: tuple[str, ...] = (),
               widths: dict[str, int] | None = None, **kwargs) -> None:
    """st.dataframe with a glossary tooltip on every column that has no config of its own; the `wide` columns
    (names that run long) drawn wide, so a name is not cut where a narrow number needs no room, and `widths` in
    pixels where a sentence must show whole beside a count."""
    frame = data.data if hasattr(data, "data") and isinstance(data.data, pd.DataFrame) else data
    config = dict(column_config or {})
    widths = widths or {}
    for col in getattr(frame, "columns", []):
        term = lookup(str(col))
        if str(col) not in config and (term is not None or str(col) in wide or str(col) in widths):
            width = widths.get(str(col), "large" if str(col) in wide else None)
            config[str(col)] = st.column_config.Column(help=definition(term) if term else None, width=width)
    st.dataframe(data, column_config=config, **kwargs)


def glossary_sidebar() -> None:
    """Every term the pages use, with its definition, in a sidebar expander."""
    with st.sidebar.expander("Glossary: what the words mean"):
        st.markdown("\n".join(f"- **{term}**: {text}" for term, text in entries()))


def downloads(df: pd.DataFrame, stem: str, key: str) -> None:
    """CSV and JSON downloads of a result table. A download does not rerun the page (`on_click="ignore"`):
    a rerun would only redo the page's work, and for a deferred file it raced the file's own request. Each file is
    made when its button is pressed: a file stored with the page is checked by the browser when the button appears,
    and a rerun that replaced it meanwhile (another session's build, a fragment) left a 404 in the console."""
    row = st.container(horizontal=True)  # side by side at the left, not one at each half's start
    row.download_button("Download CSV", lambda: df.to_csv(index=False).encode("utf-8"), f"{stem}.csv", "text/csv",
                        key=f"{key}_csv", on_click="ignore")
    row.download_button("Download JSON", lambda: json.dumps(json.loads(df.to_json(orient="records")),
                                                            indent=2).encode("utf-8"),
                        f"{stem}.json", "application/json", key=f"{key}_json", on_click="ignore")


def escape_markdown(text: str) -> str:
    """Corpus text shown through st.markdown: Markdown and HTML characters taken literally."""
    return "".join("\\" + c if c in "\\`*_{}[]()#+-.!|<>~$" else c for c in text)


def gold_of(index: Index, query: str) -> frozenset[str]:
    """Gold passages when the question is one of the corpus's labeled queries."""
    for q in index.corpus.queries:
        if q.text.strip() == query.strip():
            return frozenset(q.gold)
    return frozenset()


def pick_pair(result: EvalResult, names: list[str], metrics: list[str], multi_gold: bool,
              prefix: str) -> tuple[str, str, str]:
    """The A, B and metric selectors of a paired-bootstrap CI, opening on the best retriever that uses the graph
    against the best that does not, on the metric that matters (engine.evaluate.default_pair); a link's a, b and
    metric win when they are on the page's lists."""
    pair = default_pair(result, [n for n in names if CATALOG[n].family in ("graph", "hybrid")], multi_gold)
    seed_from_url(f"{prefix}_a", "a", pair[0], lambda v: v in names)
    seed_from_url(f"{prefix}_b", "b", pair[1], lambda v: v in names)
    seed_from_url(f"{prefix}_metric", "metric", pair[2] if pair[2] in metrics else metrics[0], lambda v: v in metrics)
    for key, fallback in ((f"{prefix}_a", names[0]), (f"{prefix}_b", names[1])):  # a member taken off the list
        if st.session_state[key] not in names:
            st.session_state[key] = fallback
    if st.session_state[f"{prefix}_metric"] not in metrics:
        st.session_state[f"{prefix}_metric"] = metrics[0]
    c1, c2, c3 = st.columns(3)
    a = c1.selectbox("A", names, key=f"{prefix}_a")
    b = c2.selectbox("B", names, key=f"{prefix}_b")
    metric = c3.selectbox("Metric", metrics, key=f"{prefix}_metric")
    set_params(a=a, b=b, metric=metric)
    return a, b, metric
