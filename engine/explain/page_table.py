"""A page's words, lines and statement tables, read from where PDFium says each character sits.

PDFium's text of a statement page keeps a row on one line ("Share repurchases (106) (2,000) (3,000)"), but not
which number is which year: the column headers are lines above, often stacked ("September 24," over "2022").
Here characters become words (split at spaces and at gaps), words become lines (one baseline), and a line's
words become cells (split at gaps wider than a space). A header row is a line whose cells hold two or more
years and no amounts; each year's cell is a column, and lines just above with a cell over each column
("September 24, September 25, …", "Three Months Ended", one label spanning two columns) name it further.
Every later row gives each of its values the column it sits under, so it reads "Share repurchases: 2021 (106)
· 2020 (2,000) · 2019 (3,000)". A page without such a header row is said to be one, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from statistics import median

from ..ingest.glyphs import read_marks
from .page_image import Box, PageLayout

_YEAR = re.compile(r"^(?:FY|fiscal)?'?((?:19|20)\d\d)[,.:)*]*$", re.IGNORECASE)
_AMOUNT = re.compile(r"^[($-]*\$?\(?-?[\d,]*\d(?:\.\d+)?\)?%?[,;]?$")  # 1,234  (106)  6.15  12%  (0.4)
_CURRENCY = {"$", "€", "£", "¥", "US$"}
_DASHES = {"—", "–", "-", "—%", "n/a", "N/A", "*"}
_SPACE = set(" \t\r\n\x00\x02\xa0\u2002\u2003\u2009")
_MARK = "\ufffe"  # a glyph PDFium cannot map (a ligature, a hyphen) or a line-end hyphen: `glyphs.read_marks` reads it


@dataclass(frozen=True)
class Word:
    """Characters `start` to `end` (exclusive) of the layout's list, on one baseline."""

    text: str
    start: int
    end: int
    box: Box
    baseline: float


@dataclass(frozen=True)
class Line:
    words: tuple[Word, ...]  # left to right
    baseline: float

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def box(self) -> Box:
        return union(w.box for w in self.words)


@dataclass(frozen=True)
class TableRow:
    label: str
    cells: tuple[tuple[str, str], ...]  # (column header, value), left to right
    box: Box

    def words(self) -> str:
        """"Share repurchases: 2021 (106) · 2020 (2,000) · 2019 (3,000)"."""
        return f"{self.label}: " + " · ".join(f"{h} {v}" for h, v in self.cells)


@dataclass(frozen=True)
class PageTable:
    columns: tuple[str, ...]  # each column's header, left to right
    rows: tuple[TableRow, ...]
    header_box: Box


@dataclass(frozen=True)
class TableReading:
    """The tables read off a page, and `reason`: why none could be read when `tables` is empty, else which
    tables were left out ("" when none was)."""

    tables: tuple[PageTable, ...]
    reason: str = ""

    @property
    def rows(self) -> tuple[TableRow, ...]:
        return tuple(r for t in self.tables for r in t.rows)


def union(boxes) -> Box:
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def page_words(layout: PageLayout) -> list[Word]:
    """The page's words in PDFium's order: a word ends at a space or line end, where the baseline moves, where
    the text steps back, or at a gap wider than a third of the line's height (runs drawn apart with no space). A
    ligature glyph PDFium cannot map is read as the passages' text reads it ("e?ective" is "effective")."""
    words: list[Word] = []
    start = None

    def close(end: int) -> None:
        if start is not None and end > start:
            text = layout.text[start:end]
            words.append(Word(read_marks(text) if _MARK in text else text, start, end,
                              union(layout.boxes[start:end]), layout.baselines[start]))

    for i, ch in enumerate(layout.text):
        box = layout.boxes[i]
        if ch in _SPACE or box[2] <= box[0]:  # a mark drawn as a glyph (a ligature) has a width and stays
            close(i)
            start = None
            continue
        if start is not None:
            prev = layout.boxes[i - 1]
            height = max(box[3] - box[1], 1.0)
            if (abs(layout.baselines[i] - layout.baselines[i - 1]) > 0.2 * height or box[0] < prev[0]
                    or box[0] - prev[2] > height / 3):
                close(i)
                start = None
        if start is None:
            start = i
    close(len(layout.text))
    return words


