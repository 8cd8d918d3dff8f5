"""Questions a room of filings can answer, offered to someone who has just uploaded it and has no labeled
questions: built from what its structure holds, so each one has an answer in the room.

Three kinds, as an analyst would start: a company's revenue for a period it has a filing for, the figure a
statement a filing has is read for (total assets from a balance sheet, cash from operations from a statement of cash
flows), and a note (or, in a filing without notes, an Item) it has. Each names the company and period the way the
scope reads them, so the question scopes to the filing it was made from. A file that was read only in part (a page
left out, damaged) is offered from only when every file was.
"""

from __future__ import annotations

import calendar
import re

from .identity import Filing
from .structure import STATEMENTS, FilingStructure


# what an analyst reads each statement for, asked of a company in a period (the income statement asks revenue)
ASKED_OF = {
    "balance sheet": "What were {co} total assets at the end of {period}",
    "cash flows": "How much cash did {co} operations provide in {period}",
    "equity": "How much did {co} pay in dividends in {period}",
    "comprehensive income": "What was {co} comprehensive income in {period}",
}


# an Item that lists exhibits or signatures answers no analyst's question ("Item 9.01. Financial Statements and Exhibits")
_LISTS = re.compile(r"\bexhibits?\b|\bsignatures?\b", re.IGNORECASE)
_ITEM_STOP = re.compile(r"^(Item \d+[A-Z]?(?:\.\d+)?)\.\s+")  # "Item 8.01. Other Events" → "Item 8.01 — Other Events"


def _possessive(name: str) -> str:
    """"Apple's", "General Mills'" (a name ending in s takes the apostrophe alone)."""
    if name.endswith(("'s", "’s", "'", "’")):
        return name
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _period(f: Filing) -> str:
    """"Q2 FY2023", "FY2022"; an 8-K by the month of its report ("May 2023"): it reports an event, not a period."""
    if f.form == "8-K" and re.fullmatch(r"\d{4}-\d{2}-\d{2}", f.period_end or ""):
        return f"{calendar.month_name[int(f.period_end[5:7])]} {f.period_end[:4]}"
    if f.quarter and f.fiscal_year:
        return f"Q{f.quarter} FY{f.fiscal_year}"
    return f"FY{f.fiscal_year}" if f.fiscal_year else ""


def _where(f: Filing) -> str:
    """"Apple's FY2022 10-K", "Intel's Q4 FY2022 earnings release"."""
    return " ".join(x for x in (_possessive(f.company), _period(f), f.form or "filing") if x)


def _pick(filings: list[Filing], fits, companies: set[str], forms: set[str], kinds=lambda f: 0) -> Filing | None:
    """The newest filing that `fits`, of a company and then a form no earlier offer used, where the room has one;
    among those, one that fits fewest `kinds` of offer (a release, which has no notes, takes the revenue question
    and leaves the note to a 10-Q of another company)."""
    fitting = [f for f in filings if fits(f)]
    return min(fitting, key=lambda f: (f.company in companies, f.form in forms, kinds(f)), default=None)


def offered_questions(structure: FilingStructure, limit: int = 3, damaged: frozenset[str] = frozenset()
                      ) -> tuple[str, ...]:
    """Up to `limit` questions, one of each kind where the room has it, newest filing first, spread over the room's
    companies and forms: each offer takes a company, and then a form, that no earlier one took. `damaged`: files
    read only in part, left to the last (only a room of nothing else is offered from them)."""
    whole = [f for f in structure.filings.values() if f.doc_id not in damaged]
    filings = sorted(whole or structure.filings.values(),
                     key=lambda f: (-(f.fiscal_year or 0), -(f.quarter or 0), f.doc_id))
    by_doc: dict[str, dict[str, list]] = {}
    for node in structure.nodes:
        by_doc.setdefault(node.doc_id, {}).setdefault(node.kind, []).append(node)
    out: list[str] = []
    companies: set[str] = set()
    forms: set[str] = set()

    def took(f: Filing) -> None:
        companies.add(f.company)
        forms.add(f.form)

    def statements(f: Filing) -> list:
        return [n for n in by_doc.get(f.doc_id, {}).get("statement", []) if n.ref != "income"]

    def sections(f: Filing) -> list:
        found = by_doc.get(f.doc_id, {}).get("note", []) or by_doc.get(f.doc_id, {}).get("item", [])
        return [n for n in found if (" — " in n.label or ". " in n.label) and not _LISTS.search(n.label)]

    def kinds(f: Filing) -> int:  # how many kinds of offer a filing could take
        return bool(statements(f)) + bool(sections(f))

    # revenue, from a filing with an income statement, or a release (which reports revenue without one)
    f = _pick(filings, lambda f: f.company and (f.form == "earnings release" or any(
        n.ref == "income" for n in by_doc.get(f.doc_id, {}).get("statement", []))), companies, forms, kinds)
    f = f or next((f for f in filings if f.company), None)
    if f is not None:
        out.append(f"What was {_possessive(f.company)} revenue in {_period(f) or 'its latest period'}?")
        took(f)
    # a statement the room has, other than the income statement
    f = _pick(filings, statements, companies, forms, lambda f: bool(sections(f)))
    if f is not None:
        ref = statements(f)[0].ref
        if ref in ASKED_OF and f.company:
            asked = ASKED_OF[ref].format(co=_possessive(f.company), period=_period(f) or "its latest period")
            out.append(f"{asked}, according to its {f.form or 'filing'}?")
        else:
            out.append(f"What does the {STATEMENTS[ref][0].lower()} in {_where(f)} show?")
        took(f)
    # a note, or an Item where a filing has no notes: one from the middle, since the first notes are accounting policies
    f = _pick(filings, sections, companies, forms)
    if f is not None:
        titled = sections(f)
        title = _ITEM_STOP.sub(r"\1 — ", titled[len(titled) // 2].label)
        out.append(f"What does {title} in {_where(f)} say?")
    return tuple(dict.fromkeys(out))[:limit]


__all__ = ["offered_questions"]
