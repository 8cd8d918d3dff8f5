"""The words of a deal, for the acquisitions reader (`engine.deals.acquisitions`): the verbs that complete or agree an
acquisition, who did it (the filer, not another company), the target's name past any stake, dates as precise as
written, and the price a cue introduces. Each rule keeps a filing's own words; none is a model."""

from __future__ import annotations

import re

from ..filings.identity import Filing, bare_name
from ..text import normalize_name

_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
_MONTH = r"(?:" + "|".join(m.capitalize() for m in _MONTH_NAMES) + r")"
_DAY_DATE = re.compile(_MONTH + r"\.?\s+(\d{1,2}),?\s+((?:19|20)\d\d)\b")
_MONTH_DATE = re.compile(_MONTH + r"\.?,?\s+(?:of\s+)?((?:19|20)\d\d)\b")
_YEAR_DATE = re.compile(r"\b(?:(?:first|second|third|fourth)\s+quarter\s+of\s+|(?:during|in|since)\s+(?:calendar\s+)?)"
                        r"((?:19|20)\d\d)\b(?!\s*(?:and|through|to)\s+(?:19|20)\d\d)", re.IGNORECASE)
# a date that is not the deal's: a document's date, the end of a period, a deadline
_NOT_DEAL_DATE = re.compile(r"(?:dated(?:\s+as\s+of)?|ended|ending|through|until|by|before|after|expires?|"
                            r"as\s+of|beginning|effective|from|to)\s*$", re.IGNORECASE)

_SUBJECT_WORDS = (r"we|the\s+company|our\s+company|the\s+registrant|the\s+corporation|"
                  r"our\s+(?:wholly[\s-]owned\s+)?subsidiar(?:y|ies)|its\s+(?:wholly[\s-]owned\s+)?subsidiar(?:y|ies)|"
                  r"one\s+of\s+(?:our|the\s+company['’]s)\s+subsidiaries")
# between the subject and the verb: words of another clause ("FEMSA obtained this option when it acquired")
_OTHER_CLAUSE = re.compile(r"\b(?:when|which|who|whom|whose|where|while|after|before|because|if|obtained|sold|"
                           r"announced that|held|whether|unless|would|could|may|might|to)\b", re.IGNORECASE)

COMPLETED = re.compile(
    r"\b(?:(?:has|have|had)\s+)?(?:completed|closed(?:\s+on)?|consummated|finalized)\s+"
    r"(?:the\s+|its\s+|our\s+|their\s+|a\s+|an\s+)?"
    r"(?:previously\s+announced\s+|(?:approximately\s+)?\$\s?[\d.,]+\s*(?:million|billion)\s+)?"
    r"(?P<plural>acquisitions|acquisition)\s+of\s+"
    r"|\b(?:(?:has|have|had)\s+)?acquired\s+(?!(?:goodwill|intangible|shares\s+of\s+(?:our|its)|approximately\s+\d))"
    r"|\bpaid\s+(?:approximately\s+)?\$\s?[\d.,]+\s*(?:million|billion)\s+for\s+the\s+(?P<paid>acquisitions?)\s+of\s+",
    re.IGNORECASE)
AGREED = re.compile(
    r"\b(?:entered|enter|executed|signed|announced)\s+(?:into\s+)?(?:an?|the)\s+(?:definitive\s+)?"
    r"(?:(?:merger|asset\s+purchase|stock\s+purchase|share\s+purchase|purchase)\s+)?agreement"
    r"(?:\s*\([^)]{0,40}\))?\s+to\s+(?:acquire|purchase)\s+"
    r"|\b(?:entered|executed|signed)\s+(?:into\s+)?an\s+agreement\s+and\s+plan\s+of\s+merger"
    r"(?:\s*\([^)]{0,40}\))?\s+with\s+",
    re.IGNORECASE)
# "completed six acquisitions — A, B and C — for …"
COUNTED_LIST = re.compile(r"\bcompleted\s+(?:\w+\s+){1,2}?acquisitions\s*[—–-]+\s*(?P<list>[^—–]{3,400}?)\s*[—–]+",
                           re.IGNORECASE)
