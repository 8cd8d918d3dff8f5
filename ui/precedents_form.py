"""The Precedents page's question and settings: the deals it searches (the bundled universe or the user's own list),
the question, the ranker, k, the hard filters and the cue corrections. Each widget takes its first value from the
link once and writes its value back to it (`ui.url_state`), so a copied link reproduces the view. What comes back,
and why, is `ui.precedents_view`'s."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

import streamlit as st

from engine.deals.cues import CueCorrection, Cues, read_cues, size_words
from engine.deals.dealfile import COLUMNS, DealImport, read_deals
from engine.deals.index import DealFilters, DealIndex, build_index, bundled_index
from engine.deals.model import ORIGINS, REGIONS, SECTOR_OF, SECTORS, Criteria
from engine.deals.rankers import RANKERS
from engine.errors import PathLensError
from engine.ingest.documents import SourceFile
from engine.retrieve.retrievers import MAX_QUERY_CHARS, check_query
from ui.render import escape_markdown
from ui.url_state import list_param, param_in_range, seed_from_url, set_params

EXAMPLE = "Find precedents for a US healthcare roll-up with an aggressive add-on strategy"
RANKER_WORDS = {"learned": "learned ranker", "hand": "hand weights (DealGraph's)", "dense": "description alone (dense)",
                "walk": "deal graph alone (walk)"}
RANKER_HELP = ("**learned ranker**: gradient-boosted trees trained on questions written from known deals; each score "
               "splits exactly into its features' parts. **hand weights**: DealGraph's (text 0.4, sector 0.2, region "
               "0.15, add-ons 0.1, exit, platform and recency 0.05 each). **description alone**: how close the "
               "description's meaning is to the question. **deal graph alone**: a walk from the question's cues over "
               "the typed deal graph, one part per cue.")
SOURCES = {"bundled": "the bundled deal universe (generated)", "upload": "your own deal list (CSV or JSON Lines)"}
AS_READ, NONE = "as read", "none"
# the strategy cue's choices: (role, add-ons at least)
STRATEGIES = {"platform": ("platform", 0), "add-on": ("add-on", 0), "roll-up": ("platform", 3),
              "aggressive": ("platform", 6)}
STRATEGY_WORDS = {"roll-up": "roll-up (≥ 3 add-ons)", "aggressive": "aggressive add-on strategy (≥ 6 add-ons)"}
EXIT_CHOICES = {"still held": ("none",), "any exit": ("any",), "IPO": ("IPO",), "strategic sale": ("strategic sale",),
                "secondary buyout": ("secondary buyout",)}
# size bands: (size_min, size_max) in USD millions; 0 clears a bound
SIZES = {"under-100": ("EV under $100m", 0, 100), "50-500": ("EV $50m–$500m (mid-market)", 50, 500),
         "500-1000": ("EV $500m–$1bn", 500, 1000), "over-1000": ("EV over $1bn (large-cap)", 1000, 0)}
# each cue correction: (widget key, URL key, label)
CUE_WIDGETS = (("pr_c_sector", "c_sector", "Sector"), ("pr_c_subsector", "c_subsector", "Subsector"),
               ("pr_c_region", "c_region", "Region"), ("pr_c_strategy", "c_strategy", "Strategy"),
               ("pr_c_origin", "c_origin", "Origin"), ("pr_c_exit", "c_exit", "Exit"),
               ("pr_c_from", "c_from", "From year"), ("pr_c_to", "c_to", "To year"), ("pr_c_size", "c_size", "Size"))


@dataclass(frozen=True)
class DealList:
    """What the page searches: an index, and for the user's own file its name and sha256 (never in a link)."""

    index: DealIndex
    file: tuple[str, str] | None = None


@dataclass(frozen=True)
class Ask:
    question: str
    ranker: str
    k: int
    filters: DealFilters
    correction: CueCorrection


# Spinners, not progress bars: Streamlit replays what a cached function draws, and a bar made outside it cannot be
# replayed. The vectors are kept in the on-disk cache, so the encoding is once a machine (or once a file).
@st.cache_resource(show_spinner="Reading the bundled deal universe; on a machine's first visit its 3,650 "
                                "descriptions are encoded, about 2 minutes, and kept in the cache…")
