"""Sentence-boundary accuracy on the gold set: ours, seed 000's regex and pysbd.

Run: .venv/bin/python benchmarks/sentence_boundaries.py   (pysbd comes with `make bench`)
A case counts as correct when the whole list of sentences matches exactly.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from vera_lab.chunking.segment import sentence_spans

GOLD = Path(__file__).resolve().parents[1] / "tests" / "data" / "sentence_gold.jsonl"
SEED_REGEX = re.compile(r"[.!?]\s+[A-Z]")  # seed 000: a stop, whitespace, a capital


def seed_regex(text: str) -> list[str]:
    cuts = [m.start() + 1 for m in SEED_REGEX.finditer(text)]
    bounds = [0, *cuts, len(text)]
    return [text[a:b].strip() for a, b in zip(bounds, bounds[1:], strict=False) if text[a:b].strip()]


def ours(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def main() -> None:
    cases = [json.loads(line) for line in GOLD.open(encoding="utf-8")]
    splitters = {"vera_lab": ours, "seed-000 regex": seed_regex}
    try:
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False)
        splitters["pysbd"] = lambda t: [s.strip() for s in segmenter.segment(t) if s.strip()]
    except ImportError:
        print("pysbd not installed (make bench installs it): skipped")
    categories = sorted({c["category"] for c in cases})
    print(f"{len(cases)} gold cases; exact match of the sentence list\n")
    print(f"{'splitter':<16}{'accuracy':>10}  " + "  ".join(f"{c:>9}" for c in categories))
    for name, split in splitters.items():
        right, per = 0, Counter()
        for case in cases:
            ok = split(case["text"]) == [s.strip() for s in case["sentences"]]
            right += ok
            per[case["category"]] += ok
        totals = Counter(c["category"] for c in cases)
        cells = "  ".join(f"{per[c]:>4}/{totals[c]:<4}" for c in categories)
        print(f"{name:<16}{right / len(cases):>10.3f}  {cells}")


if __name__ == "__main__":
    main()
