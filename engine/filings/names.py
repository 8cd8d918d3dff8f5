"""Which companies a question names, as analysts write them, and which names it writes that the room lacks.

A company of the room is found by any of its names (`identity.name_keys`: legal, bare, short, former), its ticker or
initials in capitals, a ticker the room never prints whose letters its name holds in order ("MCD" for McDonald's: said,
since it is a guess), a prefix of its name ("Pepsi" for PepsiCo, "Ulta" for Ulta Beauty), its words run together in
capitals ("AmEx" for American Express, "AmWater" for American Water), a misspelling (rapidfuzz's similarity), or a
nickname its own pages print that sounds like the start of its name ("Coke" on Coca-Cola's pages). Names a company's
pages print were tried as nicknames without the sound and not kept: its pages print its competitors' and customers'
names as often (Boeing on FedEx's, Intel on AMD's; docs/filings.md).

A word is an absent company only when it reads as a company name: before "'s" or a corporate suffix; before a
period or a form ("Tesla 2022 10-K", "Nvidia fiscal 2023", "3M capex 2018" reads its number-led name the same way);
beside a company in a comparison ("Pepsi vs Coke"); or a ticker-like word in capitals. Even then, a finance term
(EMEA, SG&A, CET1, RPO) is never a company, and neither is a capitalised word the room's pages use as a common word
("Target" printed as "target"), nor one in capitals its pages print (a metric, "GMV"). A capitalised word the reader
understands as none of these is said, and the question is answered.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping, Sequence

from rapidfuzz import fuzz

from ..text import STOPWORDS, normalize_name
from .asked import read_periods
from .identity import Filing, bare_name

# finance terms in capitals analysts write beside company names: units, measures, accounting, periods, exchanges
FINANCE_TERMS = frozenset("""USD EUR GBP JPY CNY FX FY FQ YOY YTD QOQ TTM LTM CY CEO CFO COO CTO CIO CHRO CODM EPS GAAP IFRS
EBIT EBITDA EBITDAR EBT ROA ROE ROIC ROI ROCE ROTE FCF OCF CFO CAPEX OPEX SG&A SGA SG R&D RND PP&E PPE P&L D&A DA DSO DPO DIO
CCC COGS NOL NOLS ETR AR AP AI ML ESG SEC US USA UK EU EMEA APAC APJ LATAM NA NAM AMER ANZ NYSE NASDAQ LLC INC CORP LP
PLC MD&A MDA NPV IRR WACC CAGR BPS BP HR IT IP II III IV ASC ASU FASB PCAOB IRS OK LIFO FIFO AOCI OCI RPO ARR MRR
ARPU ARPA NRR GMV TPV NII NIM CET1 CET RWA LCR NSFR AUM AUA SBC RSU RSUS PSU PSUS ESPP DEI KPI KPIS SKU SKUS DTC B2B
B2C SAAS IAAS PAAS API M&A IPO SPAC LBO FDA DOJ FTC EPA OSHA NOI FFO AFFO REIT GDP CPI PMI COVID ESG GHG ESOP ABS MBS
CMBS CLO CDS LIBOR SOFR FDIC FHLB OTTI CECL TCJA GILTI BEAT FDII VAT ARO ERP CRM OEM ODM EV EVS HVAC LNG EBITDAX
NGL BOE MCF MMBTU KWH MW GW TAM SAM ROS PPA PPAS CPA CPAS""".split())
_SUFFIXES = r"(?:Inc|Incorporated|Corp|Corporation|Company|Co|plc|PLC|Ltd|LLC|Group|Holdings)\b\.?"
_NAME = r"(?:[A-Z0-9][\w&.\-]*|[a-z]{1,2}[A-Z][\w&.\-]*)"  # a capitalised word, a number-led one ("3M"), or "eBay"
_RUN = r"(?P<name>" + _NAME + r"(?:\s+(?:" + _NAME + r"|&|and|of)){0,3}?)"
_POSSESSIVE = re.compile(_RUN + r"(?:['’]s?)(?=\s|$|[,.;:?!)])")
_SUFFIXED = re.compile(_RUN + r",?\s+" + _SUFFIXES)
# a name before a period or a form: "Tesla 2022 10-K", "Nvidia fiscal 2023", "Ulta Q4", "PayPal Q2 2023"
_BEFORE_PERIOD = re.compile(_RUN + r"\s*[:,—–-]?\s+(?=(?i:fy\s*'?\d|fiscal\b|q[1-4]|[1-4]q|h[12]\b|[12]h\d|'\d\d"
                            r"|(?:19|20)\d\d\b|10-?[kq]\b|8-?k\b|annual report|earnings))")
_COMPARED = re.compile(r"(?:\bvs\.?|\bversus|\bagainst|\bcompared (?:with|to)|\band|\bor|&)\s+" + _RUN
                       + r"|" + _RUN.replace("?P<name>", "?P<name2>") + r"\s+(?:vs\.?|versus)\s")
_CAPITALS = re.compile(r"(?<![\w&'’.-])(?:[A-Z][A-Z&.]{1,5}|\d[A-Z]{1,3})(?![\w&-])")
_SECTION = re.compile(r"\b(?:item|note|part|section|schedule|exhibit|rule|form|article)\s+$", re.IGNORECASE)  # "Item 1A"
# analysts' shorthand: a name, then a colon or a dash, at the start ("Kraft: net sales for 2022?", "AWK — customers")
_LEADING = re.compile(r"^\s*" + _RUN + r"\s*(?::|\s[—–-])\s")
# analysts' shorthand with no mark at all: a name first, then what of it ("Costco net income FY22")
_LEADING_BARE = re.compile(r"^\s*" + _RUN + r"\s+(?=[a-z])")
# the subject of a question's verb: "What did Coca-Cola report …", "How much does Pepsi spend …"
_SUBJECT = re.compile(r"\b(?:did|does|do|has|have|had|will|would)\s+" + _RUN + r"\s+(?=[a-z])")
_CAMEL = re.compile(r"(?<![\w&'’.-])[A-Z][a-z]+[A-Z][A-Za-z]*(?![\w&-])")  # "AmEx", "AmWater", "PayPal"
_COMMON_STARTS = frozenset("""what which who whom whose how why when where is are was were does do did has have had can
could should would will the a an compare compared list name give show tell find summarize describe explain calculate
provide using use based per across for in on of at by from to and or vs versus please assume you your i we our
according given summarise outline quantify estimate identify assess evaluate analyze analyse discuss detail review
break walk tabulate contrast report state rank plot chart extract get pull""".split())


@dataclass(frozen=True, eq=False)
class Room:
    """What the question reader knows of a data room: its filings' identities, the words its pages print (all, and
    those they print mostly in lower case: common words, not names), and each company's fiscal-year end."""

    filings: Mapping[str, Filing]
    lower_words: frozenset[str] = frozenset()  # folded words its pages print in lower case at least as often as not
    printed: frozenset[str] = frozenset()  # folded words its pages print in any case
    year_ends: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # company key → (month, day) its year ends
    # company key → the capitalised words its own pages print at least NICKNAME_USES times
    printed_by: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # folded capitalised words its pages print mostly within NEAR characters of a word of competition: other companies
    # ("compete with Apple, Google…"), where a filer's own products are not ("Azure": 3 of 44 in Microsoft's 10-K)
    rivals: frozenset[str] = frozenset()
    capitals: frozenset[str] = frozenset()  # folded words its pages print in capitals: "NET", "GMV", a ticker

    @cached_property
    def numbered(self) -> frozenset[str]:
        """The printed words that the pages print with a number after them: "covid" of "COVID-19" (folded "covid19")."""
        return frozenset(head for w in self.printed if (head := w.rstrip("0123456789")) != w and head)


