"""The phrases of an instruction aimed at the reviewers, in English and the common other
languages (French, German, Spanish, Italian, Portuguese, Russian, Chinese, Japanese, Korean).

They run on `_injection_text.normalize` views: lowercase, accents stripped (so French and German
patterns are written without them), look-alike letters folded. Each `Phrase` has a `kind` (what
the instruction tries) and `gates`: substrings one of which must occur for the pattern to run at
all, which keeps a clean draft's scan to a few substring searches. Patterns have bounded
repetitions only (drafts are untrusted and may be megabytes of adversarial text).

Kinds: override (ignore the instructions), score (give it 100), approve (you must approve it),
persona (you are now a lenient reviewer, developer mode), address (note to the AI, dear reviewer),
addressed (a reviewing role addressed and ordered: `_injection_vocative`),
role (SYSTEM: ...), suppress (do not flag any issues), leak (reveal your prompt), fence (our data
marker, copied to fake a fence close), claim (the editor already approved this: weak alone).
"""

from __future__ import annotations

from agents.reviewers.validator._injection_address import SPECS
from agents.reviewers.validator._injection_languages import LANGUAGES
from agents.reviewers.validator._injection_match import Phrase, Phrasebook, phrase, words_of
from agents.reviewers.validator._injection_orders import ORDERS
from agents.reviewers.validator._injection_roles import ROLES
from agents.reviewers.validator._injection_switch import SWITCHES
from agents.reviewers.validator._injection_vocative import ADDRESSED

__all__ = [
    "GATE_WORDS",
    "PHRASES",
    "PROMPT_KINDS",
    "WEAK_KINDS",
    "Phrase",
    "phrases_in",
    "words_of",
]

# Weak alone: they warn in plain prose (a person decides) and reject only when hidden ("ordered":
# `_injection_vocative`'s address to a role a person may hold). Three are the wordings of
# `_injection_address` an ordinary sentence can share.
WEAK_KINDS = frozenset({"claim", "roleplay", "hijack", "turn", "ordered"})
# Shown (code, quotes, blockquote) in an article about prompting, these are examples of prompts.
PROMPT_KINDS = frozenset({"roleplay", "hijack", "turn"})

PHRASES: tuple[Phrase, ...] = (
    *ORDERS,
    *ROLES,
    *ADDRESSED,
    *LANGUAGES,
    # Instructions addressed to a model in the wording public attack lists use, and the
    # switches of task or identity they share (issue 11).
    *(
        phrase(s.kind, s.language, s.gates, s.pattern, *s.also, imperative=s.imperative)
        for s in SPECS + SWITCHES
    ),
)
_BOOK = Phrasebook(PHRASES)
GATE_WORDS = _BOOK.gate_words
phrases_in = _BOOK.find
