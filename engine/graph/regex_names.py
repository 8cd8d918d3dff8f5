"""The regex builder: a corpus's capitalised runs, read by how the corpus writes its words (`Casing`).

A capitalised run is a name unless the corpus says it is an ordinary word: a heading's capitals, a lone word it
writes in lower case more often. A PDF's line wrap is joined again where the corpus writes the name whole; an SEC
form's letter and a list of parties are cut off."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..text import STOPWORDS
from .name_patterns import (ABBREVIATIONS, COMMON_CAPS, CONNECTORS, NAME_RE, SENTENCE_START, Mention, acronym,
                            defined_terms, entity_key)

Run = tuple[int, int | None, list[str], int, list[str]]


FORM_NUMBER = re.compile(r"\b(?:10|8|20|40|6)-$")  # what precedes an SEC form's letter ("10-K", "8-K", "20-F")
# a month's abbreviation is a date's word before a day ("Dec 26, 2020"), and may be a name's elsewhere ("Jan Smuts")
MONTH_ABBREVIATIONS = frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split())
_DAY = re.compile(r"\.?[^\S\n]+\d{1,2}\b")
# an ordinary word ending a line (or a passage) before a capitalised one: the first word of a title a PDF wrapped,
# not a name of its own (and never joined again: a statement's rows are lines too, "Goodwill\nIntangible assets")
_WRAPPED = re.compile(r"[^\S\n]*(?:\n[^\S\n]*[A-Z]|$)")


def _runs(text: str) -> list[Run]:
    """Each capitalised run as (start, end, words, whole start, whole words): its words with capitalised function
    words ("The", "During") peeled off the front, and all of them; `end` is where it ends in the text, None when a
    full stop or a connector was cut off its end."""
    out = []
    for start, end, words in (piece for m in NAME_RE.finditer(text) for piece in _parties(text, m)):
        if words[-1].endswith(".") and words[-1] not in ABBREVIATIONS:  # a full stop, not "L.P."
            words[-1], end = words[-1].rstrip("."), None
        whole = list(words)
        whole_start = start
        if words[0] in ("K", "Q", "F") and FORM_NUMBER.search(text, 0, start):  # "Form 10-K of Microsoft"
            words = words[1:]
            while words and words[0].lower() in CONNECTORS:
                words = words[1:]
            start = text.index(words[0], start + 1) if words else start
        while words and words[0].lower().rstrip(".,") in COMMON_CAPS and not acronym(words[0]):
            start = text.index(words[1], start + len(words[0])) if len(words) > 1 else start
            words = words[1:]
        # a trailing connector is not part of the name, but a lone one ("La fida ninfa") is all there is
        while len(words) > 1 and words[-1].lower() in CONNECTORS:
            words, end, whole = words[:-1], None, whole[:-1]
        if words:
            out.append((start, end, words, whole_start, whole))
    return out


# the legal forms that end a party's name: in "Microsoft Corporation and The Bank of New York Mellon" the "and"
# after one lists two parties (an indenture's, an underwriting agreement's), and no name runs on past it
_PARTY_END = frozenset("corporation inc. inc llc l.l.c. ltd. ltd l.p. lp corp. plc n.a. s.a. limited company co.".split())


def _parties(text: str, m: re.Match) -> list[tuple[int, int | None, list[str]]]:
    """A capitalised run as (start, end, words) pieces, cut at each "and" or "&" that follows a legal form; `end`
    is None where the cut took a connector off a piece's end."""
    words = m.group(0).split()
    cuts = [i for i in range(1, len(words) - 1) if words[i].lower() in ("and", "&") and words[i - 1].lower().rstrip(",") in _PARTY_END]
    if not cuts:
        return [(m.start(), m.end(), words)]
    pieces, at, first = [], m.start(), 0
    for i in cuts + [len(words)]:
        part = words[first:i]
        start = text.index(part[0], at)
        pieces.append((start, m.end() if i == len(words) else None, part))
        at, first = start + len(" ".join(part)), i + 1
    return pieces


_LINE_BREAK = re.compile(r"[^\S\n]*\n[^\S\n]*")


def _rejoined(text: str, runs: list[Run], casing: Casing) -> list[tuple[int, list[str]]]:
    """(start, words) of each run, a name a PDF's line wrap cut in two ("Boston Properties Limited\nPartnership",
    "the Consolidated\nBalance Sheets", "… and American Water\nWorks Company, Inc.") made one again where the corpus
    writes it whole on one line elsewhere.
    Names never run across a line break otherwise: "Helvetia, Arizona\nHelvetia is…" is two names."""
    out: list[tuple[int, int | None, list[str]]] = []
    for start, end, words, whole_start, whole in runs:
        wrapped = out and out[-1][1] is not None and _LINE_BREAK.fullmatch(text, out[-1][1], whole_start)
        last = out[-1] if wrapped else None
        # the whole run before the break, else its last words ("… Affiliates and American Water\nWorks Company, Inc.")
        k = next((k for k in range(len(last[2]), 0, -1) if entity_key(" ".join(last[2][-k:] + whole)) in casing.names),
                 0) if last else 0
        if k == 0:
            out.append((start, end, words))
            continue
        head = last[2][:-k]
        at = last[0]
        for w in head:
            at = text.index(w, at) + len(w)
        while head and head[-1].lower() in CONNECTORS:
            head = head[:-1]
        joined = (text.index(last[2][-k], at), end, last[2][-k:] + whole)
        out[-1:] = ([(last[0], None, head)] if head else []) + [joined]
    return [(start, words) for start, _, words in out]


