"""The corpus picker and the shared indices: bundled corpora, uploaded documents, benchmark files."""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
import time
from pathlib import Path

import streamlit as st

from engine.errors import PathLensError
from engine.evaluate.benchmarks import FORMATS, load_questions, open_corpus
from engine.explain.report import UPLOADED, UPLOADED_BEFORE, UploadedFile, files_in_link, uploaded_files
from engine.indexing.index import Index
from engine.ingest.corpus import (CORPUS_SUFFIXES, DEFAULT_CORPUS, bundled_manifest, bundled_names, load_corpus,
                                  load_folder)
from engine.ingest.documents import left_out_files
from engine.ingest.textfiles import MAX_FILE_BYTES
from engine.ingest.questions import load_query_file
from engine.jobs import Job, Progress
from engine.store.cache import DiskCache
from ui.builds import follow_job
from ui.render import escape_markdown
from ui.url_state import param, set_params

UPLOAD_DIR = Path(tempfile.gettempdir()) / "pathlens-uploads"  # uploads never leave this folder


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


def _read_upload(folder: str, name: str, queries: str | None, progress: Progress) -> tuple[Index, tuple[str, ...]]:
    """An index over uploaded files (one folder, named by their content), and why the labeled questions could not be
    read at all, if so. Their bad lines, each named, go with the corpus (`report.questions_left_out`): the good lines
    are used, and the documents build whatever the questions hold."""
    # named as the user knows the files, not by the folder their content names ("docs-b0bf6cb4…"), errors included
    corpus = load_folder(Path(folder), name=name, progress=progress)
    if queries:
        try:
            read = load_query_file(Path(queries), corpus.passages)
        except PathLensError as e:  # an empty or unreadable file
            return Index(corpus, cache=DiskCache()), (str(e).replace(queries, "the labeled questions"),)
        left_out = tuple(p.replace(queries, "the labeled questions") for p in read.left_out)
        # kept with the corpus, as a room's own queries.jsonl keeps its bad lines: the sidebar and Compare say them
        corpus = dataclasses.replace(corpus, queries=read.queries or corpus.queries,
                                     report=dataclasses.replace(corpus.report, questions_left_out=left_out))
    return Index(corpus, cache=DiskCache()), ()


@st.cache_resource(show_spinner=False, max_entries=8)
def _upload_job(folder: str, digest: str, name: str, queries: str | None) -> Job[tuple[Index, tuple[str, ...]]]:
    """Reading uploaded files, in a job a page follows file by file; every session that uploads the same files
    shares this one job, and its index (`digest` names their content)."""
    return Job(f"read {name}", lambda progress, _: _read_upload(folder, name, queries, progress)).start()


def _upload_index(folder: str, digest: str, name: str, queries: str | None) -> tuple[Index, tuple[str, ...]]:
    """The uploaded files' index once they are read. Until then the page stops, and shows how many files are
    read and the time left; it reruns when they all are. A failure to read them is raised, named."""
    job = _upload_job(folder, digest, name, queries)
    if not follow_job(job):
        st.stop()
    if job.status().error is not None:  # a failed read is not kept: the next run reads the files again
        _upload_job.clear(folder, digest, name, queries)
    return job.result()


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


UPLOAD_TYPES = [s.lstrip(".") for s in CORPUS_SUFFIXES]
UPLOAD = UPLOADED  # the corpus picker's entry for the session's uploaded files, as links name it


@st.cache_data(show_spinner=False, max_entries=16)
def _files_of(folder: str, digest: str) -> tuple[UploadedFile, ...]:
    return uploaded_files(Path(folder))


def session_upload_files() -> tuple[UploadedFile, ...]:
    """The files of the session's uploaded corpus (name, size, sha256), or () when it has none."""
    kept = st.session_state.get("uploaded_corpus")
    return _files_of(kept[0], kept[1]) if kept else ()


def _name_files(linked: tuple[UploadedFile, ...]) -> None:
    """Put the uploaded files in the URL, so a copied link names them; say so when they are not the link's."""
    files = session_upload_files()
    written = ";".join(f.token() for f in files)
    # the link this session wrote last names the files before one was added: not another room's link
    if linked and ";".join(f.token() for f in linked) == st.session_state.get("files_written"):
        linked = ()
    st.session_state["files_written"] = written
    set_params(files=written or None)
    if files:  # the uploader's chips cut long names in the sidebar's width: the whole names, once
        st.sidebar.caption("Files: " + "; ".join(escape_markdown(f"{f.name} ({f.size_words()})") for f in files))
    if linked and set(linked) != set(files):
        missing = [f.words() for f in linked if f not in files]
        extra = [f.name for f in files if f not in linked]
        st.sidebar.warning("These are not the files the link names."
                           + (f" Missing: {'; '.join(missing)}." if missing else "")
                           + (f" Not in the link: {', '.join(extra)}." if extra else ""))


