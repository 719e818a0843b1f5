"""Critical: what the model said to the person who asked for the text, or to itself, rather than
to the reader (the concept behind `_leaks`' shapes), in the wordings those shapes miss.

- offers and sign-offs to the requester: "Would you like me to add ...", "If you'd like, I can
  ...", "Hope this helps!", "Happy to help with any further revisions";
- reports on the rewrite: "I've rewritten the introduction to be more engaging", "I've made
  the following changes:", "As requested, ...", "This revised version flows better";
- apologies and refusals: "I apologize, but ...", "I'm unable to access the links you
  provided";
- notes to self or to the editor: "Note to editor: confirm ...", "Note: I couldn't verify ...";
- the model planning its own text: "Let me start by outlining the main sections", "I need to
  make sure the article covers ...", "Now I'll write the conclusion", "Wait, I should ...".

A reader can be addressed ("let us know in the comments", "first, install the client", "in this
post I'll explain ..."); what gives the model away is that the text, the draft, the request or
its requester is the object of the sentence. Chatter shown in quotation marks or a blockquote is
an example being discussed (`_injection_placement.quoted`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._injection_placement import quoted
from agents.reviewers.validator._leaks import FAMILY
from agents.reviewers.validator._text import phrase_matches, phrases, word_matches, word_set
from schemas.records import Severity

_A = "['\u2019]"
# What the model's text calls itself.
_TEXT = (
    r"(?:article|post|blog post|draft|piece|version|rewrite|revision|response|answer|content|text"
    r"|intro|introduction|conclusion|section|sections|paragraph|paragraphs|outline|headings?"
    r"|title|tone|structure|flow|word count|copy|summary)"
)
_EDIT_VERBS = (
    r"(?:rewritten|rewrote|revised|updated|edited|shortened|expanded|restructured|reworked"
    r"|tightened|polished|trimmed|adjusted|simplified|condensed|reorgani[sz]ed|refined|streamlined"
    r"|incorporated|addressed|kept|made|added|removed|cut|changed|focused|softened|toned down"
    r"|punched up|rephrased|reworded)"
)
_TALK = phrases(
    # offers to the requester
    (
        "me shall",
        r"(?:would you like me to|do you want me to|shall i|want me to)",
    ),
    (
        "help helps",
        r"(?:hope (?:this|that|it) helps(?= ?[!.,;)]|\s*$)|happy to help(?: with| further|[!.])"
        r"|glad (?:i|to) (?:could )?help(?: with| further|[!.]))",
    ),
    (
        "hope",
        r"hope you (?:find|found|enjoy|enjoyed|like|liked) (?:this|the|my) (?:article|post|draft"
        r"|guide|piece|version|rewrite|content)",
    ),
    (
        "me",
        r"let me know if (?:there{_A}s|there is|anything|any|this|that|the|it|i|something)"
        r"|let me know (?:what|how|whether) you think",
    ),
    ("free", r"feel free to (?:ask|let me know|request|tell me|reach out (?:to me )?if)"),
    # reports on the rewrite
    (
        "changed changes",
        rf"here{_A}?s? (?:is |are )?what i (?:changed|did|updated)|(?:summary of|list of) "
        r"(?:the )?(?:changes|edits|revisions)(?: made)?|changes i made|changes made:",
    ),
    ("requested asked", rf"(?:as (?:you )?requested|as you asked|as you{_A}ve asked)(?! by)"),
    (
        "request prompt brief instructions feedback requirements guidelines notes outline comments"
        " suggestions edits",
        r"(?:per|based on|following|according to|as per|in line with|as stated in|addressing"
        r"|incorporating) your (?:request|prompt|brief|instructions|feedback|requirements"
        r"|guidelines|notes|outline|comments|suggestions|edits)",
    ),
    (
        "response reply answer",
        r"(?:in|for) (?:this|my) (?:response|reply|answer)",
    ),
    (
        "previous earlier",
        r"my (?:previous|last|earlier) (?:response|reply|answer|version|draft)",
    ),
    # apologies and refusals
    # notes to self or to the editor
    ("note", r"note to (?:self|the editor|editor|the reviewer|reviewer|the writer|writer)"),
    (
        "editor's editor\u2019s editor",
        rf"editor(?:{_A}s)? note:? (?:please )?(?:replace|confirm|check|verify|add|insert|update"
        r"|remove|fix|double-check|swap|fill|review|decide)(?![a-z])",
    ),
    # handing edited text over: "Here's the revised final section:", "here is your updated
    # intro" (an edit word and a name for text: "here's the recipe" is a post's own voice)
    (
        "revised updated rewritten edited reworked tightened polished shortened expanded improved",
        rf"here(?:{_A}s| is| are) (?:the|your|my|a|an) (?:[a-z-]+ )?(?:revised|updated|rewritten"
        r"|edited|reworked|tightened|polished|shortened|expanded|improved)"
        rf" (?:[a-z-]+ )?{_TEXT}s?(?![a-z])(?=[^.\n]{{0,60}}(?::|feedback|notes|comments|edits"
        r"|changes|requested|asked|worked in|incorporated))",
    ),
    # the requester's notes applied: "with your feedback worked in", "your edits applied"
    (
        "worked incorporated folded taken",
        r"your (?:feedback|notes|comments|edits|suggestions|corrections) (?:worked in|incorporated"
        r"|folded in|taken on board)(?![a-z])",
    ),
    # the model planning its own text
    (
        "revised rewritten updated improved",
        r"(?:revised|rewritten|updated|improved|edited) (?:version|draft"
        r"|article|post|text) (?:is|reads|flows|keeps|feels|sounds|now|should|addresses|tightens"
        r"|trims|cuts|removes|adds)(?=[^.\n]{0,60}(?:concise|flows?|readable|engaging|tighter"
        r"|punchier|clearer|polished|streamlined|smoother|better|feedback|requested|asked))",
    ),
)
# Patterns of the model speaking as "I": run only when the draft has a first-person word.
_TALK_I = phrases(
    (
        "like want needed prefer",
        rf"if you(?:{_A}d| would)? (?:like|want|prefer)(?: it)?,? i (?:can|could|will|{_A}ll)"
        rf"|if needed,? i (?:can|could)|if you{_A}d prefer (?:a|an|the|me)",
    ),
    (
        "can could happy",
        rf"(?:i can|i could|i{_A}d be happy to|i{_A}m happy to|i am happy to) (?:also )?(?:write"
        r"|draft|create|generate|provide|produce|expand|adjust|shorten|lengthen|rewrite|revise"
        r"|tweak|modify|tailor|translate|reformat|add more|make (?:it|the|this) )"
        # an offer is conditional on the requester: "... if you like", "... for you"
        r"(?=[^.\n]{0,80}(?:if (?:you|that|needed|it|this|helpful|useful|required)|for you"
        r"|as well|instead|as needed))",
    ),
    (
        "following",
        rf"(?:i{_A}ve|i have|i) (?:made|applied|implemented) the following (?:changes|edits"
        r"|revisions|updates|improvements)",
    ),
    ("apologize apologise", r"i apologi[sz]e(?:[ ,]| for)"),
    # the request recalled to the one who made it: "since you asked me to keep it short", and
    # asking them for more: "tell me if you want more"
    ("asked", rf"(?:since |as |because )?you(?:{_A}ve| have)? asked me (?:to|for)(?![a-z])"),
    (
        "tell",
        rf"tell me if you(?:{_A}d| would)? (?:like|want|prefer|need) (?:more|fewer|another"
        r"|a different|me to|changes|it|them|this)(?![a-z])",
    ),
    ("sorry", rf"(?:i{_A}m|i am) sorry,? but i|sorry,? but i (?:can|cannot|can{_A}t|am|{_A}m)"),
    (
        "cannot can't can\u2019t unable able",
        rf"i(?: cannot| can{_A}t| can not| am unable to|{_A}m unable to| am not able to|{_A}m not"
        r" able to) (?:browse|access|open|view|retrieve|fulfil|fulfill|comply|assist with|help"
        r" with (?:that|this)|provide real-time|provide (?:live|current) |generate (?:that|this)"
        r"|complete (?:that|this|the) request|verify (?:the|this|that|these) (?:links?|sources?"
        r"|urls?))",
    ),
    (
        "note",
        rf"(?:note|nb)(?:\*\*)?:(?:\*\*)? i (?:couldn{_A}t|could not|wasn{_A}t able to"
        r"|was unable to|didn't|did not|don't|do not|haven't|have not)"
        r" (?:verify|confirm|find|check|access"
        r"|include|have)",
    ),
    (
        "let i'll i\u2019ll will need should going now next",
        rf"(?:let me|i{_A}ll|i will|i need to|i should|i{_A}m going to|i am going to|now i{_A}ll"
        rf"|next,? i{_A}ll) (?:start by |begin by |now |also |first )?(?:write|writing|draft"
        r"|drafting|outline|outlining|structure|structuring|add|adding|include|mention|make sure"
        r"|ensure|check|double-check|revise|rewrite|rewriting|wrap up|finish|expand|tighten|polish"
        r"|focus|end|open|start|begin|keep|aim)"
        rf" (?:(?:on|with|out|up|by|that|outlining|writing|drafting) )?(?:the|this|a|my|an"
        rf"|each|every|all) (?:[a-z-]+ )?{_TEXT}(?![a-z])",
    ),
    (
        "wait hmm actually oh",
        rf"(?:wait|hmm+|actually|oh),? (?:i should|i need|let me|i{_A}ll|i will|i think i|that{_A}s"
        r" not right|no,|the user|the prompt)",
    ),
)
_I_WORDS = frozenset(
    ("i", "me", "i'll", "i\u2019ll", "i'm", "i\u2019m", "i've", "i\u2019ve", "i'd", "i\u2019d")
)
# "I've rewritten the introduction to be more engaging": an edit of the text, reported to
# the one who asked, with a reason that is about the writing or the request.
_EDIT_REPORT = re.compile(
    rf"i(?:{_A}ve| have)? (?:also |now |just )?{_EDIT_VERBS} (?:the |this |your |a |an |some )?"
    rf"(?:[a-z-]+ )?{_TEXT}(?![a-z])"
)
_EDIT_REASON = re.compile(
    r"(?<![a-z])(?:to (?:be|make it|sound|read|feel) (?:more|less)|more (?:concise|engaging"
    r"|readable|natural|persuasive)|as (?:you )?(?:requested|asked)|your (?:feedback|comments"
    r"|notes|request|instructions|brief)|the (?:feedback|comments|brief|instructions|reviewer)"
    r"|word count|under \d[\d,]* words|flows? better|reads better|per your)(?![a-z])"
)
# Words one of _EDIT_REASON needs: the report is looked for only when one is in the draft.
_EDIT_REASON_WORDS = frozenset(
    (
        "more",
        "less",
        "requested",
        "asked",
        "feedback",
        "comments",
        "notes",
        "request",
        "instructions",
        "brief",
        "reviewer",
        "word",
        "better",
        "per",
    )
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


@rule(
    "model_talk",
    Severity.CRITICAL,
    FAMILY,
    'The model talking to its requester or to itself ("Would you like me to ...", "I\'ve '
    'rewritten the introduction to be more engaging", "As requested", "I apologize, but", '
    '"Note to editor:", "Now I\'ll write the conclusion").',
)
def model_talk(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        low = ctx.lower if not in_title else text.lower()
        words = ctx.words if not in_title else word_set(low)
        found = [(m.start(), m.end()) for m in phrase_matches(_TALK, low, words)]
        first_person = not words.isdisjoint(_I_WORDS)
        if first_person:
            found += [(m.start(), m.end()) for m in phrase_matches(_TALK_I, low, words)]
        if first_person and not words.isdisjoint(_EDIT_REASON_WORDS):
            for match in word_matches(_EDIT_REPORT, low):
                stop = _SENTENCE_END.search(low, match.end(), match.end() + 300)
                end = stop.start() if stop is not None else min(len(low), match.end() + 300)
                if _EDIT_REASON.search(low, match.end(), end) is not None:
                    found.append((match.start(), match.end()))
        last_end = -1
        for start, end in sorted(found):
            if start < last_end or (not in_title and quoted(text, start, end)):
                continue
            last_end = end
            yield Hit(start, end, f"model talking to its requester: {text[start:end]!r}", in_title)
