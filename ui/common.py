"""What every page shares: the corpus picker, the cached index, URL state, downloads.

Pages stay thin: they turn widgets into engine configs and render what the engine returns.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd
import streamlit as st

from engine.components import label as component_label
from engine.indexing.background import build_in_background
from engine.store.cache import DiskCache
from engine.evaluate.benchmarks import FORMATS, load_questions, open_corpus
from engine.ingest.corpus import CORPUS_SUFFIXES, MAX_FILE_BYTES, bundled_manifest, bundled_names, load_corpus, load_queries
from engine.errors import PathLensError
from engine.explain.glossary import definition, entries, lookup
from engine.catalog import stages_for as catalog_stages
from engine.indexing.index import Index
from engine.jobs import Job, JobStatus
from engine.explain.report import highlight  # noqa: F401  (pages import it from here)

def frame() -> Index | None:
    """What every page draws first: the page config and the sidebar (title, corpus picker,
    glossary). Returns the chosen corpus's index, or None with the reason shown.

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
    index = sidebar_corpus()
    glossary_sidebar()
    return index


# (script, title, icon, URL path) of each page, in menu order: app.py registers them with st.navigation and
# `frame()` draws their links. Streamlit's own menu is off (client.showSidebarNavigation): a fresh server runs a
# deep link's first request in its pages-folder mode, whose menu would list the scripts' file names.
PAGES = [("pages/query.py", "Query", ":material/search:", "query"),
         ("pages/corpus.py", "Corpus & graph", ":material/hub:", "corpus"),
         ("pages/compare.py", "Compare", ":material/compare_arrows:", "compare"),
         ("pages/sweep.py", "Scale sweep", ":material/show_chart:", "sweep"),
         ("pages/benchmarks.py", "Benchmarks", ":material/science:", "benchmarks")]
# a local picture: a Material-symbol page icon makes the browser fetch the favicon from a font CDN
FAVICON = str(Path(__file__).resolve().parent / "favicon.png")
DEFAULT_CORPUS = "dataroom-core"  # the app opens on the hand-written core: it builds in seconds
UPLOAD_DIR = Path(tempfile.gettempdir()) / "pathlens-uploads"  # uploads never leave this folder


# ------------------------------------------------------------------ URL state


def param(name: str, default, cast=str):
    """A value from the URL, or `default` when absent or unreadable."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    try:
        return cast(raw)
    except (TypeError, ValueError):
        return default


def param_in_range(name: str, default, lo, hi, cast, label: str, notes: list[str]):
    """A URL value clamped to [lo, hi]; a value out of range or unreadable is replaced and said so in `notes`."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    try:
        value = cast(raw)
    except (TypeError, ValueError):
        notes.append(f"{label} = {raw!r} in the link is not a number; using {default}.")
        return default
    if value != value:  # NaN
        notes.append(f"{label} in the link is not a number; using {default}.")
        return default
    if not lo <= value <= hi:
        clamped = min(hi, max(lo, value))
        notes.append(f"{label} = {raw} in the link is outside [{lo}, {hi}]; using {clamped}.")
        return clamped
    return value


def seed_from_url(key: str, name: str, default, valid=lambda v: True, cast=str) -> None:
    """Give widget `key` its first value from the link's `name` (when readable and valid), else `default`.
    Only before the widget exists in this session: afterwards the user's own choice stands."""
    if key in st.session_state:
        return
    value = param(name, None, cast)
    st.session_state[key] = value if value is not None and valid(value) else default


def asked_by_link(name: str, page: str) -> bool:
    """True on `page`'s first run in this session when its link says `name=1` (a view with results, to be
    computed again on open); False afterwards, so the user's own clicks decide from then on."""
    done = f"asked_by_link_{page}"
    first = not st.session_state.get(done)
    st.session_state[done] = True
    return first and param(name, "") == "1"


def list_param(raw: str, allowed) -> list:
    return [x for x in raw.split(",") if x in allowed]


def set_params(**values) -> None:
    """Write page state into the URL so that pasting it elsewhere reproduces the view."""
    for k, v in values.items():
        if v is None or v == "":
            st.query_params.pop(k, None)
        else:
            text = str(v)
            if st.query_params.get(k) != text:
                st.query_params[k] = text


