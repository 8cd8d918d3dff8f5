"""Who a filing is from, by every name it goes by, and which form and fiscal period it is: read off the
document's own first pages, with the file name last.

Sources, in order of trust:
1. the cover's registrant names (the line before "(Exact name of registrant as specified in its charter)",
   or the rows of a cover table that lists several registrants by their file numbers);
2. the trading-symbols table of the cover ("Common Stock … AAPL The Nasdaq Stock Market LLC");
3. former names ("(Former name … if changed since last report)", "NAME (formerly OLD)");
4. an earnings release's own words: "eBay Inc. (Nasdaq: EBAY) today reported …", a letterhead, a headline
   "Intel Reports First-Quarter 2023 Financial Results";
5. the file name, last, and only for what the document does not say.

Analysts write company names many ways: a ticker ("KO"), initials ("PG&E", "AMD"), the distinctive first word
of a longer name ("Lockheed"), a name without its corporate suffix ("Kraft Heinz"), an older name
("salesforce.com"). `name_keys` derives those forms by rule from the names read; `unify` makes one company of
filings that share a key or an SEC file number, so a company renamed between two filings is one company.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from ..text import normalize_name
from .periods import QUARTER_IN_NAME, YEAR_IN_NAME, cover_page, filing_period

_REGISTRANT = re.compile(r"^\(?\s*exact name of (?:the )?registrants?\b", re.IGNORECASE)
_SUFFIX = re.compile(r"[,.]?\s+(?:inc|incorporated|corp|corporation|co|company|plc|ltd|llc|l\.?p|n\.?v|s\.?a"
                     r"|limited partnership|holdings)\b\.?$", re.IGNORECASE)
_NAMED_SUFFIX = re.compile(r"\b(?:inc|incorporated|corp|corporation|company|plc|ltd|llc|l\.p|limited partnership)\b\.?\s*$",
                           re.IGNORECASE)
_FILE_NUMBER = re.compile(r"\b(?:commission )?file (?:number|no)\.?:?\s*(\d{1,3}-\d{3,6})", re.IGNORECASE)
_TABLE_REGISTRANT = re.compile(r"^(\d{1,3}-\d{3,6})\s+(.+?\b(?i:inc\.?|corporation|corp\.?|company|plc|ltd\.?|l\.p\.|"
                               r"limited partnership))\s+(?:[A-Z][a-z]+(?: [A-Z][a-z]+)?|[A-Z]{2,})\s+\d{2}-\d{7}\s*$")
_TICKER_ROW = re.compile(r"(?<![\w.\-])([A-Z]{1,5}(?:\.[A-Z])?)\s+(?:The\s+)?(?:New York Stock Exchange|NYSE|Nasdaq|NASDAQ)\b")
_NAME_WORDS = r"(?:[A-Z]|[a-z]{1,3}[A-Z])[\w.&'’\-]*(?:,?\s+(?:[A-Z&][\w.&'’\-]*|and|of))*?"
_RELEASE_TICKER = re.compile(r"(" + _NAME_WORDS + r")\s*(?:\([^()]{0,60}\)\s*)?"
                             r"[(\[]\s*(?:NYSE|Nasdaq|NASDAQ)\s*:\s*([A-Z]{1,5})\s*[)\]]")
_TODAY = re.compile(r"(" + _NAME_WORDS + r")\s+today\s+(?:announced|reported)\b")
_HEADLINE = re.compile(r"^\s*(" + _NAME_WORDS + r")\s+(?:Reports|Announces|Reported|Delivers)\b", re.MULTILINE)
_FORMER = re.compile(r"^(.{2,80}?)\s*\(former name", re.IGNORECASE | re.MULTILINE)
_FORMERLY = re.compile(r"\(formerly(?: known as)? ([A-Z][^()]{1,60})\)")
_RENAMED = re.compile(r'(?:the )?legal name of (?:our|the) (?:corporation|company) became [“"](?P<new>[^”"]{2,60})[”"],?\s+'
                      r'changing from [“"](?P<old>[^”"]{2,60})[”"]'
                      r'|(?P<old2>[A-Z][\w.&\'’]*(?: [A-Z][\w.&\'’]*){0,4})[”"]?\)?\s+was renamed\s+'
                      r'(?P<new2>(?:The )?[A-Z][\w.&\'’]*(?: [A-Z][\w.&\'’]*){0,4})')
_LISTED_UNDER = re.compile(r"under the (?:ticker |trading )?symbols? [“\"']?([A-Z]{1,5})\b")
# first words that name no company on their own
_COMMON_FIRST_WORDS = frozenset({"american", "united", "general", "national", "first", "international", "global",
                                 "western", "eastern", "northern", "southern", "pacific", "atlantic", "royal", "the",
                                 "new", "bank", "advanced", "applied", "digital", "capital", "financial",
                                 "energy", "public", "federal", "central", "standard", "consolidated"})
_FILE_NUMBER_PREFIX = re.compile(r"^.*?\bfile (?:number|no)\.?:?\s*[\d-]+\.?\s*", re.IGNORECASE)
_NOT_A_NAME = re.compile(r"commission|file\s*number|^number$|securities|exchange|washington|united states|form\s|report|^\(|^\d+(?:[\s.,\-)]|$)|check|"
                         r"quarterly|annual|transition|☐|☒|registrant|state or|i\.r\.s|employer|address",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Filing:
    """Who filed a document, which form, and for which period."""

    doc_id: str
    company: str  # as a reader names it: "Nike", "Lockheed Martin"
    names: tuple[str, ...]  # folded, space-free keys a question may use; names[0] keys the company
    symbols: tuple[str, ...] = ()  # tickers and initials, matched only in capitals: "NKE", "AMD" (not "cost")
    form: str = ""  # "10-K", "10-Q", "8-K", "earnings release", … or "" when the document does not say
    fiscal_year: int | None = None
    quarter: int | None = None
    source: str = ""  # where the company's name was read: "cover", "release" or "file name"
    file_number: str = ""  # the SEC file number, which a rename keeps
    period_end: str = ""  # the last day of the period it reports, ISO ("2023-04-30"); an 8-K's report date
    read_from: tuple[tuple[str, int, str], ...] = ()  # (field, page, rule): which page and rule gave each field

    @property
    def label(self) -> str:
        """"Nike FY2019 10-K", "Costco Q3 FY2023 earnings release": what tells a company's filings apart."""
        period = f"FY{self.fiscal_year}" if self.fiscal_year else ""
        if self.quarter and self.fiscal_year:
            period = f"Q{self.quarter} FY{self.fiscal_year}"
        return " ".join(x for x in (self.company or self.doc_id.rsplit("/", 1)[-1], period, self.form) if x)