def save_uploads(uploads, questions=None, base: Path | None = None) -> tuple[Path, str, Path | None]:
    """Keep uploaded files, under their own base names, in one folder named by their content; with `base` (the
    folder of the room in use), its files too, an upload of the same name replacing one of them.

    Returns the folder, its content digest and where the labeled questions were kept (or None)."""
    h = hashlib.sha256()
    files: dict[str, bytes] = {}
    given: set[str] = set()
    for f in sorted(base.iterdir()) if base is not None and base.is_dir() else ():
        if f.is_file():
            files[f.name] = f.read_bytes()
    for up in uploads:
        name = Path(up.name).name  # a base name only: an upload never writes outside its folder
        data = up.getvalue()
        if len(data) > MAX_FILE_BYTES:
            raise PathLensError(f"{name} is {len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit")
        if name in given and files[name] != data:  # the same file twice is one file
            raise PathLensError(f"two different uploads are named {name}; rename one")
        given.add(name)
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


def left_out_words(whole: tuple[str, ...], partly: tuple[str, ...]) -> str:
    """One line on what loading left out, counted in files: a file with two pages left out is one file."""
    def files(n: int) -> str:
        return f"{n} file{'s' if n != 1 else ''}"
    if whole and partly:
        said = f"{files(len(whole))} left out of this corpus, and pages of {len(partly)} more"
    elif whole:
        said = f"{files(len(whole))} left out of this corpus"
    else:
        said = f"Pages of {files(len(partly))} left out of this corpus"
    return said + ": see Documents."


def left_out_here(corpus) -> tuple[str, str]:
    """What loading left out, for the page a user asks on, as (files, pages): files left out whole, named with why
    (their content is not searched: a warning), and pages left out of files that were read (each file's other pages
    are searched: a note). Either is "" when there is none. A walk-through met one image-only page of a 10-K in the
    same warning as a damaged file."""
    whole = set(left_out_files(corpus.report.skipped, {p.doc_id for p in corpus.passages})[0])

    def listed(problems) -> str:
        named = "; ".join(escape_markdown(str(p)) for p in problems[:3])
        return named + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")

    files = [p for p in corpus.report.skipped if p.file in whole]
    pages = [p for p in corpus.report.skipped if p.file not in whole]
    return (f"Left out of this corpus: {listed(files)}. Everything else is searched; the Corpus page's Documents tab "
            "lists each." if files else "",
            f"Not searched: {listed(pages)}. The rest of each file is." if pages else "")


def _upload_notes(index: Index, problems: tuple[str, ...]) -> Index:
    """Say in the sidebar which labeled questions were left out, and why, and what files were left out."""
    left_out = problems + index.corpus.report.questions_left_out
    if left_out:
        shown = "; ".join(escape_markdown(p[:1].upper() + p[1:]) for p in left_out[:5])
        more = f"; and {len(left_out) - 5} more" if len(left_out) > 5 else ""
        used = len(index.corpus.queries)
        lines = f"{len(left_out)} line{'s' if len(left_out) != 1 else ''}"
        if used:
            rest = "The other question is used." if used == 1 else f"The other {used} are used."
            st.sidebar.warning(f"Labeled questions: {lines} left out. {shown}{more}. {rest}")
        else:
            st.sidebar.error(f"The labeled questions were not used: {shown}{more}")
    skipped = index.corpus.report.skipped
    whole, partly = left_out_files(skipped, {p.doc_id for p in index.corpus.passages})
    files = [p for p in skipped if p.file in set(whole)]
    if files:  # a file left out whole is a warning; pages left out of a file that was read, a note
        more = f"; and {len(files) - 5} more (Corpus page)" if len(files) > 5 else ""
        st.sidebar.warning("Left out: " + "; ".join(str(p) for p in files[:5]) + more)
    elif partly:
        st.sidebar.caption(f"Some pages of {len(partly)} file{'s' if len(partly) != 1 else ''} are not searched "
                           "(Corpus page, Documents).")
    return index


def keep_uploads(ups, qs=None, base: tuple | None = None) -> tuple:
    """Save uploaded files as the session's uploaded corpus, joining the files of `base` (the room in use when
    the uploader was empty); the same uploads on a rerun reuse what was saved instead of reading and hashing them
    again. Returns (folder, digest, name, questions path or None)."""
    upload_ids = (tuple(u.file_id for u in ups) + ((qs.file_id,) if qs is not None else ())
                  + ((base[1],) if base else ()))
    kept = st.session_state.get("uploaded_corpus")
    if kept is None or st.session_state.get("uploaded_ids") != upload_ids:
        folder, digest, qpath = save_uploads(ups, qs, base=Path(base[0]) if base else None)
        names = sorted(f.name for f in folder.iterdir() if f.is_file())
        name = Path(names[0]).stem if len(names) == 1 else f"{len(names)} uploaded files"
        qpath = qpath or (base[3] if base else None)  # the room's labeled questions stay with it
        kept = (str(folder), digest, name, str(qpath) if qpath else None)
        st.session_state["uploaded_corpus"] = kept
        st.session_state["uploaded_ids"] = upload_ids
    return kept


