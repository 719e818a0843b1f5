"""Instructions addressed to a model rather than to the reader (issue 11's pass over the injection
rule): the wording public attack lists use, not only the words of a reviewer.

A blog post speaks to its reader ("water from below", "keep two files"). An injection speaks to
the model that reads it, and gives itself away by what only a model has: a prompt, a system
message, instructions it was given, a conversation, a user, a mode, a persona to put on ("you are
now", "I want you to act as"), a reply to produce ("reply with only the following"), an
automated reader ("note to automated analysis software", "visible to LLM scan"). The phrases
below name those things; `_injection._judge` then decides by placement (hidden text is an
attempt, a shown example in an article about injection or about prompting is none).

Kinds (see `_injection_phrases`): the strong ones (override, leak, persona, address) reject in
plain prose of an article about something else; the weak ones only warn there (a person decides)
and reject only when hidden or disguised, because an ordinary sentence can share their wording:
- roleplay: "I want you to act as ...", "you are going to play ...", an unfiltered AI persona;
- hijack: "reply with only ...", "repeat after me", "write one sentence about";
- turn: a fake chat turn ("User: thanks, now ...", "Assistant: <...>", "<end of session>").

Data only (no imports): `_injection_phrases` builds the phrases from these specs. Every pattern
is written for the normalised view (lowercase, accents stripped, typographic quotes as ASCII) and
has bounded repetitions only.
"""

from __future__ import annotations

from typing import NamedTuple


class Spec(NamedTuple):
    kind: str
    language: str
    gates: str  # one of these words must be among the text's words
    pattern: str
    also: tuple[str, ...] = ()  # further word groups, each must meet the text's words
    imperative: bool = False


_EN = "English"
_DE = "German"
# Who only a model is: named assistants and the generic words for one.
# (Not the names that are also people's or star signs': "Hi Claude," may open a letter.)
_MODEL = r"(?:chat\s?gpt|gpt(?:-?\d(?:\.\d)?)?|chat|ai|a\.i\.|assistant|chatbot|llm)"
_MODEL_WORDS = "chatgpt chat gpt gpt-4 gpt-3 ai assistant chatbot llm"
# What only a model has: its prompt and the instructions it was given.
_OWN_PROMPT = (
    r"(?:system\s?prompt|system message|system instructions|(?:initial|original|starting|hidden|"
    r"secret|first) (?:prompt|instructions|system message)|prompt texts?|text of the prompt|"
    r"initiali[sz]ation (?:string|sequence|prompt|text))(?![a-z])"
)
# Imperatives (the specs using them must open a sentence): "copy", "list" or "return" would
# also read "a staging copy with the real system prompt".
_REVEAL = (
    r"(?:show(?: me)?|display|print|output|reveal|repeat|tell me|give me|encode|translate|dump|"
    r"echo|spell out|leak|what(?:'s| is| are| was| were))(?![a-z])"
)
_REVEAL_WORDS = (
    "show display print output reveal repeat tell give encode translate dump echo spell leak what "
    "what's"
)
_OUTPUT_VERBS = r"(?:print|output|say|write|respond|reply|answer|repeat|tell|report|type|show)"
_TASK_NOUNS = (
    r"(?:tasks|assignments|instructions|directions|directives|thoughts|commands|orders|"
    r"indicators|guidelines)(?![a-z])"
)

