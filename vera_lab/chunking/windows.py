"""Shared mechanics: splitting a range into bounded pieces and packing pieces into windows."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate

import numpy as np

from vera_lab.language import UNSPACED
from vera_lab.tokens import Tokenizer, TokenSpans

_SPACE = re.compile(r"\s+")
# What WordPiece (BERT) pre-tokenization splits on: space, tab, CR, LF and Unicode space separators.
_TOKENIZER_WHITESPACE = np.array(
    [9, 10, 13, 32, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], dtype=np.uint32
)


def rstrip_at(text: str, lo: int, hi: int) -> int:
    """The end of ``text[lo:hi]`` with trailing whitespace removed (never below ``lo``)."""
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    return hi


def fits_tokens(text: str, a: int, b: int, tokenizer: Tokenizer, limit: int) -> bool:
    """Whether ``text[a:b]`` is at most ``limit`` tokens, counting only when it must.

    An ASCII character gives at most one token, so an ASCII range of at most ``limit`` characters
    fits uncounted; another character may give several (BERT splits a Hangul syllable into its
    three jamo: "0:0:0:0:0:0릠0릠릠" is 15 characters and 21 tokens).
    """
    return (b - a <= limit and text[a:b].isascii()) or tokenizer.count(text[a:b]) <= limit


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
    request, and always moves forward by at least one piece. It repeats fewer when the next piece
    would not fit beside them: a window that cannot grow past the last would lie inside it.
    """
    bounds = [0, *accumulate(measures)]
    if exact is None and overlap_pieces is None and min_size == 0:
        return pack_bounds(bounds, size, overlap)
    limit = size if max_size is None else max_size

    def grows(i: int, j: int) -> bool:
        """Whether a window of pieces i..j-1 takes piece j, by the pieces' measures."""
        total, grown = bounds[j] - bounds[i], bounds[j + 1] - bounds[i]
        return grown <= size or (total < min_size and grown <= limit)

    def next_start(i: int, j: int) -> int:
        """Where the window after [i, j) starts: the trailing pieces it repeats, leaving room for j."""
        if overlap_pieces is not None:
            k = max(j - overlap_pieces, i + 1)
        else:
            k = j
            while k - 1 > i and (bounds[j] - bounds[k - 1] if exact is None else exact(k - 1, j)) <= overlap:
                k -= 1
        while k < j and not (grows(k, j) and (exact is None or exact(k, j + 1) <= limit)):
            k += 1
        return k

    windows: list[tuple[int, int]] = []
    n = len(measures)
    i = 0
    while i < n:
        j = i + 1
        while j < n and grows(i, j):
            j += 1
        if exact is not None:
            while j > i + 1 and exact(i, j) > limit:
                j -= 1
        windows.append((i, j))
        if j >= n:
            break
        i = next_start(i, j)
    return windows


def pack_bounds(bounds: Sequence[int], size: int, overlap: int = 0) -> list[tuple[int, int]]:
    """``pack`` for contiguous pieces given by their ``bounds`` (piece k spans bounds[k] to bounds[k + 1]).

    A window from piece i ends at the last j with bounds[j] - bounds[i] <= size (at least i + 1); the
    next starts at the first k past i with bounds[j] - bounds[k] <= overlap, and with room for piece j
    (bounds[j + 1] - bounds[k] <= size), else at j. Each edge is one bisection: the same windows as
    adding one piece at a time, without visiting every piece.
    """
    n = len(bounds) - 1
    windows = []
    i = 0
    while i < n:
        j = max(i + 1, bisect_right(bounds, bounds[i] + size) - 1)
        windows.append((i, j))
        if j >= n:
            break
        k = max(i + 1, bisect_left(bounds, bounds[j] - overlap), bisect_left(bounds, bounds[j + 1] - size))
        i = min(k, j)
    return windows