def bare_name(name: str) -> str:
    """A name without "The", corporate suffixes, ".com" and stray underscores ("The Kraft Heinz Company" →
    "Kraft Heinz", "salesforce.com, inc." → "salesforce")."""
    base = " ".join(name.replace("_", " ").split()).strip(" ,.;:")
    while True:
        shorter = _SUFFIX.sub("", base).strip(" ,.;:")
        shorter = re.sub(r"\.com$", "", shorter, flags=re.IGNORECASE)
        if shorter == base or not shorter or shorter.endswith("&"):  # "& Co." is part of "JPMorgan Chase & Co."
            break
        base = shorter
    base = re.sub(r"^the\s+", "", base, flags=re.IGNORECASE)
    return base + "." if re.search(r"&\s*Co$", base) else base


def display_name(name: str) -> str:
    """"Kraft Heinz", "PG&E", "McDonald's": the bare name, its words capitalised when the document shouted it
    ("McDONALD’S", "COCA COLA", "NIKE"); shouted words of three letters or fewer (AES, PG&E) are initials and stay."""
    base = bare_name(name)
    letters = [c for c in base if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) > 0.7 * len(letters):
        words = []
        for w in base.split():
            if len(w) <= 3 or "&" in w:
                words.append(w)
            else:
                m = re.match(r"(Mc|Mac)([A-Z].*)", w)
                words.append(m.group(1) + m.group(2).capitalize() if m else w.capitalize())
        base = " ".join(words)
    return base