def page_lines(layout: PageLayout) -> list[Line]:
    """Words on one baseline (within a fifth of their height) as lines, top of the page first."""
    lines: list[list[Word]] = []
    for w in sorted(page_words(layout), key=lambda w: (-w.baseline, w.box[0])):
        tol = 0.2 * max(w.box[3] - w.box[1], 1.0)
        if lines and abs(lines[-1][0].baseline - w.baseline) <= tol:
            lines[-1].append(w)
        else:
            lines.append([w])
    return [Line(tuple(sorted(ws, key=lambda w: w.box[0])), ws[0].baseline) for ws in lines]


def _amount(text: str) -> bool:
    return bool(_AMOUNT.match(text)) and not _YEAR.match(text) and not _DAY.match(text)


_DAY = re.compile(r"^\d{1,2},?$")  # "24," in "September 24, 2022"


def cells(line: Line, years_apart: bool = False) -> list[tuple[str, Box]]:
    """A line's words grouped where they sit close (a gap under the line's height): its cells, left to right.
    Two amounts side by side are two cells however close, and a currency sign alone ("$" at a cell's left edge)
    is left out, so it never becomes a cell of its own. `years_apart`: a group holding two years or more is a cell
    a year, each ending at its year, as a header row of dates set close together reads ("December 31, 2022
    December 25, 2021 December 26, 2020", Kraft Heinz's statements)."""
    words = [w for w in line.words if w.text not in _CURRENCY]
    groups: list[list[Word]] = []
    for w in words:
        height = max(w.box[3] - w.box[1], 1.0)
        if groups and w.box[0] - groups[-1][-1].box[2] < height and not (_amount(groups[-1][-1].text)
                                                                         and _amount(w.text)):
            groups[-1].append(w)
        else:
            groups.append([w])
    if years_apart:
        groups = [part for g in groups for part in _at_years(g)]
    return [(" ".join(w.text for w in ws), union(w.box for w in ws)) for ws in groups]


def _at_years(group: list[Word]) -> list[list[Word]]:
    """A group of words cut after each year, when it holds two or more; words after the last year join it."""
    ends = [i for i, w in enumerate(group) if _YEAR.match(w.text)]
    if len(ends) < 2:
        return [group]
    parts, start = [], 0
    for i in ends:
        parts.append(group[start:i + 1])
        start = i + 1
    parts[-1].extend(group[start:])
    return parts


def _is_value(text: str) -> bool:
    """A cell that is a value: it has a digit outside a footnote mark ("FX-Neutral (2)" has none), or is a dash."""
    return text in _DASHES or any(ch.isdigit() for ch in re.sub(r"(?<=[A-Za-z])\s*\(\d{1,2}\)", "", text))


def _centre(box: Box) -> float:
    return (box[0] + box[2]) / 2


def _header_columns(line_cells: list[tuple[str, Box]]) -> list[tuple[str, Box]] | None:
    """The columns when this line is a header row: it has two or more short cells holding a year and no amount
    (a row of numbers that look like years is not a header, nor is a sentence naming two years). The columns
    are its cells from the first year on; a cell left of that is the label column's caption."""
    first = next((i for i, (text, _) in enumerate(line_cells) if any(_YEAR.match(t) for t in text.split())), None)
    if first is None:
        return None
    columns = line_cells[first:]
    years = [c for c in columns if any(_YEAR.match(t) for t in c[0].split())]
    if len(years) < 2 or any(len(text) > 40 for text, _ in columns):
        return None
    if any(_amount(t) for text, _ in line_cells for t in text.split()):
        return None
    return columns


