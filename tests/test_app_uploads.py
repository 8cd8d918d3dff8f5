"""The session's uploaded room across pages (#63 walk): files uploaded after visiting another page join the
room in use, never silently replace it; the same file twice is one file; "Start a new room" forgets the room."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.corpora as corpora
from engine.errors import PathLensError


class Up:
    """What Streamlit's uploader hands the app: a name, its bytes and an id."""

    def __init__(self, name: str, data: bytes):
        self.name, self._data, self.file_id = name, data, f"{name}-{hash(data)}"

    def getvalue(self) -> bytes:
        return self._data


@pytest.fixture(autouse=True)
def upload_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(corpora, "UPLOAD_DIR", tmp_path / "uploads")
    return tmp_path / "uploads"


def test_uploads_join_the_room_in_use_and_a_namesake_replaces_its_file():
    first, _, _ = corpora.save_uploads([Up("a.md", b"Alpha Corp bought Beta Mills."), Up("b.md", b"Beta Mills.")])
    joined, digest, _ = corpora.save_uploads([Up("c.md", b"Gamma Ltd."), Up("b.md", b"Beta Mills, revised.")],
                                             base=first)
    assert sorted(f.name for f in joined.iterdir()) == ["a.md", "b.md", "c.md"]
    assert (joined / "b.md").read_bytes() == b"Beta Mills, revised." and (first / "b.md").read_bytes() == b"Beta Mills."
    assert corpora.save_uploads([Up("a.md", b"Alpha Corp bought Beta Mills."), Up("b.md", b"Beta Mills, revised."),
                                 Up("c.md", b"Gamma Ltd.")])[1] == digest  # the same room, however it was made


def test_the_same_file_twice_is_one_file_and_two_different_namesakes_are_named():
    folder, _, _ = corpora.save_uploads([Up("a.md", b"Alpha."), Up("a.md", b"Alpha.")])
    assert [f.name for f in folder.iterdir()] == ["a.md"]
    with pytest.raises(PathLensError, match="two different uploads are named a.md; rename one"):
        corpora.save_uploads([Up("a.md", b"Alpha."), Up("a.md", b"Another alpha.")])


def _sidebar(folder: str, digest: str, added: bool):
    from pathlib import Path

    import streamlit as st

    from tests.test_app_uploads import Up
    from ui.corpora import keep_uploads, sidebar_corpus

    if "seeded" not in st.session_state:  # the room uploaded on another page of the session
        st.session_state.update(seeded=True, uploaded_corpus=(folder, digest, "2 uploaded files", None))
    index = sidebar_corpus()  # the uploader is empty on this page: the room uploaded on another page answers
    st.write(f"room: {index.corpus.name if index else None}")
    if added and "upload_base" in st.session_state:  # what the uploader hands over next: one more file, joined to the room in use
        kept = keep_uploads([Up("c.md", b"Gamma Ltd. leases a plant in Ohio.")], None, st.session_state["upload_base"])
        st.write("files: " + ", ".join(sorted(f.name for f in Path(kept[0]).iterdir())))


def test_a_room_uploaded_on_another_page_is_said_and_what_is_added_here_joins_it():
    folder, digest, _ = corpora.save_uploads([Up("a.md", b"Alpha Corp bought Beta Mills in 2019."),
                                              Up("b.md", b"Beta Mills makes paper in Ohio.")])
    at = AppTest.from_function(_sidebar, args=(str(folder), digest, True), default_timeout=120)
    at.query_params["corpus"] = corpora.UPLOAD
    at.run()
    assert not at.exception, at.exception
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "Using the files uploaded earlier in this session (2 uploaded files). Files you upload here join them" in said
    assert "room: 2 uploaded files" in [m.value for m in at.markdown]
    assert "files: a.md, b.md, c.md" in [m.value for m in at.markdown]
    at.sidebar.button(key="new_room").click().run()  # forgets the room: nothing is answered until files come
    assert "uploaded_corpus" not in at.session_state and "upload_base" not in at.session_state
    assert any("Upload documents in the sidebar" in i.value for i in at.info)