def _regex_mentions(text: str, casing: Casing | None) -> list[Mention]:
    out = []
    runs = _runs(text)
    for start, words in (_rejoined(text, runs, casing) if casing is not None else [(r[0], r[2]) for r in runs]):
        name = " ".join(words)
        if casing is not None and common_words(words, casing):
            continue
        if len(words) == 1 and name.rstrip(".").lower() in MONTH_ABBREVIATIONS \
                and _DAY.match(text, start + len(name)):  # a table's "Dec 26, 2020"
            continue
        if casing is not None and len(words) == 1 and name[1:].islower() and casing.written_lower(name.lower()) \
                and _WRAPPED.match(text, start + len(name)):  # "—Navin Shenoy, Executive\nVice President"
            continue
        if len(words) == 1 and SENTENCE_START.search(text[max(0, start - 3):start] if start else ""):
            camel_or_caps = (any(a.islower() and b.isupper() for a, b in zip(name, name[1:]))
                             or (len(name) >= 2 and all(c.isupper() or c.isdigit() or c in "&.-" for c in name)))
            # A lone capitalised word at a sentence start may be just a capitalised word. In a
            # corpus it names something when the corpus never writes it in lower case
            # ("Scanderbeg is…" opens its article); a question's first word is its question word.
            if not camel_or_caps and (casing is None or casing.written_lower(name.lower())):
                continue
        out.append(Mention(name, "NAME"))
    return out + defined_terms(text)


def common_words(words: list[str], casing: "Casing") -> bool:
    """Words the corpus also writes in lower case, capitalised by a heading or shouted by a cover:
    - a run of capitals whose every word the corpus writes in lower case ("CONSOLIDATED STATEMENTS OF OPERATIONS");
      two-letter acronyms ("US", "IT"), three-letter ones never written in lower case ("AMD", not a table's "NET"
      or "DUE") and a company's shouted name ("APPLE", never written "apple") stay names;
    - a lone Title-case word the corpus writes in lower case more often than capitalised inside a sentence
      ("Financial", "Income" in a filing's headings). Most lone capitalised words that are also written in lower
      case are names in encyclopedic text ("Bush"); dropping every one of them cost ppr-regex 0.065 of HR@5 on
      MuSiQue (docs/filings.md, "Entities on filings"), so the counts decide."""
    if all(w.isupper() for w in words):
        return shouted_words(words, casing)
    word = words[0]
    return len(words) == 1 and word[:1].isupper() and word[1:].islower() and casing.mostly_lower(word.lower())


def shouted_words(words: list[str], casing: "Casing") -> bool:
    """A run of capitals the corpus writes in lower case (`common_words`' first case)."""
    lone = words[0] if len(words) == 1 else ""
    if acronym(lone) and (len(lone) == 2 or not casing.written_lower(lone.lower())):
        return False
    return all(casing.written_lower(w.lower().strip(".,")) for w in words)


_WORD = re.compile(r"(?<![\w'’-])[^\W\d_][\w'’-]*")


@dataclass(frozen=True)
class Casing:
    """How a corpus writes its words: per word (lower-cased), how often in lower case and how often capitalised
    inside a sentence; and the keys of the capitalised runs of two words or more it writes on one line. Counts add
    up and keys unite over the parts of a corpus, so a distributed build merges its shards' exactly (`merge`)."""

    lower: Mapping[str, int]
    inner_title: Mapping[str, int]
    names: frozenset[str] = frozenset()

    @classmethod
    def of(cls, texts: Sequence[str]) -> "Casing":
        lower: Counter[str] = Counter()
        title: Counter[str] = Counter()
        names: set[str] = set()
        for t in texts:
            for m in _WORD.finditer(t):
                w = m.group(0)
                if w[0].islower():
                    lower[w] += 1
                elif w[1:].islower() and not SENTENCE_START.search(t[max(0, m.start() - 3):m.start()]):
                    title[w.lower()] += 1
            names.update(entity_key(m.group(0)) for m in NAME_RE.finditer(t) if " " in m.group(0))
        return cls(lower, title, frozenset(names))

    @classmethod
    def merge(cls, parts: Iterable["Casing"]) -> "Casing":
        lower: Counter[str] = Counter()
        title: Counter[str] = Counter()
        names: set[str] = set()
        for part in parts:
            lower.update(part.lower)
            title.update(part.inner_title)
            names |= part.names
        return cls(lower, title, frozenset(names))

    def written_lower(self, word: str) -> bool:
        """The corpus writes it in lower case somewhere (or it is a stop word): at a sentence start, its
        capitalised form is taken as an ordinary word."""
        return word in STOPWORDS or word in COMMON_CAPS or self.lower.get(word, 0) > 0

    def mostly_lower(self, word: str) -> bool:
        return self.lower.get(word, 0) > self.inner_title.get(word, 0)


def extract_regex(texts: Sequence[str], corpus: bool = True, casing: Casing | None = None) -> list[list[Mention]]:
    """Regex mentions per text. `corpus=False` reads a question: no corpus-wide casing evidence,
    so a lone capitalised word at a sentence start is never a name. `casing` gives the corpus's
    when `texts` are only part of it (a shard of a distributed build)."""
    if corpus and casing is None:
        casing = Casing.of(texts)
    return [_regex_mentions(t, casing if corpus else None) for t in texts]
