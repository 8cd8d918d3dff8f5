"""Labeled questions: one JSON object a line, with gold passages or gold pages, each error named by line and
field."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Mapping, Sequence

from ..errors import PathLensError
from .passage import Passage, page_ref
from .textfiles import json_field, read_json_object, read_text


@dataclass(frozen=True)
class LabeledQuery:
    id: str
    text: str
    gold: tuple[str, ...]  # every gold passage id (all passages of a gold page included)
    kind: str = "unlabeled"  # any label; evaluation reports every metric per kind
    gold_pages: tuple[str, ...] = ()  # pages named as gold (`doc#pN`): any passage on one is a hit
    # fields beyond id/text/gold/kind (an answer, the evidence text): kept to be shown, never scored
    extra: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))



@dataclass(frozen=True)
class QueryFile:
    """A labeled-questions file as read: its good questions, and each bad line's problem by line and field."""

    queries: tuple[LabeledQuery, ...]
    left_out: tuple[str, ...]


def parse_queries(text: str, where: str, passages: Sequence[Passage],
                  unread: Mapping[str, str] | None = None) -> tuple[LabeledQuery, ...]:
    """Labeled questions, one JSON object a line: `id`, `text`, `gold`, optional `kind` (any label).
    Other fields (an answer, the evidence text) are kept in `LabeledQuery.extra`.

    A gold entry is a passage id, or `{"doc": "APPLE_2022_10K.pdf", "page": 28}`: any passage on
    that page counts as a hit (evaluation scores such a question by pages; see engine.evaluate.evaluate).
    Bad gold is named by line and field; gold in a file that was not read says why (`unread`: file → what
    happened, e.g. a reader's time limit on a busy machine). The first bad line refuses the file, as a benchmark
    must be read whole (`read_queries` keeps the good lines instead).
    """
    read = read_queries(text, where, passages, unread)
    if read.left_out:
        raise PathLensError(read.left_out[0])
    return read.queries


def read_queries(text: str, where: str, passages: Sequence[Passage],
                 unread: Mapping[str, str] | None = None) -> QueryFile:
    """As `parse_queries`, keeping every good line and naming each bad one: an analyst's file with one slip
    (a question with no gold page) still scores the rest."""
    if not text.strip():
        raise PathLensError(f"{where} is empty")
    known = _Known(passages)
    out: list[LabeledQuery] = []
    left_out: list[str] = []
    seen: set[str] = set()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        at = f"{where}, line {n}"
        try:
            q = _query(read_json_object(line, at), at, known, unread or {})
            if q.id in seen:
                raise PathLensError(f"{at}: field 'id': {q.id!r} is used by an earlier question")
        except PathLensError as e:
            left_out.append(str(e))
            continue
        seen.add(q.id)
        out.append(q)
    return QueryFile(tuple(out), tuple(left_out))


class _Known:
    """The passages, documents and pages gold may name."""

    def __init__(self, passages: Sequence[Passage]):
        self.ids = {p.id for p in passages}
        self.on_page: dict[str, list[str]] = {}
        self.pages_of: dict[str, int] = {}
        self.docs: dict[str, str] = {}
        for p in passages:
            self.docs.setdefault(p.doc_id, p.doc_id)
            self.docs.setdefault(PurePosixPath(p.doc_id).name, p.doc_id)
            key = at.key if (at := page_ref(p)) else None
            if key:
                self.on_page.setdefault(key, []).append(p.id)
                self.pages_of[p.doc_id] = int(p.metadata.get("pages", p.metadata["page"]))


def _query(obj: dict, at: str, known: _Known, unread: Mapping[str, str]) -> LabeledQuery:
    qid, qtext = json_field(obj, "id", at), json_field(obj, "text", at)
    gold = obj.get("gold")
    if isinstance(gold, list) and not gold:
        raise PathLensError(f"{at}: field 'gold' is empty: a question is scored by its gold, so one without "
                            "gold cannot be; ask what the room lacks on the Query page")
    if not isinstance(gold, list):
        raise PathLensError(f"{at}: field 'gold' must be a non-empty list of passage ids or "
                            '{"doc": …, "page": …} objects')
    passage_gold: list[str] = []
    page_gold: list[str] = []
    for i, g in enumerate(gold):
        field_name = f"gold[{i}]"
        if isinstance(g, str):
            if g not in known.ids:
                raise PathLensError(f"{at}: field '{field_name}': unknown passage id {g!r}")
            passage_gold.append(g)
            continue
        if not isinstance(g, dict) or set(g) != {"doc", "page"}:
            raise PathLensError(f"{at}: field '{field_name}' must be a passage id or an object with "
                                "exactly 'doc' and 'page'")
        doc = known.docs.get(str(g["doc"]))
        if doc is None:
            why = unread.get(str(g["doc"]))
            raise PathLensError(f"{at}: field '{field_name}.doc': unknown document {g['doc']!r}"
                                + (f": it was not read ({why})" if why else ""))
        page = g["page"]
        if doc not in known.pages_of:
            raise PathLensError(f"{at}: field '{field_name}.page': {doc} has no pages (only PDFs do); "
                                "name its passage ids instead")
        if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= known.pages_of[doc]:
            raise PathLensError(f"{at}: field '{field_name}.page': {page!r} is out of range; "
                                f"{doc} has pages 1 to {known.pages_of[doc]}")
        key = f"{doc}#p{page}"
        if key not in known.on_page:
            raise PathLensError(f"{at}: field '{field_name}.page': page {page} of {doc} has no text, "
                                "so no passage can be found there")
        page_gold.append(key)
    kind = obj.get("kind", "unlabeled")
    if not isinstance(kind, str) or not kind.strip() or len(kind) > 80:
        raise PathLensError(f"{at}: field 'kind' must be a short non-empty label, got {kind!r}")
    extra = {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
             for k, v in obj.items() if k not in ("id", "text", "gold", "kind")}
    expanded = list(dict.fromkeys(passage_gold + [pid for key in page_gold for pid in known.on_page[key]]))
    return LabeledQuery(id=qid, text=qtext, gold=tuple(expanded), kind=kind.strip(),
                        gold_pages=tuple(dict.fromkeys(page_gold)), extra=MappingProxyType(extra))


def load_queries(path: Path, passages: Sequence[Passage]) -> tuple[LabeledQuery, ...]:
    path = Path(path)
    return parse_queries(read_text(path), str(path), passages)


def load_query_file(path: Path, passages: Sequence[Passage]) -> QueryFile:
    path = Path(path)
    return read_queries(read_text(path), str(path), passages)
