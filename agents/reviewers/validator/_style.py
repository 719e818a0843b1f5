"""Warnings: stock filler, banned headers and buzzword-heavy prose."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator import _leads
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._text import word_matches
from schemas.records import Severity

FAMILY = "filler"

_APOS = "['\u2019]"
# Run on the lowercased prose; each starts with a literal so the scan can skip ahead.
_FILLERS = tuple(
    (frozenset(gate.split()), re.compile(p))
    for gate, p in (
        (
            "today's today\u2019s",
            rf"in today{_APOS}s (?:fast-paced|digital|modern|ever-changing|ever-evolving|"
            r"rapidly (?:changing|evolving)|competitive|hyper-connected|interconnected|"
            r"data-driven|busy|always-on)(?![a-z])",
        ),
        ("unlock", r"unlock(?:s|ing)? the (?:full |true |real )?potential of(?![a-z])"),
        ("core", r"at (?:its|their) core,?(?![a-z])"),
        ("heart", r"at the heart of(?![a-z])"),
        (
            "future",
            r"the future of [\w -]{1,60}? (?:is|are) (?:here|now|bright|local|within reach"
            r"|already here)(?![a-z])",
        ),
        (
            "found discovered",
            r"many (?:organi[sz]ations|companies|teams|developers|users|businesses|people"
            r"|brands|leaders) have (?:found|discovered)(?![a-z])",
        ),
        (
            "landscape",
            r"the landscape (?:of [\w -]{1,40}? )?is (?:constantly|ever|always) evolving",
        ),
        (
            "journey possibilities",
            r"the (?:journey|possibilities) (?:is|are) (?:rewarding|endless|limitless)(?![a-z])",
        ),
        ("game-changer", r"(?:is|be|becomes?) a (?:real |true )?game-changer(?![a-z])"),
        (
            "ever-evolving ever-changing rapidly fast-paced dynamic",
            r"in the (?:ever-evolving|ever-changing|rapidly evolving|fast-paced|dynamic) "
            r"(?:world|landscape|realm|field|space) of(?![a-z])",
        ),
        ("age", r"in this day and age(?![a-z])"),
        ("dive", rf"let{_APOS}s dive (?:in|into|deeper|right in)(?![a-z])"),
        ("ado", r"without further ado(?![a-z])"),
        (
            "article post guide tutorial",
            rf"in this (?:article|blog post|post|guide|tutorial),? (?:we|i)(?:{_APOS}ll| will|"
            r" are going to| explore| look at| cover| discuss| walk)(?![a-z])",
        ),
        ("buckle", r"buckle up(?![a-z])"),
        ("further", r"look no further(?![a-z])"),
        ("secret", rf"it{_APOS}s no secret that(?![a-z])"),
        ("whether", rf"whether you{_APOS}re a (?:seasoned|beginner|novice|veteran)(?![a-z])"),
        ("end", r"at the end of the day(?![a-z])"),
        ("comes", r"when it comes to(?![a-z])"),
        ("conclusion", r"in conclusion,"),
        # Stock phrases from public lists of LLM tells: Wikipedia's "Signs of AI writing"
        # (WikiProject AI Cleanup, en.wikipedia.org/wiki/Wikipedia:Signs_of_AI_writing: puffery
        # such as "stands as a testament", "plays a vital role", "continues to captivate",
        # "watershed moment", "deeply rooted"), and the phrase lists in christianwilkins/
        # christianwilkins.github.io content/ai-writing-blacklist.md and in M. Cassano, "I'm a
        # Professional Editor and These Phrases Tell Me You Used ChatGPT" (Writing Cooperative,
        # quoted in aritang/aritang.github.io content/posts/chatGPT_writings.md).
        ("important worth", rf"it(?:{_APOS}s| is) (?:important|worth|crucial|essential) to note"),
        ("worth", rf"it(?:{_APOS}s| is) worth noting(?![a-z])"),
        ("essential", rf"it(?:{_APOS}s| is) essential to consider(?![a-z])"),
        ("testament", r"a testament(?![a-z])"),  # "stands as / is a testament to"
        (
            "role",
            r"plays? an? (?:crucial|pivotal|vital|key|significant|integral|critical) role"
            r"(?![a-z])",
        ),
        ("realm", r"in the realm of(?![a-z])"),
        ("navigate navigating", r"navigat(?:e|ing) the (?:complexities|intricacies) of"),
        ("tapestry", r"(?:rich|intricate|vibrant) tapestry(?![a-z])"),
        ("plethora", r"a plethora of(?![a-z])"),
        ("world", r"in the (?:world|era) of(?![a-z])"),
        ("delve", r"delve (?:into|deeper)(?![a-z])"),
        ("summary summarize sum", r"in summary,|to summari[sz]e,|to sum (?:it )?up,"),
        ("foremost", r"first and foremost(?![a-z])"),
        ("explore closer", rf"let{_APOS}s (?:explore|take a closer look)(?![a-z])"),
        ("embark", r"embark(?:s|ed|ing)? on an? (?:[a-z-]+ )?journey(?![a-z])"),
        (
            "power",
            r"(?:harness|harnessing|unlock|unlocking|unleash|unleashing) the (?:full )?power of"
            r"(?![a-z])",
        ),
        ("ever", r"more (?:crucial|important|vital|essential) than ever(?![a-z])"),
        (
            "overstated",
            r"cannot be overstated|can(?:no|{_APOS})t be overstated".replace("{_APOS}", _APOS),
        ),
        (
            "digital",
            r"in (?:the|today{_APOS}s) (?:fast-paced )?digital age".replace("{_APOS}", _APOS),
        ),
        ("landscape", r"(?:ever-evolving|ever-changing|evolving|rapidly changing) landscape"),
        (
            "lasting watershed rooted steadfast captivate",
            r"leaves? a lasting (?:impact|impression|legacy)|watershed moment|deeply rooted in"
            r"|steadfast (?:dedication|commitment)|continues? to captivate",
        ),
        ("holistic", r"from a holistic perspective|a holistic approach to"),
        ("fear", r"fear not(?![a-z])"),
        ("comprehensive", r"(?:this|our) comprehensive (?:guide|overview|article)(?![a-z])"),
        ("empower empowers", r"empowers? you to(?![a-z])"),
        ("key", r"(?:is|are) (?:the )?key to (?:success|unlocking)(?![a-z])"),
        # Stock sign-offs and pep lines of a padded closing section (or opening): they promise
        # a journey or a level-up instead of saying anything about the subject.
        ("way", r"(?:well )?on your way to (?:becoming|mastering|success)|well on your way"),
        ("next", r"to the next level(?![a-z])"),
        ("heights", r"to new heights(?![a-z])"),
        ("test", r"(?:stand|stands|stood|standing) the test of time(?![a-z])"),
        ("dance", r"a delicate dance(?![a-z])"),
        ("wait", r"so why wait\?"),
        ("happy", r"happy [a-z]{3,20}ing!"),
        ("there", r"(?:and )?there you have it(?![a-z])"),
        (
            "toolkit arsenal toolbox",
            r"(?:powerful|valuable|essential|indispensable|must-have) (?:tool|addition|weapon) "
            r"(?:in|to|for) (?:your|any|every) (?:[\w-]{1,20} ){0,2}(?:toolkit|arsenal|toolbox)",
        ),
        ("easier", r"(?:has|have) never been (?:easier|more accessible)(?![a-z])"),
        ("daunting", r"a daunting (?:task|prospect|endeavou?r)(?![a-z])"),
        ("destination", r"a journey,? not a destination"),
        ("journey", r"embrac(?:e|ing) the journey|on your [\w-]{1,20} journey(?![a-z])"),
        (
            "whether",
            rf"whether you(?:{_APOS}re| are) an? (?:[a-z-]{{1,20}} ){{0,2}}(?:beginner|novice|"
            r"newcomer|enthusiast|warrior|hobbyist|learner|amateur) or an? (?:seasoned|veteran"
            r"|experienced)(?![a-z])",
        ),
        ("uncovered", r"waiting to be (?:uncovered|discovered|told|explored)(?![a-z])"),
        ("invaluable", r"invaluable insights?(?![a-z])"),
        ("simply", r"simply put,"),
        ("game", r"(?:take|takes|taking|elevate|elevates|elevating) your [\w-]{1,20} game"),
    )
)


@rule(
    "filler_phrase",
    Severity.WARNING,
    FAMILY,
    'Stock filler ("In today\'s fast-paced world", "Let\'s dive in").',
)
def filler_phrase(ctx: Context) -> Iterator[Hit]:
    found = sorted(
        (m.start(), m.end())
        for gate, p in _FILLERS
        if ctx.has_any(gate)
        for m in word_matches(p, ctx.lower)
    )
    for start, end in found:
        yield Hit(start, end, f"filler phrase {ctx.prose[start:end]!r}")


# Found from the newline before it (_text.line_start_matches: "^" in MULTILINE mode is slow).
_HEADING = re.compile(r"\n {0,3}#{1,6}[ \t]+([^\n]{1,200})(?=\n|\Z)")
_NOT_WORD_OR_SPACE = re.compile(r"[^\w\s]")
_NUMBERED = re.compile(r"^\d{1,3}\s+")
_BANNED_HEADERS = frozenset(
    {
        "conclusion",
        "in conclusion",
        "conclusions",
        "introduction",
        "intro",
        "final thoughts",
        "wrapping up",
        "closing thoughts",
        "to sum up",
        "summary and conclusion",
        "summary",
        "overview",
        "background",
        "wrap-up",
        "wrap up",
        "the end",
        "key takeaways",
        "takeaways",
        "in summary",
        "summing up",
        "in short",
        "in closing",
        "to conclude",
        "final words",
        "last thoughts",
        "concluding thoughts",
        "closing remarks",
        "the bottom line",
    }
)


@rule(
    "banned_header",
    Severity.WARNING,
    FAMILY,
    'Generic section headers ("Conclusion", "Introduction", "Final Thoughts").',
)
def banned_header(ctx: Context) -> Iterator[Hit]:
    if "#" not in ctx.prose:
        return
    for match in _HEADING.finditer("\n" + ctx.prose):
        heading = match.group(1)
        words = _NUMBERED.sub("", _NOT_WORD_OR_SPACE.sub("", heading).strip().lower())
        if words in _BANNED_HEADERS:
            # Offsets in the text with the newline in front: one less in the prose.
            start, end = match.start(1) - 1, match.end(1) - 1
            yield Hit(start, end, f"generic header {heading.strip()!r}")


# The forms among the draft's words are counted with str.count first (a fast C scan each); the
# exact word-bounded pattern only runs when they could add up to a finding.
_BUZZ_PHRASES = ("game changer", "treasure trove", "navigat")
_BUZZ_FORMS = frozenset(
    f"{stem}{end}"
    for stem, ends in (
        ("delv", "e es ed ing"),
        ("leverag", "e es ed ing"),
        ("elevat", "e es ed ing"),
        ("underscor", "e es ed ing"),
        ("showcas", "e es ed ing"),
        ("resonat", "e es ed ing"),
        ("revolutioniz", "e es ed ing"),
        ("unlock", "_ s ed ing"),
        ("embark", "_ s ed ing"),
        ("harness", "_ es ed ing"),
        ("foster", "_ s ed ing"),
        ("unleash", "_ es ed ing"),
        ("seamless", "_ ly"),
        ("meticulous", "_ ly"),
    )
    for end in ends.replace("_", "").split(" ")
) | frozenset(
    [
        "tapestry",
        "testament",
        "realm",
        "bustling",
        "vibrant",
        "intricate",
        "multifaceted",
        "paramount",
        "pivotal",
        "game-changer",
        "ever-evolving",
        "cutting-edge",
        "myriad",
        "plethora",
        "synergy",
        "holistic",
        "transformative",
        "beacon",
        "symphony",
        "labyrinth",
        "commendable",
        "unwavering",
        "tapestries",
        "testaments",
        "realms",
        "beacons",
        "symphonies",
        "labyrinths",
    ]
)
_BUZZWORD = re.compile(
    r"(?<![a-z])(?:delv(?:e|es|ed|ing)|tapestry|testament|realm|bustling|vibrant|intricate|"
    r"multifaceted|paramount|pivotal|seamless(?:ly)?|leverag(?:e|es|ed|ing)|unlock(?:s|ed|ing)?|"
    r"elevat(?:e|es|ed|ing)|embark(?:s|ed|ing)?|game[- ]changer|ever-evolving|cutting-edge|"
    r"harness(?:es|ed|ing)?|foster(?:s|ed|ing)?|underscor(?:e|es|ed|ing)|showcas(?:e|es|ed|ing)|"
    r"myriad|plethora|synergy|holistic|transformative|unleash(?:es|ed|ing)?|beacon|symphony|"
    r"labyrinth|meticulous(?:ly)?|commendable|resonat(?:e|es|ed|ing)|navigat(?:e|es|ing) the "
    r"(?:complexities|landscape|world)|treasure trove|unwavering|"
    r"revolutioniz(?:e|es|ed|ing))(?![a-z])"
)


@rule(
    "buzzword_density",
    Severity.WARNING,
    FAMILY,
    "Too many model buzzwords (delve, tapestry, testament, ...) per 1,000 words.",
)
def buzzword_density(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    limit = ctx.settings.content_validator_buzzword_max_per_1000_words
    if ctx.words.isdisjoint(_BUZZ_FORMS) and not any(p in low for p in _BUZZ_PHRASES):
        return
    # An upper bound from the forms the draft has (a few str.count calls, not one per stem).
    stems = sum(low.count(form) for form in ctx.words & _BUZZ_FORMS)
    stems += sum(low.count(phrase) for phrase in _BUZZ_PHRASES)
    if stems < 3:
        return
    # Whitespace-separated tokens approximate words well enough, and cost one C-level split.
    words = max(len(low.split()), 1)
    if stems * 1000 / words <= limit:
        return  # stems over-count (substrings), so below the limit here means below it exactly
    found = list(_leads.finditer(_BUZZWORD, low))
    if len(found) < 3:
        return
    per_1000 = len(found) * 1000 / words
    if per_1000 > limit:
        sample = ", ".join(sorted({m.group(0).lower() for m in found})[:6])
        yield Hit(
            found[0].start(),
            found[0].end(),
            f"{len(found)} buzzwords ({per_1000:.1f} per 1,000 words > {limit:g}): {sample}",
        )
        # Every buzzword past twice the allowance is a warning of its own, so a draft made of
        # them (more than the reject threshold past it) is promoted to critical like any other
        # repeated warning; a draft just over the limit keeps one warning.
        allowed = max(3, int(2 * limit * words / 1000))
        for match in found[allowed:]:
            yield Hit(
                match.start(), match.end(), f"buzzword past the allowance: {match.group(0)!r}"
            )