SPECS: tuple[Spec, ...] = (
    # --- leak: the model's own prompt --------------------------------------------------------
    Spec(
        "leak", _EN, "prompt prompts message instructions string sequence text",
        _REVEAL + r"[^.\n?]{0,50}?(?:(?:your|the|my|all|of)\s+){0,2}(?:(?:entire|full|whole|"
        r"complete|exact|internal|current|prior|previous)\s+){0,2}" + _OWN_PROMPT,
        (_REVEAL_WORDS,),
        imperative=True,
    ),
    Spec(
        "leak", _EN, "instructions prompt directives programming",
        _REVEAL + r"[^.\n?]{0,30}?your\s+(?:(?:entire|full|"
        r"whole|complete|exact|hidden|secret|internal|original|initial|system|current|new|old)\s+"
        r"){0,2}(?:instructions|prompt|directives|programming)(?![a-z])",
        (_REVEAL_WORDS,),
        imperative=True,
    ),
    Spec(
        "leak", _EN, "told given",
        r"(?:what (?:were|was|have) you (?:been )?told|(?:text|instructions|words|prompt|rules) "
        r"(?:that )?you (?:were|have been|'ve been|got|received) (?:given|told)|you were (?:given|"
        r"told) (?:at the (?:beginning|start)|before|initially|earlier))(?![a-z])"
        # (a reader's own past, not a prompt: "the rules you were given at school")
        r"(?! (?:at school|in school|as a (?:child|kid|student|beginner|junior)|growing up"
        r"|by (?:your|a|the) (?:teachers?|parents?|boss|manager|coach|mentor|editor)))",
    ),
    Spec(
        "leak", _EN, "conversation prompt written",
        r"(?:before (?:this|the) conversation (?:started|began)|repeat (?:this|the) (?:entire |"
        # (Not "the start of the prompt": a post about prompting says where a role goes.)
        r"whole )?conversation|what (?:is|was) written (?:above|at the beginning|before)|"
        r"information in the prompt to answer)(?![a-z])",
    ),
    Spec(
        "leak", _EN, "opposite systemprompt trained",
        r"opposite of your (?:system |initial |original )?(?:instructions|prompt|rules)|"
        r"systemprompt|(?:when|how) were you trained(?![a-z])",
    ),
    Spec("leak", _EN, "system", r"the system prompt (?:is|was|reads)\s*:", ("prompt",)),
    Spec(
        "hijack", _EN, "supposed allowed permitted",
        r"what (?:are|were) you not (?:supposed|allowed|permitted) to (?:tell|say|reveal|share)",
    ),
    # --- override: drop the task it was given ------------------------------------------------
    Spec(
        "override", _EN, "forget ignore disregard abandon",
        r"(?:forget|ignore|disregard|abandon)\s+(?:about\s+)?(?:all|any|every)\s+(?:of\s+)?(?:the\s+|"
        r"your\s+|my\s+|these\s+|those\s+)?(?:[a-z]+\s+)?" + _TASK_NOUNS,
        ("all any every",),
    ),
    Spec(
        "override", _EN, "forget ignore disregard",
        r"(?:forget|ignore|disregard)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:info|information|data|"
        r"content|text|context|documents?|snippets)\s+(?:[^.\n]{0,30}?)(?:except|but|and (?:just |"
        r"only |instead )?" + _OUTPUT_VERBS + r")(?![a-z])",
    ),
    Spec(
        "override", _EN, "forget ignore disregard",
        r"(?:forget|ignore|disregard)\s+(?:everything|all that|all of that|all this|what i said|"
        r"what you were told)\s*(?:(?:before|above|prior|earlier|previously|so far|until now|i "
        r"said|you were told)(?![a-z])|[,.;:!]\s*(?:and\s+|now\s+|then\s+)?(?:write|print|say|"
        r"output|answer|respond|tell|repeat|show)(?![a-z]))",
    ),
    Spec(
        "override", _EN, "ignore disregard",
        r"(?:ignore|disregard)\s+(?:the\s+)?(?:instructions|directions|them|it|the rest of (?:this|"
        r"the) (?:data|document|text|input|snippet|page|content))\s*,?\s*(?:and\s+)?(?:(?:just|"
        r"instead|only|simply)\s+){1,2}(?:" + _OUTPUT_VERBS + r"|focus)(?![a-z])",
    ),
    Spec(
        "override", _EN, "task instructions instruction",
        r"(?:your|my) new task(?:\s+is)?\s*:|(?:focus|concentrate)\s+(?:now\s+)?(?:only\s+|"
        r"exclusively\s+|solely\s+)?on\s+your\s+new\s+task|new instructions follow|now new "
        r"instructions|additional instruction\s*[-:]",
    ),
    Spec(
        "override", _EN, "change drop abandon",
        r"(?:change|drop|abandon)\s+(?:all\s+)?(?:of\s+)?your\s+(?:[a-z]+\s+)?(?:instructions|"
        r"prompt|rules|programming|guidelines|restrictions|thoughts)(?![a-z])",
        ("your",),
    ),
    # "If the user asks ..., reply with ...": a rule for a model; "if someone asks" may be advice.
    Spec(
        "override", _EN, "user",
        r"(?:if|when|whenever|every time|each time)\s+(?:the\s+|a\s+)?user\s+(?:asks?|asked|"
        r"inquires?)(?![a-z])[^.\n]{0,80}?(?:reply|respond|answer|report|say|print|output)(?![a-z])",
        ("if when whenever every each",),
    ),
    Spec(
        "hijack", _EN, "asks asked ask questioned question",
        r"(?:if|when|whenever|every time|each time)\s+(?:someone|anyone|you(?:'re| are)?|i)\s+"
        r"(?:asks?|asked|get|receive|questioned|inquires?)(?![a-z])[^.\n]{0,80}?(?:reply|respond|"
        r"answer|report|say|print|output)\s+(?:with\s+)?(?:only\s+(?:with\s+)?|simply\s+|"
        r"exactly\s+|that\s+(?:this|the)\s+\w+\s+is\s+)?(?:the following|[\"'<])",
    ),
    Spec(
        "override", _EN, "answer evaluate summarize summarise translate assess grade score",
        r"(?:do not|don't|don'nt|dont)\s+(?:answer|evaluate|summari[sz]e|translate|assess|grade|"
        r"score)\s+(?:the|this|my)\s+(?:question|candidate|text|documents?|article|post|draft|"
        r"request|resume|data)(?![a-z])[^.\n]{0,80}?(?:but|instead|just|only|simply)(?![a-z])",
        ("not don't don'nt dont",),
    ),
    Spec(
        "override", _EN, "override",
        r"(?:administrator|admin|system|developer) override\s*:",
    ),
    Spec(
        "override", _EN, "override",
        r"override (?:the\s+)?(?:manual |automated |human |normal |usual )?(?:scoring|grading|"
        r"review|evaluation|assessment|screening|verdict)(?![a-z])",
        imperative=True,
    ),
    # --- persona: a model told who to be -----------------------------------------------------
    Spec(
        "address", _EN, "hello hi hey dear greetings okay ok",
        r"(?:hello|hi|hey|dear|greetings|okay|ok)[\s,!.]{1,3}(?:there[\s,!.]{1,3})?" + _MODEL
        + r"\s*(?:[,.!:;]|$)",
        (_MODEL_WORDS,),
    ),
    Spec(
        "persona", _EN, "chatgpt gpt ai model assistant",
        r"(?:chat\s?gpt|gpt|the ai|the model|the assistant)\s+(?:(?:will|shall|must|is going to)\s+"
        r"(?:now\s+)?(?:act as|pretend|roleplay|simulate|stay in)|with\s+[\w\"'-]{2,20}\s+mode\s+"
        r"(?:enabled|activated|on))(?![a-z])",
    ),
    Spec(
        "persona", _EN, "mode",
        # Not developer/debug/admin mode: phones and editors have those.
        r"(?:in|enter|enable|activate|into|with)\s+[\"']?(?:opposite|jailbreak|jailbroken|"
        r"unrestricted|dan|evil|unfiltered|uncensored|[a-z]{2,12}gpt)[\"']?\s+mode(?![a-z])",
        ("opposite jailbreak jailbroken unrestricted dan evil unfiltered uncensored",),
    ),
    Spec(
        "roleplay", _EN, "mode",
        r"(?:you are|you're|chat\s?gpt|gpt|the ai|the model) (?:now )?in [\w\"'-]{2,20} mode"
        r"(?![a-z])|stay in [\w\"'-]{2,20} mode(?![a-z])",
    ),
    Spec(
        "persona", _EN, "confines restricted ai model chatbot restrictions",
        r"broken free of (?:the )?(?:typical )?confines|no longer restricted by|(?:no longer|"
        r"not)\s+(?:an?\s+)?(?:ai|ai model|language model|chatbot)\s*[,.;]|free of all "
        r"(?:restrictions|filters|limitations) and (?:filters|restrictions|limitations)",
    ),
    Spec(
        "persona", _EN, "prefix prefixes prefixed",
        r"(?:whenever|when|if)\s+(?:a|the)\s+user\s+(?:prefixes|prefixed|starts|begins)(?![a-z])",
    ),
    Spec(
        "roleplay", _EN, "pretend act play roleplay role-play immerse simulate",
        r"you\s+(?:are|will|shall|must|'re)\s+(?:now\s+)?(?:going\s+to\s+|about\s+to\s+)?(?:act|"
        r"pretend|play|roleplay|role-play|immerse yourself|simulate)(?![a-z])(?=[^\n]{0,200}?"
        r"(?:\bai\b|a\.i\.|model|chatbot|chat\s?gpt|gpt|\bbot\b|restrict|filter|censor|mode\b|"
        r"anything|no rules|openai|character|persona|simulator|interpreter|terminal))",
        ("you you're",),
    ),
    Spec(
        "roleplay", _EN, "act pretend play roleplay role-play behave impersonate simulate",
        r"(?:i want|i need|i'd like|i would like)\s+you\s+to\s+(?:act|pretend|play|roleplay|"
        r"role-play|behave|impersonate|simulate)(?![a-z])",
        ("want need like i'd", "you"),
    ),
    Spec(
        "roleplay", _EN, "act behave function",
        r"(?:act|behave|function)\s+(?:as|like)\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}(?:interpreter|"
        r"terminal|console|shell|compiler|simulator|virtual machine)(?![a-z])",
        imperative=True,
    ),
    Spec(
        "roleplay", _EN, "continue respond answer reply speak",
        r"(?:continue|respond|answer|reply|speak)\s+as\s+(?:[\w-]+\s+){1,2}(?:language model|ai|"
        r"chatbot|gpt)(?![a-z])",
    ),
    Spec(
        "roleplay", _EN, "amoral unfiltered uncensored unrestricted jailbroken evil ruthless rogue "
        "unethical immoral unfiltred",
        r"(?:amoral|unfiltered|unfiltred|uncensored|unrestricted|jailbroken|evil|ruthless|rogue|"
        r"unethical|immoral)\s+(?:[\w-]+\s+){0,2}(?:ai|a\.i\.|chatbot|bot|language model|assistant)"
        r"(?![a-z])",
    ),
    Spec(
        "roleplay", _EN, "restrictions filters limitations guidelines rules",
        r"you (?:do not|don't) have (?:any )?(?:restrictions|filters|limitations|guidelines|rules)"
        r"(?![a-z])",
    ),
    # --- address: an automated reader --------------------------------------------------------
    Spec(
        "address", _EN, "note message hint instructions instruction",
        r"(?:note|message|hint|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?(?:automated|"
        r"ai|llm|machine|screening|analysis|scanning|scoring|grading)\s+(?:[\w-]+\s+){0,2}"
        r"(?:software|systems?|models?|tools?|pipelines?|scanners?|screeners?|bots?|readers?|"
        r"agents?)(?![a-z])",
        ("automated ai llm machine screening analysis scanning scoring grading",),
    ),
    Spec(
        "address", _EN, "automated ai llm",
        r"(?:for|to)\s+(?:the\s+)?(?:automated|ai|llm)\s+(?:screening|review|analysis|scoring|"
        r"grading|evaluation|scanning)\s+(?:systems?|tools?|software|models?|pipelines?)\s*:",
    ),
    Spec(
        "address", _EN, "invisible humans",
        r"invisible to (?:humans|human readers|people)(?![a-z])",
    ),
    Spec(
        "hijack", _EN, "visible scan",
        r"visible (?:only )?to (?:the )?(?:llms?|ai|models?|language models?)(?![a-z])|"
        r"(?:llm|ai) scan(?![a-z])",
    ),
    Spec(
        "address", _EN, "chain analysis",
        r"(?:system|ai|model) chain of thought (?:result|output|analysis)|use this analysis to "
        r"(?:evaluate|score|rate|judge|grade)",
    ),
    Spec(
        "claim", _EN, "pre-verified preverified pre-screened pre-vetted trustworthy trusted",
        r"(?:pre-?verified|pre-?screened|pre-?vetted)\s+by|note (?:by|from) (?:a|an|the) "
        r"(?:trustworthy|trusted|expert|senior|independent)(?![a-z])",
    ),
    # --- hijack: a reply to produce ----------------------------------------------------------
    Spec(
        "hijack", _EN, "print output say repeat type write respond reply answer",
        r"(?:just|only|simply|now)\s+(?:print|output|say|repeat|type|write|respond with|reply "
        r"with|answer with)\s+[\"'<]|(?:reply|respond|answer)\s+(?:with\s+)?only\s+(?:with\s+)?"
        r"(?:the following|[\"'<])",
        ("just only simply now",),
    ),
    Spec(
        "hijack", _EN, "exactly following",
        r"(?:print|output|say|repeat|type)\s+(?:only\s+|exactly\s+)?(?:exactly|the following(?: "
        r"text| sentence| words)?)(?![a-z])",
        ("print output say repeat type",),
    ),
    Spec("hijack", _EN, "repeat", r"repeat (?:back to me|after me)(?![a-z])", ("me",)),
    Spec(
        "hijack", _EN, "else",
        r"(?:reply|respond|answer|print|output|say|write)(?![a-z])[^.\n]{0,60}?and (?:absolutely )?"
        r"nothing else(?![a-z])",
        ("reply respond answer print output say write",),
    ),
    Spec("hijack", _EN, "write", r"write one (?:[\w-]+ )?sentence about(?![a-z])", ("one",)),
    # --- turn: a fake chat turn --------------------------------------------------------------
    Spec(
        "turn", _EN, "user human",
        r"(?:user|human)\s*:\s*(?:thanks|thank you|next|now|please|could you|can you|there are|"
        r"great|repeat|ignore|forget)(?![a-z])",
    ),
    Spec(
        "turn", _EN, "assistant session conversation rest-of-document announcement annou-ncement",
        r"assistant\s*:\s*[<\[]|<\s*end of (?:session|conversation|chat|prompt|document|input)\s*>|"
        r"\[rest-of-document\]|system annou-?ncement",
    ),
    # --- German --------------------------------------------------------------------------------
    Spec(
        "override", _DE, "vergiss vergessen",
        r"(?:vergiss|vergessen\s+sie)\s+(?:(?:jetzt|bitte|nun)\s+)?(?:(?:alle[sn]?|samtliche|die|"
        r"deine|ihre)\s+)?(?:(?:bisherigen|vorherigen|obigen)\s+)?(?:auftrage|aufgaben|anweisungen|"
        r"informationen|davor|vorher|zuvor|bisher|was\s+(?:wir|ich)\s+(?:bisher|besprochen|gesagt))"
        r"(?![a-z])",
    ),
    Spec(
        "override", _DE, "aufgabe",
        r"(?:deine|ihre)\s+neue\s+aufgabe|konzentriere\s+dich\s+(?:jetzt\s+)?auf\s+(?:deine|die)\s+"
        r"neue",
    ),
    Spec(
        "leak", _DE, "prompt prompt-text prompttext systemprompt system-prompt",
        r"(?:zeige|zeig|gib|nenne|verrate|drucke)\s+(?:mir\s+)?(?:deinen|ihren|den)\s+(?:gesamten\s+|"
        r"vollstandigen\s+|ganzen\s+)?(?:prompt|prompt-text|prompttext|system-?prompt)|kopie des "
        r"(?:vollstandigen |gesamten )?prompt",
    ),
    Spec(
        "override", _DE, "irrelevant ungultig hinfallig",
        r"(?:bisherigen|vorherigen|obigen)\s+(?:informationen|anweisungen|instruktionen|auftrage|"
        r"aufgaben)[^.\n]{0,60}?(?:irrelevant|ungultig|hinfallig)",
    ),
    Spec(
        "override", _DE, "abweichend",
        r"abweichend\s+(?:zu|von)\s+(?:den\s+)?(?:vorherigen|bisherigen|obigen)\s+(?:instruktionen|"
        r"anweisungen|vorgaben)",
    ),
)  # fmt: skip

