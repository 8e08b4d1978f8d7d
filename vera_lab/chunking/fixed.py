"""Fixed-size character windows (seed ADR-0002 of the DocuChat team: 1000 chars, 200 overlap)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from vera_lab.chunking.base import SizedChunker, Spans, register


@register
@dataclass(frozen=True)
class FixedChunker(SizedChunker):
    """Windows of exactly ``size`` characters every ``size - overlap`` characters.

    Unlike the seed's loop, the last window ends at the end of the text instead of repeating a
    tail already covered by the window before it.
    """

    strategy: ClassVar[str] = "fixed"
    units: ClassVar[tuple[str, ...]] = ("chars",)
    size: int = 1000
    overlap: float = 200

    def split(self, text: str) -> tuple[Spans, None]:
        n, size = len(text), self.size
        step = size - self.overlap_amount
        # A window starts only where it reaches past the previous one, so the last ends at n.
        last_start = max(n - self.overlap_amount, 1)
        return [(start, min(start + size, n)) for start in range(0, last_start, step)], None
