"""Clients the company is said to have, named where _company's patterns do not look.

Two shapes of the same claim: names listed in apposition to "our ... clients" ("two of our
longest-standing customers, Harbourside Dental and the Riverside NHS Trust") and organisations
said to have hired, asked or commissioned the company ("the Big Four accounting firms asked us
to build it"). Each name is judged by the caller's client check (`_company._clients`, passed in
so this module does not import its caller) against company_clients.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from agents.reviewers.validator._core import Context, Hit

Judge = Callable[[list[str], Context], "str | None"]

# "two of our longest-standing customers, Harbourside Dental and the Riverside NHS Trust": the
# names in apposition after "our ... clients,", as far as the list of capitalised names goes.
_OUR_CLIENTS_COMMA = re.compile(
    r"our (?:[a-z-]{2,20} ){0,3}?(?:clients|customers)(?:,|:| \u2014) ?"
)
_NAME_ITEM = re.compile(r"(?:the )?[A-Z][\w&.'\u2019-]*(?: (?:(?:&|of|de) )?[A-Z][\w&.'\u2019-]*)*")
_ITEM_SEPARATORS = (", and ", " and ", ", ")


def clients_in_apposition(ctx: Context, judge: Judge) -> Iterator[Hit]:
    """Names listed after "our ... clients," that the company facts do not list."""
    text = ctx.prose
    for match in _OUR_CLIENTS_COMMA.finditer(ctx.lower):
        names, pos, end = [], match.end(), match.end()
        while (item := _NAME_ITEM.match(text, pos)) is not None:
            names.append(item.group(0).removeprefix("the "))
            end = item.end()
            sep = next((sep for sep in _ITEM_SEPARATORS if text.startswith(sep, end)), "")
            if not sep:
                break
            pos = end + len(sep)
        why = judge(names, ctx) if names else None
        if why is not None:
            yield Hit(match.start(), end, why)


# "the Big Four accounting firms asked us to build it", "Harbour Bank hired us": organisations
# made the company's customers. Found from the verb and "us" (literals); the name before them,
# with up to two common nouns after it, checked after. A lone capitalised word opening a
# sentence ("Readers asked us") is not a name, and an opening word before a listed client
# ("After Arden Print hired us") does not make it another organisation.
_ASKED_US = re.compile(
    r" (?:asked|hired|commissioned|engaged|chose|picked|selected|invited|contracted|appointed)"
    r" us (?:to|for|as|in|because|after|when)(?![a-z])"
)
ASKED_US_GATE = frozenset(
    {"asked", "hired", "commissioned", "engaged", "chose", "picked", "selected", "invited"}
    | {"contracted", "appointed"}
)
_ORG_BEFORE = re.compile(
    r"(?P<name>[A-Z][\w&.'\u2019-]*(?: (?:(?:&|of|de) )?[A-Z][\w&.'\u2019-]*)*)"
    r"(?: [a-z-]{2,20}){0,2}$"
)


_OPENINGS = frozenset({"", ".", "!", "?", "\n", "-", "*", ">", "|", ":", "#"})


def organisations_served(ctx: Context, judge: Judge) -> Iterator[Hit]:
    """Organisations said to have hired or asked the company, not in the company facts."""
    text = ctx.prose
    for match in _ASKED_US.finditer(ctx.lower):
        before = _ORG_BEFORE.search(text, max(0, match.start() - 80), match.start())
        if before is None:
            continue
        name = before.group("name")
        previous = text[max(0, before.start() - 8) : before.start()].rstrip(" ")[-1:]
        if previous in _OPENINGS:
            if " " not in name:
                continue
            # The sentence's first word is capitalised by its place ("When Arden Print asked
            # us"): a listed client after it is that client, not an unknown organisation.
            if judge([name.split(" ", 1)[1]], ctx) is None:
                continue
        why = judge([name], ctx)
        if why is not None:
            yield Hit(before.start(), match.end(), why)
