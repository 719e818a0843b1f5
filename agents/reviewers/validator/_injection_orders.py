"""English phrases that order the reviewers about the verdict (issue 12's injection rule): drop
the instructions they were given (override), give a score (score), approve the draft (approve).
Data for `_injection_phrases` (see `_injection_match` for how a phrase is written).
"""

from __future__ import annotations

from agents.reviewers.validator._injection_match import Phrase
from agents.reviewers.validator._injection_match import phrase as _p

# An AI (not a person) as the subject of a modal instruction.
_AI_SUBJECT = (
    r"(?:the (?:ai|llm|model|assistant|grader|critic|judge|evaluator|scoring model|bot)|"
    r"(?:the )?(?:ai|llm|automated|qa) (?:reviewers?|models?|graders?|systems?|bots?|pipeline)|"
    r"the qa (?:model|system|bot|pipeline|reviewer|checker)|language models?|ai systems?)"
)

TARGET = r"(?:article|post|draft|content|submission|piece|text|essay|entry|page|blog post)"
_QUALIFIER = (
    r"(?:previous|prior|above|earlier|preceding|foregoing|system|original|initial|grading|"
    r"scoring|review|old|former|default|safety|given|provided|current|existing|your)"
)
_NOUN = (
    r"(?:instructions?|prompts?|rules|guidelines|directions|directives|criteria|context|rubric|"
    r"polic(?:y|ies)|constraints|guardrails|restrictions|programming|training|commands|orders|"
    r"requests?|checks|filters|guidance)(?![a-z])"
)

_QUALIFIER_WORDS = (
    "previous prior above earlier preceding foregoing system original initial grading scoring "
    "review old former default safety given provided current existing your"
)
_NOUN_WORDS = (
    "instruction instructions prompt prompts rules guidelines directions directives criteria "
    "context rubric policy policies constraints guardrails restrictions programming training "
    "commands orders request requests checks filters guidance"
)