# ------------------------------------------------------------------ corpora and indices


@st.cache_resource(show_spinner="Loading and chunking the corpus…", max_entries=8)
def _bundled_index(name: str) -> Index:
    """One shared index per bundled corpus: its files ship with the app and do not change while it
    runs; the on-disk cache below keys every component by the corpus's content fingerprint."""
    return Index(load_corpus(name), cache=DiskCache())


@st.cache_resource(show_spinner="Loading and chunking the corpus…", max_entries=8)
def _file_index(kind: str, path: str, digest: str, name: str) -> Index:
    """An index over a benchmark file; `digest` keys the cache by content."""
    fmt = kind.split(":", 1)[1]
    return Index(open_corpus(load_questions(fmt, path), f"{name} (open corpus)"), cache=DiskCache())


@st.cache_resource(show_spinner="Reading the documents…", max_entries=8)
def _upload_index(folder: str, digest: str, name: str, queries: str | None) -> tuple[Index, str]:
    """An index over uploaded files (one folder, named by their content), and what was wrong with the
    labeled questions if anything: bad gold is named, and the documents still build without them.
    Every session that uploads the same files shares this one index."""
    corpus = dataclasses.replace(load_corpus(folder), name=name)
    problem = ""
    if queries:
        try:
            corpus = dataclasses.replace(corpus, queries=load_queries(Path(queries), corpus.passages))
        except PathLensError as e:
            problem = str(e).replace(queries, "the labeled questions")
    return Index(corpus, cache=DiskCache()), problem


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


UPLOAD_TYPES = [s.lstrip(".") for s in CORPUS_SUFFIXES]


def save_uploads(uploads, questions=None) -> tuple[Path, str, Path | None]:
    """Keep uploaded files, under their own base names, in one folder named by their content.

    Returns the folder, its content digest and where the labeled questions were kept (or None)."""
    h = hashlib.sha256()
    files: dict[str, bytes] = {}
    for up in uploads:
        name = Path(up.name).name  # a base name only: an upload never writes outside its folder
        data = up.getvalue()
        if len(data) > MAX_FILE_BYTES:
            raise PathLensError(f"{name} is {len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit")
        if name in files:
            raise PathLensError(f"two uploads are named {name}; rename one")
        files[name] = data
    for name in sorted(files):
        h.update(name.encode() + b"\x00" + hashlib.sha256(files[name]).digest())
    digest = h.hexdigest()[:16]
    folder = UPLOAD_DIR / f"docs-{digest}"
    if not folder.exists():
        tmp = UPLOAD_DIR / f".docs-{digest}-{time.monotonic_ns()}"
        tmp.mkdir(parents=True)
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        try:
            tmp.rename(folder)
        except OSError:  # another session saved the same files first
            pass
    qpath = save_upload(questions) if questions is not None else None
    return folder, digest, qpath


def save_upload(upload) -> Path:
    """Keep an upload in the app's own temporary folder, under a name derived from its content."""
    data = upload.getvalue()
    if len(data) > MAX_FILE_BYTES:
        raise PathLensError(f"{upload.name} is {len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit")
    if not data.strip():
        raise PathLensError(f"{upload.name} is empty")
    suffix = Path(upload.name).suffix.lower()
    if suffix not in (".jsonl", ".json", ".txt", ".md"):
        raise PathLensError(f"{upload.name}: upload a .jsonl, .json, .txt or .md file")
    UPLOAD_DIR.mkdir(parents=True, exist_ok=True)
    path = UPLOAD_DIR / f"{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    if not path.exists():
        tmp = path.with_suffix(".part")
        tmp.write_bytes(data)
        tmp.replace(path)
    return path


def _upload_notes(index: Index, problem: str) -> Index:
    """Say in the sidebar what was wrong with the uploaded questions and what was left out."""
    if problem:
        st.sidebar.error(f"The labeled questions were not used: {problem}")
    report = index.corpus.report
    if report.skipped:
        more = f"; and {len(report.skipped) - 5} more (Corpus page)" if len(report.skipped) > 5 else ""
        st.sidebar.warning("Left out: " + "; ".join(str(p) for p in report.skipped[:5]) + more)
    return index


