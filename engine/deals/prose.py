"""Words for the generated deals: company names, cities, and the sentences of their descriptions.

Explicit descriptions state a fact only sometimes (a deal database's notes are uneven); vague ones never name a
sector, a strategy or an origin; misleading-ish ones promise a consolidation that the structure does not show.
"""

from __future__ import annotations

import random

from ..ingest.worldgen import COMPANY_A

NAME_WORDS = COMPANY_A + (
    "Aurora", "Beacon", "Crescent", "Bridgewater", "Canyon", "Foxglove", "Juniper", "Kestrel", "Larkspur", "Mariner",
    "Northstar", "Oakridge", "Pioneer", "Quarry", "Riverside", "Sable", "Thistle", "Upland", "Vantage", "Wexford",
    "Alder", "Bramble", "Cypress", "Dovetail", "Elmstead", "Fairway", "Greenleaf", "Heron", "Ivy", "Jasper",
    "Kingfisher", "Linden", "Meadow", "Nettle", "Orchard", "Pembrook", "Quill", "Rowan", "Sterling", "Tamarack",
    "Union", "Verity", "Windrose", "Yardley", "Zenith")
NEUTRAL_NOUNS = ("Holdings", "Group", "Partners", "Industries", "Enterprises", "Companies", "Brands", "International",
                 "Corporation", "Associates", "Ventures", "Alliance")
