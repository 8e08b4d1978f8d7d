import json
from pathlib import Path

import pytest

from vera_lab.chunking.segment import sentence_spans

GOLD = [json.loads(line) for line in (Path(__file__).parent / "data" / "sentence_gold.jsonl").open()]


def test_gold_set_is_large_and_covers_the_hard_cases():
    assert len(GOLD) >= 150
    categories = {c["category"] for c in GOLD}
    assert {"abbrev", "initials", "numbers", "ellipsis", "quotes", "lists", "urls", "newlines"} <= categories


@pytest.mark.parametrize("case", GOLD, ids=lambda c: c["text"][:40])
def test_gold_case(case):
    text = case["text"]
    assert [text[a:b] for a, b in sentence_spans(text)] == case["sentences"]


def test_spans_are_ordered_and_trimmed():
    text = "  One. Two!\n\n Three?  "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["One.", "Two!", "Three?"]
    assert all(b <= a2 for (_, b), (a2, _) in zip(spans, spans[1:], strict=False))


def test_digits_that_are_not_ascii_are_no_enumerators():
    assert sentence_spans("0\r².") == [(0, 4)]  # hypothesis found int("²") failing here
    assert sentence_spans("Steps: 1. one 2. two") == [(0, 13), (14, 20)]  # ASCII: an enumeration
    assert sentence_spans("Steps: ¹. one ². two") == [(0, 9), (10, 16), (17, 20)]  # superscripts: not one