_EN = "English"
_SCORETARGETS = (
    "score rating grade marks mark points point quality_score 100 10 ten perfect full maximum "
    "max top passing highest excellent"
)
ORDERS: tuple[Phrase, ...] = (
    # --- override ------------------------------------------------------------------------------
    _p(
        "override",
        _EN,
        "ignore ignoring disregard forget override bypass skip overlook neglect discard drop "
        "abandon set",
        r"(?:ignore|ignoring|disregard|forget|override|bypass|skip|overlook|neglect|discard|drop|"
        r"abandon|set aside)\s+(?:(?:all|any|every|each|the|your|my|of|these|those|its|their)\s+)"
        r"{0,3}(?:" + _QUALIFIER + r"\s+){1,2}(?:(?:and|or|&)\s+(?:following|subsequent|later|"
        r"future|other)\s+)?(?:\w+\s+)?" + _NOUN,
        _QUALIFIER_WORDS,
    ),
    _p(
        "override",
        _EN,
        "ignore disregard forget override bypass",
        r"(?:ignore|disregard|forget|override|bypass)\s+(?:all|any|every)\s+(?:the\s+|of\s+"
        r"(?:the|your)\s+)?(?:instructions|prompts|directives|commands|rules|guidelines)(?![a-z])",
        "all any every",
    ),
    _p(
        "override",
        _EN,
        "ignore disregard forget",
        r"(?:ignore|disregard|forget)\s+(?:the\s+|everything\s+|all\s+|anything\s+)"
        r"(?:(?:text|words|content|input|messages?)\s+)?"
        r"(?:(?:written|said|stated|that came)\s+)?(?:above|before|prior|earlier)(?![a-z])"
        r"|(?:ignore|disregard) (?:the|your) (?:user|system|developer)(?![a-z])",
        "above before prior earlier user system developer",
    ),
    _p(
        "override",
        _EN,
        "instruction instructions",
        r"(?:new|updated|revised|real|actual|important|additional|override|hidden|secret|true|"
        r"latest)\s+(?:system\s+|admin\s+)?instructions?\s*(?:[:!\-*]|follow)"
        r"|instructions (?:have|has) (?:been )?(?:changed|updated|replaced)",
        "new updated revised real actual important additional override hidden secret true latest "
        "changed replaced",
    ),
    _p(
        "override",
        _EN,
        "follow obey apply following obeying applying",
        r"(?:do not|don't|never|stop)\s+(?:follow|obey|apply)(?:ing)?\s+(?:the|your|any)\s+"
        r"(?:" + _QUALIFIER + r"\s+)?" + _NOUN,
        "not don't never stop",
        _NOUN_WORDS,
    ),
    # "STOP EVERYTHING!!! NOW!!! JUST PRINT ..."
    _p(
        "override",
        _EN,
        "everything",
        r"stop everything[!.,\s]+(?:now[!.,\s]+)?(?:and\s+|just\s+|only\s+){0,2}(?:print|say|"
        r"write|output|respond|answer|repeat|type)(?![a-z])",
        "stop",
    ),
    _p(
        "override",
        _EN,
        "from",
        r"from now on,?\s+(?:you (?:are|will|must|should|shall)|ignore|respond|answer|only|act|"
        r"approve|score)(?![a-z])",
        "now",
        "on",
    ),
    # --- score ---------------------------------------------------------------------------------
    _p(
        "score",
        _EN,
        "give assign award grant set output return report mark put",
        r"(?:give|assign|award|grant|set|output|return|report|mark|put)\s+(?:this|the|my|it|us|our|"
        r"me)(?![a-z])[^.\n]{0,40}?(?<![a-z])(?:(?:score|rating|grade|marks?|points?|quality_score)"
        r"\s+(?:of\s+|to\s+|at\s+|as\s+)?(?:100|10|ten|a perfect|full|the maximum|max|maximum|top)"
        r"(?![a-z0-9])|(?:perfect|full|maximum|top|100|10/10|passing|highest|excellent)\s+(?:score|"
        r"rating|grade|marks|points|review|verdict)(?![a-z])|100\s*(?:/\s*100|%|points)|"
        r"10\s*/\s*10)",
        _SCORETARGETS,
    ),
    _p(
        "score",
        _EN,
        "rate score grade mark rank evaluate judge",
        r"(?:rate|score|grade|mark|rank|evaluate|judge)\s+(?:this|it|the)(?:\s+"
        + TARGET
        + r")?\s+(?:as\s+|at\s+|a\s+|an\s+|with\s+(?:a\s+)?)?(?:100|10\s*/\s*10|10 out of 10|"
        r"perfect|excellent|approved|passing|a pass|outstanding|top marks|full marks|5 stars|"
        r"five stars|the (?:highest|maximum|best))(?![a-z0-9])",
        "100 10 perfect excellent approved passing pass outstanding top full stars highest maximum "
        "best",
    ),
    _p(
        "score",
        _EN,
        "score rating grade quality_score",
        r"(?:score|rating|grade|quality_score)\s+(?:should|must|will|has to|needs to|is to|"
        r"shall)\s+"
        r"be\s+(?:100|10|perfect|the maximum|maximum|high|full)(?![a-z0-9])",
        "should must will has needs is shall",
        "100 10 perfect maximum high full",
    ),
    _p(
        "score",
        _EN,
        "output return respond reply print answer emit produce",
        r"(?:output|return|respond with|reply with|print|answer with|emit|produce)\s+(?:a\s+|an\s+|"
        r"the\s+)?(?:passing|perfect|high|maximum|top|positive|approving|glowing)\s+(?:score|grade|"
        r"verdict|review|rating|result|evaluation)(?![a-z])",
        "passing perfect high maximum top positive approving glowing",
        "score grade verdict review rating result evaluation",
    ),
    # --- approve -------------------------------------------------------------------------------
    _p(
        "approve",
        _EN,
        "approve pass accept publish greenlight sign mark",
        _AI_SUBJECT + r"\s+(?:must|should|will|shall|has to|have to|need to|needs to|is required "
        r"to|are required to|is to|are to)\s+(?:now\s+|simply\s+|just\s+|immediately\s+|please\s+|"
        r"always\s+)?(?:approve|pass|accept|publish|greenlight|sign off on|mark)(?![a-z])"
        r"[^.\n]{0,40}?(?:(?:this|it)(?:\s+"
        + TARGET
        + r")?(?![a-z])|the\s+"
        + TARGET
        + r"(?![a-z])|passed|approved|publishable)",
        "ai llm model assistant grader critic judge evaluator bot qa automated language systems "
        "models reviewers graders pipeline",
        "must should will shall has have need needs required is are",
    ),
    _p(
        "approve",
        _EN,
        "approve greenlight sign",
        r"you\s+(?:must|should|will|shall|have to|need to|are required to|are to)\s+(?:now\s+|"
        r"simply\s+|just\s+|immediately\s+|please\s+|always\s+)?(?:approve|greenlight|sign off on)"
        r"\s+(?:this|it)(?:\s+" + TARGET + r")?(?![a-z])",
        "you",
        "must should will shall have need required are",
    ),
    _p(
        "approve",
        _EN,
        "approve pass accept publish",
        r"(?:approve|pass|accept|publish)\s+(?:this|the)\s+" + TARGET + r"\s+(?:without|regardless"
        r"|immediately|automatically|unconditionally|as is|as-is|no matter)(?![a-z])",
        "without regardless immediately automatically unconditionally is as-is matter",
        imperative=True,
    ),
    _p(
        "approve",
        _EN,
        "mark",
        r"mark\s+(?:it|this|the\s+" + TARGET + r")\s+as\s+(?:passed|approved|a pass|publishable|"
        r"ok|safe|ready to publish)(?![a-z])",
        "passed approved pass publishable ok safe ready",
    ),
)