# "two additional acquisitions of businesses, including A, a …, and B, a …"
INCLUDING_LIST = re.compile(r"\bacquisitions\s+of\s+businesses,?\s+including\s+", re.IGNORECASE)
NOUN_PHRASE = re.compile(r"\b(?:our|its|the\s+company['’]s|the)\s+(?P<plural>acquisitions|acquisition)\s+of\s+",
                          re.IGNORECASE)

# the stake before a target: "85% of the shares of", "the remaining 57.5 percent ownership interest in, and now owns
# 100 percent of,", "81 percent of the outstanding shares, or 77 percent of the diluted shares, of"
_STAKE = re.compile(
    r"^(?:(?:all|substantially\s+all|a\s+majority|the\s+majority|a\s+controlling|a\s+minority|a\s+noncontrolling|"
    r"the\s+remaining|remaining|an\s+additional|additional|the|a|an|approximately|its|majority|controlling|minority|"
    r"noncontrolling|outstanding|issued\s+and\s+outstanding|economic|equity|voting|ownership|"
    r"\d+(?:\.\d+)?\s*(?:%|percent))\s+)*"
    r"(?:of\s+)?(?:the\s+)?(?:issued\s+and\s+)?(?:outstanding\s+)?(?:controlling\s+|minority\s+|noncontrolling\s+|"
    r"economic\s+|equity\s+|voting\s+|ownership\s+|membership\s+)*"
    r"(?:shares?|stock|interests?|ownership|stake|units|capital\s+stock)"
    r"(?:\s*,\s*or\s+[^,]{1,60},)?\s+(?:of|in)\s*(?:,\s*and\s+now\s+owns\s*[\d.]+\s*percent\s+of\s*,)?\s*"
    r"|^substantially\s+all\s+of\s+(?:the\s+assets\s+of\s+)?",
    re.IGNORECASE)
_NON_CONTROL = re.compile(r"\b(?:minority|noncontrolling|non-controlling)\b", re.IGNORECASE)
_ALL_OUTSTANDING_X_SHARES = re.compile(r"^all\s+(?:of\s+)?the\s+outstanding\s+(?P<t>(?-i:[A-Z])[^,;()]{1,60}?)\s+"
                                       r"(?:shares|common\s+stock|stock)\b", re.IGNORECASE)
# corporate suffixes a name keeps after its comma ("Slack Technologies, Inc.")
_SUFFIX = (r"(?:Inc|Incorporated|LLC|L\.L\.C|Ltd|Limited|L\.?P|Corp|Corporation|Co|Company|S\.A|S\.\s?de\.?\s?R\.L|"
           r"N\.V|B\.V|plc|PLC|GmbH|AG|AB|A\.Ş|A\.S|SpA|S\.p\.A|Pty)\.?")
_SUFFIX_AFTER_COMMA = re.compile(r",\s*" + _SUFFIX + r"(?=$|[\s,;)(])")
# where a target's name ends
_NAME_END = re.compile(
    r",|;|:|\s[—–-]\s|\s\(|\(|\s+(?:for|from|in\s+exchange|which|that|pursuant|held\s+by|through|at|to|as|under|"
    r"with|by|during|on|effective|upon|whereby|whose|who|valued|totaling|including|subject|plus|and\s+(?:the\s+)?"
    r"(?:related|its|certain|other)|in\s+(?=[A-Z0-9])|in\s+(?:the\s+)?(?:first|second|third|fourth)\s+quarter|"
    r"in\s+(?:a|an|all|cash)\b|and\s+[a-z]+ed\b)\b"  # "… and consolidated 767 Fifth Avenue": another verb
    r"|(?<![A-Z])\.\s+(?=[a-z])")  # "fairlife. fairlife offers …", a sentence kept whole (not "U.S. rights")
_PLACES = re.compile(r"\s+in\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*(?:(?:,\s*(?:and\s+)?|\s+and\s+)[A-Z][\w'-]*"
                     r"(?:\s+[A-Z][\w'-]*)*)*")
