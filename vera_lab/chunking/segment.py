"""Rule-based sentence segmentation with character offsets, fast enough for tens of MB/s.

One regex finds candidate boundaries (terminal punctuation followed by whitespace, CJK stops,
line breaks); a short decision per candidate rejects abbreviations, initials, list numbers and
continuations. Decimals, versions, URLs and e-mail addresses never reach the decision: their dots
are not followed by whitespace.
"""

from __future__ import annotations

import re

from vera_lab.chunking.windows import rstrip_at

# Every candidate starts with one character of a set, which lets the regex engine skip ahead fast.
_CANDIDATE = re.compile(
    r"[.!?…。！？\n](?:"
    r"(?<=[.!?…])[.!?…]*[\"'”’»)\]]*(?P<ws>\s+|\Z)"  # stop, closing quotes/brackets, whitespace
    r"|(?<=[。！？])[。！？]*[」』）]*"  # CJK stops need no space after them
    r"|(?<=\n)\s*)"  # a line break with no stop before it
)
_LAST_WORD = re.compile(r"\S{1,40}\Z")
_LIST_ITEM = re.compile(r"(?:[-*•–]|\(?[0-9a-zA-Z]{1,3}[.)])\s")
_OPENERS = "\"'“‘«([{"

# Abbreviations after which a capitalised word does not start a new sentence.
_TITLES = frozenset(
    "mr mrs ms dr prof sr jr st mt gen col lt capt sgt rep sen gov pres rev hon messrs mme mlle "
    "vs v cf al e.g i.e viz approx ca jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
# Abbreviations that introduce a number ("Fig. 3", "No. 7") but are ordinary words otherwise.
_BEFORE_NUMBER = frozenset("no nos fig figs eq eqs ref refs vol vols pp ch sec".split())
# Abbreviations that can also end a sentence: a capital after them starts a new one.
_SOFT = frozenset("etc inc ltd co corp bros dept est univ assn e.g.".split())
# After a dotted initialism (U.S., U.K.), only these words clearly start a new sentence.
_STARTERS = frozenset(
    "The A An He She It They We I You This That These Those There In But However "
    "So Then Its His Her Their Our My If When While After Before".split()
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Half-open spans of the sentences of ``text``; whitespace between sentences belongs to none."""
    spans: list[tuple[int, int]] = []
    n = len(text)
    start = _skip_space(text, 0)
    for m in _CANDIDATE.finditer(text):
        first = text[m.start()]
        if first == "\n":
            end, nxt = rstrip_at(text, start, m.start()), m.end()
            wrapped = (
                m.group().count("\n") == 1
                and _next_letter(text, nxt).islower()
                and _LIST_ITEM.match(text, nxt) is None
            )
            if nxt < n and wrapped:  # a hard-wrapped line continues the sentence
                continue
        elif first in "。！？":
            end, nxt = m.end(), _skip_space(text, m.end())
        else:
            end, nxt = m.start("ws"), m.end()
            if nxt < n and not _is_stop_boundary(text, m.start(), end, nxt, m.group("ws")):
                continue
        if end > start:
            spans.append((start, end))
        start = nxt
    if start < n:
        end = rstrip_at(text, start, n)
        if end > start:
            spans.append((start, end))
    return spans


def _skip_space(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return i


def _next_letter(text: str, i: int) -> str:
    """The first character at ``i`` after any opening quotes or brackets."""
    n = len(text)
    for _ in range(3):
        if i < n and text[i] in _OPENERS:
            i += 1
    return text[i] if i < n else ""


def _is_stop_boundary(text: str, stop_start: int, stop_end: int, nxt: int, ws: str) -> bool:
    if len(ws) > 1 and ws.count("\n") >= 2:  # a blank line always ends a sentence
        return True
    following = text[nxt]
    if following in _OPENERS:
        following = _next_letter(text, nxt)
    if following.islower():  # "e.g. the", "et al. found", "Wait... what"
        return "\n" in ws and _LIST_ITEM.match(text, nxt) is not None  # "\nb) next item"
    if text[stop_start] != "." or stop_end - stop_start > 1 and text[stop_start + 1] == ".":
        return True  # ! ? … and "..." before a non-lowercase word end the sentence
    # The word before the stop; two rfind calls are much cheaper than a regex search.
    lo = max(0, stop_start - 12)
    word_start = max(text.rfind(" ", lo, stop_start), text.rfind("\n", lo, stop_start)) + 1
    if word_start == 0 and lo > 0:
        return True  # a word of 12+ characters is no abbreviation
    raw = text[word_start:stop_start]
    if not raw or not raw.isprintable():  # another kind of whitespace inside: look properly
        word_match = _LAST_WORD.search(text, max(0, stop_start - 40), stop_start)
        if word_match is None:
            return True
        word_start, raw = word_match.start(), word_match.group(0)
    word = raw.lstrip(_OPENERS)
    lower = word.lower()
    if lower in _TITLES:
        return False
    if lower in _SOFT or lower in _BEFORE_NUMBER:
        return not following.isdigit()
    if len(word) == 1 and word.isalpha():
        return False  # an initial ("J. K. Rowling") or a one-letter abbreviation ("b. 1950")
    if "." in word and word.replace(".", "").isalpha() and len(word) <= 8:
        if word.islower():
            return True  # "at 5 p.m. Dinner": lowercase initialisms do end sentences
        # A dotted initialism (U.S., Ph.D): a new sentence only before a clear sentence starter.
        end_of_next = nxt
        while end_of_next < len(text) and text[end_of_next].isalpha():
            end_of_next += 1
        return text[nxt:end_of_next] in _STARTERS
    if word.isdigit() and (word_start == 0 or text[word_start - 1] == "\n"):
        return False  # a numbered list item: "\n1. First"
    return True