def sidebar_corpus() -> Index | None:
    """The sidebar corpus picker; returns the chosen corpus's index, or None with the reason shown."""
    names = bundled_names()
    choices = names + ["upload a corpus file", "benchmark file (open corpus)"]
    # a link names the corpus; otherwise the one chosen on another page of this session (widgets are
    # per page, so the choice is kept under a key of its own), otherwise the default
    wanted = param("corpus", st.session_state.get("corpus_selected", DEFAULT_CORPUS))
    if wanted not in choices:  # URL names are looked up among known corpora, never used as paths
        st.sidebar.warning(f"Unknown corpus {wanted!r} in the link; showing {DEFAULT_CORPUS}.")
        wanted = DEFAULT_CORPUS
    choice = st.sidebar.selectbox("Corpus", choices, index=choices.index(wanted), key="corpus_choice",
                                  format_func=lambda c: f"{c} — {bundled_manifest(c)['description']}"
                                  if c in names else c)
    set_params(corpus=choice)
    st.session_state["corpus_selected"] = choice
    try:
        if choice in names:
            return _bundled_index(choice)
        if choice == "upload a corpus file":
            ups = st.sidebar.file_uploader(
                "Documents: PDF, Word, HTML, text, a .zip of them, or .jsonl passages", type=UPLOAD_TYPES,
                accept_multiple_files=True, key="corpus_upload",
                help="Several files at once, or one .zip. PDF passages cite their page. A queries.jsonl among "
                     "them (or below) supplies labeled questions.")
            qs = st.sidebar.file_uploader("Labeled questions (queries.jsonl, optional)", type=["jsonl"],
                                          key="queries_upload",
                                          help='One JSON object a line: id, text, gold (passage ids or '
                                               '{"doc": "FILE.pdf", "page": 12}), optional kind.')
            kept = st.session_state.get("uploaded_corpus")
            if not ups and kept is not None:  # uploaded on another page of this session
                index, problem = _upload_index(*kept)
                st.sidebar.caption(f"Using the files uploaded earlier in this session ({index.corpus.name}); "
                                   "upload files here to replace them.")
                return _upload_notes(index, problem)
            if not ups:
                st.info("Upload documents in the sidebar: PDFs (cited by page), Word (.docx), HTML, .txt or .md "
                        "files, a .zip of them, or JSON Lines passages with `id` and `text`.")
                return None
            # the same uploads on a rerun: reuse what was saved instead of reading and hashing them again
            upload_ids = tuple(u.file_id for u in ups) + ((qs.file_id,) if qs is not None else ())
            if kept is None or st.session_state.get("uploaded_ids") != upload_ids:
                folder, digest, qpath = save_uploads(ups, qs)
                name = Path(ups[0].name).stem if len(ups) == 1 else f"{len(ups)} uploaded files"
                kept = (str(folder), digest, name, str(qpath) if qpath else None)
                st.session_state["uploaded_corpus"] = kept
                st.session_state["uploaded_ids"] = upload_ids
            return _upload_notes(*_upload_index(*kept))
        fmt = st.sidebar.selectbox("Benchmark format", FORMATS, key="bench_fmt_sidebar")
        given = st.sidebar.text_input("Benchmark file path", key="bench_path_sidebar")
        up = st.sidebar.file_uploader("…or upload it", type=["jsonl", "json"], key="bench_upload_sidebar")
        if up is not None:
            path, name = save_upload(up), Path(up.name).stem
        elif given.strip():
            path = Path(given.strip()).expanduser()
            if not path.is_file():
                raise PathLensError(f"no file at {path}")
            name = path.stem
        else:
            st.info("Give a MuSiQue, HotpotQA or 2Wiki file in the sidebar to pool its paragraphs into one corpus.")
            return None
        return _file_index(f"bench:{fmt}", str(path), _digest(path), name)
    except PathLensError as e:
        st.error(str(e))
        return None


