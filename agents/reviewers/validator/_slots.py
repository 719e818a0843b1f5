"""Unfilled template slots, whatever their wording (the concept behind `_placeholders`' shapes).

A slot is text a writer or a model left for someone to replace: a bracketed slot name ("[Your
Name]", "[PRODUCT NAME]", "[email address]", "[DATE]"), a bracketed instruction to the editor
("[Quote from a customer goes here]", "[Expand on this point]"), a media marker ("[Screenshot of
the dashboard]", "(Image: the cluster)"), a template variable in any syntax ("{PRICE}", "${url}",
"%NAME%"), an empty or dummy link target ("[guide]()", "![Alt text](image.png)",
"yourwebsite.com") or a year left as "20XX".

Legitimate brackets stay: links and reference links ("[text](url)", "[text][ref]"), footnotes
("[^1]"), task lists ("[ ]", "[x]"), numbered citations ("[1]"), editorial insertions in quotes
("[sic]", "[the company]", "[emphasis added]"), keys ("[Ctrl]", "[C]"), an acronym the draft also
uses unbracketed, and a slot the sentence is talking about ("a merge field such as [First
Name]"). Code and HTML comments are not prose (blanked before rules run).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A bracketed segment with no link target, reference label or definition after it.
_BRACKET = re.compile(r"\[([^\[\]\n]{1,80})\](?![(\[:])")
# Things a template leaves a slot for (a slot name holds one of them).
_SLOT_NOUNS = (
    r"name|names|e-?mail(?: address)?|address|phone(?: number)?|number|date|company|product"
    r"|brand|title|job title|description|quote|testimonial|bio|cta|call to action|link|url|tool"
    r"|section|topic|keywords?|city|location|price|amount|statistic|stat|stats|figure|case study"
    r"|headline|sub-?heading|heading|logo|image|photo|screenshot|video|chart|diagram|graph"
    r"|caption|alt text|meta description|excerpt|summary|signature|website|domain|handle"
    r"|username|industry|audience|niche|service|feature|benefit|percentage|metric|value"
    r"|anecdote|story|example|source|citation|reference|writer|author|editor|step"
)
_SLOT_NAME = re.compile(
    r"(?:(?:your|insert|add|relevant|customer|client|author|first|last|full|target|main"
    r"|primary|secondary|specific|exact|current|competitor|contact|company|product|brand"
    r"|github|internal|external|real|actual|appropriate|suitable|supporting|another)[ _-]"
    rf"){{0,3}}(?:[a-z0-9]+[ _-]){{0,3}}?(?:{_SLOT_NOUNS})"
    r"(?:[ _-](?:here|tbd|tk|placeholder|\d{1,2}))?"
)
# What an editorial insertion or a note opens with: an article or pronoun ("[the company]",
# "[his team]"), or a known editorial word.
_EDITORIAL = re.compile(
    r"(?:the|a|an|this|that|these|those|his|her|their|its|our|my|he|she|they|it|we|i|sic"
    r"|emphasis|sic\.|update|edit|edited|note|ed\.|translation|translated|laughs|applause"
    r"|inaudible|crosstalk|redacted|paraphrased|\.\.\.|\u2026)(?![a-z])"
)
# An instruction to the editor or writer in brackets: "[Expand on this]", "[Fill in the price]".
_INSTRUCTION = re.compile(
    r"(?:fill in|fill|describe|enter|write|mention|list|explain|expand|elaborate|summari[sz]e"
    r"|replace|confirm|verify|double-check|check|need|needs|to do|to be|tk|tbc|pending|more"
    r" on|details on|info on|something about|placeholder|provide|supply|choose|pick|include"
    r"|insert|add|paste|put|cite|find|get|look up"
    r"|(?:internal |external )?(?:link|url|source|citation|reference) (?:to|for|about|on))(?![a-z])"
)
_ENDS_HERE = re.compile(
    r"(?:goes|go|will go|to go|comes|belongs) here$|(?<![a-z])here$|(?:to come|to be added"
    r"|to be confirmed|to follow|tbd|tbc|tk|needed|pending|missing)$"
)
_MEDIA = (
    r"(?:image|img|figure|fig|chart|photo|photograph|picture|video|diagram|graph|screenshot"
    r"|screen shot|illustration|graphic|infographic|gif|animation|visual|map|table|embed)"
)
_MEDIA_WORD_LIST = (
    "image images img figure fig chart charts photo photos photograph picture video diagram graph"
    " screenshot screenshots screen illustration graphic infographic gif animation visual map"
    " table embed"
)
_MEDIA_WORDS = frozenset(_MEDIA_WORD_LIST.split())
_MEDIA_MARKER = re.compile(
    rf"(?:(?:featured|hero|header|cover|inline|example|sample|placeholder|suggested|optional"
    rf"|[a-z]+)[ _-])?{_MEDIA}s?(?:[ _-]?\d{{1,3}})?(?:$| ?[:\u2014\u2013-]| (?:of|showing"
    r"|shows|depicting|with|here|placeholder|suggestion|idea|goes)(?![a-z]))"
)
# Single keys and acronyms in capitals are not slots.
# ... nor are log levels and status tags ("[INFO]", "[BETA]"), whatever their case.
_KEY_WORDS = (
    "CTRL ALT SHIFT ESC ENTER RETURN TAB DEL DELETE CMD OPTION SPACE BACKSPACE HOME END INS PGUP"
    " PGDN UP DOWN LEFT RIGHT FN WIN META SUPER INST /INST OK INFO WARN WARNING ERROR DEBUG TRACE"
    " FATAL CRITICAL NOTICE PASS FAIL FAILED DONE BETA ALPHA NEW DEPRECATED UPDATE UPDATED EDIT"
    " SOLVED"
)
_KEYS = frozenset(_KEY_WORDS.split())
# "[F5]", and format masks: "[YYYY-MM-DD]", "[HH:MM]"
_KEY_OR_MASK = re.compile(r"F\d{1,2}|[YMDHS]{1,4}(?:[-/:. ][YMDHS]{1,4}){1,5}")
_CAPS = re.compile(r"[A-Z][A-Z0-9 _/&'.-]{0,40}")
_DISCUSSED = re.compile(
    r"(?<![a-z])(?:placeholders?|templates?|templating|merge (?:fields?|tags?)|variables?"
    r"|tokens?|syntax|shortcodes?|mail merge|fields? (?:such as|like|called|named)|field names?"
    r"|schemas?|json|columns?|attributes?|parameters?|propert(?:y|ies))(?![a-z])"
)
_NAMED_AFTER = re.compile(r" ?(?:tags?|fields?|tokens?|placeholders?|variables?)(?![a-z])")
# Template variables outside {{...}} and {snake_case} (_placeholders has those).
_VARIABLES = (
    ("{", re.compile(r"\{[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\}")),
    # (lowercase words: "${HOME}" is a shell variable, "${java.home}" a property a post may name)
    ("${", re.compile(r"\$\{[a-z_][a-z0-9_]{0,40}\}")),
    # (letters: "%E2%80%99" is a percent-encoded URL)
    ("%", re.compile(r"%[A-Z][A-Z_]{2,30}%")),
    ("XX", re.compile(r"(?<![\w-])(?:19|20)XX(?![\w-])")),
    # a figure left as X's: "XX%", "$XX", "XX.X%" (a single "X%" is algebra: "if the rate is X%")
    ("XX", re.compile(r"(?<![\w.-])(?:[$\u20ac\u00a3] ?XX+(?:[.,]X+)*|XX+(?:[.,]X+)* ?%)(?!\w)")),
)
# A link, image or HTML target that is a note to the editor, not an address: "](IMAGE_URL_HERE)",
# "](TODO-add-link)", src="PLACEHOLDER.jpg". Its words say what should go there; an address
# (a scheme, a path, an anchor) is never judged by its words.
# (one pattern per literal opening: `re` skips to a literal fast, not to an alternation)
_TARGETS = (
    ("](", re.compile(r"\]\(([^()\s]{1,200})\)")),
    ("src=", re.compile(r"src=[\"']([^\"'\s>]{1,200})[\"']")),
    ("href=", re.compile(r"href=[\"']([^\"'\s>]{1,200})[\"']")),
)
_NOTE_WORDS = frozenset({"here", "todo", "tbd", "tbc", "tk", "fixme", "placeholder", "xxx"})
_LETTERS = re.compile(r"[a-z]+")
_ADDRESS = ("/", "#", "mailto:", "tel:", "data:", "./", "../")
# A slot named in capitals and "HERE": "ALT TEXT HERE", "AUTHOR NAME HERE" (not "CLICK HERE").
# (found from "HERE", the slot word matched in the few characters before it)
_SHOUTED_SLOT = re.compile(
    r"(?:TEXT|URL|LINK|IMAGE|IMG|NAME|TITLE|CAPTION|QUOTE|SOURCE|STAT|NUMBER|DATE|PHOTO|LOGO"
    r"|BIO|CTA|COPY|CONTENT|DESCRIPTION|SUMMARY|FIGURE|CHART|MAP)[ _-]$"
)
# A parenthetical that asks the editor for material: "(insert frost-date map here)", "(add a
# chart of prices here)"; "(add the cream here)" is the reader's instruction (no material).
_PAREN_INSERT = re.compile(
    r"\((?:insert|add|include|paste|put|embed|place|drop) [^()\n]{0,40}?(?:map|image|chart|graph"
    r"|diagram|photo|picture|screenshot|video|table|figure|quote|testimonial|link|url|source"
    r"|citation|stat|statistic|example|anecdote|story|infographic|illustration|gif|embed|cta)s?"
    r" here\)"
)
# Link and image targets that were never filled in: empty, or a stock file or domain name.
_DUMMY_TARGET = re.compile(
    r"\]\(\s*\)|\]\((?:path/to/[^)\s]{1,100}|(?:placeholder|image|img|your[_-]?image|photo"
    r"|screenshot|picture|link)(?:[_-]?\d{1,2})?\.(?:png|jpe?g|gif|webp|svg))\)"
)
# Found from "your" / "example." (literal openings); what precedes them is checked in Python.
_YOUR_DOMAIN = re.compile(
    r"your[-_]?(?:website|site|domain|company|blog|brand|store|shop|business|url|app)"
    r"\.(?:com|org|net|io|co)(?![\w-])"
)
_EXAMPLE_DOMAIN = re.compile(r"example\.(?:com|org|net)(?![\w-])")
_EXAMPLE_BEFORE = ("https://", "http://", "www.", "@")
_URL_BEFORE = re.compile(r"(?:https?://)?(?:www\.)?$")
_REF_DEFINITION = re.compile(r" {0,3}\[[^\]\n]{1,100}\]: ?<?https?://")
_HTML_DUMMY = re.compile(r"<a\s[^>]{0,200}?href=[\"'](?:#|)[\"']|<img\s[^>]{0,200}?src=[\"'][\"']")


def slot_spans(text: str, low: str, words: frozenset[str]) -> Iterator[tuple[int, int]]:
    """(start, end) of every unfilled slot in `text` (prose; `low` is it lowercased, `words` its
    words: set lookups gate the scans, a substring check reads the whole draft)."""
    if "[" in text:
        yield from _bracket_slots(text, low)
    for literal, pattern in _VARIABLES:
        if literal in text:
            yield from (
                (m.start(), m.end())
                for m in pattern.finditer(text)
                if literal != "{" or m.start() == 0 or text[m.start() - 1] != "$"
            )
    if "](" in low:
        yield from ((m.start(), m.end()) for m in _DUMMY_TARGET.finditer(low))
    if "](" in low or not words.isdisjoint(("src", "href")):
        yield from _note_targets(low, words)
    if "HERE" in text:
        yield from _shouted_here(text)
    if "here" in words and not words.isdisjoint(_INSERT_WORDS):
        yield from ((m.start(), m.end()) for m in _at_literal(_PAREN_INSERT, "(", low))
    if "example" in words or "your" in low:
        for start, end in _dummy_domains(low):
            # a reference definition ("[docs]: https://example.org") is judged by its use
            line_start = low.rfind("\n", max(0, start - 200), start) + 1
            if _REF_DEFINITION.match(low, line_start) is None:
                yield start, end
    if not words.isdisjoint(("href", "src")):
        yield from ((m.start(), m.end()) for m in _HTML_DUMMY.finditer(low))
    if not words.isdisjoint(_MEDIA_WORDS):
        yield from _paren_media(low)


_INSERT_WORDS = frozenset({"insert", "add", "include", "paste", "put", "embed", "place", "drop"})


def _at_literal(pattern: re.Pattern[str], literal: str, text: str) -> Iterator[re.Match[str]]:
    """pattern's matches, tried only where its literal opening occurs (str.find runs at C speed
    between them; a scan with the pattern costs a step at every character)."""
    pos = text.find(literal)
    while pos != -1:
        match = pattern.match(text, pos)
        if match is not None:
            yield match
            pos = text.find(literal, match.end())
        else:
            pos = text.find(literal, pos + 1)


def _shouted_here(text: str) -> Iterator[tuple[int, int]]:
    """ "ALT TEXT HERE", "IMAGE_URL_HERE": a shouted slot word right before "HERE"."""
    pos = text.find("HERE")
    while pos != -1:
        after = text[pos + 4 : pos + 5]
        slot = _SHOUTED_SLOT.search(text, max(0, pos - 12), pos)
        if slot is not None and not after.isalpha():
            yield slot.start(), pos + 4
        pos = text.find("HERE", pos + 4)


def _note_targets(low: str, words: frozenset[str]) -> Iterator[tuple[int, int]]:
    """Targets whose words are a note (see `_TARGETS`), not an address."""
    kept = [(lit, p) for lit, p in _TARGETS if lit == "](" or lit[:-1] in words]
    for m in (m for literal, p in kept for m in _at_literal(p, literal, low)):
        target = m.group(1)
        if target.startswith("#") and _ANCHOR_NOTE.search(target) is not None:
            if target[1:] not in _heading_slugs(low):
                yield m.start(), m.end()  # "](#source-link-goes-here)": a note shaped as an anchor
            continue
        if "://" in target or target.startswith(_ADDRESS) or "/" in target:
            continue
        if not _NOTE_WORDS.isdisjoint(_LETTERS.findall(target)):
            yield m.start(), m.end()


# An anchor whose words ask for an address: "#link-here", "#source-goes-here", "#todo-url"
# ("#where-to-go-from-here" names a section: no link word before its "here").
_ANCHOR_NOTE = re.compile(
    r"(?:url|link|source|citation|cite|ref|reference)s?[-_](?:goes[-_]|to[-_]go[-_]|will[-_]go[-_])?"
    r"here(?![a-z])|(?<![a-z])(?:todo|tbd|tbc|fixme|placeholder|xxx)(?![a-z])"
)
_HEADING = re.compile(r"^#{1,6} +(.{1,200})$", re.MULTILINE)


def _heading_slugs(low: str) -> frozenset[str]:
    """The anchors the draft's own headings give ("## Where to go from here" ->
    "where-to-go-from-here"): a link to one of them is a real anchor."""
    slugs = set()
    for m in _HEADING.finditer(low):
        words = re.findall(r"[a-z0-9]+", m.group(1))
        slugs.add("-".join(words))
    return frozenset(slugs)


def _dummy_domains(low: str) -> Iterator[tuple[int, int]]:
    """yourwebsite.com anywhere (with its scheme); example.com only as a URL or an address."""
    if "your" in low:  # (the word is "yourwebsite", so the gate is the substring)
        for m in _YOUR_DOMAIN.finditer(low):
            before = _URL_BEFORE.search(low, max(0, m.start() - 12), m.start())
            start = before.start() if before is not None else m.start()
            if start == 0 or not (low[start - 1].isalnum() or low[start - 1] in "._-"):
                yield start, m.end()
    if "example." in low:
        for m in _EXAMPLE_DOMAIN.finditer(low):
            if low.endswith(_EXAMPLE_BEFORE, max(0, m.start() - 8), m.start()):
                before = _URL_BEFORE.search(low, max(0, m.start() - 12), m.start())
                yield (before.start() if before is not None else m.start()), m.end()


def _bracket_slots(text: str, low: str) -> Iterator[tuple[int, int]]:
    counts: dict[str, int] = {}  # how often each capitalised word occurs (counted once each)
    for match in _BRACKET.finditer(text):
        start, end = match.span()
        inner = match.group(1).strip()
        before = text[start - 1] if start else " "
        if not inner or before in "]^!\\)_" or before.isalnum():
            continue  # "[text][ref]", alt text, an escaped bracket, indexing ("elements[name]")
        if before in "\"'" and text[end : end + 1] not in ('"', "'"):
            continue  # a tag opening a quoted string ("[NEWSLETTER] failed"), not a slot
        if inner[0] in "^!#@":
            continue  # a footnote, an alert ("[!NOTE]"), a citation key ("[@knuth84]")
        if _is_slot(text, low, start, inner, counts):
            yield start, end


def _is_slot(text: str, low: str, start: int, inner: str, counts: dict[str, int]) -> bool:
    if inner.replace(",", "").replace("-", "").replace(" ", "").replace(".", "").isdigit():
        return False  # a numbered citation or a range
    inner_low = low[start + 1 : start + 1 + len(inner)]
    if inner.upper() in _KEYS:
        return False
    caps = _CAPS.fullmatch(inner)
    if caps is not None and sum(c.isalpha() for c in inner) >= 2:
        if inner in _KEYS or _KEY_OR_MASK.fullmatch(inner):
            return False
        # "[NASA]" in a quote is an insertion when the draft uses the acronym elsewhere
        if " " not in inner and "_" not in inner and len(inner) <= 5:
            if inner not in counts:
                counts[inner] = text.count(inner)
            if counts[inner] > 1:
                return False
        return not _discussed(low, start, start + len(inner) + 2)
    if len(inner) == 1:
        # "$[X]", "[N]%": a one-letter slot for a figure
        before = text[start - 1] if start else ""
        after = text[start + 3] if start + 3 < len(text) else ""
        return inner in "XNY" and (before in "$\u00a3\u20ac" or after == "%")
    if _EDITORIAL.match(inner_low):
        return False
    labelled = _SLOT_NAME.match(inner_low)
    slot = (
        _ENDS_HERE.search(inner_low) is not None
        or _MEDIA_MARKER.match(inner_low) is not None
        or _INSTRUCTION.match(inner_low) is not None
        # "[CTA: book a demo]", "[Quote: ...]": a slot named, then what should fill it
        or (labelled is not None and inner_low.startswith(":", labelled.end()))
        or (len(inner_low.split()) <= 5 and _SLOT_NAME.fullmatch(inner_low) is not None)
    )
    return slot and not _discussed(low, start, start + len(inner) + 2)


def _discussed(low: str, start: int, end: int) -> bool:
    """A slot the sentence talks about ("a merge field such as [First Name] is filled in", "put
    [Image] tags in the alt text")."""
    if _NAMED_AFTER.match(low, end) is not None:
        return True
    # (the slot's own words are not the sentence: "[SCREENSHOT PLACEHOLDER: ...]" names itself)
    line_start = low.rfind("\n", max(0, start - 120), start) + 1
    if _DISCUSSED.search(low, max(line_start, start - 120), start) is not None:
        return True
    return _DISCUSSED.search(low, end, end + 120) is not None


# "(Image: the cluster diagram)", "(Screenshot of the lag dashboard)", "(insert chart here)";
# not a credit ("(Image: courtesy of NASA)", "(photo by ...)") or a reference ("(see Figure 2)").
_PAREN_MEDIA = re.compile(
    rf"\({_MEDIA}s?(?P<how> ?[:\u2014\u2013]| - | of | showing )[^)\n]{{1,160}}\)"
)
_CREDIT = re.compile(
    r"courtesy|credit|via |source|\u00a9|\(c\)|cc by|cc0|licen[cs]e|wikimedia|unsplash|getty"
    r"|shutterstock|pexels|istock|(?<![a-z])by [a-z]"
)


def _paren_media(low: str) -> Iterator[tuple[int, int]]:
    for match in _PAREN_MEDIA.finditer(low):
        start = match.start()
        if start > 0 and low[start - 1] == "]":
            continue  # a link target
        # "(chart of consumer lag)" after a reference to a figure describes it; on a line of its
        # own it stands in for the picture
        line_start = low.rfind("\n", max(0, start - 200), start) + 1
        if match.group("how")[-1] == " " and low[max(line_start, start - 200) : start].strip():
            continue
        if _CREDIT.search(match.group(0)) is None:
            yield start, match.end()
