"""Questions a room of filings can answer, offered to someone who has just uploaded it and has no labeled
questions: built from what its structure holds, so each one has an answer in the room.

Three kinds, as an analyst would start: a company's revenue for a period it has a filing for, a statement a
filing has, and a note (or, in a filing without notes, an Item) it has. Each names the company and period the
way the scope reads them, so the question scopes to the filing it was made from.
"""

from __future__ import annotations

from .identity import Filing
from .structure import STATEMENTS, FilingStructure


def _possessive(name: str) -> str:
    return name if name.endswith(("'s", "’s")) else f"{name}'s"


def _period(f: Filing) -> str:
    if f.quarter and f.fiscal_year:
        return f"Q{f.quarter} FY{f.fiscal_year}"
    return f"FY{f.fiscal_year}" if f.fiscal_year else ""


def _where(f: Filing) -> str:
    """"Apple's FY2022 10-K", "Intel's Q4 FY2022 earnings release"."""
    return " ".join(x for x in (_possessive(f.company), _period(f), f.form or "filing") if x)


def offered_questions(structure: FilingStructure, limit: int = 3) -> tuple[str, ...]:
    """Up to `limit` questions, one of each kind where the room has it, newest filing first."""
    filings = sorted(structure.filings.values(), key=lambda f: (-(f.fiscal_year or 0), -(f.quarter or 0), f.doc_id))
    by_doc: dict[str, dict[str, list]] = {}
    for node in structure.nodes:
        by_doc.setdefault(node.doc_id, {}).setdefault(node.kind, []).append(node)
    out: list[str] = []
    # revenue, from a filing with an income statement (a release without one still reports revenue)
    f = next((f for f in filings if any(n.ref == "income" for n in by_doc.get(f.doc_id, {}).get("statement", []))),
             filings[0] if filings else None)
    if f is not None and f.company:
        out.append(f"What was {_possessive(f.company)} revenue in {_period(f) or 'its latest period'}?")
    # a statement the room has, other than the income statement when another exists
    for f in filings:
        statements = [n for n in by_doc.get(f.doc_id, {}).get("statement", []) if n.ref != "income"]
        if statements:
            name = STATEMENTS[statements[0].ref][0].lower()
            out.append(f"What does the {name} in {_where(f)} show?")
            break
    # a note, or an Item where a filing has no notes
    for f in filings:
        sections = by_doc.get(f.doc_id, {}).get("note", []) or by_doc.get(f.doc_id, {}).get("item", [])
        titled = [n for n in sections if " — " in n.label or ". " in n.label]
        if titled:
            n = titled[len(titled) // 2]  # one from the middle: the first notes are accounting policies
            out.append(f"What does {n.label} in {_where(f)} say?")
            break
    return tuple(dict.fromkeys(out))[:limit]


__all__ = ["offered_questions"]