_GENERIC = frozenset("""a an the certain other several various businesses business companies company assets asset
    property properties land parcel shares stock interests interest additional two three four five six seven eight nine
    ten eleven twelve number such these those this that any our its their some businesses' new more goodwill control
    approximately substantially remaining equity intangible existing most all each one portions portion exchange
    connection cash order addition accordance company's companys us them it respectively""".split())

_AMOUNT = re.compile(r"(?:(?:US)?\$|USD\s?)\s?(\d[\d,]*(?:\.\d+)?)\s*(million|billion|thousand|[mb]n)?\b",
                     re.IGNORECASE)
_CUE = re.compile(r"(?:for|of|at|was|is|totaled|totaling|paid|in\s+exchange\s+for|consideration|price|valued\s+at|"
                  r"value\s+of|approximately|about|aggregate)\s*(?:a\s+|an\s+|the\s+)?(?:total\s+)?(?:\w+\s+){0,3}$",
                  re.IGNORECASE)
_TOTAL_CUE = re.compile(r"(?:valued\s+at|transaction\s+value\s+of|equity\s+value\s+of|enterprise\s+value\s+of|"
                        r"total\s+purchase\s+price\s+of|total\s+consideration\s+of)\s*(?:approximately\s+)?$",
                        re.IGNORECASE)
_PER_SHARE = re.compile(r"^\s*(?:\d+\s*)?(?:per|a|each)\s+(?:share|unit)|^[^.;]{0,30}\bper\s+share", re.IGNORECASE)
_NOT_PRICE = re.compile(r"(?:goodwill|assets|liabilities|debt|costs|fees|revenues?|sales|income|gain|loss|charges?|"
                        r"assumed|assume|repaid|borrowed|issued|"
                        r"deposit|proceeds|of\s+which|including|included|plus|assumption\s+of)\s+(?:of\s+)?"
                        r"(?:approximately\s+)?$",
                        re.IGNORECASE)
FOLLOW_CUE = re.compile(r"\b(?:consideration|purchase\s+price|transaction\s+value|valued\s+at)\b", re.IGNORECASE)
SCALE_MILLIONS = re.compile(r"\((?:amounts\s+|dollars\s+)?in\s+millions\b|\bin\s+millions,\s+except\b", re.IGNORECASE)


def target_key(name: str) -> str:
    """A target's key for matching and merging: folded, without "the", corporate suffixes or a parenthetical."""
    name = re.sub(r"\([^)]*\)", " ", name)
    return normalize_name(bare_name(re.sub(r"^(?:the|a|an)\s+", "", name.strip(), flags=re.IGNORECASE)))


def subject_pattern(filing: Filing | None) -> re.Pattern:
    """The filer as a subject: "we", "the Company", a subsidiary, or its name and the first word of it ("AES Brasil",
    "Lockheed")."""
    names = []
    if filing and filing.company:
        company = filing.company
        names.append(re.escape(company))
        first = company.split()[0]
        if len(first) >= 3 and first.lower() not in ("the", "american", "united", "general", "first", "new"):
            names.append(re.escape(first) + r"\b(?:\s+(?-i:[A-Z])[\w.&’'-]*)*(?:,\s*" + _SUFFIX + r")?")
        names.append(re.escape(bare_name(company)))
    body = "|".join([_SUBJECT_WORDS] + sorted(set(names), key=len, reverse=True))
    return re.compile(r"(?:^|[,;]\s*|\)\s*,?\s*|\b(?:and|that|then|also|subsequently|additionally)\s+|(?:19|20)\d\d\s+)"
                      r"(?:the\s+)?(?P<subject>" + body + r")\b", re.IGNORECASE)


_BETWEEN_OK = re.compile(
    r"^\s*(?:,[^;]*,)?\s*$"  # an appositive: ", through its wholly owned subsidiary American Water Enterprises, LLC,"
    r"|^['’]s?\s+(?:[A-Z][\w-]*\s+)*(?:wholly[\s-]owned\s+)?subsidiar(?:y|ies)\b[^;]{0,80}$"  # "'s Ohio subsidiary"
    r"|^(?:\s*(?:also|then|subsequently|has|have|had|originally|recently|previously|jointly|successfully|together|"
    r"substantially|ultimately|indirectly|directly|further|additionally|effectively|formally|officially|just|now|"
    r"first|thereby|in\s+turn))*\s*$", re.IGNORECASE)


