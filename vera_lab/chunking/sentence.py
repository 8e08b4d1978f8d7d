"""Sentence packing.

Seed ADR-003 of VERA: 3000 chars, 20% overlap, min 500, max 5000; seed ADR-001's mode: 512 tokens
with an overlap of 2 whole sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import SizedChunker, Spans, register
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.windows import (
    fits_tokens,
    pack,
    pack_counted,
    rstrip_at,
    split_chars,
    token_windows,
)


@register
@dataclass(frozen=True)
class SentenceChunker(SizedChunker):
    """Whole sentences packed up to ``size``; below ``min_size`` a chunk may grow to ``max_size``.

    ``min_size`` and ``max_size`` default to the seed's proportions (500 and 5000 for 3000):
    ``size / 6`` and ``size * 5 / 3``.

    ``overlap`` is in ``unit`` (or a ratio of ``size``) and is realised as whole trailing sentences;
    ``overlap_unit="sentences"`` makes it a count of sentences instead. A sentence longer than
    the max is split at word boundaries, never emitted whole.
    """

    strategy: ClassVar[str] = "sentence"
    units: ClassVar[tuple[str, ...]] = ("chars", "tokens", "sentences")
    size: int = 3000
    overlap: float = 0.2
    min_size: int | None = None
    max_size: int | None = None
    overlap_unit: str | None = None

    def __post_init__(self) -> None:
        if self.overlap_unit not in (None, self.unit, "sentences"):
            raise ValueError(f"overlap_unit={self.overlap_unit!r}: use None (same as unit) or 'sentences'")
        super().__post_init__()
        if not 0 <= self.min_limit <= self.size <= self.max_limit:
            raise ValueError(
                f"need 0 <= min_size ({self.min_limit}) <= size ({self.size}) <= max_size ({self.max_limit})"
            )

    @property
    def min_limit(self) -> int:
        """The effective ``min_size``."""
        return round(self.size / 6) if self.min_size is None else self.min_size

    @property
    def max_limit(self) -> int:
        """The effective ``max_size``."""
        return round(self.size * 5 / 3) if self.max_size is None else self.max_size

    def _check_overlap(self) -> None:
        if self.overlap_unit == "sentences" and self.unit != "sentences":
            if self.overlap != int(self.overlap):
                raise ValueError(f"overlap={self.overlap!r}: give a whole number of sentences")
        else:
            super()._check_overlap()

    def split(self, text: str) -> tuple[Spans, list[int] | None]:
        sentences = sentence_spans(text, self.lang)  # None: the document's language, which chunk() set
        if not sentences:
            return [], None
        tokens = self.unit == "tokens"
        tokenizer = self.get_tokenizer() if tokens else None
        # Pieces are contiguous: each sentence owns the whitespace after it; ends trim it off.
        pieces: list[tuple[int, int]] = []
        trims: list[int] = []

        def too_long(a: int, b: int) -> bool:
            if tokens:  # a short sentence can still hold many tokens (a Hangul syllable gives three)
                return b - a > self.max_limit or not fits_tokens(text, a, b, tokenizer, self.max_limit)
            return self.unit == "chars" and b - a > self.max_limit

        oversized = [too_long(a, b) for a, b in sentences]
        if not any(oversized):  # the common case: a piece per sentence
            starts = [a for a, _ in sentences]
            trims = [b for _, b in sentences]
            pieces = list(zip(starts, [*starts[1:], trims[-1]], strict=True))
        else:
            for k, (start, end) in enumerate(sentences):
                nxt = sentences[k + 1][0] if k + 1 < len(sentences) else end
                if not oversized[k]:
                    parts = [(start, end)]
                elif tokens:
                    parts = token_windows(text, start, end, tokenizer, self.max_limit, 0)[0]
                else:
                    parts = split_chars(text, start, end, self.max_limit)
                for m, (a, b) in enumerate(parts):
                    pieces.append((a, parts[m + 1][0] if m + 1 < len(parts) else nxt))
                    trims.append(rstrip_at(text, a, b))
        if self.unit == "sentences":
            measures = [1] * len(pieces)
        elif tokens:
            measures = tokenizer.count_many([text[a:t] for (a, _), t in zip(pieces, trims, strict=True)])
        else:
            measures = [b - a for a, b in pieces]

        by_sentences = self.overlap_unit == "sentences"
        options = {
            "overlap": 0 if by_sentences else self.overlap_amount,
            "overlap_pieces": int(self.overlap) if by_sentences else None,
            "min_size": self.min_limit,
            "max_size": self.max_limit,
        }

        def span_of(i: int, j: int) -> tuple[int, int]:
            return pieces[i][0], trims[j - 1]

        if tokens:
            return pack_counted(text, measures, self.size, tokenizer, span_of, **options)
        return [span_of(i, j) for i, j in pack(measures, self.size, **options)], None