def name_keys(name: str) -> tuple[list[str], list[str]]:
    """(keys, symbols) of one name, by rule: the bare name folded and without spaces ("lockheedmartin"); its
    distinctive first word when the name is longer ("lockheed"); with "&" the letters run together and
    written with "n" ("pge", "pnge" for PG&E; "pg", "png" for Procter & Gamble's "P&G"); and, for a
    name of three or more words, its initials as a symbol ("AMD"), which a question must write in capitals."""
    base = bare_name(name)
    words = normalize_name(re.sub(r"['’]", "", base)).split()  # "McDonald's" → "mcdonalds", as files spell it
    if not words:
        return [], []
    keys = ["".join(words), normalize_name(base).replace(" ", "")]  # and "mcdonald", as questions fold it
    firm = re.sub(r"\s*&\s*(?:co|company)\.?$", "", base, flags=re.IGNORECASE)
    if firm != base:  # "JPMorgan Chase & Co." is asked about as "JPMorgan Chase"
        keys.append(normalize_name(re.sub(r"['’]", "", firm)).replace(" ", ""))
        base = firm
    if len(words) > 1 and len(words[0]) >= 5 and words[0] not in _COMMON_FIRST_WORDS:
        keys.append(words[0])
    elif len(words) > 2:
        keys.append(words[0] + words[1])  # "American Water" for American Water Works
    sides = [normalize_name(p).replace(" ", "") for p in base.split("&")] if "&" in base else []
    if sides and all(sides):
        keys += ["".join(sides), "n".join(sides)]  # "pge", "pnge"
        if len(sides) == 2 and all(len(s) > 3 for s in sides):  # two words: their initials too, "pg" and "png"
            keys += ["".join(s[0] for s in sides), "n".join(s[0] for s in sides)]
    symbols = []
    significant = [w for w in base.split() if w.lower() not in ("and", "of", "the", "&")]  # "Wal-Mart" is one word
    if len(significant) >= 3:
        symbols.append("".join(w[0] for w in significant if w[0].isalpha()).upper())
    if len(sides) == 2 and all(len(s) > 3 for s in sides):
        symbols.append("&".join(s[0] for s in sides).upper())  # "P&G"
    return list(dict.fromkeys(keys)), symbols


def _lines(text: str) -> list[str]:
    return [" ".join(line.replace("_", " ").split()) for line in text.split("\n")]


def cover_registrants(cover: str) -> list[str]:
    """The registrants a cover names, in its order."""
    lines = _lines(cover)
    names: list[str] = []
    for line in lines:  # a cover table of several registrants: "1-12609 PG&E CORPORATION California 94-3234914"
        m = _TABLE_REGISTRANT.match(line)
        if m and _NAMED_SUFFIX.search(m.group(2)):
            names.append(m.group(2))
    for i, line in enumerate(lines):
        if names:
            break
        inline = re.search(r"\(\s*exact name of (?:the )?registrants?\b", line, re.IGNORECASE)
        if inline and inline.start() > 0:  # "ADVANCED MICRO DEVICES, INC. (Exact name of registrant …)" on one line
            name = _FILE_NUMBER_PREFIX.sub("", line[:inline.start()]).strip(" ,")
            if name and not _NOT_A_NAME.search(name) and len(name) <= 80:
                names.append(name)
                break
        if _REGISTRANT.match(line):
            # the line just before names the registrant; lines above it, only when they end in a corporate
            # suffix (a cover of two registrants: "BOSTON PROPERTIES, INC." / "… LIMITED PARTNERSHIP")
            before = []
            for prior in reversed(lines[max(0, i - 4):i]):
                prior = _FILE_NUMBER_PREFIX.sub("", prior)
                if not prior:
                    continue
                if _NOT_A_NAME.search(prior) or len(prior) > 80 or re.search(r"\d{3,}|\d[-–]\d|\d{2}\b", prior) \
                        or (before and not _NAMED_SUFFIX.search(prior)):
                    break
                before.insert(0, prior)
            names += before
            break
    if not names:  # covers without the "(Exact name …)" line: the first line that ends in a corporate suffix
        for line in lines[:45]:
            if 2 < len(line) <= 80 and _NAMED_SUFFIX.search(line) and not _NOT_A_NAME.search(line):
                names.append(line)
                break
    return list(dict.fromkeys(n.strip(" ,") for n in names if n.strip(" ,")))


def release_company(text: str) -> tuple[str, str]:
    """(name, ticker) from an earnings release's own words ("eBay Inc. (Nasdaq: EBAY) today reported",
    "McDonald's Corporation today announced", a headline "Intel Reports …"), or ("", "")."""
    m = _RELEASE_TICKER.search(text)
    if m:
        return m.group(1).strip(" ,"), m.group(2)
    for pattern in (_TODAY, _HEADLINE):
        m = pattern.search(text)
        if m:
            return m.group(1).strip(" ,"), ""
    return "", ""