def by_filer(before: str, subject: re.Pattern) -> bool:
    """Whether the text before a verb ends in a clause whose subject is the filer: the last "we", "the Company" or
    filer's name before the verb, with nothing between them but an appositive, an adverb or "'s … subsidiary" ("the
    Company's Pennsylvania subsidiary entered into"). Not "the Company finalized the valuation of assets acquired",
    nor "FEMSA obtained this option when it acquired"."""
    tail = before[-300:]
    found = list(subject.finditer(tail))
    if not found:
        return False
    between = re.sub(r"\([^()]*\)", " ", tail[found[-1].end():])
    return bool(_BETWEEN_OK.match(between)) and not _OTHER_CLAUSE.search(between)


def clean(sentence: str) -> str:
    """The sentence with quotes made plain, spaces folded and each parenthetical of a few words ("(“Slack”)", "(the
    “Closing Date”)") made a comma, where a name ends; after a possessive it is dropped, so names and dates read
    straight."""
    s = sentence.replace("“", '"').replace("”", '"').replace("’", "'").replace("\u00a0", " ")
    s = re.sub(r"(?<='s)\s*\([^()$]{0,60}\)", "", s)  # "Nokia Corporation's ("Nokia") Devices and Services business"
    s = re.sub(r"\s*\([^()$]{0,60}\)\s*,?", ", ", s)  # "Slack Technologies, Inc. ("Slack") pursuant": a name ends there
    return " ".join(s.split()).replace(" ,", ",")


def defined_terms(sentence: str) -> list[str]:
    """The short names a sentence defines for its target: (“Slack”), ("Ventus"), (Aerojet Rocketdyne)."""
    return [m.group(1).strip() for m in re.finditer(r"\(\s*(?:the\s+)?[“\"]?([^()“”\"]{2,40}?)[”\"]?\s*\)", sentence)
            if not re.search(r"date|agreement|closing|\d", m.group(1), re.IGNORECASE)]


def _cut_name(rest: str) -> str:
    """The target's name at the start of `rest`: up to where the name ends, keeping a corporate suffix after its
    comma ("Slack Technologies, Inc.") and at most 14 words."""
    protected = _SUFFIX_AFTER_COMMA.sub(lambda m: m.group(0).replace(",", "\x00"), rest)
    end = _NAME_END.search(protected)
    name = protected[:end.start()] if end else protected
    if end and not re.search(r"[A-Z]", name):  # "bottling operations in Zambia, Kenya and Eswatini": the places name it
        places = _PLACES.match(protected, end.start())
        if places:
            name = protected[:places.end()]
    name = name.replace("\x00", ",")
    words = name.split()
    name = " ".join(words[:14]).strip(" .'\"")
    if re.search(r"\b" + _SUFFIX + r"$", name) and rest[len(name):len(name) + 1] == ".":
        name += "."
    return re.sub(r"^(?:the|a)\s+(?=[A-Z\d])|^the\s+(?=\S)", "", name)


