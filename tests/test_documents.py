"""Document ingestion: PDFs page by page, DOCX, HTML, zips, running lines, identity, page gold, bad files."""

import io
import json
import zipfile

import pytest

from engine.ingest.corpus import load_corpus, load_sources
from engine.ingest.passage import citation
from engine.ingest.questions import parse_queries, read_queries
from engine.ingest.documents import (Problem, SourceFile, document_passages, identity, left_out_files,
                                     page_lines_chunks, read_document)
from engine.ingest.running_lines import strip_running_lines
from engine.ingest.zips import zip_members
from tests.conftest import ROOT
from engine.errors import PathLensError
from engine.evaluate.evaluate import judged
from pdfmaker import encrypt, make_pdf, text_page


def report_pdf(pages: int = 4) -> bytes:
    """A small filing: a header and a numbered footer on every page, a statement table on page 2."""
    out = []
    words = ["first", "second", "third", "fourth", "fifth", "sixth"]
    for n in range(1, pages + 1):
        body = [f"Body text of the {words[n - 1]} page, about the Fund and its covenants."] + [
            f"More of the {words[n - 1]} page: on capital calls and distributions." for _ in range(6)]
        if n == 2:
            body = ["CONSOLIDATED STATEMENTS OF OPERATIONS"]
        runs = text_page("Acme Holdings | Annual Report", *body)
        if n == 2:  # a statement row: label and numbers drawn as separate runs on one baseline
            runs += [(72, 650, "Total net sales"), (320, 650, "394,328"), (420, 650, "365,817")]
            runs += [(72, 636 - 14 * i, f"Row {i} 1,{i}00 2,{i}00") for i in range(6)]
        runs += [(300, 40, f"Acme Holdings | 2022 Form 10-K | {n}")]
        out.append(runs)
    return make_pdf(out)


def test_pdf_passages_cite_their_page_and_never_span_two():
    doc, problems = read_document(SourceFile("ACME_2022_10K.pdf", report_pdf()))
    assert problems == () and doc.paged and len(doc.pages) == 4
    passages = document_passages(doc)
    assert [p.id for p in passages] == [f"ACME_2022_10K.pdf#p{n}.0" for n in range(1, 5)]
    assert [p.metadata["page"] for p in passages] == ["1", "2", "3", "4"]
    assert all(f"the {['first', 'second', 'third', 'fourth'][int(p.metadata['page']) - 1]} page" in p.text
               for p in passages if p.metadata["page"] != "2")
    assert citation(passages[1]) == f"{doc.title}, page 2 of ACME_2022_10K.pdf"


def test_a_statement_row_keeps_its_label_next_to_its_numbers():
    doc, _ = read_document(SourceFile("ACME_2022_10K.pdf", report_pdf()))
    assert "Total net sales 394,328 365,817" in doc.pages[1].split("\n")


def test_running_header_footer_and_page_numbers_are_dropped_and_reported():
    doc, _ = read_document(SourceFile("ACME_2022_10K.pdf", report_pdf()))
    assert not any("Annual Report" in p or "Form 10-K" in p for p in doc.pages)
    assert [(d.example, d.pages) for d in doc.dropped] == [("Acme Holdings | 2022 Form 10-K | 1", 4),
                                                            ("Acme Holdings | Annual Report", 4)]
    # a line that recurs on every page away from the edges is body text: kept
    assert all("Body text of the" in p for i, p in enumerate(doc.pages) if i != 1)


def test_strip_running_lines_by_hand():
    pages = ["Head\nA one\nB\nfoot 1", "Head\nA two\nC\nfoot 2", "Head\nA three\nD\nfoot 3"]
    kept, dropped = strip_running_lines(pages, "x")
    assert kept == ["A one\nB", "A two\nC", "A three\nD"]
    assert [(d.example, d.pages) for d in dropped] == [("foot 1", 3), ("Head", 3)]
    assert strip_running_lines(pages[:2], "x") == (pages[:2], ())  # two pages: nothing is "running"
    # the same label with other numbers closing several pages is body text, not a footer
    totals = [f"{title}\nTotal assets {n:,}" for title, n in
              zip(("Balance sheet", "Prior year", "Two years back"), (352755, 351002, 338516))]
    assert strip_running_lines(totals, "x") == (totals, ())
    # a page number printed with an offset (the cover is unnumbered) is still a page number
    numbered = ["Cover\nbody a"] + [f"body {c}\nPage {i} of 9" for i, c in enumerate("bcd", start=1)]
    kept, dropped = strip_running_lines(numbered, "x")
    assert kept == ["Cover\nbody a", "body b", "body c", "body d"] and dropped[0].pages == 3