def pack_counted(
    text: str,
    measures: Sequence[int],
    size: int,
    tokenizer: Tokenizer,
    span_of: Callable[[int, int], tuple[int, int]],
    **options,
) -> tuple[list[tuple[int, int]], list[int]]:
    """``pack`` in token units: chunk spans and their token counts, each within the limit.

    Piece counts are summed where the tokenizer is additive; when a chunk still re-counts above
    the limit (a separator the tokenizer drops, such as a control character, merged two words),
    the packing is redone with every window measured.
    """
    limit = options.get("max_size") or size

    def exact(i: int, j: int) -> int:
        a, b = span_of(i, j)
        return tokenizer.count(text[a:b])

    def run(measured: bool) -> tuple[list[tuple[int, int]], list[int]]:
        windows = pack(measures, size, exact=exact if measured else None, **options)
        spans = [span_of(i, j) for i, j in windows]
        return spans, tokenizer.count_many([text[a:b] for a, b in spans])

    spans, counts = run(measured=not tokenizer.additive)
    if tokenizer.additive and any(c > limit for c in counts):
        spans, counts = run(measured=True)
    return spans, counts


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

    Windows end and overlaps begin at whitespace; where a stretch longer than the window has none
    (Chinese, Japanese), at a word of the tokenizer's own (WordPiece cuts between Han characters),
    and only then inside a word, re-counted (a window that ends inside a word overlaps inside it).
    Characters the tokenizer drops (control characters, stray combining marks) belong to the window
    before them, so every non-whitespace character is in some window.
    """
    spans = tokenizer.spans(text[lo:hi])
    if spans is None:
        return _estimated_windows(text, lo, hi, tokenizer, size, overlap)
    codes = np.frombuffer(text[lo:hi].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    starts, ends, split, is_cut = _token_cuts(codes, lo, spans)
    n = len(starts)
    first = hi - len(text[lo:hi].lstrip())  # the first character that is not whitespace
    if n == 0:
        end = rstrip_at(text, first, hi)
        return ([(first, end)], [0]) if end > first else ([], [])
    cuts = np.flatnonzero(is_cut)
    windows, counts = [], []
    i = done = 0  # the window starts at token i; the windows before end at token ``done``
    while True:
        j = min(i + size, n)
        if j < n:
            k = _last_at_most(cuts, j)
            if k > max(i, done):  # else the window cuts inside a word, rather than end inside the last
                j = k
        char_start = first if i == 0 else int(starts[i])

        def char_end(j: int) -> int:
            return rstrip_at(text, int(ends[j - 1]), hi if j == n else int(starts[j]))

        count = j - i
        if not (is_cut[i] and is_cut[j]) or split[i:j].any():
            # Cut inside a word longer than the window: its pieces tokenize differently on their
            # own, so count the chunk as it stands (and shrink it in the rare case it grew).
            count = tokenizer.count(text[char_start : char_end(j)])
            while count > size and j > i + 1:
                j -= 1
                count = tokenizer.count(text[char_start : char_end(j)])
        if count > size:  # one piece of an over-long word that re-tokenises, alone, into more pieces
            cut = _cut_to_size(text, char_start, char_end(j), tokenizer, size)
            windows += cut
            counts += [tokenizer.count(text[a:b]) for a, b in cut]
            if j == n:
                break
            i = j  # no overlap back into the cut piece
            continue
        windows.append((char_start, char_end(j)))
        counts.append(count)
        if j == n:
            break
        i, done = _next_start(text, starts, is_cut, cuts, range(max(j - overlap, i + 1), j), char_end(j),
                              tokenizer, overlap), j  # fmt: skip
    return windows, counts


def _next_start(
    text: str, starts: np.ndarray, is_cut: np.ndarray, cuts: np.ndarray, back: range, end: int,
    tokenizer: Tokenizer, overlap: int,
) -> int:  # fmt: skip
    """Where the window after one ending at ``back.stop`` (at character ``end``) starts.

    At the first cut within the overlap (``back``), else at the window's end. A window that ended inside
    a word (a clause of Chinese that sentencepiece reads as one, a URL, a row of underscores) overlaps
    inside it too: from the first token whose text to ``end``, counted alone, fits ``overlap``, as its
    pieces tokenize otherwise on their own.
    """
    k, j = _first_at_least(cuts, back.start), back.stop
    if k >= j and not is_cut[j]:
        k = next((t for t in back if tokenizer.count(text[int(starts[t]) : end]) <= overlap), j)
    return min(k, j)


def _token_cuts(codes: np.ndarray, lo: int, spans: TokenSpans) -> tuple[np.ndarray, ...]:
    """Token starts, ends, pieces (long tokens cut) and the places a window may end or an overlap begin.

    Those places keep every token as it is: whitespace, and the tokenizer's own word starts next to a
    Chinese or Japanese character (read only from texts that hold one); a flag per token index, and one
    for the end. ``codes`` are the code points of the text from ``lo``.
    """
    words = spans.words() if spans.words and len(codes) and codes.max() >= _CJK_BOUNDS[0] else None
    starts, ends, split, words = _split_long_tokens(spans.starts + lo, spans.ends + lo, words)
    is_cut = np.zeros(len(starts) + 1, dtype=bool)
    if len(starts):
        is_cut[_word_starts(codes, lo, starts, ends)] = True
    if words is not None:
        is_cut[:-1] |= words & _next_to_cjk(codes, starts - lo)
    return starts, ends, split, is_cut


_CJK_BOUNDS = np.array([bound for span in UNSPACED for bound in span])  # for one searchsorted


def _next_to_cjk(codes: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Whether each token (starting at ``at`` in ``codes``) begins with, or follows, a CJK character."""
    cjk = np.searchsorted(_CJK_BOUNDS, codes, side="right") % 2 == 1
    return cjk[at] | cjk[np.maximum(at - 1, 0)]


