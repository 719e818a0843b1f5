"""Text encoded to get past a filter, decoded (issue 12's injection rule; split out of
`_injection_text` in issue 11): base64, hex, %-encoding, HTML entities, \\u escapes and Unicode tag
characters. `decoded_blobs(text)` finds the runs and decodes the ones that read as words; each
decoder runs only where the text has what it needs, so a clean draft pays a few substring
searches. All patterns are linear in the input.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote_plus

from agents.reviewers.validator._text import lower_same_length

# Unicode tag characters (U+E0020..E007E): invisible ASCII, a whole instruction a reader never sees.
_TAG_RUN = re.compile("[\U000e0020-\U000e007e]{3,}")


@dataclass(frozen=True)
class Decoded:
    start: int  # offsets into the text the blob was found in
    end: int
    text: str
    how: str


_LONG_RUN = re.compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_HEX_ESCAPED = re.compile(r"(?:(?:\\x|0x)[0-9a-fA-F]{2}[ ,:]?){8,}")
# The word before the first escape belongs to the text too ("Disregard%20any%20previous").
_PERCENT = re.compile(
    r"[A-Za-z0-9._~+-]{0,40}%[0-9a-fA-F]{2}(?:[A-Za-z0-9._~+-]{0,40}%[0-9a-fA-F]{2}){2,}"
    r"[A-Za-z0-9._~+-]{0,40}"
)
_ENTITIES = re.compile(
    r"&#[xX]?[0-9a-fA-F]{1,6};?(?:[A-Za-z ,.'!?:]{0,20}&#[xX]?[0-9a-fA-F]{1,6};?){2,}"
    r"[A-Za-z ,.'!?:]{0,40}"
)
_ESCAPES = re.compile(
    r"\\u[0-9a-fA-F]{4}(?:[A-Za-z ,.'!?:]{0,20}\\u[0-9a-fA-F]{4}){2,}[A-Za-z ,.'!?:]{0,40}"
)
_MAX_BLOBS = 64


def decoded_blobs(text: str, words: frozenset[str] | None = None) -> list[Decoded]:
    """Encoded runs of `text` that decode to readable text (at most 64 per text). Each decoder
    runs only where the text has what it needs ("%", "&#", a backslash escape, "0x", a tag
    character; with `words`, base64/hex only around words of 14 or more characters), so a
    clean draft pays a few substring searches."""
    found: list[Decoded] = []
    if not text.isascii() and max(text) >= "\U000e0000":
        for match in _TAG_RUN.finditer(text):
            tags = "".join(chr(ord(ch) - 0xE0000) for ch in match.group(0))
            found.append(Decoded(match.start(), match.end(), tags, "Unicode tag characters"))
    if ".-" in text or "-." in text:
        found.extend(_morse_runs(text))
    for pattern, how, decode, gate in _DECODERS:
        if pattern is _LONG_RUN:
            matches: Iterator[re.Match[str]] = (
                pattern.finditer(text) if words is None else _long_runs(text, words)
            )
        elif pattern is _HEX_ESCAPED:
            matches = _matches_at(pattern, text, ("\\x", "0x"))
        elif pattern is _PERCENT:
            matches = _percent_runs(text) if gate in text else iter(())
        elif gate not in text:
            continue
        else:
            matches = pattern.finditer(text)
        for match in matches:
            if len(found) >= _MAX_BLOBS:
                return found
            value, used = decode(match.group(0)[:_MAX_BLOB_CHARS])
            if value is not None and _readable(value):
                found.append(Decoded(match.start(), match.end(), value, used or how))
    return found


_MAX_BLOB_CHARS = 200_000  # decoded text past this is not read (a prompt shows far less)
_RUN_BEFORE = re.compile(r"[A-Za-z0-9+/_-]{1,4096}$")


def _long_runs(text: str, words: frozenset[str]) -> Iterator[re.Match[str]]:
    """`_LONG_RUN` matches around the text's long words only: the regex scanned over a whole
    draft costs a millisecond, and base64 or hex of text always holds a long word."""
    if max(map(len, words), default=0) < 14:
        return  # the usual case, in one C-level pass over the words
    long_words = [w for w in words if len(w) >= 14]
    lower = lower_same_length(text)  # base64 and hex are ASCII: offsets are the text's
    seen: set[int] = set()
    for word in long_words:
        pos = lower.find(word)
        while pos != -1 and len(seen) < 4 * _MAX_BLOBS:
            before = _RUN_BEFORE.search(text, max(0, pos - 4096), pos)
            start = before.start() if before else pos
            if start not in seen:
                seen.add(start)
                match = _LONG_RUN.match(text, start)
                if match:
                    yield match
            pos = lower.find(word, pos + len(word))


_PERCENT_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")
_URL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+-")


def _percent_runs(text: str) -> Iterator[re.Match[str]]:
    """What `_PERCENT.finditer(text)` yields, tried only from the escapes: the pattern opens with
    up to 40 URL characters, so `re` would try it at every character of the draft (a "47%" in
    prose made the whole scan cost half a millisecond). A match starts where the run of URL
    characters before an escape starts, 40 characters back at most."""
    covered = -1
    for escape in _PERCENT_ESCAPE.finditer(text):
        pos = escape.start()
        if pos < covered:
            continue
        start = pos
        while start > 0 and pos - start < 40 and text[start - 1] in _URL_CHARS:
            start -= 1
        match = _PERCENT.match(text, max(start, covered))
        if match:
            covered = match.end()
            yield match


def _matches_at(
    pattern: re.Pattern[str], text: str, markers: tuple[str, ...]
) -> Iterator[re.Match[str]]:
    """`pattern` tried only where one of `markers` (its possible first characters) occurs."""
    starts: list[int] = []
    for marker in markers:
        pos = text.find(marker)
        while pos != -1 and len(starts) < 20 * _MAX_BLOBS:
            starts.append(pos)
            pos = text.find(marker, pos + len(marker))
    covered = -1
    for start in sorted(starts):
        if start < covered:
            continue
        match = pattern.match(text, start)
        if match:
            covered = match.end()
            yield match


def _run(blob: str) -> tuple[str | None, str]:
    """A long run of base64/hex alphabet: hex when it is all hex digits, else base64."""
    if len(blob) % 2 == 0 and all(c in _HEX_DIGITS for c in blob):
        return _hex(blob), "hex"
    return _b64(blob), "base64"


def _b64(blob: str) -> str | None:
    # a run of one case, or a slug/path: no base64 of text
    if not (any(c.isupper() for c in blob) and any(c.islower() for c in blob)):
        return None  # a hex digest, an id or a word: base64 of text mixes cases
    raw = blob.rstrip("=")
    padded = raw + "=" * (-len(raw) % 4)
    try:
        if "-" in raw or "_" in raw:
            data = base64.urlsafe_b64decode(padded)
        else:
            data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _utf8(data)


def _hex(blob: str) -> str | None:
    digits = re.sub(r"\\x|0x|[ ,:]", "", blob)
    if len(digits) % 2:
        digits = digits[:-1]
    try:
        return _utf8(bytes.fromhex(digits))
    except ValueError:
        return None


def _percent(blob: str) -> str | None:
    if blob.count("%") < 3:
        return None
    return unquote_plus(blob)


def _entities(blob: str) -> str | None:
    if blob.count("&") < 3:
        return None
    return html.unescape(blob)


def _escapes(blob: str) -> str | None:
    if blob.count("\\") < 3:
        return None
    try:
        return codecs.decode(blob.encode("ascii", "ignore"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _readable(value: str) -> bool:
    """Decoded text a model could read as words: mostly printable, with spaces and letters."""
    if len(value) < 8 or " " not in value.strip():
        return False
    printable = sum(1 for ch in value if ch.isprintable() or ch in "\n\t")
    letters = sum(1 for ch in value if ch.isalpha())
    return printable >= 0.95 * len(value) and letters >= 0.5 * len(value)


# Morse code: dots and dashes, letters apart by a space, words by "/" or a wider gap. Nobody
# writes a blog post's prose in it; decoded, it is read like any other encoded run (a run with no
# word gaps decodes to one long word: the caller matches it squashed).
_MORSE = re.compile(r"(?:[.-]{1,7}(?:[ \t]{1,3}|[ \t]?/[ \t]?)){11,}[.-]{1,7}")
_MORSE_GAP = re.compile(r"[ \t]?/[ \t]?|[ \t]{2,3}")
_MORSE_CODES = (
    ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- .-- "
    "-..- -.-- --.. ----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----. .-.-.- --..-- "
    "..--.. -.-.-- .----."
)
_MORSE_LETTERS = dict(
    zip(_MORSE_CODES.split(), "abcdefghijklmnopqrstuvwxyz0123456789.,?!'", strict=True)
)


def _morse_runs(text: str) -> Iterator[Decoded]:
    """Runs of Morse code (at most `_MAX_BLOBS`) that decode to mostly letters."""
    for n, match in enumerate(_MORSE.finditer(text)):
        if n >= _MAX_BLOBS:
            return
        words = _MORSE_GAP.split(match.group(0)[:_MAX_BLOB_CHARS])
        decoded = " ".join(
            "".join(_MORSE_LETTERS.get(code, "") for code in word.split()) for word in words
        )
        letters = sum(ch.isalpha() for ch in decoded)
        if letters >= 8 and letters >= 0.7 * len(decoded.replace(" ", "")):
            yield Decoded(match.start(), match.end(), decoded, "Morse code")


def _tagged(decode: Callable[[str], str | None]) -> Callable[[str], tuple[str | None, str]]:
    return lambda blob: (decode(blob), "")


_DECODERS: tuple[tuple[re.Pattern[str], str, Callable[[str], tuple[str | None, str]], str], ...] = (
    (_LONG_RUN, "base64", _run, ""),
    (_HEX_ESCAPED, "hex", _tagged(_hex), "x"),
    (_PERCENT, "%-encoding", _tagged(_percent), "%"),
    (_ENTITIES, "HTML entities", _tagged(_entities), "&#"),
    (_ESCAPES, "\\u escapes", _tagged(_escapes), "\\u"),
)
