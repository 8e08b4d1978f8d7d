"""Contrastive claims made by rules: each edit on hand-made sentences, evidence kept, groups shared."""

import random

import pytest

from vera_lab.data.contrast import (
    contradicted_variants,
    contrastive_claims,
    edit_antonym,
    edit_duration,
    edit_negation,
    edit_number,
    not_mentioned,
)
from vera_lab.types import Claim, Corpus, Document, Span


@pytest.mark.parametrize(
    ("rule", "text", "expected"),
    [
        (edit_number, "Staff can work remotely three days a week.", "Staff can work remotely four days a week."),
        (edit_number, "Notice is due within 30 days.", "Notice is due within 60 days."),
        (edit_number, "The fee is 1,500 euros.", "The fee is 3,000 euros."),
        (edit_negation, "The Recipient may disclose the information.", "The Recipient may not disclose the information."),
        (edit_negation, "The Recipient shall not copy it.", "The Recipient shall copy it."),
        (edit_antonym, "Payment is due before delivery.", "Payment is due after delivery."),
        (edit_antonym, "Oral disclosures are included.", "Written disclosures are included."),  # the first one
        (edit_duration, "The term is two years.", "The term is two days."),
        (edit_duration, "A 30-day notice applies.", "A 30-month notice applies."),
        (edit_duration, "Core hours end at 15:00.", None),  # "hours" counts nothing here
        (edit_number, "Core hours end at 15:00.", "Core hours end at 16:00."),  # a clock time: an hour on
        (edit_number, "Calls end at 23:30.", "Calls end at 00:30."),
        (edit_number, "No numbers here.", None),
        (edit_antonym, "Nothing to flip.", None),
    ],
)  # fmt: skip
def test_each_rule_makes_the_expected_edit(rule, text, expected):
    assert rule(text) == expected


def test_variants_keep_the_evidence_and_join_their_originals_group():
    claim = Claim("c1", "Notice must be given 30 days before termination.", "supported",
                  (Span("d", 10, 60),), ("d",))  # fmt: skip
    variants = contradicted_variants(claim)
    assert [v.claim_id for v in variants] == ["c1~number", "c1~negation", "c1~antonym", "c1~duration"]
    assert {v.label for v in variants} == {"contradicted"}
    assert all(v.evidence == claim.evidence and v.group == "c1" for v in variants)
    assert contradicted_variants(Claim("c2", "x", "unsupported")) == []  # only supported claims flip


def test_not_mentioned_pairs_a_claim_with_another_document_and_is_seeded():
    corpus = Corpus(tuple(Document(d, "text") for d in ("a", "b", "c")))
    claim = Claim("c1", "A claim.", "supported", (Span("a", 0, 4),), ("a",))
    paired = not_mentioned(claim, corpus, random.Random(0))
    assert paired.label == "unsupported" and paired.evidence == () and paired.cited_doc_ids[0] in {"b", "c"}
    assert contrastive_claims([claim], corpus, seed=3) == contrastive_claims([claim], corpus, seed=3)


def test_a_claim_asked_of_several_documents_gets_no_not_mentioned_pairing():
    # The same hypothesis asked of two contracts: a third contract of the kind likely states it too.
    corpus = Corpus(tuple(Document(d, "The parties shall keep it secret.") for d in ("a", "b", "c")))
    template = [Claim(f"c{d}", "The parties shall keep it secret.", "supported", (Span(d, 0, 33),), (d,))
                for d in ("a", "b")]  # fmt: skip
    made = contrastive_claims(template, corpus)
    assert made and {c.label for c in made} == {"contradicted"}
    single = contrastive_claims(template[:1], corpus)
    assert [c.claim_id for c in single if c.label == "unsupported"] == ["ca~other_document"]
    # One claim citing two documents is no template: it is still paired with a third.
    both = Claim("cab", "The parties shall keep it secret.", "supported", (Span("a", 0, 33),), ("a", "b"))
    assert [c.cited_doc_ids for c in contrastive_claims([both], corpus) if c.label == "unsupported"] == [
        ("c",)
    ]


def test_the_contrast_command_writes_reviewable_claims_that_load(tmp_path, capsys):
    import json
    from pathlib import Path

    from vera_lab.cli import main

    tiny = Path(__file__).parent / "data" / "tiny"
    assert main(["contrast", "--dataset", str(tiny), "--out", str(tmp_path / "contrast.jsonl")]) == 0
    records = [json.loads(line) for line in (tmp_path / "contrast.jsonl").read_text().splitlines()]
    assert records and all("~" in r["claim_id"] and r["group"] for r in records)
    assert {r["label"] for r in records} <= {"contradicted", "unsupported"}
    assert capsys.readouterr().out.startswith(f"{tmp_path / 'contrast.jsonl'}: {len(records)} claims (")