_A_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _blocks(heads: list[str]) -> list[list[int]]:
    """The header row as repeats of one run of headers ("2022 2021 2020 2022 2021 2020": two blocks of three),
    else []: each block is what a label over it names, wherever the label is set over it."""
    n = len(heads)
    for size in range(2, n // 2 + 1):
        if n % size == 0 and all(heads[j] == heads[j % size] for j in range(n)):
            return [list(range(start, start + size)) for start in range(0, n, size)]
    return []


def _spanned(above: list[tuple[str, Box]], centres: list[float], spacing: float,
             heads: list[str] = ()) -> list[list[int]]:
    """The columns each label of a line above the header row names. Over a header row of repeated runs, a label
    set over one run names it all, where no two labels sit over one run (McDonald's "Reported amount", set
    flush right over 2022 2021 2020, and "Currency translation" over the next three). Otherwise a label centred
    over the columns nearest to it spans them all ("Three Months Ended" over two, "GAAP" over three); one that is
    not names only the columns within its own width, widened by a third of a column's spacing each side
    ("Inc/(Dec)" over one). A label set right over a column that is no year names it alone (Salesforce's
    "% of Total" over each "Revenues", PayPal's "Percent" over each change: not the years beside them)."""
    heads = list(heads) or [""] * len(centres)

    def alone(box: Box) -> list[int] | None:
        j = min(range(len(centres)), key=lambda j: abs(centres[j] - _centre(box)))
        return [j] if abs(centres[j] - _centre(box)) <= spacing / 6 and not _A_YEAR.search(heads[j]) else None

    blocks = _blocks(heads)
    whole = len(above) == 1 and abs(_centre(above[0][1]) - (centres[0] + centres[-1]) / 2) <= spacing / 3
    within = [[j for j, c in enumerate(centres) if box[0] - spacing / 3 <= c <= box[2] + spacing / 3] for _, box in above]
    if blocks and not whole and any(len(w) > 1 for w in within):  # labels over one column each ("Percent") are its own
        over = [next((b for b in blocks if centres[b[0]] - spacing / 2 <= _centre(box) <= centres[b[-1]] + spacing / 2),
                     []) for _, box in above]
        if all(over) and len({b[0] for b in over}) == len(over):
            return over
    nearest = [min(range(len(above)), key=lambda k: abs(_centre(above[k][1]) - c)) for c in centres]
    out = []
    for k, (_, box) in enumerate(above):
        group = [j for j, n in enumerate(nearest) if n == k]
        if (one := alone(box)) is not None:
            out.append(one)
        elif group and abs(_centre(box) - (centres[group[0]] + centres[group[-1]]) / 2) <= spacing / 3:
            out.append(group)
        elif box[2] - box[0] <= 1.5 * spacing:
            out.append(within[k])
        else:
            out.append([])  # wide and off the columns' middle: the statement's title, not a column's label
    return out


def _named_columns(lines: list[Line], at: int, columns: list[tuple[str, Box]]) -> list[str]:
    """Each column's header: the header row's cell, after the labels over it in up to four lines just above.
    They stop at a line with a label over no column (a caption at the left), an amount, a title (a label over
    40 characters), or a gap half again as tall as the table's rows (the statement's title above)."""
    names = [[c[0]] for c in columns]
    centres = [_centre(c[1]) for c in columns]
    spacing = median(b - a for a, b in zip(centres, centres[1:]))
    pitch = lines[at].baseline - lines[at + 1].baseline if at + 1 < len(lines) else 0.0
    pitch = max(pitch, lines[at].box[3] - lines[at].box[1])
    below = lines[at]
    for line in reversed(lines[max(0, at - 4):at]):
        above = cells(line)
        if (line.baseline - below.baseline > 1.5 * pitch or any(len(text) > 40 for text, _ in above)
                or any(_amount(t) for text, _ in above for t in text.split())):
            break
        spans = _spanned(above, centres, spacing, [c[0] for c in columns])
        if not all(spans):
            break
        for (text, _), js in zip(above, spans):
            for j in js:
                names[j].insert(0, text)
        below = line
    return [" ".join(n) for n in names]


def _row(line: Line, columns: tuple[str, ...], centres: list[float], spacing: float,
         pending: str) -> TableRow | str | None:
    """A line under a header row as a row: words left of the columns are its label; each value (a cell with a
    digit, or a dash) goes to the column whose centre is nearest, within 0.6 of a column's spacing; a value
    under no column is kept with the header "(no column header)", never given a neighbour's. A line with no
    value is no row; a line with two values under one column is `_CROWDED`, a sentence across the columns `_END`."""
    if _CAPTION.fullmatch(line.text.strip()):
        return None  # "(In millions, except per share data)" set across the columns under the header row
    label, values, stray = [], {}, []
    for text, box in cells(line):
        over = sum(box[0] < c < box[2] for c in centres)
        if over >= 2 or (over and len(text) > 30):
            return _END  # a sentence across the columns: the table has ended
        c = _centre(box)
        j = min(range(len(centres)), key=lambda j: abs(centres[j] - c))
        near = abs(centres[j] - c) <= 0.6 * spacing
        if not values and not stray and not near and not all(_amount(t) or t == "%" for t in text.split()):
            label.append(text)
        elif not _is_value(text):
            continue  # words under a column ("(In millions)", "Weighted") caption it; they are not its value
        elif near:
            if j in values:
                return _CROWDED  # two values under one header: the header row does not name the table's columns
            values[j] = text
        else:
            stray.append(text)
    if not values:
        return None
    name = " ".join(label)
    if pending and (not name or name[:1].islower()):
        name = f"{pending} {name}".strip()  # a label that wrapped onto this line
    cells_out = [(columns[j], values[j]) for j in sorted(values)] + [(NO_HEADER, v) for v in stray]
    return TableRow(name, tuple(cells_out), line.box)


NO_HEADER = "(no column header)"
_CAPTION = re.compile(r"(?:\([^()\d]*\)\s*)+")  # "(Unaudited)", "(In millions, except per share data)"
_CROWDED, _END = "crowded", "end"


def read_tables(layout: PageLayout) -> TableReading:
    """The statement tables of a page: each header row of years with the rows under it, until the next header
    row. A table with a row holding two values under one column header is left out (its header row does not
    name its columns). When no table can be read, `reason` says why and `tables` is empty."""
    lines = page_lines(layout)
    where = f"{layout.doc} page {layout.page}"
    if not lines:
        return TableReading((), f"{where} has no text to read a table from")
    tables: list[PageTable] = []
    refused: list[str] = []
    i = 0
    while i < len(lines):
        header = _header_columns(cells(lines[i], years_apart=True))
        if header is None:
            i += 1
            continue
        columns = tuple(_named_columns(lines, i, header))
        centres = [_centre(b) for _, b in header]
        spacing = median(b - a for a, b in zip(centres, centres[1:]))
        rows: list[TableRow] = []
        pending, crowded = "", ""
        i += 1
        while i < len(lines) and _header_columns(cells(lines[i], years_apart=True)) is None:
            row = _row(lines[i], columns, centres, spacing, pending)
            if row == _END:
                break
            if row == _CROWDED:
                crowded = crowded or lines[i].text
            elif row is not None:
                rows.append(row)
                pending = ""
            else:
                text = lines[i].text
                pending = "" if text.endswith(":") or _CAPTION.fullmatch(text.strip()) else text
            i += 1
        if crowded:
            refused.append(f"the table under the header row {' · '.join(columns)!r} was not read: its rows hold more "
                           f"values than that row names columns (e.g. {_short(crowded)!r})")
        elif rows:
            tables.append(PageTable(columns, tuple(rows), union(b for _, b in header)))
    if not tables:
        why = "; ".join(refused) or ("no header row of years above rows of values was found, so the columns cannot "
                                     "be named")
        return TableReading((), f"{where}: {why}; read the numbers off the page itself")
    return TableReading(tuple(tables), f"{where}: " + "; ".join(refused) if refused else "")


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w%()&,.'/-]+", " ", text.casefold()).split()).lstrip("(.,-")


def find_row(layout: PageLayout, label: str) -> Line | None:
    """The first line, from the top, whose text starts with `label` (case, spacing and a leading "$" or dots
    aside), or None."""
    want = _key(label)
    if not want:
        return None
    for line in page_lines(layout):
        have = _key(line.text)
        if have == want or have.startswith(want + " ") or (have.startswith(want) and not have[len(want)].isalnum()):
            return line
    return None


__all__ = ["NO_HEADER", "Line", "PageTable", "TableReading", "TableRow", "Word", "cells", "find_row", "page_lines", "page_words",
           "read_tables", "union"]