def test_each_page_keeps_the_number_it_prints_and_a_citation_gives_both():
    """Kraft Heinz's "page 45" prints 40 (#63 walk-through): a citation gives the PDF's page, as a viewer finds it,
    and the number printed on it, read off the running line that numbers the pages (the slot that goes up with the
    page; the year and the form's "10" stay)."""
    from engine.ingest.documents import Document
    from engine.ingest.passage import printed_page
    from engine.ingest.running_lines import printed_numbers

    pages = ["ACME 10-K\nCover", "Contents\nItem 1 Business 3"] + [
        f"Body {c}\nRevenue was 1,{i}00 in 2022\nAcme Inc. | 2022 Form 10-K | {i}" for i, c in enumerate("abcde", 1)]
    assert printed_numbers(pages) == (None, None, 1, 2, 3, 4, 5)
    assert printed_numbers(pages[:2]) == (None, None)  # too few pages to tell a running line
    assert printed_numbers(["Total 10", "Total 20", "Total 30"]) == (None, None, None)  # not one a page apart
    doc = Document("ACME_2022_10K.pdf", "Acme FY2022 10-K", tuple(pages), True, (), printed_numbers(pages))
    by_page = {p.metadata["page"]: p for p in document_passages(doc)}
    assert citation(by_page["4"]) == "Acme FY2022 10-K, page 4 (printed 2) of ACME_2022_10K.pdf"
    assert printed_page(by_page["4"]) == 2 and printed_page(by_page["1"]) is None
    assert citation(by_page["1"]) == "Acme FY2022 10-K, page 1 of ACME_2022_10K.pdf"
    # where the index read the filing's identity (a release's cover names no registrant), the citation says it
    assert citation(by_page["4"], "Acme Q4 FY2022 earnings release") == \
        "Acme Q4 FY2022 earnings release, page 4 (printed 2) of ACME_2022_10K.pdf"


def test_page_lines_chunks_pack_whole_lines_with_an_overlap():
    text = "\n".join(f"line {i} " + "x" * 30 for i in range(10))  # 10 lines of 37 characters
    chunks = page_lines_chunks(text, max_chars=120, overlap_chars=40)
    assert all(len(c) <= 120 for c in chunks)
    assert chunks[0].split("\n") == [f"line {i} " + "x" * 30 for i in range(3)]
    assert chunks[1].split("\n")[0] == "line 2 " + "x" * 30  # the last line of the one before
    assert {line for c in chunks for line in c.split("\n")} == set(text.split("\n"))
    assert page_lines_chunks("word " * 60, 100, 0) == ["word " * 19 + "word"] * 3  # a long line cut at words


def test_a_pages_last_chunk_starts_as_early_as_its_size_allows():
    """Packed, the ten lines end in [8, 9], 75 characters; the last chunk takes line 7 too (113 ≤ 120), never a
    page's tail of a few words alone."""
    lines = [f"line {i} " + "x" * 30 for i in range(10)]
    chunks = page_lines_chunks("\n".join(lines), max_chars=120, overlap_chars=40)
    assert [c.split("\n") for c in chunks] == [lines[0:3], lines[2:5], lines[4:7], lines[6:9], lines[7:10]]
    tail = "shipping activities. Last year's third quarter net income was"
    text = "\n".join(["a" * 50, "b" * 50, "c" * 50, tail])
    assert page_lines_chunks(text, 170, 0) == ["\n".join(["a" * 50, "b" * 50, "c" * 50]),
                                              "\n".join(["b" * 50, "c" * 50, tail])]
    assert page_lines_chunks("one line", 170, 0) == ["one line"]  # a page of one chunk is as it was


def test_identity_from_a_10k_cover_and_the_file_name():
    cover = ("UNITED STATES\nFORM 10-K\nFor the fiscal year ended September\u00a024, 2022\nApple Inc.\n"
             "(Exact name of Registrant as specified in its charter)\n")
    assert identity("APPLE_2022_10K.pdf", cover) == \
        "Apple Inc. · Form 10-K · fiscal year ended September 24, 2022 · APPLE 2022 10-K"
    assert identity("INTEL_2022Q4_EARNINGS.pdf", "no cover here") == "INTEL 2022 Q4 EARNINGS"


