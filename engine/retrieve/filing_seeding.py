"""Seeds on the filing graph (`engine.filings.graph`): where a question about filings starts its walk.

A question seeds the structure its scope names (`engine.filings.scope.read_scope`): the scoped
filings, the statements it names or implies, the line items the lexicon maps its words to ("capex" →
"Additions to property, plant and equipment"), the notes whose titles it uses, and the regex entity
graph's own seeds of its words without their instruction text. Each seed weighs its specificity,
1 / the passages it touches, as entity seeds do (`seeding`), each labelled with its rule.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..filings.lexicon import Lexicon
from ..filings.scope import Scope, ScopeCorrection, read_scope
from ..filings.structure import FORECAST, STATEMENTS, FilingStructure
from ..filings.graph import FilingGraph
from ..text import normalize_name
from .seeding import EntitySeeder, Seed, Seeding

STRUCTURE_RULES = ("scope", "statement", "lexicon", "line item", "note", "reference")


def singular(folded: str) -> str:
    """Each word of a folded phrase without its plural ending, so that a question's "membership fee income" names
    the row "Membership fees" (a walk-through's miss: the release's statement row went unseeded, and its first page
    was cited). Crude, and the same on both sides: "liabilities" → "liability", "expenses" → "expense"; "ss", "us"
    and "is" endings and words of three letters or fewer stay."""
    out = []
    for w in folded.split():
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.append(w)
    return " ".join(out)


def _title(node) -> str:
    """An Item's or a note's title, folded, without its number ("Note 8 — Long-Term Debt" → "long term debt")."""
    return normalize_name(node.label.split(" — ", 1)[-1].split(". ", 1)[-1])


class FilingSeeder:
    """A question's seeds on the filing graph: its scope's structure, then the entity seeds of its
    words without their instruction text. A `seeding.Seeder` (what the walk reads: `graph`, `seeding`,
    `vector`), with `scope` and `seeding_for` besides, so that one answer reads its scope once."""

    def __init__(self, filing: FilingGraph, structure: FilingStructure, entity_seeder: EntitySeeder | None,
                 lexicon: Lexicon, correction: ScopeCorrection = ScopeCorrection()):
        self.graph = filing.graph
        self.layout = filing.layout
        self.structure = structure
        self.entity_seeder = entity_seeder
        self.lexicon = lexicon
        self.correction = correction
        self._column_of = {node.key: self.layout.column(i) for i, node in enumerate(structure.nodes)}
        self._by_doc: dict[tuple[str, str], list[int]] = {}  # (doc, kind) → structure node indices
        for i, node in enumerate(structure.nodes):
            self._by_doc.setdefault((node.doc_id, node.kind), []).append(i)
        # what a question holds when it names a row or a note in its own words, each word in the singular, read once
        # a room, not once a question; a row labelled with a filer's name (a reconciliation's total "Kraft Heinz") is
        # named by every question about that filer, so it has none (a walk-through's miss)
        companies = {n for f in structure.filings.values() for n in f.names}
        self._named_by: dict[int, str] = {}
        for i, node in enumerate(structure.nodes):
            if node.kind == "line item" and node.ref.replace(" ", "") not in companies or node.kind == "note":
                words = node.ref if node.kind == "line item" else _title(node)
                if len(words.split()) > 1:
                    self._named_by[i] = f" {singular(words)} "

    def scope(self, question: str) -> Scope:
        """The question's scope, without the lexicon terms that are only words of a note it names by number and
        title: "Note 9 — Fair Value Measurement of Assets and Liabilities" asks for the note, not for total assets
        and the balance sheet (a walk-through's miss: the balance sheet came first). A title alone stays a
        question's words: "restructuring and other charges" asks for the income statement's row too."""
        scope = read_scope(question, self.structure.room or self.structure.filings, self.lexicon, self.correction)
        titles = self._notes_titled(f" {singular(normalize_name(scope.text))} ", scope.filings)
        terms = tuple((said, t) for said, t in scope.terms
                      if not any(f" {singular(normalize_name(said))} " in title for title in titles))
        kept = set(scope.statements)
        if terms != scope.terms:
            kept = {t.statement for _, t in terms} | set(self.lexicon.statements_named(question))
            kept.add(self.correction.statement or "")
        if scope.filings:  # a statement the scoped filings do not hold is not said ("Statement of cash flows" of a
            # release that has none: a walk-through); it seeds nothing either way
            kept &= {self.structure.nodes[i].ref for i in self._nodes(scope.filings, "statement")}
        statements = tuple(s for s in scope.statements if s in kept)
        notes = scope.notes
        chosen = self.correction.statement
        if chosen and chosen not in statements:  # the user's choice is said to do nothing, not shown as applied
            notes += (", ".join(self.structure.filings[d].label for d in scope.filings) + f" holds no "
                      f"{STATEMENTS[chosen][0].lower()} this room reads as one: the statement you chose is not applied",)
        if terms == scope.terms and statements == scope.statements and notes == scope.notes:
            return scope
        return replace(scope, terms=terms, statements=statements, notes=notes)

    def _notes_titled(self, folded: str, docs) -> list[str]:
        """The titles of the notes a folded question names by number, then title ("note 9 fair value …"; not
        "the long-term debt on its balance sheet and in Note 8")."""
        return [self._named_by[i] for i in self._nodes(docs or tuple(self.structure.filings), "note")
                if i in self._named_by and f" note {self.structure.nodes[i].ref.lower()}{self._named_by[i]}" in folded]

    def _nodes(self, docs, kind: str) -> list[int]:
        return [i for d in docs for i in self._by_doc.get((d, kind), ())]

    def structure_matches(self, scope: Scope) -> list[tuple[int, str, str]]:
        """(structure node, rule, what in the question matched it) for every structure seed."""
        nodes = self.structure.nodes
        docs = scope.filings or tuple(self.structure.filings)
        out: list[tuple[int, str, str]] = []
        for i in self._nodes(scope.filings, "filing"):
            out.append((i, "scope", nodes[i].label))
        for i in self._nodes(docs, "statement"):
            if nodes[i].ref in scope.statements:
                out.append((i, "statement", nodes[i].label))
        folded = f" {singular(normalize_name(scope.text))} "
        rows: dict[str, list[str]] = {}  # a row two of the question's phrases name says both ("liquidity; cash …")
        for said, term in scope.terms:
            for row in term.rows:
                rows.setdefault(row, []).append(said)
        sections = [(word, said) for said, term in scope.terms for word in term.sections]
        guidance = next((said for word, said in sections if word == "guidance"), None)
        rowed = folded  # a note's title it names by number names no row: "Note 8 — Long-Term Debt" is the note
        for title in self._notes_titled(folded, scope.filings):
            rowed = rowed.replace(title, " ")
        for i in self._nodes(docs, "line item"):
            key = nodes[i].ref
            if key.startswith(FORECAST):  # a guidance table's row: for a question of guidance, and no other
                if guidance is not None:
                    out.append((i, "lexicon", guidance))
            elif key in rows:
                out.append((i, "lexicon", "; ".join(dict.fromkeys(rows[key]))))
            elif i in self._named_by and self._named_by[i] in rowed:
                out.append((i, "line item", key))
        for i in self._nodes(docs, "note") + self._nodes(docs, "item"):
            title = _title(nodes[i])
            number = nodes[i].ref.lower()
            said = next((s for w, s in sections if f" {w} " in f" {title} "), None)  # an Item's title or a note's
            if said is not None:
                out.append((i, "lexicon", said))
            elif nodes[i].kind == "note" and i in self._named_by and self._named_by[i] in folded:
                out.append((i, "note", title))
            elif f" {nodes[i].kind} {number} " in folded:
                out.append((i, "reference", f"{nodes[i].kind} {number}"))
        return out

    def seeding(self, question: str) -> Seeding:
        return self.seeding_for(self.scope(question))

    def seeding_for(self, scope: Scope) -> Seeding:
        degree = self.graph.entity_degree
        matched: dict[int, tuple[str, str]] = {}  # graph column → (via, rule)
        for i, rule, via in self.structure_matches(scope):
            matched.setdefault(self._column_of[self.structure.nodes[i].key], (via, rule))
        entity_seeding = self.entity_seeder.seeding(scope.text) if self.entity_seeder is not None else None
        if entity_seeding is not None:
            index = self.graph.entity_index
            for s in entity_seeding.seeds:
                if s.entity in index:
                    matched.setdefault(index[s.entity], (s.via, s.rule))
        weights = {j: 1.0 / degree[j] for j in matched if degree[j] > 0}
        total = sum(weights.values())
        seeds = tuple(Seed(self.graph.entities[j], self.graph.display[j], w / total, "query", matched[j][0],
                           matched[j][1], int(degree[j])) for j, w in sorted(weights.items()))
        keys = entity_seeding.query_entities if entity_seeding else ()
        unmatched = entity_seeding.unmatched if entity_seeding else ()
        return Seeding(seeds, keys, unmatched)

    def vector(self, seeds) -> np.ndarray:
        s = np.zeros(len(self.graph.entities))
        index = self.graph.entity_index
        for seed in seeds:
            s[index[seed.entity]] = seed.weight
        return s


__all__ = ["FilingSeeder", "STRUCTURE_RULES"]
