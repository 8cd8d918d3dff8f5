"""Acquisitions read from filings: who bought what, when, for how much, and the page that says so.

A deal universe built only from generated deals would never meet a real one. The filings a data room holds already
state the deals their filers made: an 8-K's Item 2.01 ("Completion of Acquisition or Disposition of Assets") and a
10-K's or 10-Q's acquisitions note (ASC 805, "Business Combinations"; "Acquisitions and Divestitures") name each
target, the date it closed or was agreed, and what was paid. This module reads them by rule, with no model:

1. **Where.** A filing's acquisitions sections are read first: an 8-K's Item 2.01, and every note whose title names
   acquisitions, business combinations or mergers ("Note 4. Acquisitions and Divestitures", "7. Business
   Combinations", "Note 2—Acquisition of Innovel"). The rest of a 10-K, 10-Q or 8-K is read too, by stricter rules, for
   a deal no note covers (a pending deal told in Item 1, a small one told only in MD&A). Earnings releases are not
   read: they are neither an Item 2.01 nor a note.
2. **What.** A sentence whose subject is the filer ("we", "the Company", the company's name or a subsidiary named
   after it: "AES Brasil") and whose verb completes or agrees an acquisition ("completed the acquisition of",
   "acquired", "entered into a definitive agreement to acquire"), or, inside an acquisitions section, a noun phrase
   ("related to our acquisition of …"). The target is the name after the verb, past a stake ("85% of the shares of",
   "the remaining 60 percent ownership interest in") and up to where the name ends (", a …", " for ", " from ",
   "(“Slack”)"). A list ("six acquisitions — Cargigi Inc., Expertmaker, … — for …") gives one deal per name.
3. **When and how much.** The date nearest before the verb ("On July 21, 2021", "In December 2021", "During 2016"),
   as precisely as it is written; the consideration after it ("for $217 million cash consideration", "valued at
   $68.7 billion"), else in a following sentence that names the target with "consideration" or "purchase price"
   ("The total cash consideration paid for Primal Nutrition was $201 million"). A total stated for several deals
   together is no deal's consideration.
4. **Once.** Mentions of one target in one filing are one deal: the acquisitions section's mention is cited, and a
   field it lacks is taken from another mention of the same deal.

Left out on purpose: buying out the minority holders of a subsidiary already consolidated (an equity transaction,
not an acquisition), minority investments, and deals of others ("NVIDIA announced an agreement to acquire ARM").

`engine.deals.acquisition_measure` compares what is read with a list written by hand, first, from the filings themselves
(`tests/data/acquisitions.hand.jsonl`): `python -m engine.deals.acquisition_measure --measure`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..filings.identity import Filing, bare_name, read_filing, unify
from ..filings.structure import page_texts
from ..ingest.passage import Passage, page_ref
from ..text import normalize_name
from .acquisition_text import FilingText, deal_sections, filing_text, sections_of
from .acquisition_words import (AGREED, COMPLETED, COUNTED_LIST, FOLLOW_CUE, INCLUDING_LIST, NOUN_PHRASE,
                                SCALE_MILLIONS, by_filer, clean, consideration, deal_dates, list_items, split_list,
                                subject_pattern, target_key, target_names, term_target, terms_after)

SKIPPED_FORMS = frozenset({"earnings release"})  # neither an Item 2.01 nor a note: not read (module docstring)


@dataclass(frozen=True)
class Acquisition:
    """One deal a filing states, with the page that states it.

    `date` is as precise as the filing writes it: "2021-07-21", "2021-12" or "2016" ("" when unstated);
    `consideration` is the filing's words ("$217 million cash consideration"), `consideration_usd_m` the same in USD
    millions when it is a total in dollars (None for a per-share price, another currency or nothing stated);
    `status` is "completed", or "agreed" for a deal the filing reports as signed and not yet closed."""

    acquirer: str
    target: str
    date: str
    consideration: str
    consideration_usd_m: float | None
    doc: str
    page: int
    sentence: str
    status: str = "completed"


@dataclass(frozen=True)
class _Mention:
    target: str
    date: str
    consideration: str
    usd: float | None
    page: int
    sentence: str
    status: str
    section: bool
    start: int
    terms: tuple[str, ...] = ()  # the short names the sentence gives this target: (“Slack”)


def read_acquisitions(doc: str, pages: Sequence[str], filing: Filing | None = None) -> tuple[Acquisition, ...]:
    """The acquisitions one filing states, each once, citing its page (pages[0] is page 1). `filing` is the filing's
    identity (`engine.filings.identity.read_filing`, read here when not given): its company is the acquirer, and an
    earnings release is not read."""
    if filing is None:
        filing = read_filing(doc, pages)
    if filing.form in SKIPPED_FORMS or not pages:
        return ()
    t = filing_text(pages)
    millions = bool(SCALE_MILLIONS.search(t.text))
    sections = sections_of(t)
    in_section = [(a, b) for a, b, _ in sections]
    subject = subject_pattern(filing)
    mentions: list[_Mention] = []
    seen: set[tuple[int, str]] = set()

    def add(start: int, end: int, anchor: int, name: str, status: str, at: int, group: bool = False,
            date: str = "", price: tuple[str, float | None] | None = None) -> None:
        """A mention of `name` in the sentence [start, end) whose verb is at `anchor`; its words start at `at`. A deal
        of a group (a list, several places) takes no price from the sentence: that is the group's."""
        if (start, target_key(name)) in seen or not target_key(name):
            return
        seen.add((start, target_key(name)))
        original = t.flat[start:end]
        section = any(a <= anchor < b for a, b in in_section)
        after = clean(t.flat[at:end])
        if not date:
            dates = deal_dates(clean(t.flat[start:anchor]))
            later = [d for o, d in deal_dates(after) if re.search(r"\b(?:on|in)\s*$", after[max(0, o - 4):o])]
            date = dates[-1][1] if dates else later[0] if later else _previous_date(t, start) if section else ""
        terms = terms_after(original, name)
        if price is None and not group:
            price = consideration(after, millions)
            if not price or price[1] is None:
                price = _follow_consideration(t, end, name, terms, millions) or price
        stated, usd = price or ("", None)
        mentions.append(_Mention(name, date, stated, usd, t.page(anchor), " ".join(original.split()), status, section,
                                 start, terms))

    def add_items(start: int, end: int, m: re.Match, status: str) -> None:
        """The deals of a list after "acquisitions of": each item's own date and price ("the East Pasadena Water
        Company in California on September 23, 2021 for $34 million"), else dates given "respectively"."""
        items = list_items(clean(t.flat[m.end():end]))
        dates = [d for _, d in deal_dates(clean(t.flat[start:m.start()]))]
        respective = dates if "respectively" in t.flat[m.end():end] and len(dates) == len(items) else [""] * len(items)
        for (name, item_text), given in zip(items, respective):
            at = m.end() + max(0, t.flat[m.end():end].find(item_text.split()[0])) if item_text else m.end()
            own_date = next((d for _, d in deal_dates(item_text)), "") if item_text else ""
            add(start, end, m.start(), name, status, at, group=True, date=own_date or given,
                price=consideration(item_text, millions) if item_text else None)

    for pattern, status in ((COMPLETED, "completed"), (AGREED, "agreed")):
        for m in pattern.finditer(t.flat):
            start, end = t.sentence(m.start())
            if not by_filer(clean(t.flat[start:m.start()]), subject):
                continue
            rest = clean(t.flat[m.end():end])
            plural = bool(m.groupdict().get("plural") and m.group("plural").lower() == "acquisitions") or \
                bool(m.groupdict().get("paid") and m.group("paid").lower() == "acquisitions")
            section = any(a <= m.start() < b for a, b in in_section)
            if plural:
                add_items(start, end, m, status)
                continue
            got = target_names(rest, section) or term_target(t.flat[m.end():min(end, m.end() + 160)], rest)
            if not got or not got[1] or re.search(r"previously\s+consolidated", t.flat[start:end], re.IGNORECASE):
                continue
            for name in got[0]:
                if not _own(name, filing):
                    at = m.end() + max(0, t.flat[m.end():end].find(name.split()[0]))
                    add(start, end, m.start(), name, status, at, group=len(got[0]) > 1)
    for a, b in in_section:  # inside acquisitions sections: lists and noun phrases
        for m in COUNTED_LIST.finditer(t.flat, a, b):
            start, end = t.sentence(m.start())
            for name in split_list(clean(m.group("list"))):
                add(start, end, m.start(), name, "completed", m.end(), group=True)
        for m in INCLUDING_LIST.finditer(t.flat, a, b):
            start, end = t.sentence(m.start())
            for name in split_list(clean(t.flat[m.end():end])):
                add(start, end, m.start(), name, "completed", m.end(), group=True)
        for m in NOUN_PHRASE.finditer(t.flat, a, b):
            start, end = t.sentence(m.start())
            rest = clean(t.flat[m.end():end])
            if m.group("plural").lower() == "acquisitions":
                add_items(start, end, m, "completed")
                continue
            got = target_names(rest, True)
            for name in (got[0] if got and got[1] else []):
                if not _own(name, filing):
                    add(start, end, m.start(), name, "completed", m.end(), group=len(got[0]) > 1)
    return _merge(doc, filing, mentions)


