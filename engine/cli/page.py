"""`page`: one cited page of a PDF drawn to PNG, with what a question matched marked on it, and its statement
table read with the column each value sits under."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from ..catalog import default_retriever
from ..errors import PathLensError
from ..explain.page_evidence import PageEvidence, evidence_on_page, pdf_source
from ..explain.page_image import check_page, check_width, rendered_page
from ..explain.page_marks import marked_page
from ..explain.page_table import read_tables
from ..indexing.config import search_config
from ..indexing.index import check_retriever
from ..retrieve.retrievers import check_k, check_query
from .options import CLI_DEFAULT_CORPUS
from .output import load, open_index, snippet


def _evidence(spec: str, doc: str, page: int, question: str, retriever: str | None, k: int) -> tuple[PageEvidence, str]:
    """The answer's evidence on the page, from the corpus's default retriever (as on the Query page) with the
    corpus's tuned settings, and the retriever's name."""
    corpus = load(spec)
    name = retriever or default_retriever(corpus.paged)
    answer = open_index(corpus).retriever(name, search_config({}, corpus)).answer(question, k)
    for note in answer.notes:
        print(f"note: {note}", file=sys.stderr)
    return evidence_on_page(answer, {p.id: p for p in corpus.passages}, doc, page), name


def _default_out(doc: str, page: int) -> str:
    return f"{Path(doc).stem}-p{page}.png"


def cmd_page(args) -> None:
    page, width = check_page(args.page), check_width(args.width)
    spec = args.corpus or CLI_DEFAULT_CORPUS
    if args.question:  # bad input fails before any file is read
        check_query(args.question)
        check_k(args.k)
        if args.retriever is not None:
            check_retriever(args.retriever)
    source = pdf_source(spec, args.doc)
    started = time.perf_counter()
    rendered = rendered_page(source, page, width)
    seconds = time.perf_counter() - started
    evidence, retriever = (_evidence(spec, args.doc, page, args.question, args.retriever, args.k) if args.question
                           else (None, ""))
    marked = marked_page(rendered, passage=evidence.passage if evidence else "", question=args.question or "",
                         entities=evidence.entities if evidence else (), row=args.row or "")
    reading = read_tables(rendered.layout)
    out = args.out or _default_out(args.doc, page)
    try:
        Path(out).write_bytes(marked.png)
    except OSError as e:
        raise PathLensError(f"cannot write {out}: {e.strerror}") from None
    if args.json:
        print(json.dumps(_as_json(args, out, rendered, marked, reading, evidence, retriever, seconds), indent=2))
        return
    drawn = "from the cache" if rendered.cached else f"drawn in {seconds:.2f} s"
    print(f"wrote {out} ({marked.width}×{marked.height} px; {args.doc} page {page}, {drawn})")
    if evidence is not None:
        if evidence.passage_id:
            print(f"hit #{evidence.rank} of {retriever}: {evidence.passage_id}  {snippet(evidence.passage)}")
        else:
            print(f"note: {evidence.note}")
    for kind, words, color in marked.legend:
        shown = [m for m in marked.marks if m.kind == kind]
        print(f"{color} {words} ({len(shown)}): " + "; ".join(
            f"{snippet(m.text, 40)!r} at {m.box_px[0]},{m.box_px[1]}–{m.box_px[2]},{m.box_px[3]} px" for m in shown[:6])
            + (f"; and {len(shown) - 6} more" if len(shown) > 6 else ""))
    for what in marked.missing:
        print(f"not marked: {what}")
    for table in reading.tables:
        print(f"\ntable, columns: {' | '.join(table.columns)}")
        for row in table.rows:
            print(f"  {row.words()}")
    if reading.reason:
        print(f"\ntable: {reading.reason}")


def _as_json(args, out, rendered, marked, reading, evidence, retriever, seconds) -> dict:
    return {
        "doc": args.doc, "page": rendered.layout.page, "out": out, "width": marked.width, "height": marked.height,
        "page_height": rendered.height, "cached": rendered.cached, "render_seconds": round(seconds, 3),
        "question": args.question or "", "retriever": retriever,
        "hit": ({"passage_id": evidence.passage_id, "rank": evidence.rank} if evidence and evidence.passage_id
                else None),
        "note": evidence.note if evidence else "",
        "marks": [asdict(m) for m in marked.marks],
        "legend": [{"kind": k, "words": w, "color": c} for k, w, c in marked.legend],
        "missing": list(marked.missing),
        "tables": [{"columns": list(t.columns),
                    "rows": [{"label": r.label, "cells": [{"column": h, "value": v} for h, v in r.cells],
                              "text": r.words()} for r in t.rows]} for t in reading.tables],
        "table_reason": reading.reason,
    }


__all__ = ["cmd_page"]