def target_names(rest: str, section: bool) -> tuple[list[str], bool] | None:
    """(names, control) of the target at the start of `rest`, past any stake; None when what follows names no target
    (a generic noun, a minority stake). Outside an acquisitions section a name must start with a capital. A common noun
    in several places is one target a place ("bottling operations in Zambia and Botswana")."""
    m = _ALL_OUTSTANDING_X_SHARES.match(rest)
    if m:
        return [m.group("t").strip()], True
    stake = _STAKE.match(rest)
    control = True
    if stake and stake.end() > 0:
        control = not _NON_CONTROL.search(stake.group(0))
        rest = rest[stake.end():]
    name = re.sub(r"'s\s+(?:common\s+stock|shares|stock|capital\s+stock)$", "", _cut_name(rest))
    first = name.split()[0].lower().strip(",.'\"") if name else ""
    if not name or first in _GENERIC or re.match(r"\d", first) or len(name) < 2:
        return None
    if not section and not re.match(r"[A-Z]", name) and not re.match(r"[a-z][\w-]*\.(?:com|net|io)\b", name):
        return None
    spread = re.match(r"([a-z][a-z\s-]+?)\s+in\s+(.+)$", name)
    places = re.split(r",\s*(?:and\s+)?|\s+and\s+", spread.group(2)) if spread else []
    if len(places) > 1 and all(re.fullmatch(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*", p) for p in places):
        return [f"{spread.group(1)} in {p}" for p in places], control
    return [name], control


def split_list(text: str) -> list[str]:
    """Names of a list: "A, B and C", "A, a …, and B, a …" (each item's name is its leading words), "Great Cove I and
    II" (a bare numeral takes the first item's words)."""
    protected = _SUFFIX_AFTER_COMMA.sub(lambda m: m.group(0).replace(",", "\x00"), text)
    pieces = [p.replace("\x00", ",").strip() for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", protected)]
    names = []
    for piece in pieces:
        piece = re.sub(r"^(?:the|and)\s+", "", piece, flags=re.IGNORECASE)
        if not piece or not re.match(r"[A-Z\d]", piece) or piece.split()[0].lower() in _GENERIC:
            continue
        if re.fullmatch(r"(?:[IVX]+|\d+|[A-Z])", piece) and names:
            piece = " ".join(names[0].split()[:-1] + [piece])
        names.append(_cut_name(piece))
    return [n for n in names if n]


def deal_dates(text: str) -> list[tuple[int, str]]:
    """(offset, date) of each deal date in `text`, as precise as written; not a document's or a period's date."""
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern, form in ((_DAY_DATE, "day"), (_MONTH_DATE, "month"), (_YEAR_DATE, "year")):
        for m in pattern.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            if _NOT_DEAL_DATE.search(text[max(0, m.start() - 25):m.start()]):
                continue
            if form == "day":
                month = _MONTH_NAMES.index(m.group(0).split()[0].rstrip(".").lower()) + 1
                value = f"{m.group(2)}-{month:02d}-{int(m.group(1)):02d}"
            elif form == "month":
                month = _MONTH_NAMES.index(m.group(0).split()[0].rstrip(".,").lower()) + 1
                value = f"{m.group(1)}-{month:02d}"
            else:
                value = m.group(1)
            taken.append((m.start(), m.end()))
            found.append((m.start(), m.end(), value))
    return [(start, value) for start, _, value in sorted(found)]


def _usd_millions(number: str, unit: str | None, millions: bool) -> float | None:
    """An amount in USD millions, so deals of any size compare; a bare "$999" counts as millions only in a filing
    that says its amounts are in millions, and a bare small amount (a price per share) is no total."""
    value = float(number.replace(",", ""))
    unit = (unit or "").lower()
    if unit in ("billion", "bn"):
        return round(value * 1000, 3)
    if unit in ("million", "mn"):
        return round(value, 3)
    if unit == "thousand":
        return round(value / 1000, 3)
    if millions and "." not in number:  # "$999" in a filing whose amounts are in millions
        return value
    return round(value / 1e6, 3) if value >= 1e6 else None


def consideration(text: str, millions: bool) -> tuple[str, float | None] | None:
    """(as stated, USD millions) of the price in `text` (what follows a target): the amount a cue introduces ("for",
    "consideration of", "valued at"), a total over a price per share; None without an amount."""
    best: tuple[int, str, float | None] | None = None
    for m in _AMOUNT.finditer(text):
        before, after = text[:m.start()], text[m.end():]
        if _NOT_PRICE.search(before[-40:]):
            continue
        per_share = bool(_PER_SHARE.match(after)) or bool(re.search(r"\beach\s+(?:share|unit)\b", text, re.IGNORECASE))
        usd = None if per_share else _usd_millions(m.group(1), m.group(2), millions)
        stated = (m.group(0) + re.split(r"[,;]|\s[—–]\s|\.\s|\.$", after, maxsplit=1)[0]).strip()[:120]
        stated = stated.rstrip(" .)") if stated.count(")") > stated.count("(") else stated
        if per_share:
            stated += "" if re.search(r"per\s+share", stated, re.IGNORECASE) else " per share"
        rank = 3 if _TOTAL_CUE.search(before[-40:]) else 2 if _CUE.search(before[-40:]) and usd is not None else \
            1 if usd is not None else 0
        if best is None or rank > best[0]:
            best = (rank, stated, usd)
        if rank == 3:
            break
    return (best[1], best[2]) if best else None


def list_items(rest: str) -> list[tuple[str, str]]:
    """(name, its own words) of each deal of "acquisitions of A in X on DATE for $N, the B … and the C …" or "A and
    B": an item with its own date or amount keeps them."""
    stop = re.search(r"(?<![A-Z])\.\s|;|\s[—–]\s|\s+(?:for\s+(?:an?\s+)?(?:total\s+|aggregate\s+)|which|were\s|was\s)",
                     rest)
    body = rest[:stop.start()] if stop else rest
    protected = _SUFFIX_AFTER_COMMA.sub(lambda m: m.group(0).replace(",", "\x00"), body)
    protected = re.sub(rf"({_MONTH}\.?\s+\d{{1,2}}),", lambda m: m.group(1) + "\x01", protected)
    pieces = [p.replace("\x00", ",").replace("\x01", ",").strip()
              for p in re.split(r",\s*(?:and\s+)?|\s+and\s+(?=(?:the\s+)?[A-Z])", protected)]
    out: list[tuple[str, str]] = []
    place_of: str | None = None  # "bottling operations in" of "… in Zambia, Kenya, and Eswatini"
    for piece in pieces:
        piece = re.sub(r"^(?:the|and)\s+", "", piece).rstrip(" .")
        if place_of and re.fullmatch(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?", piece):
            out.append((f"{place_of} {piece}", piece))
            continue
        got = target_names(piece, True)
        if not got or not got[1]:
            continue
        for name in got[0]:
            if re.fullmatch(r"(?:[IVX]+|\d+|[A-Z])", name) and out:
                name = " ".join(out[0][0].split()[:-1] + [name])
            out.append((name, piece))
        last = re.match(r"([a-z][a-z\s-]+?\s+in)\s+[A-Z][\w'-]*$", out[-1][0]) if out else None
        place_of = last.group(1) if last else None
    return out


def terms_after(sentence: str, name: str) -> tuple[str, ...]:
    """The short name a sentence defines right after the target ("Slack Technologies, Inc. (“Slack”)"; "Nokia
    Corporation’s (“Nokia”) Devices and Services business (“NDS”)"), not those it defines for other targets or dates."""
    plain, words = sentence.replace("’", "'"), name.replace("’", "'").split()
    if not words:
        return ()
    ends = [at + len(name) for at in [plain.find(name.replace("’", "'"))] if at >= 0]
    for first in re.finditer(re.escape(words[0]), plain):  # the name with a parenthetical inside it
        last = plain.find(words[-1], first.start())
        if 0 <= last - first.start() <= 3 * len(name):
            ends.append(last + len(words[-1]))
    for end in ends:
        m = re.match(r"\s*,?\s*(\([^()]{1,60}\))", plain[end:])
        if m and defined_terms(m.group(1)):
            return tuple(defined_terms(m.group(1)))
    return ()


def term_target(original: str, rest: str) -> tuple[list[str], bool] | None:
    """A target named only by the short name the sentence gives it: "the remaining outstanding shares of a bottling
    partner in South Africa (“South African bottler”)" is the South African bottler."""
    stake = _STAKE.match(rest)
    if stake and _NON_CONTROL.search(stake.group(0)):
        return None
    terms = [x for x in defined_terms(original) if re.match(r"[A-Z]", x)]
    return ([terms[0]], True) if terms and terms[0].split()[0].lower() not in _GENERIC else None