def _sidebar_questions(folder: str, digest: str, questions: bytes):
    import streamlit as st

    from tests.test_app_uploads import Up
    from ui.corpora import sidebar_corpus

    if "seeded" not in st.session_state:  # the room uploaded on the Corpus page's own uploader
        st.session_state.update(seeded=True, uploaded_corpus=(folder, digest, "2 uploaded files", None))
    uploader = st.sidebar.file_uploader

    def handed(label, *args, key=None, **kwargs):  # what the sidebar's questions uploader hands over
        if key == "queries_upload" and st.session_state.get("questions_added"):
            return Up("queries.jsonl", questions)
        return uploader(label, *args, key=key, **kwargs)

    st.sidebar.file_uploader = handed
    try:
        index = sidebar_corpus()
    finally:
        del st.sidebar.file_uploader
    st.write(f"labeled: {len(index.corpus.queries)}; questions file: {bool(st.session_state['uploaded_corpus'][3])}")


def test_labeled_questions_added_in_the_sidebar_join_a_room_uploaded_on_the_corpus_page():
    """A walk-through's major: with the documents uploaded on the Corpus page, a queries.jsonl added in the
    sidebar was ignored, since the room uploaded earlier was answered as it stood."""
    folder, digest, _ = corpora.save_uploads([Up("a.md", b"Alpha Corp bought Beta Mills in 2019."),
                                              Up("b.md", b"Beta Mills makes paper in Ohio.")])
    at = AppTest.from_function(_sidebar_questions, args=(str(folder), digest,
                                                         b'{"id": "q1", "text": "Who bought Beta Mills?", '
                                                         b'"gold": ["a.md#0000"]}\n'), default_timeout=120)
    at.query_params["corpus"] = corpora.UPLOAD
    at.run()
    assert not at.exception, at.exception
    assert "labeled: 0; questions file: False" in [m.value for m in at.markdown]
    at.session_state["questions_added"] = True
    at.run()
    assert not at.exception, at.exception
    assert "labeled: 1; questions file: True" in [m.value for m in at.markdown], [m.value for m in at.markdown]


def test_a_bad_line_of_the_labeled_questions_is_named_and_the_good_lines_are_used():
    """A walk-through's minor: one question with no gold ("gold": []) refused the whole file."""
    folder, digest, _ = corpora.save_uploads([Up("a.md", b"Alpha Corp bought Beta Mills in 2019."),
                                              Up("b.md", b"Beta Mills makes paper in Ohio.")])
    questions = (b'{"id": "q1", "text": "Who bought Beta Mills?", "gold": ["a.md#0000"]}\n'
                 b'{"id": "q2", "text": "What does Gamma make?", "gold": []}\n')
    at = AppTest.from_function(_sidebar_questions, args=(str(folder), digest, questions), default_timeout=120)
    at.query_params["corpus"] = corpora.UPLOAD
    at.run()
    at.session_state["questions_added"] = True
    at.run()
    assert not at.exception, at.exception
    assert "labeled: 1; questions file: True" in [m.value for m in at.markdown]
    warned = [w.value for w in at.sidebar.warning]
    assert warned == ["Labeled questions: 1 line left out. The labeled questions, line 2: field 'gold' is empty: a "
                      "question is scored by its gold, so one without gold cannot be; ask what the room lacks on the "
                      "Query page. The other question is used."], warned


def test_compare_counts_the_labeled_questions_it_left_out(tmp_path):
    """Walk 23: an analyst's 18 lines read "17 labeled queries" on the Compare page, with nothing there saying that
    the line with empty gold was left out (the sidebar said it)."""
    folder, digest, _ = corpora.save_uploads([Up("a.md", b"Alpha Corp bought Beta Mills in 2019."),
                                              Up("b.md", b"Beta Mills makes paper in Ohio.")])
    questions = tmp_path / "queries.jsonl"
    questions.write_bytes(b'{"id": "q1", "text": "Who bought Beta Mills?", "gold": ["a.md#0000"]}\n'
                          b'{"id": "q2", "text": "What does Gamma make?", "gold": []}\n')
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=180)
    at.query_params.update({"corpus": corpora.UPLOAD, "retrievers": "bm25,tfidf"})
    at.session_state["uploaded_corpus"] = (str(folder), digest, "2 uploaded files", str(questions))
    at.run()
    at.switch_page("pages/compare.py").run()
    for _ in range(240):  # the room's index builds beside the page, which shows its progress meanwhile
        if any("labeled queries" in c.value for c in at.caption) or at.exception:
            break
        time.sleep(0.5)
        at.run()
    assert not at.exception, at.exception
    assert "1 labeled queries (1 line of the file left out: see the sidebar)." in [c.value for c in at.caption], \
        [c.value for c in at.caption]
    assert any("1 line left out" in w.value for w in at.sidebar.warning)