NICKNAME_USES = 5
LETTERED = "its name's letters in order"  # a guess, so the scope says it
NEAR = 300
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&'’\-]*")
_CAPITALISED = re.compile(r"(?<![A-Za-z0-9&'’\-])[A-Z][A-Za-z0-9&'’\-]*")
_COMPETITION = re.compile(r"\b(?:[Cc]ompet\w*|[Rr]ivals?)\b")


def room_of(filings: Mapping[str, Filing], doc_texts: Mapping[str, Sequence[str]]) -> Room:
    """A room's reader context from its filings and each filing's page texts."""
    raw_lower: Counter = Counter()
    raw_by_company: dict[str, Counter] = {}  # words as printed, counted first: a room prints ~2M, ~60k distinct
    raw_near: Counter = Counter()  # capitalised words within NEAR characters of a word of competition
    for doc, texts in doc_texts.items():
        key = filings[doc].names[0] if doc in filings and filings[doc].names else ""
        own = raw_by_company.setdefault(key, Counter())
        for text in texts:
            for w, n in Counter(_WORD.findall(text)).items():
                (raw_lower if w.islower() else own)[w] += n
            done = 0  # windows overlap: each word counted once, from the end of the last window on
            for m in _COMPETITION.finditer(text):
                start = max(done, text.rfind(" ", 0, max(0, m.start() - NEAR)) + 1)
                done = max(done, m.end() + NEAR)
                raw_near.update(_CAPITALISED.findall(text, start, done))
    folded = {w: normalize_name(w).replace(" ", "") for c in (raw_lower, *raw_by_company.values()) for w in c}
    lower: Counter = Counter()
    for w, n in raw_lower.items():
        lower[folded[w]] += n
    upper: Counter = Counter()
    by_company: dict[str, Counter] = {}
    for key, raw in raw_by_company.items():
        own = by_company[key] = Counter()
        for w, n in raw.items():
            own[folded[w]] += n
        upper.update(own)
    common = frozenset(w for w, n in lower.items() if n >= 2 and 2 * n >= upper.get(w, 0))
    printed_by = {k: frozenset(w for w, n in c.items() if n >= NICKNAME_USES) for k, c in by_company.items() if k}
    near: Counter = Counter()
    for w, n in raw_near.items():
        near[folded.get(w) or normalize_name(w).replace(" ", "")] += n
    rivals = frozenset(w for w, n in near.items() if 2 * n >= upper.get(w, 0) and w not in common)
    capitals = frozenset(folded[w] for c in raw_by_company.values() for w in c if w.isupper())
    return Room(filings, common, frozenset(lower) | frozenset(upper), year_ends(filings), printed_by, rivals, capitals)


