"""Contrastive claims without a model: a supported claim edited into one its evidence contradicts.

VitaminC (Schuster et al., 2021) showed that a verifier learns to read when it sees a claim beside a
minimally edited twin with the opposite label on the same evidence. Rules here make such twins from
any supported claim, keeping its evidence span, and say which rule made each:

- ``number``: a number changed (digits, or a number word): "three days" -> "four days";
- ``negation``: a modal or copula negated, or a negation removed: "may disclose" -> "may not disclose";
- ``antonym``: a word swapped for its opposite from a short list: "before" -> "after";
- ``duration``: a counted unit of time swapped: "30 days" -> "30 months".

``not mentioned`` claims pair a claim with a document that does not hold its evidence (rule
``other_document``). A claim whose text other claims ask of other documents (ContractNLI asks 17
fixed hypotheses of every contract) gets no such pairing: its documents are of one kind, so another one
likely states it too (ContractNLI: 614 of 1,037 claims have evidence). Every variant's ``group`` is its
original's id, so intervals resample a claim and its twins together.

Rules do not read the evidence, so a twin can be wrong (a number the evidence never states). Measured
by ``benchmarks/contrast_verifier.py`` on ContractNLI dev, out of fold: training the verifier with
these twins moved its ROC-AUC from 0.780 to 0.771 (-0.009 [-0.030, +0.013], not significant) and its
recall of contradicted claims from 0.463 to 0.263; with other-document pairings of the hypotheses as
well (before the template rule) it fell to 0.722. On SciFact (cross-fitted by abstract, 571 twins) it
fell from 0.518 to 0.472 (-0.045 [-0.085, -0.005]). Twins do not help the verifier, and it does not
train on them; review them before using them as labels or test claims.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from vera_lab.types import Claim, Corpus

NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve"]  # fmt: skip
ANTONYMS = {
    "before": "after", "increase": "decrease", "increases": "decreases", "more": "less", "maximum": "minimum",
    "allowed": "prohibited", "permitted": "forbidden", "include": "exclude", "includes": "excludes",
    "always": "never", "all": "no", "higher": "lower", "above": "below", "must": "need not",
    "required": "optional", "written": "oral", "public": "confidential", "first": "last", "earlier": "later",
    "early": "late",
}  # fmt: skip
ANTONYMS |= {v: k for k, v in list(ANTONYMS.items()) if " " not in v}
UNITS = {"days": "months", "months": "years", "years": "days", "weeks": "months", "hours": "days",
         "day": "month", "month": "year", "year": "day", "week": "month", "hour": "day"}  # fmt: skip
_NEGATABLE = re.compile(r"\b(may|shall|will|can|must|should|is|are|was|were|does|do)\b(?! not\b)", re.I)
_NEGATED = re.compile(r"\b(may|shall|will|can|must|should|is|are|was|were|does|do) not\b", re.I)
_DIGITS = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_COUNT = r"(?:\d+(?:[.,]\d+)?|" + "|".join(NUMBER_WORDS) + r"|a|an|one)"
_UNIT = re.compile(r"\b(" + _COUNT + r")(\s+|-)(" + "|".join(UNITS) + r")\b", re.I)


def _keep_case(old: str, new: str) -> str:
    return new[:1].upper() + new[1:] if old[:1].isupper() else new


def edit_number(text: str) -> str | None:
    """The first number changed.

    A clock time an hour later (15:00 -> 16:00), other digits doubled (1 -> 2, 30 -> 60), number words
    to the next one.
    """
    clock = _CLOCK.search(text)
    match = _DIGITS.search(text)
    if clock and match and clock.start() == match.start():
        hour = (int(clock.group(1)) + 1) % 24
        return f"{text[: clock.start()]}{hour:0{len(clock.group(1))}d}:{clock.group(2)}{text[clock.end() :]}"
    if match:
        value = float(match.group().replace(",", ""))
        new = value * 2 if value else 1
        shown = (
            f"{new:g}" if "." in match.group() else f"{int(new):,}" if "," in match.group() else f"{int(new)}"
        )
        return text[: match.start()] + shown + text[match.end() :]
    words = re.search(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", text, re.I)
    if words:
        index = NUMBER_WORDS.index(words.group().lower())
        new = NUMBER_WORDS[(index + 1) % len(NUMBER_WORDS)]
        return text[: words.start()] + _keep_case(words.group(), new) + text[words.end() :]
    return None


def edit_negation(text: str) -> str | None:
    """A negation removed ("may not" -> "may"), or else the first modal or copula negated."""
    negated = _NEGATED.search(text)
    if negated:
        return text[: negated.start()] + negated.group(1) + text[negated.end() :]
    plain = _NEGATABLE.search(text)
    if plain:
        return text[: plain.end()] + " not" + text[plain.end() :]
    return None


def edit_antonym(text: str) -> str | None:
    """The first word of :data:`ANTONYMS` swapped for its opposite."""
    match = re.search(
        r"\b(" + "|".join(map(re.escape, sorted(ANTONYMS, key=len, reverse=True))) + r")\b", text, re.I
    )
    if not match:
        return None
    return (
        text[: match.start()]
        + _keep_case(match.group(), ANTONYMS[match.group().lower()])
        + text[match.end() :]
    )


def edit_duration(text: str) -> str | None:
    """The first counted unit of time swapped for another ("30 days" -> "30 months"; "core hours" stays)."""
    match = _UNIT.search(text)
    if not match:
        return None
    unit = match.group(3)
    return text[: match.start(3)] + _keep_case(unit, UNITS[unit.lower()]) + text[match.end(3) :]


RULES: dict[str, Callable[[str], str | None]] = {
    "number": edit_number, "negation": edit_negation, "antonym": edit_antonym, "duration": edit_duration,
}  # fmt: skip


def rule_edits(text: str, rules: Sequence[str] = tuple(RULES)) -> list[tuple[str, str]]:
    """``(rule, edited text)`` for every rule whose edit changes ``text``."""
    edits = [(rule, RULES[rule](text)) for rule in rules]
    return [(rule, edited) for rule, edited in edits if edited and edited != text]


def contradicted_variants(claim: Claim, rules: Sequence[str] = tuple(RULES)) -> list[Claim]:
    """Every rule's edit of a supported claim that changes it: contradicted, on the same evidence."""
    if claim.label != "supported" or not claim.evidence:
        return []
    return [
        Claim(f"{claim.claim_id}~{rule}", edited, "contradicted", claim.evidence, claim.cited_doc_ids,
              group=claim.group or claim.claim_id)
        for rule, edited in rule_edits(claim.text, rules)
    ]  # fmt: skip