SUBSECTOR_NOUNS = {
    "dental practices": ("Dental Partners", "Smile Group", "Dental Care"),
    "veterinary clinics": ("Veterinary Partners", "Animal Hospitals", "Vet Group"),
    "physician practices": ("Physician Partners", "Medical Group", "Primary Care"),
    "home health": ("Home Health", "Home Care", "Care at Home"),
    "behavioral health": ("Behavioral Health", "Recovery Centers", "Mental Health"),
    "medical devices": ("Medical", "Surgical", "Medtech"),
    "vertical SaaS": ("Software", "Cloud", "Systems"),
    "cybersecurity": ("Security", "Cyber", "Defense Systems"),
    "payments software": ("Payments", "Pay", "Transaction Systems"),
    "data analytics": ("Analytics", "Data", "Insights"),
    "HR software": ("HR", "Workforce Software", "Payroll"),
    "specialty chemicals": ("Chemicals", "Coatings", "Polymers"),
    "precision machining": ("Machining", "Precision", "Components"),
    "building products": ("Building Products", "Windows & Doors", "Roofing"),
    "packaging": ("Packaging", "Containers", "Pack"),
    "testing & inspection": ("Testing", "Inspection", "Labs"),
    "pet products": ("Pet", "Pet Foods", "Paws"),
    "beauty & personal care": ("Beauty", "Cosmetics", "Skincare"),
    "fitness": ("Fitness", "Gyms", "Athletic Clubs"),
    "restaurants": ("Restaurants", "Kitchen", "Grill"),
    "specialty retail": ("Outfitters", "Stores", "Retail"),
    "IT services": ("IT Services", "Technologies", "Tech Solutions"),
    "staffing": ("Staffing", "Talent", "Recruitment"),
    "facility services": ("Facility Services", "Cleaning", "Maintenance"),
    "marketing services": ("Marketing", "Media", "Agency"),
    "compliance services": ("Compliance", "Risk Services", "Regulatory"),
    "insurance brokerage": ("Insurance", "Insurance Brokers", "Risk Partners"),
    "wealth management": ("Wealth", "Wealth Advisors", "Private Wealth"),
    "specialty lending": ("Credit", "Finance", "Lending"),
    "fund administration": ("Fund Services", "Fund Administration", "Trust Services"),
    "renewables developer": ("Renewables", "Solar", "Wind"),
    "oilfield services": ("Oilfield Services", "Drilling", "Well Services"),
    "energy efficiency services": ("Energy Services", "Efficiency", "Lighting"),
    "utility services": ("Utility Services", "Utilities", "Power Services"),
    "snacks": ("Snacks", "Chips", "Bakery"),
    "beverages": ("Beverages", "Drinks", "Brewing"),
    "food ingredients": ("Ingredients", "Flavors", "Spices"),
    "private-label foods": ("Foods", "Food Co", "Kitchens"),
    "freight brokerage": ("Freight", "Brokerage", "Transport"),
    "cold storage": ("Cold Storage", "Cold Chain", "Frozen Logistics"),
    "last-mile delivery": ("Delivery", "Couriers", "Express"),
    "third-party logistics": ("Logistics", "Supply Chain", "Distribution"),
    "K-12 schools": ("Schools", "Academy", "Learning"),
    "vocational training": ("Training", "Institute", "Skills"),
    "e-learning": ("Online Learning", "Edtech", "Learn"),
    "childcare": ("Childcare", "Early Learning", "Nurseries"),
}
# what a description calls the business: a phrase that names its subsector in an analyst's words
SUBSECTOR_PHRASES = {
    "dental practices": ("a group of dental practices", "a dental support organisation", "a network of dental offices"),
    "veterinary clinics": ("a group of veterinary clinics", "an operator of animal hospitals",
                           "a veterinary practice network"),
    "physician practices": ("a physician practice group", "a primary care physician network",
                            "a multi-specialty medical group"),
    "home health": ("a home health agency", "a provider of home care services", "a home health and hospice provider"),
    "behavioral health": ("a behavioral health provider", "an operator of addiction treatment centres",
                          "a mental health clinic network"),
    "medical devices": ("a medical device manufacturer", "a maker of surgical instruments", "a medtech company"),
    "vertical SaaS": ("a vertical software company", "a SaaS provider for one industry",
                      "an industry-specific software vendor"),
    "cybersecurity": ("a cybersecurity software company", "a managed security provider", "a cyber defence business"),
    "payments software": ("a payments software provider", "a payment processing platform",
                          "an integrated payments company"),
    "data analytics": ("a data analytics company", "a business intelligence provider", "an analytics software vendor"),
    "HR software": ("an HR software company", "a payroll and HR software provider",
                    "a workforce management software vendor"),
    "specialty chemicals": ("a specialty chemicals producer", "a maker of coatings and additives",
                            "a specialty chemical company"),
    "precision machining": ("a precision machining business", "a CNC machining supplier",
                            "a precision components manufacturer"),
    "building products": ("a building products manufacturer", "a maker of windows and doors",
                          "a supplier of roofing products"),
    "packaging": ("a packaging manufacturer", "a maker of flexible packaging", "a rigid packaging producer"),
    "testing & inspection": ("a testing and inspection company", "a testing, inspection and certification provider",
                             "an independent testing laboratory"),
    "pet products": ("a pet products company", "a pet food and treats brand", "a maker of pet supplies"),
    "beauty & personal care": ("a beauty and personal care brand", "a cosmetics company", "a skincare brand"),
    "fitness": ("a fitness club operator", "a gym chain", "a boutique fitness brand"),
    "restaurants": ("a restaurant chain", "a casual dining operator", "a quick-service restaurant franchisor"),
    "specialty retail": ("a specialty retailer", "a speciality retail chain", "an outdoor goods retailer"),
    "IT services": ("an IT services provider", "a managed IT services company", "an IT consulting firm"),
    "staffing": ("a staffing company", "a recruitment agency", "a temporary staffing provider"),
    "facility services": ("a facility services company", "a provider of cleaning and maintenance services",
                          "a facilities management business"),
    "marketing services": ("a marketing services agency", "a digital marketing agency",
                           "a marketing and communications group"),
    "compliance services": ("a compliance services provider", "a regulatory compliance consultancy",
                            "a risk and compliance services firm"),
    "insurance brokerage": ("an insurance brokerage", "an independent insurance broker",
                            "a commercial insurance agency"),
    "wealth management": ("a wealth management firm", "a registered investment adviser",
                          "a financial planning and wealth advisory firm"),
    "specialty lending": ("a specialty lender", "a specialty finance company", "a non-bank lender"),
    "fund administration": ("a fund administrator", "a fund administration services provider",
                            "a provider of fund accounting and administration"),
    "renewables developer": ("a renewable energy developer", "a solar and wind project developer",
                             "a renewables platform"),
    "oilfield services": ("an oilfield services company", "a provider of drilling services",
                          "an oil and gas services business"),
    "energy efficiency services": ("an energy efficiency services company", "an energy services company",
                                   "a provider of energy retrofits"),
    "utility services": ("a utility services contractor", "a provider of utility infrastructure services",
                         "a utility maintenance business"),
    "snacks": ("a snack food maker", "a snacks brand", "a maker of chips and crackers"),
    "beverages": ("a beverage company", "a drinks brand", "a beverage producer"),
    "food ingredients": ("a food ingredients supplier", "a maker of flavours and ingredients",
                         "a food ingredients company"),
    "private-label foods": ("a private-label food manufacturer", "a maker of store-brand foods",
                            "a private label food producer"),
    "freight brokerage": ("a freight brokerage", "a truckload freight broker", "a freight brokerage and logistics firm"),
    "cold storage": ("a cold storage operator", "a temperature-controlled warehousing business",
                     "a refrigerated warehousing company"),
    "last-mile delivery": ("a last-mile delivery company", "a final-mile logistics provider",
                           "a parcel delivery business"),
    "third-party logistics": ("a third-party logistics provider", "a 3PL", "a contract logistics company"),
    "K-12 schools": ("an operator of K-12 schools", "a private school group", "a group of independent schools"),
    "vocational training": ("a vocational training provider", "a trade school operator", "a skills training business"),
    "e-learning": ("an e-learning company", "an online learning platform", "a digital learning provider"),
    "childcare": ("a childcare operator", "an early childhood education provider", "a nursery group"),
}
CITIES = {
    "US": ("Dallas", "Denver", "Charlotte", "Nashville", "Phoenix", "Columbus", "Minneapolis", "Atlanta", "Tampa"),
    "Canada": ("Toronto", "Calgary", "Montreal", "Vancouver", "Ottawa", "Edmonton"),
    "UK": ("Manchester", "Leeds", "Bristol", "Birmingham", "Edinburgh", "Glasgow"),
    "DACH": ("Munich", "Hamburg", "Frankfurt", "Zurich", "Vienna", "Stuttgart"),
    "Nordics": ("Stockholm", "Oslo", "Copenhagen", "Helsinki", "Gothenburg", "Aarhus"),
    "France & Benelux": ("Lyon", "Paris", "Amsterdam", "Rotterdam", "Brussels", "Antwerp"),
    "APAC": ("Singapore", "Sydney", "Melbourne", "Tokyo", "Hong Kong", "Auckland"),
}
COUNTRIES = {
    "US": ("the US", "the United States"), "Canada": ("Canada",), "UK": ("the UK", "the United Kingdom"),
    "DACH": ("Germany", "Austria", "Switzerland", "the DACH region"),
    "Nordics": ("Sweden", "Norway", "Denmark", "Finland", "the Nordic region"),
    "France & Benelux": ("France", "the Netherlands", "Belgium", "the Benelux"),
    "APAC": ("Australia", "Singapore", "Japan", "the Asia-Pacific region"),
}
ORIGIN_PHRASES = {
    "founder-owned": ("It was bought from its founder.", "The business was founder-owned."),
    "family-owned": ("It was acquired from the founding family.", "The business was family-owned."),
    "carve-out": ("It was carved out of a corporate parent.", "The deal was a corporate carve-out."),
    "take-private": ("It was taken private from its public listing.", "The deal was a take-private."),
    "secondary": ("It was bought from another private equity firm.", "The deal was a secondary buyout."),
}
EXIT_PHRASES = {
    "IPO": ("It listed in an IPO in {y}.", "The company went public in {y}."),
    "strategic sale": ("It was sold to a strategic buyer in {y}.", "A trade sale to an industry buyer followed in {y}."),
    "secondary buyout": ("It was sold to another sponsor in {y}.", "A secondary buyout in {y} ended the hold."),
    "none": ("The investment is still held.",),
}
VAGUE_OPENINGS = ("{sponsor} invested in {name} in {year}.", "{name} was acquired by {sponsor} in {year}.",
                  "In {year}, {sponsor} completed its investment in {name}.")