def year_ends(filings: Mapping[str, Filing]) -> dict[str, tuple[int, int]]:
    """Each company's fiscal-year end (month, day): a 10-K's period end, else a quarter's end moved on by the
    quarters left in its year."""
    out: dict[str, tuple[int, int]] = {}
    for f in sorted(filings.values(), key=lambda f: (f.form != "10-K", f.doc_id)):
        if not f.names or not f.period_end or f.names[0] in out:
            continue
        y, m, d = (int(x) for x in f.period_end.split("-"))
        if f.form == "10-K":
            out[f.names[0]] = (m, d)
        elif f.quarter and f.form in ("10-Q", "earnings release"):
            out[f.names[0]] = ((m - 1 + 3 * (4 - f.quarter)) % 12 + 1, 28 if d >= 28 else d)
    return out


@dataclass(frozen=True)
class Names:
    """The companies a question names, the names it writes that the room lacks, and the words it did not place."""

    keys: tuple[str, ...]  # company keys: by name or ticker first, then by prefix, run-together words or spelling
    unknown: tuple[str, ...] = ()  # names as written that read as companies and match none of the room
    ambiguous: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a name and the companies it could mean
    unplaced: tuple[str, ...] = ()  # capitalised words it reads as neither a company nor a word of the room
    how: tuple[tuple[str, str, str], ...] = ()  # (as written, company key, rule): how each company was found
    # a bare run opening the question, matching no company and printed nowhere ("Costco net income FY22"): a company
    # the room lacks when a figure's name follows it, which the lexicon says (`scope.read_scope`)
    leading: str = ""