def _bundled() -> DealIndex:
    return bundled_index()


@st.cache_resource(show_spinner="Reading your deal list and encoding its descriptions…", max_entries=8)
def _imported(name: str, sha256: str, _data: bytes) -> tuple[DealImport, DealIndex]:
    """A file's import and its index, once per file content (`sha256` keys it; the bytes are not hashed again)."""
    imported = read_deals(SourceFile(name, _data))
    return imported, build_index(imported.universe)


def _forget_removed() -> None:
    """The user removed their file from the uploader: the list kept for them goes too."""
    if st.session_state.get("pr_file") is None:
        st.session_state.pop("pr_upload", None)


def _show_import(imported: DealImport) -> None:
    u = imported.universe
    roles = Counter(d.role for d in u.deals)
    counted = ", ".join(f"{roles[r]:,} {r}{'' if roles[r] == 1 else 's'}" for r in ("platform", "add-on"))
    st.success(f"{escape_markdown(u.name)}: {len(u):,} of {imported.rows:,} rows loaded ({counted}); these are the "
               "deals searched below.")
    if imported.problems:
        shown = imported.problems[:50]
        more = len(imported.problems) - len(shown)
        st.warning(f"{len(imported.problems)} row{'s' if len(imported.problems) != 1 else ''} left out, each named by "
                   f"its line and field; the other rows are loaded:\n\n"
                   + "\n".join(f"- {escape_markdown(p.message)}" for p in shown)
                   + (f"\n- … and {more} more (`python -m engine deals --import FILE` lists all)" if more else ""))
    if imported.mapped:
        with st.expander(f"How the file's words were read ({len(imported.mapped)})"):
            st.markdown("\n".join(f"- {escape_markdown(p.message)}" for p in imported.mapped[:200]))


def deal_list() -> DealList | None:
    """The source picker and, for the user's own list, the uploader; the index searched, or None with why."""
    seed_from_url("pr_source", "deals", "bundled", lambda v: v in SOURCES)
    source = st.radio("Deals to search", list(SOURCES), key="pr_source", format_func=SOURCES.get, horizontal=True)
    set_params(deals=None if source == "bundled" else source)
    if source == "bundled":
        return DealList(_bundled())
    optional = ", ".join(c for c in COLUMNS if c not in ("name", "sector", "region", "year"))
    file = st.file_uploader("Your deal list: a CSV file with a header row, or JSON Lines",
                            type=["csv", "jsonl", "json"], key="pr_file", on_change=_forget_removed,
                            help=f"Columns: name, sector, region and year are required; {optional} are optional. A "
                                 "bad row is named by its line and field and left out; the rest loads. The file stays "
                                 "in this browser tab's state: links never carry it.")
    if file is not None:
        st.session_state["pr_upload"] = (file.name, file.getvalue())
    kept = st.session_state.get("pr_upload")
    if kept is None:
        st.info("Upload a deal list to search it. A link to a view of an uploaded list opens here: upload the same "
                "file to see that view.")
        return None
    name, data = kept
    if file is None:
        st.caption(f"Searching {escape_markdown(name)}, uploaded earlier; upload another file to replace it.")
    sha256 = hashlib.sha256(data).hexdigest()
    try:
        imported, index = _imported(name, sha256, data)
    except PathLensError as e:  # a file of another shape, or with no good row, is refused whole
        st.error(escape_markdown(str(e)))
        return None
    _show_import(imported)
    return DealList(index, (name, sha256))


def _read_words(read: Criteria | None) -> dict[str, str]:
    """What the question was read as, per cue widget, for its "as read" choice."""
    if read is None:
        return {}
    either = lambda values: " or ".join(values) or "not said"  # noqa: E731
    strategy = (STRATEGY_WORDS["aggressive"] if read.min_add_ons >= 6 else STRATEGY_WORDS["roll-up"]
                if read.min_add_ons >= 3 else f"≥ {read.min_add_ons} add-ons" if read.min_add_ons else
                read.role or "not said")
    exits = [("still held" if e == "none" else "any exit" if e == "any" else e) for e in read.exits]
    size = ("not said" if read.size_min is None and read.size_max is None else
            size_words(read.size_min, read.size_max))
    return {"pr_c_sector": either(read.sectors or tuple(dict.fromkeys(SECTOR_OF[s] for s in read.subsectors))),
            "pr_c_subsector": either(read.subsectors), "pr_c_region": either(read.regions),
            "pr_c_strategy": strategy, "pr_c_origin": either(read.origins), "pr_c_exit": either(exits),
            "pr_c_from": str(read.year_from or "not said"), "pr_c_to": str(read.year_to or "not said"),
            "pr_c_size": size}