VAGUE_FILLERS = ("The company is headquartered in {city}.", "Management rolled over part of their equity.",
                 "The investment thesis centred on operational improvement.",
                 "The sponsor worked with management on pricing and procurement.",
                 "A new chief financial officer joined in the first year.",
                 "The business serves customers across its home market.", "Revenue grew steadily during the hold.",
                 "The board added two independent directors.")
MISLEADING = ("{sponsor} backed {name}, {phrase}, in {year} as a consolidation platform in a fragmented market.",
              "{sponsor} acquired {name}, {phrase}, in {year} with a plan to roll up regional competitors.",
              "{name}, {phrase}, was bought by {sponsor} in {year} as a buy-and-build platform.")


def _place(rng: random.Random, region: str, city: str) -> str:
    return f"based in {city}" if rng.random() < 0.4 else f"in {rng.choice(COUNTRIES[region])}"


def platform_text(rng: random.Random, style: str, name: str, sponsor: str, subsector: str, region: str, city: str,
                  year: int, origin: str, add_ons: int, exit_: str, exit_year: int | None, size: float) -> str:
    """A platform's description in one of three styles (the module docstring says why)."""
    phrase = rng.choice(SUBSECTOR_PHRASES[subsector])
    if style == "vague":
        parts = [rng.choice(VAGUE_OPENINGS).format(sponsor=sponsor, name=name, year=year)]
        parts += [f.format(city=city) for f in rng.sample(VAGUE_FILLERS, rng.choice((1, 2)))]
        if exit_year and rng.random() < 0.3:
            parts.append(f"The sponsor realised its investment in {exit_year}.")
        return " ".join(parts)
    if style == "misleading":
        parts = [rng.choice(MISLEADING).format(sponsor=sponsor, name=name, phrase=phrase, year=year)]
        if rng.random() < 0.5:
            parts.append(f"The company is {_place(rng, region, city)}.")
    else:
        parts = [f"{sponsor} acquired {name}, {phrase} {_place(rng, region, city)}, in {year}."]
    if rng.random() < 0.6:
        parts.append(rng.choice(ORIGIN_PHRASES[origin]))
    if style == "explicit":
        if add_ons >= 3 and rng.random() < 0.75:
            parts.append(rng.choice((f"The sponsor pursued a buy-and-build strategy with {add_ons} add-on acquisitions.",
                                     f"It completed {add_ons} bolt-on acquisitions during the hold.",
                                     f"{add_ons} add-ons followed as the platform consolidated its market.")))
        elif add_ons and rng.random() < 0.5:
            parts.append(f"It made {add_ons} add-on acquisition{'s' if add_ons > 1 else ''}.")
        elif not add_ons and rng.random() < 0.3:
            parts.append(rng.choice(("Growth was organic.", "The plan relied on organic growth.")))
    if rng.random() < (0.7 if exit_year else 0.3):
        parts.append(rng.choice(EXIT_PHRASES[exit_]).format(y=exit_year))
    if rng.random() < 0.4:
        parts.append(rng.choice((f"The deal valued the company at ${size:,.0f} million.",
                                 f"Enterprise value at entry was about ${size:,.0f}m.")))
    return " ".join(parts)


def add_on_text(rng: random.Random, name: str, platform: str, subsector: str, region: str, city: str, year: int,
                origin: str, vague: bool) -> str:
    """An add-on's description: which platform bought it and when, and, unless vague, what it does."""
    if vague:
        return rng.choice(("{name} joined {platform} in {year}.",
                           "{platform} completed the purchase of {name} in {city} in {year}.",
                           "{name} ({city}) became part of {platform} in {year}.")).format(
            name=name, platform=platform, year=year, city=city)
    phrase = rng.choice(SUBSECTOR_PHRASES[subsector])
    text = rng.choice(("{platform} acquired {name}, {phrase} {place}, as an add-on in {year}.",
                       "Bolt-on acquisition of {name}, {phrase} {place}, by {platform} in {year}.",
                       "{platform} added {name}, {phrase} {place}, in {year}.")).format(
        name=name, platform=platform, phrase=phrase, place=_place(rng, region, city), year=year)
    if rng.random() < 0.4:
        text += " " + rng.choice(ORIGIN_PHRASES[origin])
    return text