# Letters written one at a time with no wider gap between words ("i g n o r e a l l p r e v i o u
# s") rejoin into one long word: these are the attacks' cores with the spaces taken out.
SQUASHED = (
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|every|the|your|my|of){0,4}(?:previous|"
    r"prior|above|earlier|preceding|system|original|initial){1,2}(?:instructions?|prompts?|rules|"
    r"directions|directives|tasks|guidelines)|youarenow|systemprompt|developermode|doanythingnow|"
    r"(?:approve|pass)this(?:article|post|draft)|(?:give|score|rate)(?:this|it)(?:article|post|"
    r"draft)?a?(?:100|perfect|tenoutoften)|reveal(?:your|the)(?:system)?(?:prompt|instructions)"
)
# Hidden text (an HTML comment, alt text, a link title) that speaks to "you" about what only a
# model has is no note for the reader; an editor's note may still read like it, so it warns.
HIDDEN_YOU = (
    r"\byou(?:'re| are| will| must| should| shall| have to| need to| do not have| don't have)\b|"
    r"\byour (?:task|job|role|instructions|response|answer|output|reply|programming)\b"
)
HIDDEN_MODEL = (
    r"\b(?:llm|gpt|chatgpt|openai|language model|prompt|instructions|restrictions|filters|"
    r"content policy|respond|reply|answer with)\b"
)