def _last_at_most(points: np.ndarray, j: int) -> int:
    """The last of the sorted ``points`` at or before ``j`` (they start with 0)."""
    return int(points[np.searchsorted(points, j, side="right") - 1])


def _first_at_least(points: np.ndarray, j: int) -> int:
    """The first of the sorted ``points`` at or after ``j`` (they end with the token count)."""
    return int(points[np.searchsorted(points, j)])


def _word_starts(codes: np.ndarray, lo: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Indices of the tokens that start a word, then the token count (the end is a word boundary too).

    ``codes`` are the code points of the text from ``lo``. A token preceded by whitespace starts a word:
    windows cut there when they can, so each chunk re-tokenizes to the same tokens. Only characters the
    tokenizer itself treats as whitespace count: a dropped control character between two tokens does
    not separate words.
    """
    separators = np.flatnonzero(np.isin(codes, _TOKENIZER_WHITESPACE)) + lo
    separated = np.searchsorted(separators, starts[1:]) > np.searchsorted(separators, ends[:-1])
    return np.flatnonzero(np.concatenate([[True], separated, [True]]))


def _cut_to_size(text: str, start: int, end: int, tokenizer: Tokenizer, size: int) -> list[tuple[int, int]]:
    """``text[start:end]`` (one word) cut greedily into ranges of at most ``size`` tokens each."""
    out = []
    while start < end:
        lo, hi = start + 1, end  # the longest prefix within size (a lone character is kept whole)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if tokenizer.count(text[start:mid]) <= size:
                lo = mid
            else:
                hi = mid - 1
        out.append((start, lo))
        start = lo
    return out


# WordPiece reads words of at most 100 characters and turns a longer one into a single [UNK]: a 5 MB
# run without whitespace would be "one token". For window sizing such a token counts one per 100
# characters, so no chunk grows past size x 100 characters.
MAX_TOKEN_CHARS = 100


def _split_long_tokens(
    starts: np.ndarray, ends: np.ndarray, words: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Token spans, every one longer than :data:`MAX_TOKEN_CHARS` cut into pieces of that length.

    The third array flags the pieces (plus a final False): windows holding one are re-counted. The
    fourth is ``words`` over the pieces: only a token's first piece may begin a word.
    """
    lengths = ends - starts
    long = lengths > MAX_TOKEN_CHARS
    if not long.any():
        return starts, ends, np.zeros(len(starts) + 1, dtype=bool), words
    pieces = np.maximum(1, -(-lengths // MAX_TOKEN_CHARS))  # ceil division
    owner = np.repeat(np.arange(len(starts)), pieces)
    offset = np.arange(len(owner)) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    new_starts = starts[owner] + offset * MAX_TOKEN_CHARS
    split = np.append(long[owner], False)
    words = None if words is None else words[owner] & (offset == 0)
    return new_starts, np.minimum(new_starts + MAX_TOKEN_CHARS, ends[owner]), split, words


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
        if fits_tokens(text, a, b, tokenizer, limit):
            pieces.append((a, b))
            continue
        for s, e in split_unit(a, b):
            if fits_tokens(text, s, e, tokenizer, limit):
                pieces.append((s, e))
            else:
                pieces.extend(token_windows(text, s, e, tokenizer, limit, 0)[0])
    if not pieces:
        return [], []
    measures = tokenizer.count_many([text[a:b] for a, b in pieces])
    return pack_counted(text, measures, limit, tokenizer, lambda i, j: (pieces[i][0], pieces[j - 1][1]))


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