def _cue_widgets(years: list[str], read: Cues | None) -> CueCorrection:
    """The correction box, like the Query page's scope: a choice per cue, "as read" keeps the reading and "none" clears
    it. A subsector decides its sector; a sector set alone drops a subsector read under another sector."""
    options = {"pr_c_sector": list(SECTORS), "pr_c_subsector": list(SECTOR_OF), "pr_c_region": list(REGIONS),
               "pr_c_strategy": list(STRATEGIES), "pr_c_origin": list(ORIGINS), "pr_c_exit": list(EXIT_CHOICES),
               "pr_c_from": years, "pr_c_to": years, "pr_c_size": list(SIZES)}
    said = _read_words(read.criteria if read else None)
    names = {**STRATEGY_WORDS, **{k: v[0] for k, v in SIZES.items()}}
    with st.expander("Cues: correct what the question was read as", expanded=False):
        st.caption("Each cue is read off the question. If the reading above the deals is wrong, correct it "
                   "here: “as read” keeps the reading, “none” clears the cue. Cues steer the candidates and the "
                   "features; the filters above decide which deals are searched at all.")
        columns = st.columns(3)
        for i, (key, url, label) in enumerate(CUE_WIDGETS):
            choices = [AS_READ, NONE, *options[key]]
            seed_from_url(key, url, AS_READ, lambda v, c=choices: v in c)
            if st.session_state[key] not in choices:  # a year the list just loaded lacks
                st.session_state[key] = AS_READ
            columns[i % 3].selectbox(label, choices, key=key, format_func=lambda v, k=key: (
                f"as read: {said[k]}" if v == AS_READ and k in said else "none (clear it)" if v == NONE
                else names.get(v, v)))
        if read is not None and read.read:
            st.caption("Read from the question: " + " · ".join(
                f"“{escape_markdown(c.said)}” → {escape_markdown(c.kind)} {escape_markdown(c.value)} "
                f"({escape_markdown(c.source)})" for c in read.read))
    set_params(**{url: None if st.session_state[key] == AS_READ else st.session_state[key]
                  for key, url, _ in CUE_WIDGETS})
    value = {key: st.session_state[key] for key, _, _ in CUE_WIDGETS}
    fix: dict[str, object] = {}
    pick = lambda key, many: () if value[key] == NONE else many(value[key])  # noqa: E731
    if value["pr_c_sector"] != AS_READ:
        fix["sectors"] = pick("pr_c_sector", lambda v: (v,))
        kept = read.criteria.subsectors if read else ()
        fix["subsectors"] = tuple(s for s in kept if SECTOR_OF[s] in fix["sectors"])
    if value["pr_c_subsector"] != AS_READ:
        fix["subsectors"] = pick("pr_c_subsector", lambda v: (v,))
        if fix["subsectors"]:
            fix["sectors"] = (SECTOR_OF[fix["subsectors"][0]],)
    if value["pr_c_region"] != AS_READ:
        fix["regions"] = pick("pr_c_region", lambda v: (v,))
    if value["pr_c_strategy"] != AS_READ:
        fix["role"], fix["min_add_ons"] = STRATEGIES.get(value["pr_c_strategy"], ("", 0))
    if value["pr_c_origin"] != AS_READ:
        fix["origins"] = pick("pr_c_origin", lambda v: (v,))
    if value["pr_c_exit"] != AS_READ:
        fix["exits"] = pick("pr_c_exit", EXIT_CHOICES.get)
    for key, field in (("pr_c_from", "year_from"), ("pr_c_to", "year_to")):
        if value[key] != AS_READ:
            fix[field] = 0 if value[key] == NONE else int(value[key])
    if value["pr_c_size"] != AS_READ:
        _, fix["size_min"], fix["size_max"] = SIZES.get(value["pr_c_size"], ("", 0, 0))
    return CueCorrection(**fix)