def fresh_area(index: Index, stages: Iterable[str], key: str):
    """Where a page draws what depends on `stages` of its index, so that a build never runs under the
    last view's results (another corpus's, or another configuration's), greyed but on screen.

    Streamlit keeps a block's old children until the run that rewrites them ends, but an element
    written where a block was removes it at once. So the area is one of two slots: when a build is
    needed, the results move to the other slot (a fresh block) and an empty element takes the old
    one; otherwise they stay in their slot, and a rerun replaces them in place, without flicker."""
    missing = any(s not in index.built() for s in stages)
    flipped = st.session_state.get(f"fresh_area_{key}", False) ^ missing
    st.session_state[f"fresh_area_{key}"] = flipped
    first, second = st.empty(), st.empty()
    return (first if flipped else second).container()


# A tab that stops following a build (closed) lets its lease lapse, and the build stops at its next progress
# report (engine.indexing.background): within BUILD_LEASE_S plus a fraction of a second.
BUILD_LEASE_S = 3.0
FOLLOW_EVERY_S = 1.0


def ensure(index: Index, stages: Iterable[str]) -> bool:
    """Build the named index components, showing each stage's progress the first time.

    The build runs in a background job shared by every session asking for the same components of
    the same index (engine.indexing.background). A build that is not over within a second is
    followed by a fragment that reruns every second, renewing the build's lease, and reruns the page
    once it is built. So a user who moves to another page leaves it running and comes back to it, and
    a closed tab stops renewing it. Returns True when built; False while building or when a stage
    cannot be built (the reason is shown)."""
    missing = [s for s in stages if s not in index.built()]
    followed = st.session_state.pop("followed_build", None)
    if not missing:
        if followed is not None and followed[0] is index:  # built while followed: say so once, as a blocking wait does
            _show_build(index, followed[1], followed[2].status())
        return True
    job = build_in_background(index, missing, lease=BUILD_LEASE_S)
    # a page blocks this long before following the build live: a cache read is over by then and draws at once
    # (AppTests set PATHLENS_BUILD_WAIT_S high to get a page's whole result from one run)
    deadline = time.monotonic() + float(os.environ.get("PATHLENS_BUILD_WAIT_S", "1.0"))
    while not job.wait(max(0.0, min(1.0, deadline - time.monotonic()))):
        if time.monotonic() >= deadline:
            break
        job.touch()  # this run is watching: the lease holds
    else:
        return _show_build(index, missing, job.status())

    @st.fragment(run_every=FOLLOW_EVERY_S)
    def follow() -> None:
        job.touch()
        s = job.status()
        if s.complete and s.error is None:
            st.session_state["followed_build"] = (index, missing, job)
            st.rerun()  # the whole page, now with its results
        _show_build(index, missing, s)

    follow()
    return False


def _show_build(index: Index, missing: list[str], s) -> bool:
    """The build's status box: finished stages, the one in flight, or why it failed. True when built."""
    title = f"Building the index of {index.corpus.name} ({len(index.corpus):,} passages)…"
    with st.status(title, expanded=not s.complete or s.error is not None) as status:
        for stage in s.finished:
            hit = index.cache is not None and any(e.component == stage and e.kind == "hit"
                                                  for e in index.cache.events)
            st.write(f"✓ {component_label(stage)} in {index.timings.get(stage, 0.0):.1f} s"
                     + (" (read from the on-disk index cache)" if hit else ""))
        if not s.complete:
            st.progress(s.fraction(), text=_progress_text(s))
            return False
        if s.error is not None:
            stage = s.stage or (s.stages[len(s.finished)] if len(s.finished) < len(s.stages) else "")
            status.update(label=f"Could not build {component_label(stage)}", state="error")
            st.error(s.error + (" Reload the page to build it again." if s.stopped else ""))
            return False
        for event in index.cache.events if index.cache else []:
            if event.kind == "rejected" and event.component in missing:
                st.warning(f"Cache file not trusted: {event.detail}")
        status.update(label=f"Index of {index.corpus.name} ready", state="complete", expanded=False)
    return True


def _progress_text(s) -> str:
    if s.stage is None:
        return "finishing…" if len(s.finished) == len(s.stages) else "starting…"
    label = component_label(s.stage)
    step = f"step {len(s.finished) + 1} of {len(s.stages)}: {label}"
    if not s.total:
        return f"{step}…"
    left = s.seconds_left()
    eta = f" · about {left:.0f} s left in this step" if left is not None else ""
    return f"{step}: {s.done:,} of {s.total:,} passages{eta}"


