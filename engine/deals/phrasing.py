"""Each template family's words (`templates`): how a banker's shorthand (A), a full question (B), a comps request
(C), an exit-focused ask (D), a memo line (E) and plain English (F) say a subsector, a sector, a region, a strategy,
an origin and an exit. Written per family, in its own register; many are words the lexicon does not know."""

from __future__ import annotations

import random

from .model import SECTORS
from .prose import SUBSECTOR_PHRASES

SHORT = {  # A: shorthand
    "dental practices": ("dental", "DSO"), "veterinary clinics": ("vet", "veterinary"),
    "physician practices": ("physician groups", "PPM"), "home health": ("home health", "home care"),
    "behavioral health": ("behavioral health", "BH"), "medical devices": ("medtech", "med device"),
    "vertical SaaS": ("vertical SaaS", "vSaaS"), "cybersecurity": ("cyber", "security software"),
    "payments software": ("payments", "paytech"), "data analytics": ("analytics", "data & analytics"),
    "HR software": ("HR tech", "HCM"), "specialty chemicals": ("spec chem", "specialty chem"),
    "precision machining": ("machining", "precision parts"), "building products": ("building products", "BP"),
    "packaging": ("packaging", "pack"), "testing & inspection": ("TIC", "testing"), "pet products": ("pet", "petcare"),
    "beauty & personal care": ("beauty", "BPC"), "fitness": ("fitness", "gyms"), "restaurants": ("restaurants", "QSR"),
    "specialty retail": ("specialty retail", "retail"), "IT services": ("MSP", "IT services"),
    "staffing": ("staffing", "recruitment"), "facility services": ("FM", "facility services"),
    "marketing services": ("agency", "marketing services"), "compliance services": ("compliance", "GRC"),
    "insurance brokerage": ("insurance broking", "brokers"), "wealth management": ("wealth", "RIA"),
    "specialty lending": ("spec fin", "specialty finance"), "fund administration": ("fund admin", "fund services"),
    "renewables developer": ("renewables", "solar/wind dev"), "oilfield services": ("OFS", "oilfield"),
    "energy efficiency services": ("ESCO", "energy efficiency"),
    "utility services": ("utility services", "utility contractors"), "snacks": ("snacks", "salty snacks"),
    "beverages": ("bev", "beverages"), "food ingredients": ("ingredients", "flavours"),
    "private-label foods": ("private label", "PL food"), "freight brokerage": ("freight brokerage", "brokerage"),
    "cold storage": ("cold storage", "cold chain"), "last-mile delivery": ("last mile", "final mile"),
    "third-party logistics": ("3PL", "contract logistics"), "K-12 schools": ("K-12", "schools"),
    "vocational training": ("vocational", "VET"), "e-learning": ("e-learning", "edtech"),
    "childcare": ("childcare", "ECE"),
}
FORMAL = {  # E: industry titles, as a classification writes them
    "dental practices": "offices of dentists", "veterinary clinics": "veterinary services",
    "physician practices": "offices of physicians", "home health": "home health care services",
    "behavioral health": "outpatient mental health and substance abuse centers",
    "medical devices": "surgical and medical instrument manufacturing",
    "vertical SaaS": "industry-specific application software", "cybersecurity": "information security services",
    "payments software": "financial transactions processing", "data analytics": "data processing and analytics",
    "HR software": "human capital management software", "specialty chemicals": "other chemical product manufacturing",
    "precision machining": "machine shops", "building products": "building material manufacturing",
    "packaging": "packaging manufacturing", "testing & inspection": "testing laboratories and services",
    "pet products": "pet food and supplies", "beauty & personal care": "personal care products",
    "fitness": "fitness and recreational sports centers", "restaurants": "food services and drinking places",
    "specialty retail": "miscellaneous store retailers", "IT services": "computer systems design services",
    "staffing": "employment services", "facility services": "services to buildings and dwellings",
    "marketing services": "advertising and public relations services",
    "compliance services": "management consulting (compliance)",
    "insurance brokerage": "insurance agencies and brokerages",
    "wealth management": "portfolio management and investment advice",
    "specialty lending": "nondepository credit intermediation",
    "fund administration": "trust, fiduciary and custody activities",
    "renewables developer": "solar and wind electric power generation",
    "oilfield services": "support activities for oil and gas operations",
    "energy efficiency services": "energy efficiency contracting", "utility services": "utility system construction",
    "snacks": "snack food manufacturing", "beverages": "beverage manufacturing",
    "food ingredients": "spice and extract manufacturing", "private-label foods": "private label food manufacturing",
    "freight brokerage": "freight transportation arrangement", "cold storage": "refrigerated warehousing and storage",
    "last-mile delivery": "couriers and express delivery services",
    "third-party logistics": "third-party logistics services", "K-12 schools": "elementary and secondary schools",
    "vocational training": "technical and trade schools", "e-learning": "computer training and online education",
    "childcare": "child day care services",
}
PLAIN = {  # F: plain English
    "dental practices": ("dentists", "dental offices"), "veterinary clinics": ("animal hospitals", "vets"),
    "physician practices": ("doctors' offices", "family doctors"),
    "home health": ("nurses who visit people at home", "home care for the elderly"),
    "behavioral health": ("mental health clinics", "rehab centres"),
    "medical devices": ("companies that make medical equipment",), "vertical SaaS": ("software for one kind of business",),
    "cybersecurity": ("companies that protect computers from hackers", "anti-hacking software"),
    "payments software": ("card payment software", "companies that process payments"),
    "data analytics": ("data crunching companies",), "HR software": ("payroll software", "software for HR departments"),
    "specialty chemicals": ("chemical makers", "paint and coatings makers"),
    "precision machining": ("metal parts makers", "machine shops"),
    "building products": ("makers of windows, doors and roofs",),
    "packaging": ("box and bottle makers", "packaging makers"),
    "testing & inspection": ("companies that inspect and certify things", "testing labs"),
    "pet products": ("pet food makers", "pet supply companies"), "beauty & personal care": ("makeup and skincare brands",),
    "fitness": ("gyms", "health clubs"), "restaurants": ("restaurant chains", "places to eat"),
    "specialty retail": ("specialist shops", "store chains"),
    "IT services": ("computer support companies", "tech support firms"), "staffing": ("temp agencies", "recruiters"),
    "facility services": ("cleaning and maintenance companies",),
    "marketing services": ("ad agencies", "marketing agencies"),
    "compliance services": ("regulatory consultants",), "insurance brokerage": ("insurance brokers", "insurance agents"),
    "wealth management": ("financial advisers", "money managers for rich families"),
    "specialty lending": ("non-bank lenders", "specialist lenders"),
    "fund administration": ("back-office firms for investment funds",),
    "renewables developer": ("solar and wind farm builders",), "oilfield services": ("oil drilling service firms",),
    "energy efficiency services": ("companies that cut energy bills", "energy-saving contractors"),
    "utility services": ("contractors for power and water companies",), "snacks": ("chips and snack makers",),
    "beverages": ("drinks makers", "soft drink companies"), "food ingredients": ("flavour and ingredient suppliers",),
    "private-label foods": ("store-brand food makers", "supermarket own-brand food makers"),
    "freight brokerage": ("trucking brokers", "freight brokers"),
    "cold storage": ("refrigerated warehouses", "cold warehouses"),
    "last-mile delivery": ("parcel delivery companies", "couriers"),
    "third-party logistics": ("outsourced warehousing and shipping companies",),
    "K-12 schools": ("private schools", "school chains"),
    "vocational training": ("trade schools", "job training colleges"),
    "e-learning": ("online course companies",), "childcare": ("daycare centres", "nurseries"),
}
_GICS = {"healthcare": "Health Care", "software": "Software & Services", "industrials": "Industrials",
         "consumer": "Consumer Discretionary", "business services": "Commercial & Professional Services",
         "financial services": "Financials", "energy": "Energy", "food & beverage": "Food, Beverage & Tobacco",
         "logistics": "Transportation", "education": "Educational Services"}
