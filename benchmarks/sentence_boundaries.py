"""Sentence boundaries on three gold sets: vera_lab's splitter, seed 000's regex and pySBD.

Run: .venv/bin/python benchmarks/sentence_boundaries.py   (pysbd comes with `make bench`)

- our gold set (tests/data/sentence_gold.jsonl): a case is right when the whole sentence list matches;
- pySBD's English Golden Rules (48 cases, benchmarks/data/sentences/, MIT): the same exact match;
- UD English-EWT test (benchmarks/data/sentences/, CC BY-SA 4.0): each paragraph rebuilt by joining
  its sentences with one space; a boundary is the end offset of every sentence but the last;
  precision, recall and F1 of the predicted boundaries over all paragraphs.
Then the sentence chunker's speed (1000/200 characters, as benchmarks/chunking_speed.py) on the
bundled documents (goal: at least 30 MB/s).
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable
from pathlib import Path

from common import ROOT, best_time, bundled_documents

from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.sentence import SentenceChunker

DATA = Path(__file__).resolve().parent / "data" / "sentences"
OUR_GOLD = ROOT / "tests" / "data" / "sentence_gold.jsonl"
SEED_REGEX = re.compile(r"[.!?]\s+[A-Z]")  # seed 000: a stop, whitespace, a capital

Splitter = Callable[[str], list[tuple[int, int]]]  # text -> sentence spans


def seed_regex(text: str) -> list[tuple[int, int]]:
    cuts = [m.start() + 1 for m in SEED_REGEX.finditer(text)]
    return _stripped(text, [0, *cuts, len(text)])


def pysbd_splitter() -> Splitter | None:
    try:
        import pysbd
    except ImportError:
        print("pysbd not installed (make bench installs it): skipped")
        return None
    segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return lambda text: _stripped(text, [0, *(s.end for s in segmenter.segment(text))])


def _stripped(text: str, bounds: list[int]) -> list[tuple[int, int]]:
    """Spans between consecutive cut offsets, without surrounding whitespace, empty ones dropped."""
    spans = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        piece = text[a:b]
        if piece.strip():
            start = a + len(piece) - len(piece.lstrip())
            spans.append((start, a + len(piece.rstrip())))
    return spans


def exact_match(split: Splitter, cases: list[tuple[str, list[str]]]) -> int:
    return sum([text[a:b] for a, b in split(text)] == [s.strip() for s in gold] for text, gold in cases)


def golden_rules() -> list[tuple[str, list[str]]]:
    spec = importlib.util.spec_from_file_location("golden", DATA / "english_golden_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.GOLDEN_EN_RULES


def ud_paragraphs() -> list[tuple[str, set[int]]]:
    """(paragraph text, gold boundary offsets) of the UD EWT test split."""
    paragraphs: list[list[str]] = []
    for line in (DATA / "en_ewt-ud-test.conllu").open(encoding="utf-8"):
        if line.startswith(("# newdoc", "# newpar")) or not paragraphs:
            if not paragraphs or paragraphs[-1]:
                paragraphs.append([])
        if line.startswith("# text = "):
            paragraphs[-1].append(line[len("# text = ") :].rstrip("\n"))
    out = []
    for sentences in filter(None, paragraphs):
        ends, offset = set(), 0
        for sentence in sentences[:-1]:
            offset += len(sentence)
            ends.add(offset)
            offset += 1
        out.append((" ".join(sentences), ends))
    return out


def boundary_scores(split: Splitter, paragraphs: list[tuple[str, set[int]]]) -> tuple[float, float, float]:
    found = right = gold = 0
    for text, ends in paragraphs:
        predicted = {b for _, b in split(text)[:-1]}
        found, right, gold = found + len(predicted), right + len(predicted & ends), gold + len(ends)
    precision, recall = right / found, right / gold
    return precision, recall, 2 * precision * recall / (precision + recall)


def main() -> None:
    splitters: dict[str, Splitter] = {"vera_lab": sentence_spans, "seed-000 regex": seed_regex}
    if (pysbd := pysbd_splitter()) is not None:
        splitters["pysbd"] = pysbd
    ours = [(c["text"], c["sentences"]) for c in map(json.loads, OUR_GOLD.open(encoding="utf-8"))]
    rules, paragraphs = golden_rules(), ud_paragraphs()
    gold_boundaries = sum(len(e) for _, e in paragraphs)
    print(f"our gold set: {len(ours)} cases; Golden Rules: {len(rules)} cases (exact sentence lists)")
    print(f"UD EWT test: {len(paragraphs)} paragraphs, {gold_boundaries} boundaries inside them\n")
    print(f"{'splitter':<16}{'our gold':>10}{'golden rules':>14}{'UD P':>8}{'UD R':>8}{'UD F1':>8}")
    for name, split in splitters.items():
        p, r, f1 = boundary_scores(split, paragraphs)
        own, golden = exact_match(split, ours), exact_match(split, rules)
        print(f"{name:<16}{own:>6}/{len(ours):<3}{golden:>10}/{len(rules):<3}{p:>8.3f}{r:>8.3f}{f1:>8.3f}")
    texts = [d.text for d in bundled_documents(3_000_000)]
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    chunker = SentenceChunker(size=1000, overlap=200, min_size=0, max_size=1000)  # as chunking_speed.py
    seconds = best_time(lambda: [chunker.chunk_text(t) for t in texts], 10)  # a noisy machine: best of 10
    print(f"\nsentence chunking 1000/200: {megabytes / seconds:.1f} MB/s on {megabytes:.1f} MB (goal >= 30)")
    seconds = best_time(lambda: [sentence_spans(t) for t in texts], 10)
    print(f"sentence_spans alone: {megabytes / seconds:.1f} MB/s")


if __name__ == "__main__":
    main()