def test_docx_paragraphs_and_table_rows():
    import docx

    d = docx.Document()
    d.add_paragraph("Credit agreement between Acme and the Lenders.")
    table = d.add_table(rows=2, cols=3)
    for r, row in enumerate([("Revenue", "100", "90"), ("EBITDA", "40", "35")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    buf = io.BytesIO()
    d.save(buf)
    doc, _ = read_document(SourceFile("deal/agreement.docx", buf.getvalue()))
    lines = doc.pages[0].split("\n")
    assert "Revenue 100 90" in lines and "EBITDA 40 35" in lines and not doc.paged
    assert [p.id for p in document_passages(doc)] == ["deal/agreement.docx#0000"]


def test_html_visible_text_with_table_rows():
    html = (b"<html><head><title>t</title><style>p{}</style></head><body><script>var x='<b>no</b>'</script>"
            b"<h1>LP letter</h1><p>Dear partners,</p><table><tr><th>Fund</th><th>IRR</th></tr>"
            b"<tr><td>Fund II</td><td>14%</td></tr></table></body></html>")
    doc, _ = read_document(SourceFile("letter.html", html))
    text = doc.pages[0]
    assert "Fund II 14%" in text.split("\n") and "LP letter" in text and "var x" not in text


# ---------------------------------------------------------------- bad files: named, skipped, the rest builds


def _good_txt() -> SourceFile:
    return SourceFile("notes.txt", b"Fund notes\n\nThe Fund called capital from its limited partners.")


@pytest.mark.parametrize("source, message", [
    (SourceFile("locked.pdf", encrypt(make_pdf([text_page("secret numbers")]))),
     "locked.pdf: is encrypted (it needs a password to open)"),
    (SourceFile("scan.pdf", make_pdf([[], []])),
     "scan.pdf: has no extractable text on any of its 2 pages (a scan without a text layer?"),
    (SourceFile("broken.pdf", b"%PDF-1.4\nthis is not a PDF body"), "broken.pdf: is not a readable PDF: the file is damaged or incomplete"),
    (SourceFile("memo.docx", b"just some plain text pretending to be Word"),
     "memo.docx: is not a Word document (.docx)"),
])
def test_a_bad_file_is_named_and_the_others_still_build(source, message):
    corpus = load_sources([source, _good_txt()], "room")
    assert [p.doc_id for p in corpus.passages] == ["notes.txt"]
    assert [str(p) for p in corpus.report.skipped] == [str(corpus.report.skipped[0])]
    assert str(corpus.report.skipped[0]).startswith(message), corpus.report.skipped


def test_pages_without_text_are_named_and_the_rest_of_the_pdf_builds():
    pdf = make_pdf([text_page("Page one text."), [], text_page("Page three text."), []])
    corpus = load_sources([SourceFile("mixed.pdf", pdf)], "room")
    assert [p.id for p in corpus.passages] == ["mixed.pdf#p1.0", "mixed.pdf#p3.0"]
    assert [str(p) for p in corpus.report.skipped] == [
        "mixed.pdf: no extractable text on pages 2, 4 of 4 (scanned or image-only pages are skipped)"]


def test_what_was_left_out_is_counted_in_files_whole_or_in_part():
    from ui.corpora import left_out_words

    pdf = make_pdf([text_page("Page one text."), [], text_page("Page three text."), []])
    corpus = load_sources([SourceFile("mixed.pdf", pdf), SourceFile("scan.pdf", make_pdf([[]]))], "room")
    # two notes on one partly read file, as a page past the character cap and an empty page would give
    problems = corpus.report.skipped + (Problem("mixed.pdf", "page 1 ran past the cap"),)
    whole, partly = left_out_files(problems, {p.doc_id for p in corpus.passages})
    assert (whole, partly) == (("scan.pdf",), ("mixed.pdf",))
    assert left_out_words(whole, partly) == "1 file left out of this corpus, and pages of 1 more: see Documents."
    assert left_out_words((), partly) == "Pages of 1 file left out of this corpus: see Documents."
    assert left_out_words(("a", "b"), ()) == "2 files left out of this corpus: see Documents."


def test_nothing_usable_is_an_error_naming_each_file():
    with pytest.raises(PathLensError, match=r"room: nothing to build from \(scan.pdf: has no extractable text"):
        load_sources([SourceFile("scan.pdf", make_pdf([[]]))], "room")


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_a_zip_member_outside_its_folder_is_skipped_and_named():
    data = _zip({"../x.txt": b"escape", "/etc/passwd.txt": b"root", "room/ok.txt": b"Fine text about the Fund."})
    files, problems = zip_members(data, "room.zip")
    assert [f.name for f in files] == ["room/ok.txt"]
    assert [str(p) for p in problems] == [
        "room.zip:../x.txt: its path leads outside the zip's folder; skipped",
        "room.zip:/etc/passwd.txt: its path leads outside the zip's folder; skipped"]
    corpus = load_sources([SourceFile("room.zip", data)], "room")
    assert [p.doc_id for p in corpus.passages] == ["room/ok.txt"] and len(corpus.report.skipped) == 2


def test_a_zip_bomb_is_refused_and_the_other_uploads_still_build():
    bomb = _zip({"zeros.txt": b"0" * (51 * 1024 * 1024)})
    assert len(bomb) < 200_000  # small on disk, over 50 MB expanded
    corpus = load_sources([SourceFile("bomb.zip", bomb), _good_txt()], "room")
    assert [p.doc_id for p in corpus.passages] == ["notes.txt"]
    assert str(corpus.report.skipped[0]).startswith(
        "bomb.zip: would expand to 53,477,376 bytes, over the 52,428,800-byte limit (a zip bomb?)")


def test_a_corrupt_zip_is_named():
    corpus = load_sources([SourceFile("bad.zip", b"PK\x03\x04 not really"), _good_txt()], "room")
    assert str(corpus.report.skipped[0]) == "bad.zip: is not a readable zip file (BadZipFile)"


# ---------------------------------------------------------------- folders, zips and files with questions


def _room(tmp_path):
    room = tmp_path / "room"
    room.mkdir()
    (room / "ACME_2022_10K.pdf").write_bytes(report_pdf())
    (room / "notes.txt").write_text("Fund notes\n\nThe Fund called capital from its limited partners.")
    (room / "queries.jsonl").write_text(
        json.dumps({"id": "q1", "text": "What were Acme's total net sales?", "kind": "single-hop",
                    "gold": [{"doc": "ACME_2022_10K.pdf", "page": 2}]}) + "\n"
        + json.dumps({"id": "q2", "text": "Who committed capital?", "gold": ["notes.txt#0000",
                                                                          {"doc": "ACME_2022_10K.pdf", "page": 3}]})
        + "\n")
    return room


def test_a_folder_a_zip_and_a_single_file_load_alike(tmp_path):
    room = _room(tmp_path)
    folder = load_corpus(str(room))
    assert [p.id for p in folder.passages] == [f"ACME_2022_10K.pdf#p{n}.0" for n in range(1, 5)] + ["notes.txt#0000"]
    assert [q.gold_pages for q in folder.queries] == [("ACME_2022_10K.pdf#p2",), ("ACME_2022_10K.pdf#p3",)]
    assert folder.queries[1].gold == ("notes.txt#0000", "ACME_2022_10K.pdf#p3.0")
    zipped = tmp_path / "room.zip"
    zipped.write_bytes(_zip({f.name: f.read_bytes() for f in room.iterdir()}))
    from_zip = load_corpus(str(zipped))
    assert [p.id for p in from_zip.passages] == [p.id for p in folder.passages] and from_zip.queries == folder.queries
    with pytest.raises(PathLensError, match="line 2: field 'gold\\[0\\]': unknown passage id 'notes.txt#0000'"):
        load_corpus(str(room / "ACME_2022_10K.pdf"), queries=str(room / "queries.jsonl"))  # notes.txt is not in it
    (tmp_path / "one.jsonl").write_text((room / "queries.jsonl").read_text().splitlines()[0])
    single = load_corpus(str(room / "ACME_2022_10K.pdf"), queries=str(tmp_path / "one.jsonl"))
    assert len(single.passages) == 4 and [q.id for q in single.queries] == ["q1"]
    assert single.fingerprint == load_corpus(str(room / "ACME_2022_10K.pdf")).fingerprint


def test_page_gold_scores_by_page_and_a_page_counts_once(tmp_path):
    corpus = load_corpus(str(_room(tmp_path)))
    q1, q2 = corpus.queries
    p = "ACME_2022_10K.pdf#p"
    run = {"q1": {f"{p}1.0": 0.9, f"{p}2.0": 0.8, f"{p}3.0": 0.7},
           "q2": {f"{p}3.0": 0.9, "notes.txt#0000": 0.8}}
    units, qrels = judged(corpus, [q1, q2], run)
    assert qrels == {"q1": {f"{p}2": 1}, "q2": {"notes.txt#0000": 1, f"{p}3": 1}}
    assert units == {"q1": {f"{p}1.0": 0.9, f"{p}2": 0.8, f"{p}3.0": 0.7},
                     "q2": {f"{p}3": 0.9, "notes.txt#0000": 0.8}}


@pytest.mark.parametrize("gold, message", [
    ([{"doc": "NOPE.pdf", "page": 1}], "line 1: field 'gold[0].doc': unknown document 'NOPE.pdf'"),
    ([{"doc": "ACME_2022_10K.pdf", "page": 9}],
     "line 1: field 'gold[0].page': 9 is out of range; ACME_2022_10K.pdf has pages 1 to 4"),
    ([{"doc": "ACME_2022_10K.pdf", "page": 0}], "field 'gold[0].page': 0 is out of range"),
    (["notes.txt#0000", {"doc": "notes.txt", "page": 1}],
     "line 1: field 'gold[1].page': notes.txt has no pages (only PDFs do)"),
    (["nope#1"], "line 1: field 'gold[0]': unknown passage id 'nope#1'"),
    ([{"doc": "ACME_2022_10K.pdf"}], "field 'gold[0]' must be a passage id or an object with exactly 'doc' and 'page'"),
])
def test_bad_gold_is_named_by_line_and_field(tmp_path, gold, message):
    room = _room(tmp_path)
    corpus = load_corpus(str(room))
    line = json.dumps({"id": "q", "text": "t", "gold": gold})
    with pytest.raises(PathLensError, match="^queries.jsonl, line 1: ") as err:
        parse_queries(line, "queries.jsonl", corpus.passages)
    assert message in str(err.value)


def test_gold_in_a_file_that_was_not_read_says_why(tmp_path):
    """A reader's time limit on a busy machine left a dev set's filing out, and its questions then failed on an
    "unknown document" alone."""
    good = SourceFile("good.pdf", make_pdf([text_page("Page one text.")]))
    broken = SourceFile("broken.pdf", b"%PDF-1.4\n" + b"\x00garbage" * 50)
    queries = SourceFile("queries.jsonl", json.dumps({"id": "q", "text": "t", "gold": [{"doc": "broken.pdf",
                                                                                         "page": 1}]}).encode())
    corpus = load_sources([good, broken], "r", queries=queries)  # the question is left out, the room is built
    assert [p.doc_id for p in corpus.passages] == ["good.pdf"] and corpus.queries == ()
    assert corpus.report.questions_left_out[0].startswith(
        "queries.jsonl, line 1: field 'gold[0].doc': unknown document 'broken.pdf': it was not read (")


def test_a_questions_file_keeps_its_good_lines_and_names_each_bad_one(tmp_path):
    """Only a benchmark is refused whole (`parse_queries`); an analyst's file with a slip keeps the rest."""
    corpus = load_corpus(str(_room(tmp_path)))
    pid = corpus.passages[0].id
    lines = [json.dumps({"id": "q1", "text": "t", "gold": [pid]}), "{not json",
             json.dumps({"id": "q2", "text": "t", "gold": []}), "",
             json.dumps({"id": "q1", "text": "again", "gold": [pid]}), json.dumps({"id": "q3", "text": "u", "gold": [pid]})]
    read = read_queries("\n".join(lines), "mine.jsonl", corpus.passages)
    assert [q.id for q in read.queries] == ["q1", "q3"]
    assert [p.split(":")[0] for p in read.left_out] == ["mine.jsonl, line 2", "mine.jsonl, line 3", "mine.jsonl, line 5"]
    assert "field 'gold' is empty" in read.left_out[1] and "'q1' is used by an earlier question" in read.left_out[2]
    with pytest.raises(PathLensError, match="^mine.jsonl, line 2: not valid JSON"):
        parse_queries("\n".join(lines), "mine.jsonl", corpus.passages)


def test_a_page_without_text_cannot_be_gold(tmp_path):
    pdf = make_pdf([text_page("Page one text."), []])
    corpus = load_sources([SourceFile("two.pdf", pdf)], "r")
    with pytest.raises(PathLensError, match="field 'gold\\[0\\].page': page 2 of two.pdf has no text"):
        parse_queries(json.dumps({"id": "q", "text": "t", "gold": [{"doc": "two.pdf", "page": 2}]}), "q.jsonl",
                      corpus.passages)


def test_a_passage_s_page_is_one_typed_reference_read_one_way():
    """#63.18: a passage's page was found five ways, two of them named page_of with different types. One PageRef now:
    from the passage (its metadata's page, its id's part) or from an id alone, and no other module reads a page id."""
    import re
    from pathlib import Path

    from engine.explain.figures import cited_page
    from engine.explain.reasons import passage_name, passage_place
    from engine.ingest.corpus import Corpus
    from engine.ingest.documents import Document
    from engine.ingest.passage import PageRef, Passage, page_ref

    doc = Document("ACME_2019_10K.pdf", "Acme 2019 10-K", ("cover", "one\n\ntwo " * 200), True)
    passages = document_passages(doc, max_chars=300, overlap_chars=0)
    refs = [page_ref(p) for p in passages]
    assert refs[0] == PageRef("ACME_2019_10K.pdf", 1, 0) and refs[-1].page == 2 and refs[-1].part == len(passages) - 2
    assert all(r.passage_id == p.id and PageRef.from_id(p.id) == r for r, p in zip(refs, passages))
    assert {r.key for r in refs} == {"ACME_2019_10K.pdf#p1", "ACME_2019_10K.pdf#p2"}
    memo = Passage("memo.md#0003", "memo.md", "Memo", "text")
    assert page_ref(memo) is None and PageRef.from_id(memo.id) is None
    assert Corpus("c", (*passages, memo)).pages == {p.id: r for p, r in zip(passages, refs)}
    assert cited_page(passages[-1].id) == refs[-1] and cited_page("notes.docx#p3.0") is None  # only a PDF is drawn
    assert passage_place(passages[-1].id) == f"page 2 of ACME_2019_10K.pdf, part {refs[-1].part + 1}"
    assert passage_name(passages[0].id, {}).endswith(" p.1")
    engine = Path(__file__).resolve().parents[1] / "engine"
    readers = sorted(str(f.relative_to(engine)) for f in engine.rglob("*.py")
                     if re.search(r"#p\(\?P<page>|#p\(\\d", f.read_text("utf-8")))
    assert readers == ["ingest/passage.py"], readers


@pytest.mark.parametrize("raw, read", [
    ("bene\ufffets", "benefits"), ("\ufffescal year", "fiscal year"), ("con\ufffeict", "conflict"),
    ("a\ufffeecting", "affecting"), ("tari\ufffes", "tariffs"),  # ligature glyphs PDFium could not map
    ("non\ufffecurrent", "non-current"), ("write\ufffeoffs", "write-offs"), ("13a\ufffe15", "13a-15"),
    ("non\ufffeGAAP", "non-GAAP"), ("e\ufffemobility", "e-mobility"), ("non\ufffehydrological", "non-hydrological"),
    ("Reclassi\ufffecation", "Reclassification"),  # hyphens inside a line; a ligature no vocabulary word shows
    ("hyphen\ufffe\r\nated", "hyphenated"),  # a word hyphenated across a line break
    # an "ff" some PDFs map to "f" and a space (FedEx's "af ected", 13 of the shared filings): joined when that makes a
    # word and the part after the space is none
    ("materially af ected by", "materially affected by"), ("could suf er", "could suffer"),
    ("“Ef ective Date”", "“Effective Date”"), ("Chief Financial Of icer", "Chief Financial Officer"),
    ("sheets of ice", "sheets of ice"), ("if ever", "if ever"), ("chief executive", "chief executive"),
])
def test_pdfiums_marks_are_read_as_the_ligature_or_hyphen_the_page_shows(raw, read):
    """Costco's release read "benets", "rst" and "scal"; Apple's 10-K "noncurrent" (#63 walk-through): PDFium writes
    U+FFFE for a glyph it cannot map, as for a line-end hyphen, and both were dropped."""
    from engine.ingest.glyphs import read_marks

    assert read_marks(raw) == read


@pytest.mark.skipif(not (ROOT.parent / "shared" / "data" / "filings_dev").is_dir(),
                    reason="../shared/data/filings_dev is not here (CI and sessions have it)")
def test_costcos_release_reads_its_ligatures():
    from engine.ingest.documents import pdf_pages

    pages, _ = pdf_pages((ROOT.parent / "shared" / "data" / "filings_dev" / "COSTCO_2023Q3_EARNINGS.pdf").read_bytes(),
                         "COSTCO_2023Q3_EARNINGS.pdf")
    text = " ".join(" ".join(pages).split())
    assert "for incremental employee benefits" in text and "for the first 36 weeks" in text
    assert "\ufffe" not in text and "benets" not in text
