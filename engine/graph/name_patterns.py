"""The words and patterns names are read by: what a capitalised run is (`NAME_RE`), which capitalised words name
nothing on their own, and the key that identifies an entity (`entity_key`). Shared by the extractors and the
alias table (engine.graph.entities, engine.graph.aliases)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import char_class, normalize_name

NUMERIC_LABELS = frozenset({"CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME"})
MAX_NAME_TOKENS = 8

COMMON_CAPS = frozenset(  # capitalised words that start sentences or table rows but name nothing on their own
    """a an the this that these those there their they we our us it its in on at of for to from by
    with as and or but if when while during after before since until per each every all any no not
    is are was were be been has have had will would shall may might can could should must do does
    total net gross other see page table note notes exhibit section schedule item part annex appendix
    q1 q2 q3 q4 fy ytd ltm january february march april may june july august september october
    november december monday tuesday wednesday thursday friday saturday sunday mr mrs ms dr
    however although also following further accordingly pursuant under over such amount amounts
    name date period quarter year years balance beginning ending
    ended months weeks form thousands millions billions unaudited audited""".split()
)  # a filing's period headers ("Three Months Ended"), "this Form 10-K", and its tables' units ("(In Millions)
# (Unaudited)")
# with the words above, a period header ("Three Months Ended June"); beside a name, part of it ("Three Rivers Bank")
NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve thirteen sixteen twenty "
                         "thirty forty fifty".split())
STOP_PHRASES = frozenset(
    {"page", "table", "exhibit", "section", "the company", "company", "inc", "llc", "lp", "l p", "ltd",
     "quarter", "year", "annex", "schedule", "item", "the", "confidential", "draft", "continued",  # and SEC forms:
     "form 10 k", "form 10 q", "form 8 k", "form 20 f", "form 40 f", "form 6 k", "10 k", "10 q", "8 k"}
)
_DETERMINER = re.compile(r"^(?:the|a|an)\s+")
# a legal form names nothing new ("General Mills, Inc." is GENERAL MILLS); not "Company" ("East India Company"), "S.A."
# nor "Holdings": a holding company is a party of its own in a deal ("Brightwater Logistics Holdings LLC" owns
# "Brightwater Logistics"), the two linked by the alias rule
_LEGAL_FORM = re.compile(r"(?<=\w) (?:inc|incorporated|corp|corporation|llc|l l c|lp|l p|llp|l l p|ltd|plc|gmbh)$")
# Capitalised words in any cased script: "Zürich", "Société Générale", "Ørsted", "Газпром".
_UPPER = char_class(frozenset({"Lu", "Lt"}))
_TOKEN = rf"[{_UPPER}](?:[^\W_]|['’&.\-])*[^\W_]|[{_UPPER}]"
CONNECTORS = ("of", "and", "&", "for", "de", "la", "du", "des", "di", "del", "der", "van", "von")
# a run never crosses a line break: "Helvetia, Arizona\nHelvetia is…" is two names, not "Arizona Helvetia" (a
# name a PDF wrapped is joined again where the corpus writes it whole: engine.graph.entities._rejoined)
_SP = r"[^\S\n]"
_CONNECT = rf"(?:{_SP}(?:{'|'.join(re.escape(c) for c in CONNECTORS)}){_SP}|{_SP}d['’](?=[{_UPPER}])|{_SP})"
_SUFFIX = rf"(?:,?{_SP}(?:L\.P\.|LP|Inc\.|LLC|L\.L\.C\.|Ltd\.|Limited|plc|N\.A\.|S\.A\.|GmbH|Corp\.))"
NAME_RE = re.compile(rf"(?<![\w'’])(?:{_TOKEN})(?:{_CONNECT}(?:{_TOKEN}))*{_SUFFIX}?")
DEFINED_RE = re.compile(
    r"\((?:the\s+|each,?\s+(?:a|an)\s+|collectively,?\s+(?:the\s+)?)?[\"“”]([^\"“”()]{1,60})[\"“”]\)"
)
ABBREVIATIONS = frozenset({"L.P.", "Inc.", "L.L.C.", "Ltd.", "N.A.", "S.A.", "Corp.", "Co."})
SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[|•]\s*)$")


# Function words a cover page or heading shouts ("PURSUANT TO SECTION 13 OR 15(d)"); short as they are, they are
# never acronyms. "US" and "IT" are, and stay.
SHOUTED_FUNCTION_WORDS = frozenset("a an and as at be but by for from if in is nor not of on or so the to with".split())


def acronym(word: str) -> bool:
    """A short all-capitals word is an acronym, not the function word it spells: "US", "IT" (not "TO", "OR")."""
    return 2 <= len(word) <= 3 and word.isalpha() and word.isupper() and word.lower() not in SHOUTED_FUNCTION_WORDS


def entity_key(surface: str) -> str:
    """The normalised name that identifies an entity: `normalize_name` minus a leading article and a legal form."""
    return _LEGAL_FORM.sub("", _DETERMINER.sub("", normalize_name(surface)))


@dataclass(frozen=True)
class Mention:
    text: str
    label: str  # spaCy label, "NAME" for the regex builder, "DEFINED" for defined terms


def defined_terms(text: str) -> list[Mention]:
    """The terms `text` defines in quotes, capitalised as names are: a term in lower case ("collectively,
    “network”") is an ordinary word the document narrows, not a name."""
    return [Mention(t, "DEFINED") for t in (m.group(1).strip() for m in DEFINED_RE.finditer(text)) if not t.islower()]
