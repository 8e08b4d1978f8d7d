"""ragas interop: retrieval results as a ``ragas.EvaluationDataset`` and back; ragas's offline metrics.

ragas is optional (``pip install 'vera-lab[ragas]'``); its telemetry is switched off before import.
Definitions, so the numbers can be compared:

- ``id_context_precision`` / ``id_context_recall`` (ours): over chunk ids, a retrieved chunk is
  relevant when it shares a character with a gold span; precision = relevant retrieved / retrieved,
  recall = relevant retrieved / relevant chunks in the searched corpus. ragas's ``IDBasedContext*``
  compute the same sets when given our ``reference_context_ids``: they agree exactly.
- ragas's ``NonLLMContextRecall`` / ``NonLLMContextPrecisionWithReference`` decide relevance by
  string similarity (1 - normalised Levenshtein distance >= 0.5) between a retrieved chunk and the
  gold evidence *text*. A 1000-character chunk that contains a 150-character evidence sentence is
  far from it by that measure, so ragas calls it irrelevant where our span overlap calls it
  relevant: they differ, by design, whenever chunks are much longer than the evidence.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from vera_lab.metrics import touching
from vera_lab.types import Chunk, Claim, Corpus


@dataclass(frozen=True)
class ContextSample:
    """One claim's retrieval, in the terms ragas uses."""

    claim_id: str
    user_input: str
    retrieved_contexts: tuple[str, ...]
    retrieved_context_ids: tuple[str, ...]
    reference_contexts: tuple[str, ...]
    reference_context_ids: tuple[str, ...]


def _ragas():
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # before the first import of ragas
    try:
        import ragas
    except ImportError as exc:
        raise ImportError("ragas interop needs the ragas extra: pip install 'vera-lab[ragas]'") from exc
    return ragas


def context_samples(
    claims: Sequence[Claim], chunks: Sequence[Chunk], retrieved_ids: Sequence[Sequence[str]], corpus: Corpus
) -> list[ContextSample]:
    """Samples for the claims that have gold evidence; reference ids are the chunks touching it."""
    by_id = {c.chunk_id: c for c in chunks}
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    samples = []
    for claim, ids in zip(claims, retrieved_ids, strict=True):
        if not claim.evidence:
            continue
        candidates = [
            c for doc_id in dict.fromkeys(s.doc_id for s in claim.evidence) for c in by_doc.get(doc_id, [])
        ]
        relevant = [candidates[i].chunk_id for i in touching([c.span for c in candidates], claim.evidence)]
        samples.append(
            ContextSample(
                claim.claim_id,
                claim.text,
                tuple(by_id[i].text for i in ids),
                tuple(ids),
                tuple(corpus[s.doc_id].text[s.start : s.end] for s in claim.evidence),
                tuple(relevant),
            )
        )
    return samples


def to_ragas(samples: Sequence[ContextSample]):
    """A ``ragas.EvaluationDataset`` of ``SingleTurnSample``s."""
    ragas = _ragas()
    return ragas.EvaluationDataset(
        samples=[
            ragas.SingleTurnSample(
                user_input=s.user_input,
                retrieved_contexts=list(s.retrieved_contexts),
                retrieved_context_ids=list(s.retrieved_context_ids),
                reference_contexts=list(s.reference_contexts),
                reference_context_ids=list(s.reference_context_ids),
            )
            for s in samples
        ]
    )


def from_ragas(dataset) -> pd.DataFrame:
    """A ragas EvaluationDataset back to a DataFrame (one row per sample)."""
    return dataset.to_pandas()


def our_context_scores(samples: Sequence[ContextSample]) -> pd.DataFrame:
    """Our chunk-id context precision and recall per claim."""
    rows = []
    for s in samples:
        retrieved, relevant = set(s.retrieved_context_ids), set(s.reference_context_ids)
        rows.append(
            {
                "claim_id": s.claim_id,
                "id_context_precision": len(retrieved & relevant) / len(retrieved) if retrieved else np.nan,
                "id_context_recall": len(retrieved & relevant) / len(relevant) if relevant else np.nan,
            }
        )
    return pd.DataFrame(rows)


RAGAS_OFFLINE = {
    "ragas_id_context_precision": "IDBasedContextPrecision",
    "ragas_id_context_recall": "IDBasedContextRecall",
    "ragas_nonllm_context_precision": "NonLLMContextPrecisionWithReference",
    "ragas_nonllm_context_recall": "NonLLMContextRecall",
}


def ragas_offline_scores(samples: Sequence[ContextSample]) -> pd.DataFrame:
    """Ragas's four offline context metrics per claim (no LLM, no network)."""
    _ragas()
    import ragas.metrics as rm

    metrics = {column: getattr(rm, name)() for column, name in RAGAS_OFFLINE.items()}
    dataset = to_ragas(samples)

    async def score_all():
        rows = []
        for s, sample in zip(samples, dataset.samples, strict=True):
            row = {"claim_id": s.claim_id}
            for column, metric in metrics.items():
                row[column] = await metric.single_turn_ascore(sample)
            rows.append(row)
        return rows

    return pd.DataFrame(asyncio.run(score_all()))


def ragas_llm_scores(samples: Sequence[ContextSample], model: str, host: str | None = None) -> pd.DataFrame:
    """Ragas's Faithfulness and LLM context precision per claim, through Ollama's OpenAI-compatible API.

    The claim plays the response (is it supported by the retrieved chunks?) and the gold evidence
    text plays the reference (was each retrieved chunk useful for it?).
    """
    _ragas()
    import openai
    from ragas.llms import llm_factory
    from ragas.metrics.collections import ContextPrecisionWithReference, Faithfulness

    from vera_lab.llm import OllamaError, ollama_host

    base = ollama_host(host)
    llm = llm_factory(
        model, client=openai.AsyncOpenAI(base_url=f"{base}/v1", api_key="ollama", max_retries=0)
    )
    faithfulness, precision = Faithfulness(llm=llm), ContextPrecisionWithReference(llm=llm)

    async def score_all():
        rows = []
        for s in samples:
            contexts = list(s.retrieved_contexts)
            f = await faithfulness.ascore(
                user_input=s.user_input, response=s.user_input, retrieved_contexts=contexts
            )
            p = await precision.ascore(
                user_input=s.user_input, reference=" ".join(s.reference_contexts), retrieved_contexts=contexts
            )
            rows.append(
                {
                    "claim_id": s.claim_id,
                    "ragas_faithfulness": f.value,
                    "ragas_llm_context_precision": p.value,
                }
            )
        return rows

    try:
        return pd.DataFrame(asyncio.run(score_all()))
    except openai.APIConnectionError:
        raise OllamaError(
            f"no Ollama server at {base}: start it with `ollama serve` or set OLLAMA_HOST"
        ) from None
    except openai.NotFoundError:
        raise OllamaError(f"Ollama at {base} has no model {model!r}: run `ollama pull {model}`") from None