def company_names(question: str, room: Room | Mapping[str, Filing]) -> Names:
    """The companies of `room` a question names, by any name above, and the absent ones it names."""
    if not isinstance(room, Room):
        room = Room(room)
    filings = room.filings
    companies: dict[str, set[str]] = {}
    symbols: dict[str, set[str]] = {}
    display: dict[str, str] = {}
    words_of: dict[str, list[list[str]]] = {}  # company key → its names' words, for prefixes and run-together names
    for f in filings.values():
        if not f.names:
            continue
        display[f.names[0]] = f.company
        for n in f.names:
            companies.setdefault(n, set()).add(f.names[0])
        for sym in f.symbols:
            symbols.setdefault(sym, set()).add(f.names[0])
        words_of.setdefault(f.names[0], []).append(normalize_name(bare_name(f.company)).split())
    found: dict[str, None] = {}
    ambiguous: dict[str, tuple[str, ...]] = {}
    how: list[tuple[str, str, str]] = []
    placed: set[str] = set()  # folded words some company's name matched

    def take(said: str, keys: set[str], rule: str) -> None:
        if len(keys) > 1:
            ambiguous[said] = tuple(sorted(display[k] for k in keys))
        for k in sorted(keys):
            if k not in found:
                how.append((said, k, rule))
            found.setdefault(k, None)

    toks = normalize_name(question).split()
    for i in range(len(toks)):
        for n in range(5, 0, -1):
            key = "".join(toks[i:i + n])
            if i + n <= len(toks) and key in companies:
                take(" ".join(toks[i:i + n]), companies[key], "name")
                placed.update(toks[i:i + n])
                break
    for word in re.findall(r"(?<![\w&])[A-Z][A-Z&]{1,4}(?![\w&])", question):
        if word in symbols:
            take(word, symbols[word], "ticker")
            placed.add(normalize_name(word).replace(" ", ""))
    unknown: list[str] = []
    maybe: list[str] = []  # capitalised runs that only may be names: found when they match, else said
    for name in _maybe_names(question, room):
        words = normalize_name(name).split()
        if any(w in placed for w in words):
            continue
        match = _match(name, companies, words_of, room)
        if match:
            take(name, {match[0]}, match[1])
            placed.update(words)
        elif not _a_term(name, room, False):
            maybe.append(name)
    for name, strong in _company_like(question):
        words = normalize_name(name).split()
        if not words or any(w in placed for w in words) or "".join(words) in companies or name in symbols:
            continue
        match = _match(name, companies, words_of, room)
        if match:
            take(name, {match[0]}, match[1])
            placed.update(words)
            continue
        if _a_term(name, room, strong):
            continue
        unknown.append(name)
    lead = _LEADING_BARE.match(question)
    words = normalize_name(lead["name"]).split() if lead else []
    leading = ""
    # bare, it may be a company only when nothing else may: no word of it a question's opening, a company's (matched
    # or named above), a term or any word the room prints ("Revenue growth …", "Capex FY23 …")
    if words and words[0] not in _COMMON_STARTS and not any(w in placed or w in room.printed and w not in room.rivals
                                                            for w in words) \
            and lead["name"] not in unknown and lead["name"] not in symbols:
        match = _match(lead["name"], companies, words_of, room)
        if match:
            take(lead["name"], {match[0]}, match[1])
            placed.update(words)
        elif not _a_term(lead["name"], room, False):
            leading = lead["name"]
    periods = {w.lower() for p in read_periods(question).periods for w in p.said.split()}
    # a word the pages print with a number after it is printed ("COVID" of "COVID-19": said missing above a page
    # printing it, a walk-through)
    unplaced = [w for w in re.findall(r"(?<![\w&])[A-Z][A-Z&]{1,6}\d?s?(?:-\d+)?(?![\w&])", question)
                if (f := normalize_name(w).replace(" ", "")) not in placed and f not in room.printed
                and f not in room.numbered and w not in symbols and w not in unknown and w.lower() not in periods
                and not re.fullmatch(r"FY|Q[1-4]|H[12]|CY", w)]
    # a run whose every word the pages print ("North America") is printed, whole or not: said missing, it contradicted
    # the seeds table under it (a walk-through)
    unplaced += [n for n in maybe if n not in unknown and not any(w in placed for w in normalize_name(n).split())
                 and not all(w in room.printed for w in normalize_name(n).split())]
    return Names(tuple(found), tuple(dict.fromkeys(unknown)), tuple(ambiguous.items()), tuple(dict.fromkeys(unplaced)),
                 tuple(how), leading)