def not_mentioned(claim: Claim, corpus: Corpus, rng: random.Random) -> Claim | None:
    """The claim asked of another document (one holding none of its evidence): not mentioned there."""
    own = {s.doc_id for s in claim.evidence} | set(claim.cited_doc_ids)
    others = [d.doc_id for d in corpus if d.doc_id not in own]
    if not others:
        return None
    other = rng.choice(others)
    return Claim(f"{claim.claim_id}~other_document", claim.text, "unsupported", (), (other,),
                 group=claim.group or claim.claim_id)  # fmt: skip


def contrastive_claims(claims: Sequence[Claim], corpus: Corpus, seed: int = 0) -> list[Claim]:
    """Contradicted twins of every supported claim and a not-mentioned pairing of each, seeded.

    No pairing for a claim whose text other claims ask of other documents (see the module's note).
    """
    rng = random.Random(seed)
    asked_of: dict[str, set[frozenset[str]]] = {}  # a claim's text: the documents of each claim making it
    for claim in claims:
        asked_of.setdefault(claim.text.strip().casefold(), set()).add(frozenset(claim.cited_doc_ids))
    out: list[Claim] = []
    for claim in claims:
        out += contradicted_variants(claim)
        if claim.label == "supported" and len(asked_of[claim.text.strip().casefold()]) < 2:
            pairing = not_mentioned(claim, corpus, rng)
            out += [pairing] if pairing else []
    return out
