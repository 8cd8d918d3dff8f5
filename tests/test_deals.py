"""Precedents, the parts that need no encoder: the generator, the lexicon and cues, a deal list's import, the graph
and its walk, filters pushed into candidate generation, and features and the hand weights against hand values."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from engine.deals.cues import CueCorrection, correction_from_pairs, description_cues, read_cues
from engine.deals.dealfile import load_deal_file
from engine.deals.features import NAMES, build_features, feature_words
from engine.deals.generator import DEFAULT_SEED, generate_deals
from engine.deals.graph import seed_groups, walk
from engine.deals.index import DealFilters, build_index, candidates
from engine.deals.lexicon import BUNDLED, load_lexicon, parse_lexicon
from engine.deals.model import REGIONS, SECTORS, Criteria, Deal, make_universe
from engine.deals.rankers import HandWeights, dense_parts, hand_parts, walk_parts
from engine.errors import PathLensError
from engine.evaluate.precedents import ndcg_at, precision_at
from engine.graph.ppr import column_normalize, personalized_pagerank


# ---------------------------------------------------------------- the generator


@pytest.fixture(scope="module")
def generated():
    return generate_deals(DEFAULT_SEED)


def test_the_generator_is_deterministic_and_its_counts_are_as_asked(generated):
    assert generated == generate_deals(DEFAULT_SEED) and generated != generate_deals(DEFAULT_SEED + 1)
    u = make_universe("g", generated)
    assert len(u) >= 2000
    assert {d.sector for d in u.deals} == set(SECTORS) and {d.region for d in u.deals} == set(REGIONS)
    assert {d.subsector for d in u.deals} == {s for subs in SECTORS.values() for s in subs}
    assert {d.origin for d in u.deals} == {"founder-owned", "family-owned", "carve-out", "take-private", "secondary"}
    assert {d.exit for d in u.deals if d.role == "platform"} == {"none", "IPO", "strategic sale", "secondary buyout"}
    assert all(2005 <= d.year <= 2024 and 5 <= d.size <= 5000 for d in u.deals)
    assert all(d.year < d.exit_year <= 2024 for d in u.deals if d.exited)
    counts = [u.add_on_count(i) for i, d in enumerate(u.deals) if d.role == "platform"]
    assert max(counts) <= 15 and statistics.median(counts) <= 2 and sum(c >= 10 for c in counts) >= 10  # skewed low
    assert all(u.deals[u.platform_of(i)].role == "platform" for i, d in enumerate(u.deals) if d.role == "add-on")
    sizes = {r: statistics.median(d.size for d in u.deals if d.role == r) for r in ("platform", "add-on")}
    assert sizes["add-on"] < sizes["platform"] / 3


def test_a_real_share_of_descriptions_is_vague_and_some_promise_what_the_structure_lacks(generated):
    u = make_universe("g", generated)
    lexicon = load_lexicon()

    def says_nothing(text: str) -> bool:
        c = description_cues(text, lexicon)
        return not (c.sectors or c.subsectors or c.min_add_ons or c.role or c.origins)

    strong = [i for i, d in enumerate(u.deals) if d.role == "platform" and u.add_on_count(i) >= 3]
    vague = [i for i in strong if says_nothing(u.deals[i].description)]
    assert len(vague) / len(strong) >= 0.25  # many add-ons, and no sector, strategy or origin word at all
    none = [i for i, d in enumerate(u.deals) if d.role == "platform" and u.add_on_count(i) == 0]
    promising = [i for i in none if description_cues(u.deals[i].description, lexicon).min_add_ons >= 3]
    assert len(promising) / len(none) >= 0.15  # "consolidation platform" words, no add-on made


def test_criteria_judged_for_all_deals_at_once_agree_with_one_deal_at_a_time(generated):
    u = make_universe("g", generated)
    for c in (Criteria(sectors=("healthcare",), regions=("US", "UK"), role="platform", min_add_ons=3),
              Criteria(subsectors=("packaging",), origins=("carve-out",), size_min=250),
              Criteria(exits=("any",), year_to=2007), Criteria(exits=("none",), size_max=100, year_from=2015),
              Criteria()):
        assert list(c.mask(u)) == [c.meets(u, i) for i in range(len(u))]


# ---------------------------------------------------------------- the lexicon and the cues


def test_every_lexicon_entry_cites_a_source_and_covers_the_universes_words():
    lexicon = load_lexicon()
    assert all(any(k in e.source for k in lexicon.sources) for e in lexicon.entries)
    kinds = {(e.kind, e.value) for e in lexicon.entries}
    assert {("sector", s) for s in SECTORS} <= kinds and {("region", r) for r in REGIONS} <= kinds
    assert {("subsector", s) for subs in SECTORS.values() for s in subs} <= kinds


def test_a_bad_lexicon_is_named_by_entry_and_field():
    import json

    data = json.loads(BUNDLED.read_text("utf-8"))
    data["regions"]["UK"]["source"] = "my uncle"
    with pytest.raises(PathLensError, match=r"lex.json: regions.UK: field 'source' must name one of the sources"):
        parse_lexicon(data, "lex.json")
    data = json.loads(BUNDLED.read_text("utf-8"))
    data["sectors"]["aerospace"] = {"say": ["aero"], "source": "GICS"}
    with pytest.raises(PathLensError, match=r"sectors.aerospace: 'aerospace' is not one of healthcare"):
        parse_lexicon(data, "lex.json")


@pytest.mark.parametrize("question, words", [
    ("Find precedents for a US healthcare roll-up with an aggressive add-on strategy",
     "understood as: healthcare · US · aggressive add-on strategy (≥ 6 add-ons) · any period"),
    ("healthcare roll-ups in the US", "understood as: healthcare · US · roll-up (≥ 3 add-ons) · any period"),
    ("mid-market carve-outs in Germany since 2015 sold to another sponsor",
     "understood as: any sector · DACH · carve-out · exited by secondary buyout · from 2015 · EV $50m–$500m"),
    ("dental groups sold in a secondary buyout between 2010 and 2019",
     "understood as: dental practices · any region · exited by secondary buyout · 2010–2019"),
    # "exits … in a secondary buyout" seven words on is the exit, not also the origin (a walk-through's major)
    ("US dental practice roll-up: sponsor buys a founder-owned DSO platform, does a dozen add-on acquisitions, then "
     "exits to another PE firm in a secondary buyout",
     "understood as: dental practices · US · platform with ≥ 12 add-ons · founder-owned · exited by secondary buyout · "
     "any period"),
    ("platforms with half a dozen add-ons, or over a dozen", "understood as: any sector · any region · aggressive "
     "add-on strategy (≥ 6 add-ons) · any period"),  # the first count said
    ("a couple of bolt-ons in software", "understood as: software · any region · platform with ≥ 2 add-ons · any period"),
    # an amount said in another currency is said to be read as dollars (a walk-through's minor: EUR was dropped)
    ("over €1bn deals in DACH", "understood as: any sector · DACH · any period · EV over $1bn (said in EUR, read as "
     "dollars: no exchange rate is applied)"),
    ("a UK software deal between £100m and £300m", "understood as: software · UK · any period · EV $100m–$300m (said "
     "in GBP, read as dollars: no exchange rate is applied)"),
    ("a French buyout of 300m euros", "understood as: any sector · France & Benelux · any period · EV $200m–$450m "
     "(said in EUR, read as dollars: no exchange rate is applied)"),
    ("US deals over USD 2bn", "understood as: any sector · US · any period · EV over $2bn"),
    ("secondary buyouts of dental groups, EV over $1bn",
     "understood as: dental practices · any region · secondary · any period · EV over $1bn"),
    ("tell us about IT services deals, pre-GFC", "understood as: IT services · any region · up to 2007"),
    ("P2Ps of Nordic or Canadian cyber businesses that went public, recent",
     "understood as: cybersecurity · Nordics or Canada · take-private · exited by IPO · from 2020"),
    ("platforms with 10 or more add-ons still in the portfolio, lower mid-market",
     "understood as: any sector · any region · platform with ≥ 10 add-ons · still held · any period · "
     "EV under $100m"),
    ("a vet clinic in Austria as a tuck-in for our platform",
     "understood as: veterinary clinics · DACH · add-on · any period"),
    # "B2B" holds no $2bn (a walk-through: read as EV $1.3333bn–$3bn); "$2b" alone is an amount
    ("B2B software platforms in the US", "understood as: software · US · platform · any period"),
    ("B2B software platforms in the US, EV over $2b",
     "understood as: software · US · platform · any period · EV over $2bn"),
    # add-ons a deal was built up through are its strategy, not its role (walk 23 read "add-on" for this platform)
    ("A founder-owned US healthcare services business bought by a sponsor around 2018 for about $150m, built up "
     "through add-on acquisitions and then sold to another sponsor",
     "understood as: healthcare · US · roll-up (≥ 3 add-ons) · founder-owned · exited by secondary buyout · 2018 · "
     "EV $100m–$225m"),
    ("add-on acquisitions of dental practices", "understood as: dental practices · any region · add-on · any period"),
])
def test_cues_read_by_hand(question, words):
    assert read_cues(question).words() == words


def test_the_cues_say_which_words_gave_them_and_where_the_lexicon_has_them_from():
    cues = read_cues("UK wealth management consolidators, realized")
    c = cues.criteria
    assert (c.subsectors, c.regions, c.role, c.min_add_ons, c.exits) == (("wealth management",), ("UK",), "platform", 3,
                                                                        ("any",))
    read = {(x.kind, x.value, x.said) for x in cues.read}
    assert {("subsector", "wealth management", "wealth management"), ("region", "UK", "uk"),
            ("add-ons", "≥ 3", "consolidators"), ("exit", "any", "realized")} <= read
    assert all(x.source for x in cues.read)


def test_a_correction_sets_and_clears_cues_like_a_form():
    cues = read_cues("US healthcare roll-ups since 2015", correction=CueCorrection(regions=("UK", "DACH"),
                                                                                    year_from=0, min_add_ons=6))
    assert cues.corrected and cues.words() == ("understood as: healthcare · UK or DACH · aggressive add-on strategy "
                                               "(≥ 6 add-ons) · any period")
    assert {x.said for x in cues.read if x.kind == "region"} == {""}  # set by the correction, not by the question
    assert correction_from_pairs(["region=Germany, Sweden", "sector=", "exit=trade sale", "min_add_ons=3"]) == \
        CueCorrection(sectors=(), regions=("DACH", "Nordics"), exits=("strategic sale",), min_add_ons=3)
    with pytest.raises(PathLensError, match=r"cue region: 'Mars' is not one of US, Canada"):
        CueCorrection(regions=("Mars",))
    with pytest.raises(PathLensError, match=r"cue year_from: must be a year"):
        CueCorrection(year_from=15)
    with pytest.raises(PathLensError, match=r"--cue 'region=Mars': 'Mars' is not a region the lexicon knows"):
        correction_from_pairs(["region=Mars"])
    with pytest.raises(PathLensError, match=r"--cue 'colour=red': write FIELD=VALUE"):
        correction_from_pairs(["colour=red"])


def test_a_question_over_the_limit_is_refused_with_its_length():
    with pytest.raises(PathLensError, match="This question is 2,001 characters long"):
        read_cues("x" * 2001)


# ---------------------------------------------------------------- importing a deal list


CSV = """name,sector,region,year,size,platform_of,origin,exit,exit_year,description
Acme Dental,Health Care,United States,2015,$120m,,founder-owned,trade sale,2020,A group of dental practices.
Smile One,healthcare,US,2016,20,Acme Dental,,,,An add-on.
Bad Year,healthcare,US,twenty,,,,,,
Orphan,healthcare,US,2017,,Nobody,,,,
Where,healthcare,Mars,2017,,,,,,
Child,healthcare,US,2018,,Bad Year,,,,
Acme Dental,healthcare,US,2019,,,,,,
Late,software,UK,2019,,,carve-out,IPO,2017,
Huge,software,UK,2019,a lot,,,,,
Vague,software,Europe,2019,,,,,,
"""


def test_a_deal_list_loads_its_good_rows_and_names_each_bad_one_by_line_and_field(tmp_path):
    path = tmp_path / "deals.csv"
    path.write_text(CSV, "utf-8")
    loaded = load_deal_file(path)
    assert loaded.rows == 10 and [d.name for d in loaded.universe.deals] == ["Acme Dental", "Smile One"]
    assert [p.message for p in loaded.problems] == [
        "deals.csv line 4, field 'year': 'twenty' is not a year",
        "deals.csv line 5, field 'platform_of': 'Nobody' is not the name of a platform in this file",
        "deals.csv line 6, field 'region': 'Mars' is not a region the lexicon knows; regions: US, Canada, UK, DACH, "
        "Nordics, France & Benelux, APAC",
        "deals.csv line 7, field 'platform_of': 'Bad Year' is the name of line 4, which was left out",
        "deals.csv line 8, field 'name': 'Acme Dental' is already the name of line 2",
        "deals.csv line 9, field 'exit_year': 2017 is before the deal's year 2019",
        "deals.csv line 10, field 'size': 'a lot' is not an EV in USD millions (e.g. 250, $250m, 1.2bn)",
        "deals.csv line 11, field 'region': 'Europe' could be UK or DACH or Nordics or France & Benelux; write one"]
    acme, smile = loaded.universe.deals
    assert (acme.sector, acme.region, acme.size, acme.exit, acme.exit_year) == ("healthcare", "US", 120.0,
                                                                               "strategic sale", 2020)
    assert smile.platform == acme.id and loaded.universe.add_on_count(0) == 1
    assert "deals.csv line 2, field 'region': 'United States' read as US" in [p.message for p in loaded.mapped]


def test_a_json_lines_list_names_a_line_that_is_not_json_and_optional_fields_may_be_missing(tmp_path):
    path = tmp_path / "deals.jsonl"
    path.write_text('{"name": "A", "sector": "energy", "region": "Canada", "year": 2012, "id": "x1"}\n{"name": \n'
                    '{"name": "B", "subsector": "solar", "region": "Japan", "year": "2013", "platform_of": "A"}\n'
                    '{"name": "C", "sector": "energy", "region": "Canada", "year": 2014, "id": "x1"}\n', "utf-8")
    loaded = load_deal_file(path)
    assert [p.message for p in loaded.problems] == ["deals.jsonl line 2: not valid JSON (Expecting value)",
                                                    "deals.jsonl line 4, field 'id': 'x1' is already the id of line 1"]
    b = loaded.universe.deals[1]
    assert (b.sector, b.subsector, b.region, b.role, b.size, b.origin, b.exit) == (
        "energy", "renewables developer", "APAC", "add-on", None, "", "none")


def test_a_file_that_cannot_be_a_deal_list_is_refused_whole(tmp_path):
    (tmp_path / "a.csv").write_text("name,sector\nX,energy\n", "utf-8")
    with pytest.raises(PathLensError, match=r"a.csv, line 1: the header lacks the columns 'region', 'year'"):
        load_deal_file(tmp_path / "a.csv")
    (tmp_path / "b.csv").write_text("name,sector,region,year\nX,energy,Mars,2010\n", "utf-8")
    with pytest.raises(PathLensError, match=r"b.csv: no deal loaded from 1 rows \(b.csv line 2, field 'region'"):
        load_deal_file(tmp_path / "b.csv")
    with pytest.raises(PathLensError, match="no such file"):
        load_deal_file(tmp_path / "missing.csv")
    (tmp_path / "c.xlsx").write_bytes(b"PK\x03\x04")
    with pytest.raises(PathLensError, match="c.xlsx: a deal list is a .csv file"):
        load_deal_file(tmp_path / "c.xlsx")


# ---------------------------------------------------------------- a toy universe, by hand


def _deal(i, name, sector, sub, region, year, size, role, platform, origin, exit_, exit_year, text):
    return Deal(f"T{i}", name, sector, sub, region, year, size, role, platform, origin, exit_, exit_year, "S", text)


TOY = [
    _deal(1, "Alpha Dental", "healthcare", "dental practices", "US", 2015, 120.0, "platform", "", "founder-owned",
          "IPO", 2020, "Alpha Dental, a group of dental practices in the US, made 3 add-on acquisitions."),
    _deal(2, "Beta", "healthcare", "dental practices", "US", 2016, 10.0, "add-on", "T1", "family-owned", "none", None,
          "Beta joined Alpha Dental in 2016."),
    _deal(3, "Gamma", "healthcare", "dental practices", "UK", 2017, 12.0, "add-on", "T1", "founder-owned", "none",
          None, ""),
    _deal(4, "Delta", "healthcare", "home health", "US", 2018, 15.0, "add-on", "T1", "founder-owned", "none", None,
          "Delta, a home care agency."),
    _deal(5, "Epsilon Software", "software", "vertical SaaS", "UK", 2010, 1000.0, "platform", "", "carve-out", "none",
          None, "A vertical software company carved out of a corporate parent."),
    _deal(6, "Zeta Holdings", "healthcare", "", "US", 2022, None, "platform", "", "", "strategic sale", 2024,
          "Zeta Holdings was acquired by U in 2022."),
]


@pytest.fixture(scope="module")
def toy():
    u = make_universe("toy", TOY)
    e = np.eye(384, dtype=np.float32)
    vectors = np.vstack([e[0], (e[0] + e[1]) / np.sqrt(2), e[2], e[3], e[4], e[5]]).astype(np.float32)
    return build_index(u, vectors=vectors)


def test_the_typed_graph_has_each_edge_type_and_degree_by_hand(toy):
    g = toy.graph
    assert g.degree[0] == 9  # sector, subsector, region, origin, three add-ons, its exit event, its snippet
    assert g.degree[5] == 4  # sector, region, exit event, snippet: no subsector, no origin
    assert g.degree[g.index[("sector", "healthcare")]] == 5 and g.degree[g.index[("region", "UK")]] == 2
    assert {t for _, t in g.neighbours(0)} == {"IN_SECTOR", "IN_SUBSECTOR", "IN_REGION", "ORIGINATED_AS", "ADDON_TO",
                                               "EXITED_VIA", "DESCRIBED_IN"}
    assert sum(n.kind == "snippet" for n in g.nodes) == 5 and sum(n.kind == "event" for n in g.nodes) == 2


def test_the_walk_splits_exactly_into_its_cues_and_a_filter_walks_the_graph_without_the_deals_it_drops(toy):
    g = toy.graph
    groups = seed_groups(g, Criteria(sectors=("healthcare",), regions=("US",), exits=("IPO",)))
    assert [x.label for x in groups] == ["healthcare", "US", "exited by IPO"]
    w = walk(g, groups)
    assert np.allclose(w.parts.sum(axis=1), w.scores, atol=1e-15, rtol=0)
    # the same scores from a fresh PPR of the whole seed vector
    s = np.zeros(len(g.nodes))
    for grp in groups:
        s[list(grp.nodes)] += 1 / (len(grp.nodes) * len(groups))
    assert np.allclose(personalized_pagerank(g.W, s).scores[:6], w.scores, atol=1e-12)
    # a filter keeping deals 0, 1, 5: the walk runs on the graph without the others, their events and snippets
    kept = np.array([0, 1, 5])
    fw = walk(g, groups, kept)
    keep = [0, 1, 5] + [i for i, n in enumerate(g.nodes) if n.kind in ("sector", "subsector", "region", "origin")
                        or (n.kind in ("event", "snippet") and n.deal in (0, 1, 5))]
    sub = column_normalize(g.A[keep][:, keep])
    s = np.zeros(len(keep))
    for grp in groups:
        nodes = [keep.index(v) for v in grp.nodes if v in keep]
        s[nodes] += 1 / (len(nodes) * len(groups))
    assert np.allclose(personalized_pagerank(sub, s).scores[:3], fw.scores, atol=1e-12)
    assert not np.allclose(fw.scores, w.scores[kept])  # filtering first changes the walk, not only its output


def test_features_and_the_hand_weights_against_hand_computed_values(toy):
    cues = read_cues("US healthcare roll-ups")
    q = np.eye(384, dtype=np.float32)[0]
    cands = candidates(toy, "US healthcare roll-ups", q, cues)
    assert list(cands.rows) == [0, 1, 2, 3, 4, 5]
    t = build_features(toy, cands, cues)
    f = {name: t.x[0, j] for j, name in enumerate(NAMES)}
    assert f["text"] == pytest.approx(1.0) and t.x[1, NAMES.index("text")] == pytest.approx(1 / math.sqrt(2))
    assert (f["sector"], f["region"], f["add_ons"], f["exit"], f["degree"], f["platform"]) == (1, 1, 3, 1, 9, 1)
    assert f["sector_degree"] == pytest.approx(5 / 6) and f["region_degree"] == pytest.approx(4 / 6)
    # a banker reads why a common sector can weigh a deal down, not "share of the universe"
    assert feature_words(toy, t, 0, "sector_degree") == "how common its sector is (healthcare: 83% of the deals)"
    assert feature_words(toy, t, 0, "region_degree").startswith("how common its region is (")
    # asked: sector, region and a strategy; the description states the subsector (so the sector) and the US, not
    # three add-ons ("made 3 add-on acquisitions" is a count, which a description's reading leaves to the record)
    assert f["alignment"] == pytest.approx(2 / 3)
    assert f["recency"] == pytest.approx(10 / 19) and f["size_fit"] == 1 and f["period"] == 1
    assert (f["subsector"], f["origin"], f["exit_route"], f["role"], f["add_ons_fit"], f["cues_met"]) == (
        0, 0, 0, 1, 1, 1)
    zeta = {name: t.x[5, j] for j, name in enumerate(NAMES)}
    assert (zeta["text"], zeta["add_ons"], zeta["degree"], zeta["alignment"], zeta["cues_met"]) == (0, 0, 4, 0, 0.75)
    assert zeta["recency"] == pytest.approx(17 / 19)
    assert f["walk"] == 1.0 and 0 <= zeta["walk"] < 1  # against the best candidate
    hand = hand_parts(t)
    assert hand.features == ("text", "sector", "region", "add_ons", "exit", "platform", "recency")
    assert hand.scores[0] == pytest.approx(0.4 + 0.2 + 0.15 + 0.1 * 0.3 + 0.05 + 0.05 + 0.05 * 10 / 19, abs=1e-12)
    for p in (hand, dense_parts(t), walk_parts(cands)):
        assert np.abs(p.base + p.parts.sum(axis=1) - p.scores).max() <= 1e-12
    assert dense_parts(t).scores[1] == pytest.approx(1 / math.sqrt(2))


def test_size_and_period_fit_by_hand(toy):
    cues = read_cues("software deals over $2bn between 2012 and 2014")
    q = np.eye(384, dtype=np.float32)[4]
    t = build_features(toy, candidates(toy, "x", q, cues), cues)
    row = list(t.rows).index(4)  # Epsilon: $1,000m, 2010
    assert t.column("size_fit")[row] == pytest.approx(math.exp(-1))  # half the floor: one doubling short
    assert t.column("period")[row] == pytest.approx(math.exp(-1))  # two years early: the decay halves years
    assert t.column("size_fit")[list(t.rows).index(5)] == 0.5  # Zeta states no size


def test_filters_are_pushed_into_candidate_generation_and_an_empty_pool_is_named(toy):
    cues = read_cues("dental deals")
    q = np.eye(384, dtype=np.float32)[0]  # Alpha Dental (US) is the best deal overall by far
    uk = candidates(toy, "dental deals", q, cues, DealFilters(regions=("UK",)), per_source=1)
    assert set(uk.rows) <= {2, 4} and uk.kept == 2
    # dense's top 1 is taken among the UK deals, not from the whole universe and then dropped
    assert dict(uk.sources)["dense"] == 1
    with pytest.raises(PathLensError, match=r"the filters \(software · US\) leave no deal of toy to rank; each alone "
                                            r"keeps software: 1; US: 4 of 6 deals"):
        candidates(toy, "x", q, cues, DealFilters(sectors=("software",), regions=("US",)))
    with pytest.raises(PathLensError, match="filter region: 'Mars'"):
        DealFilters(regions=("Mars",))
    with pytest.raises(PathLensError, match="filter years: 2020 is after 2010"):
        DealFilters(year_from=2020, year_to=2010)


def test_hand_weights_must_sum_to_one():
    assert sum(vars(HandWeights()).values()) == pytest.approx(1.0)
    with pytest.raises(PathLensError, match="hand weights must sum to 1"):
        HandWeights(text=0.5)


def test_precision_and_ndcg_by_hand():
    assert precision_at(["a", "b", "c", "d"], frozenset({"a", "c"}), 3) == pytest.approx(2 / 3)
    assert precision_at(["a"], frozenset({"a"}), 3) == pytest.approx(1 / 3)  # fewer than 3 ranked: k divides
    assert ndcg_at(["x", "a"], frozenset({"a"}), 10) == pytest.approx(1 / math.log2(3))
    assert ndcg_at(["a", "x", "b"], frozenset({"a", "b"}), 10) == pytest.approx((1 + 0.5) / (1 + 1 / math.log2(3)))
    assert ndcg_at([], frozenset({"a"}), 10) == 0.0