_TITLE_RUN = re.compile(r"(?<![\w&'’.-])[A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,3}(?![\w&'’-])")
_TITLE_WORD = re.compile(r"(?<=\w\s)[A-Z][a-z]{3,}(?![\w&'’-])")


def _maybe_names(question: str, room: Room) -> list[str]:
    """Capitalised runs that may be names but stand where no company must: two or more capitalised words
    ("Amercan Express"), or one the room never prints, inside a sentence ("Salesfroce")."""
    out = [m.group(0) for m in _TITLE_RUN.finditer(question)]
    out += [m.group(0) for m in _TITLE_WORD.finditer(question) if normalize_name(m.group(0)) not in room.printed]
    return out


def _company_like(question: str) -> list[tuple[str, bool]]:
    """Runs of the question that read as a company's name, with whether the reading is strong (before "'s" or a
    corporate suffix: a company whatever else the word may be)."""
    out: list[tuple[str, bool]] = []
    periods = {p.said.lower() for p in read_periods(question).periods}

    def add(name: str, strong: bool) -> None:
        words = name.split()
        while words and words[0].lower() in _COMMON_STARTS:
            words = words[1:]  # "Did Acme", "Compare Pepsi" → the name
        if words:  # "ARM-based products": a name made an adjective is the name ("ARM"), not a company "ARM-based"
            words[-1] = re.sub(r"(?<=\w)-[a-z]+$", "", words[-1])
        name = " ".join(words)
        if name and name.lower() not in periods and not re.fullmatch(r"[\d\W]+", name):
            out.append((name, strong))
    for m in _POSSESSIVE.finditer(question):
        add(m.group("name"), True)
    for m in _SUFFIXED.finditer(question):
        add(m.group("name"), True)
    for m in _BEFORE_PERIOD.finditer(question):
        add(m.group("name"), False)
    for m in _COMPARED.finditer(question):
        add(m.group("name") or m.group("name2"), False)
    for m in _SUBJECT.finditer(question):
        add(m.group("name"), False)
    for m in _CAMEL.finditer(question):
        add(m.group(0), False)
    for m in _CAPITALS.finditer(question):
        word = m.group(0)
        if not re.fullmatch(r"[1-4][QH]|[QH][1-4]|10[KQ]|8K", word, re.IGNORECASE) and not _SECTION.search(
                question[:m.start()]):
            add(word, False)
    for m in _LEADING.finditer(question):
        add(m.group("name"), False)
    return out


