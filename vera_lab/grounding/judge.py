"""An LLM grounding judge: claim + retrieved evidence -> supported / contradicted / not enough info.

The alternative to the cosine scorer: similarity cannot tell a contradiction from support, an
entailment judge can. It runs on a local Ollama model; the retrieval is the same as the scorer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from vera_lab.grounding.base import GOLD_VERDICT, VERDICTS
from vera_lab.llm import LLMOutputError, chat_json
from vera_lab.metrics import confusion_by_label, confusion_table, grounding_scores, three_way_scores
from vera_lab.types import Claim, Corpus

JUDGE_LABELS = ("supported", "contradicted", "not_enough_info")  # the words the model is asked for
AS_VERDICT = dict(zip(JUDGE_LABELS, VERDICTS, strict=True))
JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": list(JUDGE_LABELS)},
        "rationale": {"type": "string"},
    },
    "required": ["label", "rationale"],
}
SYSTEM = (
    "You check claims against evidence. Answer with JSON: label is 'supported' if the evidence "
    "states the claim, 'contradicted' if the evidence states its opposite, 'not_enough_info' "
    "otherwise; rationale is one sentence."
)


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's label for one claim; ``ok`` is False when the model never answered in form."""

    claim_id: str
    label: str
    rationale: str
    ok: bool = True


@dataclass(frozen=True)
class LLMJudge:
    """Parameters of the judge: the Ollama model, the server, retries on malformed output."""

    model: str = "llama3.1:8b"
    host: str | None = None
    retries: int = 2
    max_evidence_chars: int = 4000

    def judge(self, claim: Claim, evidence: Sequence[str]) -> JudgeVerdict:
        """Judge one claim against its retrieved evidence (best first)."""
        text = "\n\n".join(f"[{i}] {e}" for i, e in enumerate(evidence, 1))[: self.max_evidence_chars]
        user = f"Claim: {claim.text}\n\nEvidence:\n{text}"
        try:
            reply = chat_json(self.model, SYSTEM, user, JUDGE_SCHEMA, self.host, self.retries)
        except LLMOutputError as exc:
            return JudgeVerdict(claim.claim_id, "not_enough_info", str(exc), ok=False)
        return JudgeVerdict(claim.claim_id, reply["label"], reply["rationale"])


def judge_claims(judge: LLMJudge, claims: Sequence[Claim], verdicts, corpus: Corpus) -> list[JudgeVerdict]:
    """Run the judge on each claim with the evidence the scorer retrieved for it."""
    out = []
    for claim, verdict in tqdm(
        list(zip(claims, verdicts, strict=True)), desc=f"judge {judge.model}", leave=False
    ):
        evidence = [corpus[e.doc_id].text[e.start : e.end] for e in verdict.evidence]
        out.append(judge.judge(claim, evidence))
    return out


MAX_UNUSABLE = 0.5  # when more replies than this share never fit the schema, no metrics are given


class JudgeUnusableError(ValueError):
    """Most of the judge's replies were unusable: metrics would describe the fallback, not the model."""


def judge_metrics(claims: Sequence[Claim], judged: Sequence[JudgeVerdict]) -> dict:
    """Grounding metrics of the judge (grounded = 'supported'), its 3-way accuracy and confusion.

    Raises :class:`JudgeUnusableError` when more than half the replies were unusable.
    """
    unusable = sum(not j.ok for j in judged)
    if judged and unusable > MAX_UNUSABLE * len(judged):
        example = next(j.rationale for j in judged if not j.ok)[:160]
        raise JudgeUnusableError(
            f"{unusable} of {len(judged)} judge replies were unusable (e.g. {example}); no judge metrics: "
            "try another model or check that it follows JSON-schema output"
        )
    y_true = np.array([c.label == "supported" for c in claims])
    y_pred = np.array([j.label == "supported" for j in judged])
    gold = [GOLD_VERDICT[c.label] for c in claims]
    said = [AS_VERDICT[j.label] for j in judged]
    three_way = three_way_scores(gold, said, VERDICTS)  # the verifier's metrics, on the judge's verdicts
    return {
        "metrics": {f"judge_{k}": v for k, v in grounding_scores(y_true, y_pred).items()},
        "three_way_accuracy": three_way["accuracy"],
        "three_way": three_way,
        "malformed": unusable,
        "confusion_by_label": confusion_by_label([c.label for c in claims], y_pred.tolist()),
        "labels_by_label": confusion_table(gold, said, VERDICTS),
    }
