"""Shared mechanics: splitting a range into bounded pieces and packing pieces into windows."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from vera_lab.tokens import Tokenizer

_SPACE = re.compile(r"\s+")


def rstrip_at(text: str, lo: int, hi: int) -> int:
    """The end of ``text[lo:hi]`` with trailing whitespace removed (never below ``lo``)."""
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    return hi


def pack(
    measures: Sequence[int],
    size: int,
    *,
    overlap: int = 0,
    overlap_pieces: int | None = None,
    min_size: int = 0,
    max_size: int | None = None,
    exact: Callable[[int, int], int] | None = None,
) -> list[tuple[int, int]]:
    """Greedily pack consecutive pieces into windows ``[i, j)`` of pieces.

    A window grows while its total stays <= ``size``, or, while it is still below ``min_size``,
    <= ``max_size``. ``exact(i, j)`` re-measures a window when piece measures do not add up exactly
    (token counts). The next window repeats the longest run of trailing pieces whose total is
    <= ``overlap`` (or exactly ``overlap_pieces`` pieces), so the realised overlap never exceeds the
    request, and always moves forward by at least one piece.
    """
    limit = size if max_size is None else max_size
    windows: list[tuple[int, int]] = []
    n = len(measures)
    i = 0
    while i < n:
        total = measures[i]
        j = i + 1
        while j < n:
            grown = total + measures[j]
            if grown > size and not (total < min_size and grown <= limit):
                break
            total = grown
            j += 1
        if exact is not None:
            while j > i + 1 and exact(i, j) > limit:
                j -= 1
        windows.append((i, j))
        if j >= n:
            break
        if overlap_pieces is not None:
            k = max(j - overlap_pieces, i + 1)
        else:
            k, back = j, 0
            while k - 1 > i:
                back += measures[k - 1]
                if (back if exact is None else exact(k - 1, j)) > overlap:
                    break
                k -= 1
        i = k
    return windows


def split_chars(text: str, lo: int, hi: int, limit: int, grain: int | None = None) -> list[tuple[int, int]]:
    """Contiguous pieces of ``text[lo:hi]`` of at most ``limit`` chars, cut after whitespace.

    Pieces aim at ``grain`` chars (default ``limit``); a word longer than that stays whole up to
    ``limit`` and is cut inside only beyond it.
    """
    grain = limit if grain is None else min(grain, limit)
    pieces = []
    pos = lo
    while hi - pos > grain:
        end = pos + grain
        cut = max(text.rfind(" ", pos, end), text.rfind("\n", pos, end)) + 1
        if cut <= pos:  # the word at pos is longer than grain: end it at its whitespace, or at limit
            stop = min(pos + limit, hi)
            spaces = [i for i in (text.find(" ", end, stop), text.find("\n", end, stop)) if i >= 0]
            cut = min(spaces) + 1 if spaces else stop
        pieces.append((pos, cut))
        pos = cut
    if pos < hi:
        pieces.append((pos, hi))
    return pieces


def word_pieces(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Contiguous pieces of ``text[lo:hi]``, each a word with the whitespace that follows it."""
    cuts = [m.end() for m in _SPACE.finditer(text, lo, hi) if lo < m.end() < hi]
    bounds = [lo, *cuts, hi]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def token_windows(
    text: str, lo: int, hi: int, tokenizer: Tokenizer, size: int, overlap: int
) -> tuple[list[tuple[int, int]], list[int]]:
    """Windows of at most ``size`` tokens over ``text[lo:hi]``, with ``overlap`` tokens repeated.

    Windows end at whitespace unless a single word is longer than ``size`` tokens. Characters
    the tokenizer drops (control characters, stray combining marks) belong to the window before them,
    so every non-whitespace character is in some window.
    """
    spans = tokenizer.spans(text[lo:hi])
    if spans is None:
        return _estimated_windows(text, lo, hi, tokenizer, size, overlap)
    starts, ends = spans.starts + lo, spans.ends + lo
    n = len(starts)
    first = lo
    while first < hi and text[first].isspace():
        first += 1
    if n == 0:
        end = rstrip_at(text, first, hi)
        return ([(first, end)], [0]) if end > first else ([], [])
    # Tokens that follow whitespace start a word: windows cut only there when they can, so each
    # chunk re-tokenizes to the same tokens it was counted with.
    word_starts = np.flatnonzero(np.concatenate([[True], starts[1:] > ends[:-1], [True]]))
    windows, counts = [], []
    i = 0
    while True:
        j = min(i + size, n)
        if j < n:
            k = word_starts[np.searchsorted(word_starts, j, side="right") - 1]
            if k > i:
                j = int(k)  # end on a word boundary
        char_start = first if i == 0 else int(starts[i])
        char_end = hi if j == n else int(starts[j])
        windows.append((char_start, rstrip_at(text, int(ends[j - 1]), char_end)))
        counts.append(j - i)
        if j == n:
            break
        k = int(word_starts[np.searchsorted(word_starts, max(j - overlap, i + 1))])
        i = k if k < j else j
    return windows, counts


