"""A seeded generator that grows the data room's world to any size.

The hand-written core (corpora/dataroom-core) is the world's first page; this module adds
more funds, each with its general partner, limited partners, portfolio companies,
lenders and people, written out as the passages a data room holds: quarterly reports,
capital-account statements, portfolio updates, credit agreements and GP letters. Some
names are shared with the core (Halvorsen State Pension Fund invests everywhere, Calder
Bank lends to many), which is what makes a larger data room harder to search.

Everything is drawn from `random.Random(seed)`, so a seed and a size give the same passages.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .passage import Passage
from ..errors import PathLensError

PREFIXES = ("Aspen", "Birchwood", "Cobalt", "Driftwood", "Ember", "Falconer", "Granite", "Harrow", "Ironwood",
            "Kittering", "Lantern", "Meridian", "Nimbus", "Oakmont", "Pinecrest", "Quillon", "Redwater", "Summitry",
            "Tidewater", "Umberly", "Vireo", "Willowmere", "Yarrowby", "Zephyrine", "Ashcombe", "Bellhaven",
            "Copperline", "Dunmore", "Eastwick", "Fernhill", "Glenrock", "Hollis", "Inglewood", "Kingsford")
STEMS = ("Ridge", "Point", "Crest", "Lake", "Hill", "Bay", "Field", "Stone", "Gate", "Brook")
ROMAN = ("II", "III", "IV", "V", "VI", "VII")
SECTORS = ("logistics", "healthcare services", "vertical software", "specialty chemicals", "food manufacturing",
           "industrial technology", "business services", "consumer brands")
COMPANY_A = ("Blue", "Silver", "Granite", "Harbor", "Cedar", "Summit", "Prairie", "Coastal", "Northgate", "Ridgeline",
             "Lakeshore", "Highland", "Keystone", "Evergreen", "Westfield", "Clearwater", "Redstone", "Ironbridge")
COMPANY_B = ("Fabrication", "Analytics", "Dental Group", "Cold Chain", "Pharmacy Services", "Packaging", "Foods",
             "Metering", "Therapeutics", "Controls", "Freight", "Veterinary Partners", "Labs", "Coatings", "Systems",
             "Home Services", "Robotics", "Water Solutions")
CORE_LPS = ("Halvorsen State Pension Fund", "Cedar Point University Endowment", "Osprey Mutual Insurance Company",
            "Marlowe Family Office")
LP_PLACES = ("Alder County", "Brandt State", "Carrow City", "Delmont", "Evanston Teachers", "Fairholm", "Greystone",
             "Hadley Municipal", "Ivers", "Jessup State", "Kearny", "Lowell Firefighters")
LP_KINDS = ("Retirement System", "Pension Plan", "Endowment", "Foundation", "Insurance Company", "Family Office")
CORE_LENDERS = ("Calder Bank, N.A.", "Fenwick Credit Partners", "Harbor & Stone Capital")
LENDERS = ("Ashgrove Bank, N.A.", "Tolland Credit Partners", "Marchetti Capital", "Pelham Direct Lending",
           "Vantor Bank, N.A.", "Brixham Credit Fund")
FIRST = ("Avery", "Blake", "Carmen", "Devon", "Elena", "Farid", "Grace", "Hiro", "Imani", "Jonas", "Keira", "Luis",
         "Maren", "Nikhil", "Olivia", "Pavel", "Quinn", "Rosa", "Soren", "Tamar", "Uma", "Victor", "Wen", "Yusuf")
LAST = ("Abernathy", "Bellamy", "Castellano", "Drummond", "Eriksen", "Fairbanks", "Gallagher", "Hollander",
        "Ishikawa", "Jankowski", "Kowalczyk", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Pemberton", "Quintero",
        "Rasmussen", "Sandoval", "Thornbury", "Ulrich", "Valdez", "Whitfield", "Yamamoto")
QUARTERS = ("Q1 2024", "Q2 2024", "Q3 2024", "Q4 2023")


@dataclass(frozen=True)
class Company:
    name: str
    sector: str
    ceo: str
    cfo: str
    lender: str
    city: str


def _change(pct: int) -> str:
    return f"grew {pct}%" if pct >= 0 else f"fell {-pct}%"


def _money(rng: random.Random, lo: int, hi: int) -> int:
    return rng.randrange(lo, hi) * 250_000


def _fund_passages(rng: random.Random, n: int, base: str) -> list[Passage]:
    numeral = rng.choice(ROMAN)
    fund = f"{base} Capital Partners {numeral}, L.P."
    short = f"{base} {numeral}"
    gp = f"{base} Capital Management LLC"
    partner = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    size = rng.randrange(3, 40) * 50
    sectors = rng.sample(SECTORS, 2)
    lps = rng.sample(CORE_LPS, 2) + [f"{rng.choice(LP_PLACES)} {rng.choice(LP_KINDS)}" for _ in range(3)]
    lps = list(dict.fromkeys(lps))
    companies = []
    for _ in range(rng.randrange(3, 6)):
        name = f"{rng.choice(COMPANY_A)} {rng.choice(COMPANY_B)}"
        if any(c.name == name for c in companies):
            continue
        companies.append(Company(name, rng.choice(sectors), f"{rng.choice(FIRST)} {rng.choice(LAST)}",
                                 f"{rng.choice(FIRST)} {rng.choice(LAST)}",
                                 rng.choice(CORE_LENDERS + LENDERS), rng.choice(("Dayton", "Tulsa", "Boise", "Reno",
                                                                                "Akron", "Fresno", "Omaha", "Spokane"))))
    doc = f"gen/{n:04d}-{base.lower().replace(' ', '-')}"
    out: list[Passage] = []

    def add(kind: str, title: str, text: str) -> None:
        out.append(Passage(f"{doc}/{kind}#{sum(p.doc_id == f'{doc}/{kind}' for p in out):04d}", f"{doc}/{kind}",
                           title, text))

    add("lpa", f"{fund} — Fund Overview",
        f'{fund} (the "Fund") is a Delaware limited partnership managed by {gp} (the "General Partner"). '
        f"The Fund closed on ${size:,} million of commitments and invests in {sectors[0]} and {sectors[1]} businesses. "
        f"{partner} is Managing Partner of {gp}.")
    for q in QUARTERS:
        called = rng.randrange(30, 95)
        irr = rng.randrange(40, 260) / 10
        title = f"{fund} — Quarterly Report, {q}"
        add(f"report-{q[:2].lower()}", title,
            f"As of the end of {q} the Fund had called {called}% of commitments. Net asset value was "
            f"${rng.randrange(size // 2, size * 2)} million, a gross multiple of {rng.randrange(100, 260) / 100:.2f}x "
            f"and a net internal rate of return of {irr}% since inception.")
        add(f"report-{q[:2].lower()}", title,
            f"Portfolio summary. The Fund holds {len(companies)} platform companies: "
            + ", ".join(c.name for c in companies) + f". {companies[0].name} is the largest position.")
        for c in companies:
            add(f"report-{q[:2].lower()}", title,
                f"{c.name}. The company operates in {c.sector}. Revenue for {q} "
                f"{_change(rng.randrange(-8, 30))} year over year to ${rng.randrange(8, 120)}.{rng.randrange(10)} million. "
                f"{c.ceo}, Chief Executive Officer, expects margin expansion as the {c.city} site ramps.")
        for lp in lps:
            commit = _money(rng, 20, 600)
            paid = int(commit * called / 100)
            add(f"capital-accounts-{q[:2].lower()}", f"{fund} — Capital Account Statements, {q}",
                f"Capital Account Statement — {lp}. Commitment {commit:,} Contributions to date {paid:,} "
                f"Distributions to date {int(paid * rng.randrange(5, 40) / 100):,} Unfunded commitment {commit - paid:,}.")
    for c in companies:
        lev = rng.choice(("4.50", "4.75", "5.00", "5.25", "5.50", "6.00"))
        add(f"credit-{c.name.lower().replace(' ', '-')}", f"Credit Agreement — {c.name} Holdings, LLC",
            f'Credit Agreement among {c.name} Holdings, LLC (the "Borrower") and {c.lender} as Administrative Agent, '
            f"providing a ${rng.randrange(40, 400)},000,000 senior secured term loan. The Borrower shall not permit "
            f"the Total Net Leverage Ratio to exceed {lev} to 1.00 and the Fixed Charge Coverage Ratio to be less than "
            f"{rng.choice(('1.10', '1.15', '1.20', '1.25'))} to 1.00. The Sponsor means {fund}.")
        add(f"update-{c.name.lower().replace(' ', '-')}", f"{c.name} — Portfolio Company Update",
            f"{c.cfo}, Chief Financial Officer of {c.name}, presented results to the board. Consolidated EBITDA was "
            f"${rng.randrange(3, 60)}.{rng.randrange(10)} million and the Total Net Leverage Ratio "
            f"{rng.randrange(300, 600) / 100:.2f}x. The company is in discussions with {c.lender} on an incremental "
            f"facility for a new site in {c.city}.")
    add("gp-letter", f"Letter from the Managing Partner — {gp}",
        f"Dear Partners, I am {partner}, Managing Partner of {gp}. We expect a first close of {base} Capital Partners "
        f"{ROMAN[(ROMAN.index(numeral) + 1) % len(ROMAN)]}, L.P. next year. Under the {short} partnership agreement a "
        f"Key Person Event occurs if {partner} ceases to devote substantially all business time to the Fund.")
    return out


def generate_passages(size: int, seed: int) -> list[Passage]:
    """The first `size` generated passages of the world drawn from `seed`, fund by fund."""
    if size < 0:
        raise PathLensError(f"generated size must be 0 or more, got {size}")
    rng = random.Random(seed)
    bases = [f"{p} {s}" for p in PREFIXES for s in STEMS]
    rng.shuffle(bases)
    out: list[Passage] = []
    n = 0
    while len(out) < size:
        # every fund family has its own name; past the name pool, families are numbered
        base = bases[n % len(bases)] + (f" {n // len(bases) + 1}" if n >= len(bases) else "")
        out.extend(_fund_passages(rng, n, base))
        n += 1
    return out[:size]