def _previous_date(t: FilingText, start: int) -> str:
    """The date of the sentence or two before, when a deal's own sentence has none: "In December 2021, AES … entered
    into an agreement with AIMCo. … As part of this transaction, AES acquired …". Not from another page."""
    at = start
    for _ in range(2):
        if at <= 0:
            break
        s, e = t.sentence(at - 1)
        if t.page(s) != t.page(start):
            break
        dates = deal_dates(clean(t.flat[s:e]))
        if dates:
            return dates[-1][1]
        at = s
    return ""


def _own(name: str, filing: Filing | None) -> bool:
    """Whether a "target" is the filer itself or a subsidiary named after it ("AES Brasil"): buying out its minority
    holders is not an acquisition."""
    if not filing or not filing.company:
        return False
    key, company = target_key(name), normalize_name(bare_name(filing.company))
    return bool(company) and (key == company or key.startswith(company + " "))


def _follow_consideration(t: FilingText, end: int, name: str, terms: Sequence[str], millions: bool
                          ) -> tuple[str, float | None] | None:
    """The price stated in one of the next six sentences that name the target (or its defined term) with
    "consideration" or "purchase price": "The total cash consideration paid for Primal Nutrition was $201 million"."""
    names = [n for n in [name, *terms] if len(n) >= 3]
    keys = [target_key(n) for n in names]
    at = end
    for _ in range(6):
        if at >= len(t.flat):
            break
        s, e = t.sentence(at)
        sentence = clean(t.flat[s:e])
        at = e
        if not FOLLOW_CUE.search(sentence):
            continue
        folded = normalize_name(sentence)
        if not any(k and re.search(r"\b" + re.escape(k) + r"\b", folded) for k in keys):
            continue
        cue = FOLLOW_CUE.search(sentence)
        found = consideration(sentence[cue.start():], millions) or consideration(sentence, millions)
        if found and found[1] is not None:
            return found
    return None