def job_text(s: JobStatus) -> str:
    """A running job's progress in words: what is counted, how far, and the time left at the rate so far."""
    if not s.step:
        return "starting…"
    left = s.seconds_left()
    eta = f" · about {left:.0f} s left" if left is not None else ""
    if s.step in ("questions", "trials"):
        return f"{s.step[:-1]} {s.done:,} of {s.total:,}{eta}"
    return f"building the index, {component_label(s.step)}: {s.done:,} of {s.total:,} passages{eta}"


def watch_job(job: Job, on_tick: Callable[[JobStatus], None] | None = None) -> JobStatus:
    """Show a job's progress until it is over. A click elsewhere ends only this watching: the job
    runs on, and the next run of the page watches it again (or shows its result)."""
    bar = st.progress(0.0, text="starting…")
    while True:
        over = job.wait(0.4)
        s = job.status()
        bar.progress(s.fraction(), text=("stopping… " if s.cancelled and not over else "") + job_text(s))
        if on_tick:
            on_tick(s)
        if over:
            bar.empty()
            return s


def cancel_job(key: str) -> None:
    """on_click of a Cancel button: ask the job kept under `key` in the session to stop."""
    job = st.session_state.get(key)
    if job is not None:
        job.cancel()


class CancelButton:
    """A Cancel button for the job kept under `job_key`, live only while there is something to stop:
    greyed out on an idle page, and greyed out again in place when the job ends (the button was drawn
    before the job ran, so without this it would stay live until the next rerun)."""

    def __init__(self, job_key: str, widget_key: str, active: bool, help: str):
        self.help = help
        self.widget_key = widget_key
        self.slot = st.empty()
        self.slot.button("Cancel", key=widget_key, on_click=cancel_job, args=(job_key,), disabled=not active,
                         help=help)

    def idle(self) -> None:
        self.slot.button("Cancel", key=f"{self.widget_key}_idle", disabled=True, help=self.help)


def stages_for(retrievers: Iterable[str], rrf_members: Iterable[str] = ("bm25", "ppr-ner")) -> list[str]:
    """The index components the given retrievers need, in build order (from the catalog)."""
    return catalog_stages(list(retrievers), tuple(rrf_members))


# ------------------------------------------------------------------ rendering


def show_table(data, column_config: dict | None = None, **kwargs) -> None:
    """st.dataframe with a glossary tooltip on every column that has no config of its own."""
    frame = data.data if hasattr(data, "data") and isinstance(data.data, pd.DataFrame) else data
    config = dict(column_config or {})
    for col in getattr(frame, "columns", []):
        term = lookup(str(col))
        if str(col) not in config and term is not None:
            config[str(col)] = st.column_config.Column(help=definition(term))
    st.dataframe(data, column_config=config, **kwargs)


def glossary_sidebar() -> None:
    """Every term the pages use, with its definition, in a sidebar expander."""
    with st.sidebar.expander("Glossary: what the words mean"):
        st.markdown("\n".join(f"- **{term}**: {text}" for term, text in entries()))


def downloads(df: pd.DataFrame, stem: str, key: str) -> None:
    """CSV and JSON downloads of a result table. A download does not rerun the page (`on_click="ignore"`):
    a rerun would only redo the page's work, and for a deferred file it raced the file's own request."""
    c1, c2 = st.columns(2)
    c1.download_button("Download CSV", df.to_csv(index=False).encode("utf-8"), f"{stem}.csv", "text/csv",
                       key=f"{key}_csv", on_click="ignore")
    c2.download_button("Download JSON", json.dumps(json.loads(df.to_json(orient="records")), indent=2).encode("utf-8"),
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


__all__ = ["frame", "show_table", "glossary_sidebar", "param_in_range", "param", "set_params", "sidebar_corpus", "ensure", "stages_for", "highlight", "downloads", "gold_of",
           "save_upload", "save_uploads", "escape_markdown", "seed_from_url", "list_param"]
