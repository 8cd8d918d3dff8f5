"""Running headers, footers and page numbers: lines near a page's edge that recur on many pages, found and taken
out of a document's pages before they are cut into passages, each named with how many pages had it."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class DroppedLine:
    """A running header, footer or page number taken out of a document, with how many pages had it."""

    file: str
    example: str
    pages: int



def _shape(line: str) -> str:
    # numbers become one mark, so "Apple Inc. | 2022 Form 10-K | 32" has the same shape on every page
    return re.sub(r"\d+", "#", " ".join(line.split()).lower())



def _numbers(line: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", line))



def _running_pages(occurrences: list[tuple[int, tuple[int, ...]]]) -> set[int]:
    """The pages on which lines of one shape are a running line: the same numbers on each (a fixed
    header), or numbers that differ in one place only, by the page index plus a fixed offset (a page
    number; printed numbers start after the cover, so the offset is rarely 0). Anything else, such as
    "Total assets 352,755" closing several statements, is body text that happens to share a shape."""
    by_numbers: Counter[tuple[int, ...]] = Counter(nums for _, nums in occurrences)
    fixed, count = by_numbers.most_common(1)[0]
    best = {i for i, nums in occurrences if nums == fixed}
    width = len(fixed)
    for slot in range(width):
        offsets: Counter[int] = Counter()
        for i, nums in occurrences:
            offsets[nums[slot] - i] += 1
        offset, _ = offsets.most_common(1)[0]
        # the page-number slot tracks the page; every other slot must hold its usual value
        usual = [Counter(nums[j] for _, nums in occurrences).most_common(1)[0][0] for j in range(width)]
        pages = {i for i, nums in occurrences if nums[slot] - i == offset
                 and all(nums[j] == usual[j] for j in range(width) if j != slot)}
        if len(pages) > len(best):
            best = pages
    return best



def _edge_lines(pages: list[str], edge: int):
    """Each page's lines, the indexes of its first and last `edge` non-empty ones, and per shape of those lines
    the pages it is on with the numbers it holds there (a shape counts once a page)."""
    split = [page.split("\n") for page in pages]
    edges = []
    for lines in split:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edges.append(sorted(set(filled[:edge] + filled[-edge:])))
    occurrences: dict[str, list[tuple[int, tuple[int, ...]]]] = {}
    for page_index, (lines, idx) in enumerate(zip(split, edges)):
        seen = set()
        for i in idx:
            shape = _shape(lines[i])
            if shape and shape not in seen:
                seen.add(shape)
                occurrences.setdefault(shape, []).append((page_index, _numbers(lines[i])))
    return split, edges, occurrences


def printed_numbers(pages: list[str], edge: int = 3, share: float = 0.25) -> tuple[int | None, ...]:
    """The page number each page prints, where a running line numbers the pages (one number that goes up with the
    page: "40", "Page 40", "Apple Inc. | 2022 Form 10-K | 40"), else None: what an analyst cites, which differs from
    the PDF's own page index by the cover and contents ("page 45" of Kraft Heinz's 10-K prints 40)."""
    out: list[int | None] = [None] * len(pages)
    if len(pages) < 3:
        return tuple(out)
    need = max(3, int(share * len(pages) + 0.999))
    best: dict[int, int] = {}
    for occ in _edge_lines(pages, edge)[2].values():
        for slot in range(len(occ[0][1])):  # a shape's lines hold as many numbers each
            offsets = Counter(nums[slot] - i for i, nums in occ)
            offset, count = offsets.most_common(1)[0]
            if count >= need and count > len(best):
                best = {i: nums[slot] for i, nums in occ if nums[slot] - i == offset}
    for i, n in best.items():
        out[i] = n
    return tuple(out)


def strip_running_lines(pages: list[str], name: str, edge: int = 3,
                        share: float = 0.25) -> tuple[list[str], tuple[DroppedLine, ...]]:
    """Drop running headers, footers and page numbers: lines near a page's top or bottom that recur there
    on at least `share` of the pages (see `_running_pages` for what "recur" means with numbers in them).

    Only the first and last `edge` non-empty lines of a page are candidates, so a phrase that
    recurs in body text stays. Needs three pages or more: on fewer, nothing is "running".
    """
    if len(pages) < 3:
        return pages, ()
    split, edges, occurrences = _edge_lines(pages, edge)
    need = max(3, int(share * len(pages) + 0.999))
    running: dict[str, set[int]] = {}
    for shape, occ in occurrences.items():
        if len(occ) >= need:
            on = _running_pages(occ)
            if len(on) >= need:
                running[shape] = on
    if not running:
        return pages, ()
    examples: dict[str, str] = {}
    out = []
    for page_index, (lines, idx) in enumerate(zip(split, edges)):
        drop = set()
        for i in idx:
            shape = _shape(lines[i])
            if page_index in running.get(shape, ()):
                examples.setdefault(shape, lines[i].strip())
                drop.add(i)
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    order = sorted(examples, key=lambda s: (-len(running[s]), s))
    return out, tuple(DroppedLine(name, examples[s], len(running[s])) for s in order)