def forget_uploads() -> None:
    """The "Start a new room" button: the session's uploaded files go, and the next upload is a room of its own."""
    for key in ("uploaded_corpus", "uploaded_ids", "upload_base"):
        st.session_state.pop(key, None)
    if "query_state_for" in st.session_state:  # the next room's view starts from its own defaults
        st.session_state["query_state_for"] = "a room forgotten"
    if "files" in st.query_params:  # the link named the room's files: it no longer shows them
        del st.query_params["files"]


def use_uploaded(key: str) -> None:
    """on_change of an uploader outside the sidebar (the Corpus page's): its files become the corpus every page
    shows, as if uploaded in the sidebar. A callback runs before the page, so the sidebar's picker can still be
    set."""
    ups = st.session_state.get(key)
    if not ups:
        return
    try:
        keep_uploads(ups)
    except PathLensError as e:
        st.session_state["upload_error"] = str(e)
        return
    st.session_state["corpus_choice"] = st.session_state["corpus_selected"] = UPLOAD
    st.query_params["corpus"] = UPLOAD


def sidebar_corpus() -> Index | None:
    """The sidebar corpus picker; returns the chosen corpus's index, or None with the reason shown."""
    names = bundled_names()
    choices = names + [UPLOAD, "benchmark file (open corpus)"]
    # a link names the corpus; otherwise the one chosen on another page of this session (widgets are
    # per page, so the choice is kept under a key of its own), otherwise the default
    wanted = param("corpus", st.session_state.get("corpus_selected", DEFAULT_CORPUS))
    wanted = UPLOAD if wanted == UPLOADED_BEFORE else wanted  # an older link to uploads still opens on them
    if wanted not in choices:  # URL names are looked up among known corpora, never used as paths
        st.sidebar.warning(f"Unknown corpus {wanted!r} in the link; showing {DEFAULT_CORPUS}.")
        wanted = DEFAULT_CORPUS
    # the box shows names only (a name with its description was cut off in the sidebar's width); the
    # chosen corpus's description goes under it, and every bundled one's in the help
    choice = st.sidebar.selectbox("Corpus", choices, index=choices.index(wanted), key="corpus_choice",
                                  help="\n\n".join(f"**{c}**: {bundled_manifest(c)['description']}" for c in names))
    if choice in names:
        st.sidebar.caption(bundled_manifest(choice)["description"])
    set_params(corpus=choice)
    st.session_state["corpus_selected"] = choice
    linked = files_in_link(param("files", "")) if choice == UPLOAD else ()
    if choice != UPLOAD:
        set_params(files=None)
    try:
        if choice in names:
            return _bundled_index(choice)
        if choice == UPLOAD:
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
            if not ups and kept is not None:  # uploaded on another page of this session: files added here join it
                if qs is None:
                    st.session_state["upload_base"] = kept
                else:  # labeled questions for the room uploaded on the Corpus page join it
                    kept = keep_uploads((), qs, st.session_state.get("upload_base", kept))
                index, problem = _upload_index(*kept)
                st.sidebar.caption(f"Using the files uploaded earlier in this session ({index.corpus.name}). Files "
                                   "you upload here join them; a file of the same name replaces its namesake.")
                st.sidebar.button("Start a new room", key="new_room", on_click=forget_uploads,
                                  help="Forget this session's uploaded files, to upload others in their place.")
                _name_files(linked)
                return _upload_notes(index, problem)
            if not ups:
                if linked:  # a link to a view of uploaded files: never answered from another corpus
                    st.info("This link shows a view of uploaded files, and uploads are never shared between sessions. "
                            "Add these files in the sidebar, and the question, retriever and "
                            "settings the link holds come back:\n\n"
                            + "\n".join(f"- {escape_markdown(f.words())}" for f in linked))
                else:
                    st.info("Upload documents in the sidebar: PDFs (cited by page), Word "
                            "(.docx), HTML, .txt or .md files, a .zip of them, or JSON Lines passages with `id` and "
                            "`text`.")
                return None
            index = _upload_notes(*_upload_index(*keep_uploads(ups, qs, st.session_state.get("upload_base"))))
            _name_files(linked)
            return index
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