def frequent_company(text: str, file_key: str) -> str:
    """A cover with its name in a logo names the registrant nowhere in its text: the name with a corporate
    suffix the first pages use most, if its key is the file name's ("The Coca-Cola Company", COCACOLA_…)."""
    counts: dict[str, int] = {}
    for m in re.finditer(r"(?:The\s+)?(?:[A-Z][\w'’\-]*\s+){0,3}?[A-Z][\w'’\-]*,?\s+(?:Company|Corporation|Inc\.)", text):
        counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    for name, _ in sorted(counts.items(), key=lambda kv: -kv[1]):
        if normalize_name(bare_name(name)).replace(" ", "") == file_key:
            return name
    return ""


def former_names(cover: str, opening: str, current: Sequence[str]) -> list[str]:
    """Names the company had: the cover's "(Former name …)" line, "NAME (formerly OLD)", and, in the opening
    pages, a rename of the registrant ("… changing from “Wal-Mart Stores, Inc.”", "Heinz was renamed The Kraft
    Heinz Company")."""
    names = []
    for m in _FORMER.finditer(cover):
        name = m.group(1).strip(" ,()")
        if name and not re.fullmatch(r"n/?a|not applicable|none", name, re.IGNORECASE) and not _NOT_A_NAME.search(name):
            names.append(name)
    names += [m.group(1).strip() for m in _FORMERLY.finditer(cover[:4000])]
    ours = {normalize_name(bare_name(n)) for n in current}
    for m in _RENAMED.finditer(opening):
        old, new = (m.group("old"), m.group("new")) if m.group("old") else (m.group("old2"), m.group("new2"))
        if new and normalize_name(bare_name(new)) in ours:
            names.append(old.strip(" ,"))
    return names



def read_filing(doc_id: str, pages: Sequence[str]) -> Filing:
    """A filing's identity from its first pages' text (a cover is two pages, found among the first eight; the
    quarter of a 10-Q is read from its statements, some 40 pages in) and its file name."""
    first = cover_page(pages)
    cover = "\n".join(pages[first:first + 2])
    body = "\n".join(pages[:40])
    listing = "\n".join(pages[:120])  # "listed … under the symbol “BXP”", in Item 5
    stem = re.sub(r"\.[A-Za-z0-9]+$", "", doc_id.rsplit("/", 1)[-1])
    file_words = [w for w in re.split(r"[_\-\s]+", stem) if w and not re.search(r"\d", w)]
    file_company = file_words[0] if file_words else stem
    file_key = normalize_name(file_company).replace(" ", "")
    period = filing_period(pages, first, stem)
    form, year, quarter, read_from = period.form, period.fiscal_year, period.quarter, list(period.read_from)
    if year is None:  # what the document does not say, the file name may
        y = YEAR_IN_NAME.search(stem)
        year = int(y.group(1)) if y else None
        read_from += [("fiscal_year", 0, "file name")] if y else []
    if quarter is None and form in ("10-Q", "earnings release"):
        q = QUARTER_IN_NAME.search(stem)
        quarter = int(q.group(1)) if q else None
        read_from += [("quarter", 0, "file name")] if q else []
    registrants = cover_registrants(pages[first] if pages else "")
    released, release_ticker = ("", "")
    if not registrants and form in ("", "earnings release"):
        released, release_ticker = release_company(cover)
    if not registrants and not released:
        released = frequent_company(body, file_key)
    own = released or (registrants[0] if registrants and form == "earnings release" else "")
    if own and not release_ticker:  # a release's ticker may stand in its "About Intel" paragraph, at its end
        ours = normalize_name(bare_name(own)).split()  # "About Intel\nIntel (Nasdaq: INTC)" ends in Intel's name
        release_ticker = next((m.group(2) for m in _RELEASE_TICKER.finditer("\n".join(pages[first:first + 20]))
                               if ours and normalize_name(m.group(1)).split()[-len(ours):] == ours), "")
    symbols = ([release_ticker] if release_ticker else []) + _TICKER_ROW.findall(cover)
    opening = "\n".join(pages[:10])
    if registrants:
        names, source = registrants + former_names(cover, opening, registrants), "cover"
    elif released:
        names = [released] + former_names(cover, opening, [released])
        source = "release" if form in ("", "earnings release") else "cover"
    else:
        names, source = [file_company], "file name"
    # a file name names a company when it names a filing (COMPANY_2022_10K.pdf); "damaged.pdf" names none: unread
    unread = source == "file name" and not YEAR_IN_NAME.search(stem)
    read_from.append(("company", 0 if source == "file name" else first + 1,
                      "not read: no cover or release says it, and the file name names no filing" if unread else source))
    keys: list[str] = []
    for n in names:
        k, s = name_keys(n)
        keys += k
        symbols += s
    if len(file_key) >= 4:
        keys.append(file_key)  # data rooms name files by company
    for m in _LISTED_UNDER.finditer(listing):  # "Our common stock is traded … under the symbol “ORCL”" (Item 5)
        window = listing[max(0, m.start() - 240):m.start()].replace("\n", " ")
        sentence = re.split(r"(?<!Inc)(?<!Corp)(?<!Co)(?<!Ltd)\.\s+(?=[A-Z(])", window)[-1]
        folded = normalize_name(re.sub(r"['’]", "", sentence)).replace(" ", "")
        if "common stock" in sentence.lower() and (re.search(r"\b(?:our|its)\b", sentence, re.IGNORECASE)
                                                    or any(len(k) >= 4 and k in folded for k in keys)):
            symbols.append(m.group(1))
    number = _FILE_NUMBER.search(pages[first] if pages else "")
    end = "%04d-%02d-%02d" % period.end if period.end else ""
    return Filing(doc_id, "" if unread else display_name(names[0]), tuple(dict.fromkeys(k for k in keys if k)),
                  tuple(dict.fromkeys(symbols)), form, year, quarter, source, number.group(1) if number else "",
                  end, tuple(read_from))