def _filters(index: DealIndex) -> DealFilters:
    """Sector, region and year filters, pushed into the engine: a deal outside them is never scored."""
    u = index.universe
    sectors, regions = Counter(d.sector for d in u.deals), Counter(d.region for d in u.deals)
    lo, hi = min(d.year for d in u.deals), max(d.year for d in u.deals)
    seed_from_url("pr_sectors", "sector", [], bool, lambda raw: list_param(raw, SECTORS))
    seed_from_url("pr_regions", "region", [], bool, lambda raw: list_param(raw, REGIONS))
    if "pr_years" not in st.session_state:
        notes: list[str] = []
        st.session_state["pr_years"] = (param_in_range("year_from", lo, lo, hi, int, "year from", notes),
                                        param_in_range("year_to", hi, lo, hi, int, "year to", notes))
        for note in notes:
            st.warning(note)
    first, last = st.session_state["pr_years"]  # another list's years: kept within this one's
    st.session_state["pr_years"] = (min(max(first, lo), hi), max(min(last, hi), lo))
    f1, f2, f3 = st.columns([2, 2, 3])
    chosen_sectors = f1.multiselect(
        "Sectors (filter)", [s for s in SECTORS if sectors[s] or s in st.session_state["pr_sectors"]], key="pr_sectors",
        format_func=lambda s: f"{s} ({sectors[s]:,})", placeholder="every sector",
        help="Only deals of these sectors are searched (the number of deals of each in brackets).")
    chosen_regions = f2.multiselect(
        "Regions (filter)", [r for r in REGIONS if regions[r] or r in st.session_state["pr_regions"]],
        key="pr_regions", format_func=lambda r: f"{r} ({regions[r]:,})", placeholder="every region",
        help="Only deals of these regions are searched.")
    if lo < hi:
        first, last = f3.slider("Years (filter)", lo, hi, key="pr_years",
                                help="Only deals of these years are searched; the whole range filters nothing.")
    else:
        first, last = lo, hi
        f3.caption(f"Every deal of this list is of {lo}: no year filter.")
    set_params(sector=",".join(chosen_sectors) or None, region=",".join(chosen_regions) or None,
               year_from=first if first > lo else None, year_to=last if last < hi else None)
    return DealFilters(tuple(chosen_sectors), tuple(chosen_regions), first if first > lo else None,
                       last if last < hi else None)


def ask(index: DealIndex) -> Ask | None:
    """The question and settings widgets, written back to the link; what they ask, or None with why (an empty or
    unsearchable question)."""
    seed_from_url("pr_question", "q", EXAMPLE)
    seed_from_url("pr_ranker", "ranker", "learned", lambda v: v in RANKERS)
    seed_from_url("pr_k", "k", 10, cast=int, bounds=(1, 50), label="k")
    question = st.text_input("Question", key="pr_question",
                             help=f"Up to {MAX_QUERY_CHARS:,} characters: a sector, a region, a strategy (roll-up, "
                                  "add-on, carve-out, take-private), an exit, a period, a size.")
    c1, c2 = st.columns([6, 1])
    ranker = c1.radio("Ranker", RANKERS, key="pr_ranker", format_func=RANKER_WORDS.get, horizontal=True,
                      help=RANKER_HELP)
    k = int(c2.number_input("k", 1, 50, step=1, key="pr_k", help="How many deals to show."))
    filters = _filters(index)
    read, problem = None, None
    try:
        check_query(question)
        read = read_cues(question, index.lexicon)
    except PathLensError as e:
        problem = e
    years = [str(y) for y in range(min(d.year for d in index.universe.deals),
                                   max(d.year for d in index.universe.deals) + 1)]
    correction = _cue_widgets(years, read)
    set_params(q=question.strip() or None, ranker=ranker, k=k)
    if not question.strip():
        st.info("Type a question.")
        return None
    if problem is not None:
        st.error(escape_markdown(str(problem)))
        return None
    return Ask(question, ranker, k, filters, correction)


__all__ = ["Ask", "DealList", "EXAMPLE", "RANKER_WORDS", "ask", "deal_list"]