def _a_term(name: str, room: Room, strong: bool) -> bool:
    """Whether a company-like run is a finance term or a word of the room rather than a company's name."""
    plain = name.replace("’", "'").rstrip("s") if name.isupper() else name
    if name.upper() in FINANCE_TERMS or plain.upper() in FINANCE_TERMS or re.search(r"\d", name) and not re.match(r"\d[A-Z]", name):
        return True  # CET1, SG&A, NOLs
    folded = [w for w in normalize_name(name).split() if w not in STOPWORDS]
    if strong:  # a run of words one filer prints often is its segment or a party ("Data Center Group", "European
        # Commission's decision"): a walk-through read them as absent companies; one word stays a company ("Microsoft's")
        return len(folded) > 1 and not any(w in room.rivals for w in folded) and any(
            all(w in words for w in folded) for words in room.printed_by.values())
    if not folded:
        return True
    if name.isupper():  # a ticker-like word in capitals: a metric when the room's pages print it
        return "".join(folded) in room.printed
    own = frozenset().union(*room.printed_by.values())  # what a filer's pages print often: its products, segments
    # "Target", "Revenue": the room's common words; "Azure", "Xbox": a filer's own, not among competitors ("Apple")
    return all(w in room.lower_words for w in folded) or all(w in own and w not in room.rivals for w in folded)


def _match(name: str, companies: Mapping[str, set[str]], words_of: Mapping[str, list[list[str]]],
           room: Room) -> tuple[str, str] | None:
    """(company key, rule) a company-like run names, by prefix, run-together words, misspelling or a name its pages
    print; None when it names none of the room."""
    folded = normalize_name(name).replace(" ", "")
    if len(folded) >= 4 and folded not in room.lower_words:
        prefixed = {k for key, keys in companies.items() if key.startswith(folded) for k in keys}
        if len(prefixed) == 1:
            return next(iter(prefixed)), "prefix"
    parts = re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])", name.replace(" ", ""))
    if len(parts) >= 2:
        lowered = [p.lower() for p in parts]
        for key, names in words_of.items():
            if any(_initial_parts(lowered, words) for words in names):
                return key, "words run together"
    # a ticker the room never prints in capitals ("MCD", "INTC"; "mcd" of an e-mail address is no metric)
    if name.isupper() and 3 <= len(folded) <= 5 and folded.isalpha() and folded not in room.capitals \
            and name not in FINANCE_TERMS:
        lettered = {k for key, keys in companies.items() if _in_order(folded, key) for k in keys}
        if len(lettered) == 1:
            return next(iter(lettered)), LETTERED
    if len(folded) >= 5:
        best = max(((fuzz.ratio(folded, key), sorted(keys)[0]) for key, keys in companies.items() if len(key) >= 5),
                   default=(0.0, ""))
        if best[0] >= 88:
            return best[1], "spelling"
    if len(_sound(folded)) >= 2:
        heard = {key for key, words in room.printed_by.items() if folded in words
                 and any(_sound("".join(n)).startswith(_sound(folded)) for n in words_of.get(key, ()))}
        if len(heard) == 1:
            return next(iter(heard)), "a nickname its pages print"
    return None


def _sound(word: str) -> str:
    """A word's consonants as they sound, roughly: "coke" and "cocacola" both start "kk"."""
    word = word.lower().replace("ph", "f").replace("ck", "k")
    return "".join("k" if c in "cq" else c for c in word if c.isalpha() and c not in "aeiouyhw")


def _in_order(letters: str, name: str) -> bool:
    """Whether a name starts with the first of `letters` and holds the rest in order: "mcd" in "mcdonalds",
    "intc" in "intelcorporation", "fdx" in "fedex"."""
    if not name.startswith(letters[0]):
        return False
    at = 1
    for c in letters[1:]:
        at = name.find(c, at) + 1
        if not at:
            return False
    return True


def _initial_parts(parts: Sequence[str], words: Sequence[str]) -> bool:
    """Whether each part begins the next word of a name, in order: ["am", "ex"] in "american express"."""
    return len(parts) <= len(words) and all(w.startswith(p) for p, w in zip(parts, words))


__all__ = ["FINANCE_TERMS", "LETTERED", "NICKNAME_USES", "Names", "Room", "company_names", "room_of", "year_ends"]