def _merge(doc: str, filing: Filing, mentions: list[_Mention]) -> tuple[Acquisition, ...]:
    """One deal per target: a mention joins a deal when one of its names (the target, or a short name its sentence
    defines: "(“CHI”)") is one of the deal's, holds one whole or starts with the same two words, and its date agrees
    with every date the deal has (so "Great Cove I" in January and "Great Cove II" in May stay two). The acquisitions
    section's mention is cited, a completed one over an agreed one, and a field it lacks comes from the others."""
    groups: list[list[_Mention]] = []
    for m in mentions:
        keys = _names(m)
        for g in groups:
            dates = [x.date for x in g if x.date and x.status == m.status]
            agree = all(d.startswith(m.date) or m.date.startswith(d) for d in dates) if m.date else True
            if not agree:
                continue
            proper = bool(m.date and dates) and all(re.match(r"[A-Z]", x.target) for x in (*g, m))
            if any(_same_name(a, b, proper) for x in g for a in _names(x) for b in keys):
                g.append(m)
                break
        else:
            groups.append([m])
    out = []
    for g in groups:
        ranked = sorted(g, key=lambda x: (not x.section, x.status != "completed", -(bool(x.date) + (x.usd is not None)),
                                          -x.page))
        lead = ranked[0]
        completed = [x for x in ranked if x.status == "completed"]
        date = lead.date or next((x.date for x in (completed or ranked) if x.date), "")
        priced = next((x for x in ranked if x.usd is not None), None)
        stated = lead.consideration if lead.usd is not None or not priced else priced.consideration
        stated = stated or next((x.consideration for x in ranked if x.consideration), "")
        usd = lead.usd if lead.usd is not None else (priced.usd if priced else None)
        out.append(Acquisition(filing.company or doc, lead.target, date, stated, usd, doc, lead.page, lead.sentence,
                               "completed" if completed else "agreed"))
    return tuple(sorted(out, key=lambda a: (a.page, a.target)))


def _names(m: _Mention) -> list[str]:
    return [k for k in [target_key(m.target), *(target_key(n) for n in m.terms)] if k]


def _same_name(a: str, b: str, dated: bool) -> bool:
    """Whether two keys name one target: equal, one held whole in the other, or (when both mentions are proper names,
    dated, and agree) the same first two words ("Hardy Hills Solar Energy LLC", "Hardy Hills solar project"; not
    "bottling operations in Zambia" and "… in Kenya")."""
    if a == b or re.search(r"\b" + re.escape(a) + r"\b", b) or re.search(r"\b" + re.escape(b) + r"\b", a):
        return True
    wa, wb = a.split(), b.split()
    return dated and len(wa) >= 2 and len(wb) >= 2 and wa[:2] == wb[:2]


def corpus_acquisitions(passages: Sequence[Passage]) -> tuple[Acquisition, ...]:
    """The acquisitions every paged document among `passages` states (a corpus's passages, in corpus order): each
    filing's pages and identity as the filing graph reads them (`engine.filings.structure`)."""
    by_doc: dict[str, list[int]] = {}
    for i, p in enumerate(passages):
        if page_ref(p) is not None:
            by_doc.setdefault(p.doc_id, []).append(i)
    pages = {doc: page_texts(passages, rows) for doc, rows in by_doc.items()}
    filings = unify({doc: read_filing(doc, texts) for doc, texts in pages.items()})
    return tuple(a for doc in by_doc for a in read_acquisitions(doc, pages[doc], filings[doc]))


def folder_acquisitions(folder: Path | str) -> tuple[Acquisition, ...]:
    """The acquisitions the filings of a folder state, read as the corpus loader reads them (each PDF in a worker
    process, within its limits; a damaged file is left out, as a corpus leaves it out)."""
    from ..ingest.corpus import load_folder

    return corpus_acquisitions(load_folder(Path(folder)).passages)


__all__ = ["Acquisition", "SKIPPED_FORMS", "corpus_acquisitions", "deal_sections", "folder_acquisitions",
           "read_acquisitions"]