_PLAIN_SECTORS = {"healthcare": ("health companies", "medical businesses"),
                  "software": ("software companies", "tech companies"), "industrials": ("factories", "manufacturers"),
                  "consumer": ("consumer brands", "companies selling to shoppers"),
                  "business services": ("companies that serve other businesses",),
                  "financial services": ("money businesses", "finance companies"), "energy": ("energy companies",),
                  "food & beverage": ("food and drink companies",),
                  "logistics": ("shipping and trucking companies",), "education": ("schools and training companies",)}
_SHORT_SECTORS = {"healthcare": ("healthcare", "HC"), "software": ("software", "SaaS"), "industrials": ("industrials",),
                  "consumer": ("consumer",), "business services": ("business services", "BS"),
                  "financial services": ("FS", "fin services"), "energy": ("energy", "power"),
                  "food & beverage": ("F&B", "food"), "logistics": ("logistics", "T&L"), "education": ("education", "edu")}
SECTOR_WORDS = {
    "A": _SHORT_SECTORS, "B": {s: (s,) for s in SECTORS}, "C": {s: (f"a business in {s}",) for s in SECTORS},
    "D": {s: (s,) for s in SECTORS}, "E": {s: (_GICS[s],) for s in SECTORS}, "F": _PLAIN_SECTORS,
}
REGION_WORDS = {
    "A": {"US": ("US",), "Canada": ("Canada", "CA"), "UK": ("UK",), "DACH": ("DACH",), "Nordics": ("Nordics", "Nordic"),
          "France & Benelux": ("France/Benelux", "FR & Benelux"), "APAC": ("APAC",)},
    "B": {"US": ("the United States", "the US"), "Canada": ("Canada",), "UK": ("the UK", "Britain"),
          "DACH": ("the DACH region", "Germany, Austria or Switzerland"), "Nordics": ("the Nordics", "Scandinavia"),
          "France & Benelux": ("France or the Benelux",), "APAC": ("Asia-Pacific", "APAC")},
    "C": {"US": ("in the US", "in America", "based in Chicago"), "Canada": ("in Canada", "in Ontario"),
          "UK": ("in the UK", "in London"), "DACH": ("in Germany", "in Switzerland", "in Austria"),
          "Nordics": ("in Sweden", "in Denmark", "in Norway"),
          "France & Benelux": ("in France", "in the Netherlands", "in Belgium"),
          "APAC": ("in Australia", "in Singapore", "in Japan")},
    "D": {"US": ("the US", "the States"), "Canada": ("Canada",), "UK": ("the UK", "Great Britain"),
          "DACH": ("DACH", "German-speaking Europe"), "Nordics": ("the Nordic countries", "Scandinavia"),
          "France & Benelux": ("France and Benelux", "the Low Countries or France"),
          "APAC": ("Asia Pacific", "Australia and Asia")},
    "E": {"US": ("United States",), "Canada": ("Canada",), "UK": ("United Kingdom",), "DACH": ("DACH",),
          "Nordics": ("Nordic region",), "France & Benelux": ("France & Benelux",), "APAC": ("Asia-Pacific",)},
    "F": {"US": ("in America", "in the States"), "Canada": ("in Canada",), "UK": ("in England", "in Britain"),
          "DACH": ("in Germany or Austria", "in German-speaking countries"),
          "Nordics": ("up in Scandinavia", "in the Nordic countries"),
          "France & Benelux": ("in France or Holland", "in France, Belgium or Holland"),
          "APAC": ("in Asia", "in Australia or Asia")},
}
STRATEGY_WORDS = {
    "A": {"roll-up": ("roll-ups", "buy-and-builds"), "aggressive": ("serial acquirers", "aggressive roll-ups"),
          "add-on": ("add-ons", "bolt-ons"), "platform": ("platforms", "platform deals")},
    "B": {"roll-up": ("platforms that made at least {n} add-ons", "that were buy-and-build platforms"),
          "aggressive": ("platforms with {n}+ add-ons", "that ran an aggressive add-on strategy"),
          "add-on": ("that were add-on acquisitions", "bought as bolt-ons"),
          "platform": ("that were platform investments", "done as platforms")},
    "C": {"roll-up": ("as a platform for add-ons", "that we'd grow by acquisition"),
          "aggressive": ("with an aggressive bolt-on plan",), "add-on": ("as a tuck-in for our platform",),
          "platform": ("as a new platform", "as a platform investment")},
    "E": {"roll-up": ("buy-and-build (3+ add-ons)", "roll-up"), "aggressive": ("aggressive buy-and-build (6+ add-ons)",),
          "platform": ("platform",)},
    "F": {"roll-up": ("that bought lots of smaller companies", "that grew by buying competitors"),
          "aggressive": ("that bought a huge number of other companies",),
          "add-on": ("that were bought by a bigger group", "that got swallowed by a bigger company"),
          "platform": ("that an investor bought as a base to build on",)},
}
ORIGIN_WORDS = {
    "A": {"carve-out": ("carve-outs",), "take-private": ("P2Ps", "take-privates"), "secondary": ("SBOs", "secondaries"),
          "founder-owned": ("founder-owned", "founder-led"), "family-owned": ("family-owned", "family")},
    "C": {"carve-out": ("that a corporate is carving out", "a divestiture from a corporate"),
          "take-private": ("that is listed and could be taken private",), "secondary": ("owned by another fund",),
          "founder-owned": ("that is founder-led", "still run by its founder"),
          "family-owned": ("owned by a family", "a family business")},
    "E": {"carve-out": ("corporate carve-out",), "take-private": ("public-to-private",),
          "secondary": ("secondary buyout",), "founder-owned": ("founder-owned",), "family-owned": ("family-owned",)},
    "F": {"carve-out": ("that a big company sold off",), "take-private": ("that used to be on the stock market",),
          "secondary": ("bought from another investment firm",),
          "founder-owned": ("still run by the person who started it",), "family-owned": ("owned by a family",)},
}
EXIT_WORDS = {
    "B": {"IPO": ("that exited via IPO", "that went public"),
          "strategic sale": ("that exited to a strategic buyer", "sold in a trade sale"),
          "secondary buyout": ("exited in a secondary buyout", "sold to another sponsor"),
          "none": ("still in the portfolio", "that are still held"), "any": ("that have exited", "that were realized")},
    "D": {"IPO": ("that IPO'd", "that listed on a stock exchange", "taken public at exit"),
          "strategic sale": ("sold to a strategic", "that ended in a trade sale", "exited to a corporate buyer"),
          "secondary buyout": ("sold to another sponsor", "flipped to another PE firm", "exited via a secondary buyout"),
          "none": ("the sponsor still holds", "not yet exited"), "any": ("that have been realized", "already exited")},
    "F": {"IPO": ("that went on the stock market", "that sold shares to the public"),
          "strategic sale": ("that were sold to a bigger company in the same business",),
          "secondary buyout": ("that were sold to another investment firm",),
          "none": ("that the owner hasn't sold yet",), "any": ("that have been sold since",)},
}


def subsector_words(rng: random.Random, family: str, subsector: str) -> str:
    """How `family` names a subsector."""
    if family == "A":
        return rng.choice(SHORT[subsector])
    if family == "C":
        return rng.choice(SUBSECTOR_PHRASES[subsector])
    if family == "E":
        return FORMAL[subsector]
    if family == "F":
        return rng.choice(PLAIN[subsector])
    return subsector  # B and D name it as the universe does


__all__ = ["EXIT_WORDS", "ORIGIN_WORDS", "REGION_WORDS", "SECTOR_WORDS", "STRATEGY_WORDS", "subsector_words"]