def identity_row(f: Filing) -> dict:
    """A filing's identity as a plain dict (the CLI's `filings` and the Corpus page): who, by which names, which
    form and period, and which page and rule gave each field (page 0: the file name, or a default)."""
    return {"doc": f.doc_id, "label": f.label, "company": f.company, "names": list(f.names), "symbols": list(f.symbols),
            "form": f.form, "fiscal_year": f.fiscal_year, "quarter": f.quarter, "period_end": f.period_end,
            "file_number": f.file_number,
            "read_from": [{"field": field, "page": page, "rule": rule} for field, page, rule in f.read_from]}


def read_from_words(row: dict) -> str:
    """"form: p.1 cover: FORM 10-K; fiscal_year: p.1 …": where each field of an identity row was read."""
    return "; ".join(f"{x['field']}: {'p.' + str(x['page']) if x['page'] else 'no page'}, {x['rule']}"
                     for x in row["read_from"])


def unify(filings: Mapping[str, Filing]) -> dict[str, Filing]:
    """Filings of one company made one company: those that share an SEC file number or their first key
    (a rename keeps the file number: "salesforce.com, inc." and "Salesforce, Inc." are 001-32224). Each
    takes the group's keys and symbols, and the name of its newest filing."""
    parent = {d: d for d in filings}

    def root(d: str) -> str:
        while parent[d] != d:
            parent[d] = parent[parent[d]]
            d = parent[d]
        return d
    by_key: dict[str, str] = {}
    for d, f in filings.items():
        for key in ([f"#{f.file_number}"] if f.file_number else []) + list(f.names[:1]):
            if key in by_key:
                parent[root(d)] = root(by_key[key])
            else:
                by_key[key] = d
    groups: dict[str, list[str]] = {}
    for d in filings:
        groups.setdefault(root(d), []).append(d)
    out = {}
    for docs in groups.values():
        newest = max(docs, key=lambda d: (filings[d].fiscal_year or 0, filings[d].source == "cover", d))
        lead = filings[newest]
        keys = list(dict.fromkeys(k for d in [newest] + docs for k in filings[d].names))
        symbols = tuple(dict.fromkeys(s for d in docs for s in filings[d].symbols))
        for d in docs:
            out[d] = replace(filings[d], company=lead.company, names=tuple(keys), symbols=symbols)
    return {d: out[d] for d in filings}


__all__ = ["Filing", "identity_row", "read_from_words", "bare_name", "display_name", "name_keys", "read_filing", "unify", "cover_registrants",
           "release_company", "former_names"]