def _estimated_windows(
    text: str, lo: int, hi: int, tokenizer: Tokenizer, size: int, overlap: int
) -> tuple[list[tuple[int, int]], list[int]]:
    """Token windows for tokenizers that only count (seed 003's estimate): pack whole words."""
    pieces = []
    for a, b in word_pieces(text, lo, hi):
        pieces.extend(split_chars(text, a, b, 4 * size) if tokenizer.count(text[a:b]) > size else [(a, b)])
    measures = tokenizer.count_many([text[a:b] for a, b in pieces])

    def exact(i: int, j: int) -> int:
        return tokenizer.count(text[pieces[i][0] : pieces[j - 1][1]])

    windows, counts = [], []
    for i, j in pack(measures, size, overlap=overlap, exact=exact):
        start, end = pieces[i][0], rstrip_at(text, pieces[i][0], pieces[j - 1][1])
        if end > start:
            windows.append((start, end))
            counts.append(tokenizer.count(text[start:end]))
    return windows, counts


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offset where each line begins (CRLF, CR and LF all end a line)."""
    return [0] + [m.end() for m in _LINE_BREAK.finditer(text)]


def line_spans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Non-blank lines of ``text[lo:hi]`` (without their line breaks)."""
    spans, start = [], lo
    for m in _LINE_BREAK.finditer(text, lo, hi):
        if text[start : m.start()].strip():
            spans.append((start, m.start()))
        start = m.end()
    if start < hi and text[start:hi].strip():
        spans.append((start, hi))
    return spans


def pack_units(
    text: str,
    units: Sequence[tuple[int, int]],
    tokenizer: Tokenizer,
    limit: int,
    split_unit: Callable[[int, int], list[tuple[int, int]]],
) -> tuple[list[tuple[int, int]], list[int]]:
    """Pack whole units (blocks, statements) into chunks of at most ``limit`` tokens.

    A unit that alone exceeds the limit is cut by ``split_unit`` (sentences, lines), and any piece
    still too long by token windows. Returns chunk spans and their measured token counts.
    """
    pieces: list[tuple[int, int]] = []
    for a, b in units:
        if b - a <= limit or tokenizer.count(text[a:b]) <= limit:
            pieces.append((a, b))
            continue
        for s, e in split_unit(a, b):
            if e - s <= limit or tokenizer.count(text[s:e]) <= limit:
                pieces.append((s, e))
            else:
                pieces.extend(token_windows(text, s, e, tokenizer, limit, 0)[0])
    if not pieces:
        return [], []
    measures = tokenizer.count_many([text[a:b] for a, b in pieces])

    def exact(i: int, j: int) -> int:
        return tokenizer.count(text[pieces[i][0] : pieces[j - 1][1]])

    windows = pack(measures, limit, exact=None if tokenizer.additive else exact)
    spans = [(pieces[i][0], pieces[j - 1][1]) for i, j in windows]
    return spans, tokenizer.count_many([text[a:b] for a, b in spans])


def cover_gaps(text: str, units: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``units`` in order, plus a unit for every stretch of non-whitespace text between them."""
    out: list[tuple[int, int]] = []
    pos = 0
    for start, end in sorted(units):
        if start > pos and text[pos:start].strip():
            out.append((pos, rstrip_at(text, pos, start)))
        out.append((start, end))
        pos = max(pos, end)
    if text[pos:].strip():
        out.append((pos, rstrip_at(text, pos, len(text))))
    return out
