"""Find a quoted passage in a document and return its character span.

Users can quote their evidence but not count offsets. A quote is looked for exactly; then in a
normalised view of both texts (whitespace runs and line breaks as one space, none between Chinese or
Japanese characters, typographic quotes, dashes and hyphens as ASCII, Unicode compatibility forms
folded, a word hyphenated across a line break joined); then by fuzzy alignment (rapidfuzz) at or
above :data:`FUZZY_MIN_SCORE`. The span is always in the original text: ``text[start:end]`` is the
located passage.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from vera_lab.language import UNSPACED

FUZZY_MIN_SCORE = 90.0  # rapidfuzz partial_ratio (0-100) of the normalised quote against the text
_QUOTES = {"‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'", "“": '"', "”": '"', "„": '"', "‟": '"',
           "″": '"', "«": '"', "»": '"'}  # fmt: skip
_DASHES = "‐‑‒–—―−﹘﹣－"  # hyphen, non-breaking hyphen, figure/en/em dash, bar, minus, small/full-width
_HYPHENS = "-‐‑"


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote was found and how: ``exact``, ``normalised`` or ``fuzzy`` (with its score)."""

    start: int
    end: int
    method: str
    score: float = 100.0
    occurrences: int = 1  # > 1: the quote is ambiguous and the first occurrence was taken


class QuoteNotFound(ValueError):
    """No passage of the document matches the quote well enough; carries the closest candidate."""

    def __init__(self, closest: str, score: float) -> None:
        super().__init__(f'closest: "{closest}", score {score:.0f}')
        self.closest, self.score = closest, score


def _cjk(ch: str) -> bool:
    """A character of Chinese or Japanese text, which runs without spaces."""
    code = ord(ch)
    return any(start <= code < end for start, end in UNSPACED)


def normalise(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the index of the original character.

    A character with combining marks maps to the index of its base character (see :func:`_span`).
    """
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _HYPHENS and i and text[i - 1].isalpha():  # "hyphen-\nated" -> "hyphenated"
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j].isalpha() and "\n" in text[i + 1 : j]:
                i = j
                continue
        if ch.isspace():
            while i < n and text[i].isspace():
                i += 1
            # no space between two Chinese or Japanese characters: a line break there only wraps
            if out and out[-1] != " " and not (_cjk(out[-1]) and i < n and _cjk(text[i])):
                out.append(" ")
                where.append(i - 1)
            continue
        j = i + 1  # a character and its combining marks compose as one: NFD "e\u0301" is NFC "\u00e9"
        while j < n and unicodedata.combining(text[j]):
            j += 1
        mapped = _QUOTES.get(ch) or ("-" if ch in _DASHES else unicodedata.normalize("NFKC", text[i:j]))
        for piece in mapped:
            if piece.isspace():  # NFKC turns some forms into spaces: keep runs single
                if out and out[-1] != " ":
                    out.append(" ")
                    where.append(i)
            else:
                out.append(piece)
                where.append(i)
        i = j
    return "".join(out), where


def locate_quote(text: str, quote: str, min_score: float = FUZZY_MIN_SCORE) -> QuoteMatch:
    """The span of ``quote`` in ``text``; raises :class:`QuoteNotFound` naming the closest passage."""
    quote = quote.strip()
    if not quote:
        raise QuoteNotFound("", 0.0)
    start = text.find(quote)
    if start >= 0:
        return QuoteMatch(start, start + len(quote), "exact", occurrences=_count(text, quote))
    norm_text, where = normalise(text)
    norm_quote = normalise(quote)[0].strip()
    start = norm_text.find(norm_quote)
    if start >= 0:
        end = start + len(norm_quote)
        return QuoteMatch(
            *_span(text, where, start, end), "normalised", occurrences=_count(norm_text, norm_quote)
        )
    try:
        from rapidfuzz import fuzz
    except ImportError as exc:
        raise ImportError(
            "locating quotes that differ from the text needs rapidfuzz: pip install 'vera-lab[ingest]'"
        ) from exc

    alignment = fuzz.partial_ratio_alignment(norm_quote, norm_text)
    lo, hi = alignment.dest_start, alignment.dest_end
    if alignment.score < min_score or hi <= lo:
        closest = text[where[lo] : where[hi - 1] + 1] if hi > lo else ""
        raise QuoteNotFound(" ".join(closest.split())[:120], alignment.score)
    return QuoteMatch(*_span(text, where, lo, hi), "fuzzy", alignment.score)


def _span(text: str, where: list[int], start: int, end: int) -> tuple[int, int]:
    """The original span of normalised characters ``start:end``, with any trailing combining marks."""
    stop = where[end - 1] + 1
    while stop < len(text) and unicodedata.combining(text[stop]):
        stop += 1
    return where[start], stop


def _count(haystack: str, needle: str) -> int:
    count, start = 0, haystack.find(needle)
    while start >= 0:
        count += 1
        start = haystack.find(needle, start + 1)
    return count
