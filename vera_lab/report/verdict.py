"""The verdict card a report opens with: the choice in words, how sure, why the presets lost, a snippet.

Everything comes from ``recommendation.json`` and the stored rows; the p-values stay below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vera_lab.metrics import BUDGETS
from vera_lab.report.run import Run

METRIC_MEANING = {
    "budget_recall": f"the share of gold evidence inside the first {BUDGETS[0]:,}-{BUDGETS[-1]:,} characters "
    "retrieved (averaged over those context budgets)",
    "mrr": "the reciprocal rank of the first chunk touching the gold evidence",
    "hit": "whether any of the top k chunks touches the gold evidence",
    "grounding_f1": "F1 of calling a claim grounded, judged out of fold",
}


@dataclass
class Verdict:
    """The card's contents; ``conclusive`` False carries the reasons."""

    headline: str
    conclusive: bool
    badge: str
    lines: list[str] = field(default_factory=list)
    snippet: str = ""


def verdict(run: Run) -> Verdict | None:
    """The verdict of a finished sweep (None before a recommendation exists)."""
    rec = run.recommendation
    if "config" not in rec:
        return None
    rows = run.table.set_index("config_id")
    chosen = rows.loc[rec["config_id"]]
    config = rec["config"]
    chunker = config["chunker"]
    overlap = chunker.get("overlap", 0)
    words = f"{chunker['strategy']} chunks of {chunker.get('size', '?')} {chunker.get('unit', 'chars')}, " + (
        "no overlap" if not overlap else f"overlap {overlap:g}"
    )
    pipeline = config.get("retrieval")
    headline = (
        f"Chunk with {words}; retrieve the top {config['k']} with {config['embedder']}"
        + (f" ({', '.join(f'{k} {v}' for k, v in pipeline.items())})" if pipeline else "")
        + "."
    )
    reasons = rec.get("inconclusive") or []
    badge = "conclusive" if not reasons else "INCONCLUSIVE: " + "; ".join(reasons)
    lo, hi = rec["ci_95"]
    lines = [
        f"Chosen by {rec['metric']}: {METRIC_MEANING.get(rec['metric'], rec['metric'])}; "
        f"{rec['value']:.3f} (95% CI {lo:.3f} to {hi:.3f}), the cheapest of "
        f"{len(rec['indistinguishable'])} configurations the data cannot tell from the best.",
    ]
    held = rec.get("held_out", {})
    if rec["metric"] in held:
        value, low, high = (held[rec["metric"]] + [None, None])[:3]
        interval = f" (95% CI {low:.3f} to {high:.3f})" if low is not None else ""
        lines.append(f"On held-out claims ({held['data']}), which shaped nothing: {value:.3f}{interval}.")
    lines += _why_presets_lost(run, rec, chosen)
    return Verdict(headline, not reasons, badge, lines, snippet(run))


def _why_presets_lost(run: Run, rec: dict, chosen) -> list[str]:
    """One sentence on the presets, and why a higher hit@k there is no contradiction."""
    presets = rec.get("vs_presets") or {}
    if not presets:
        return []
    rows = run.table.set_index("config_id")
    behind = [(n, c) for n, c in presets.items() if c.get("significant") and c["diff"] > 0]
    if not behind:
        return ["No seed preset is significantly behind the recommendation on these claims."]
    worst = max(behind, key=lambda item: item[1]["diff"])
    lines = [
        f"{len(behind)} of {len(presets)} seed presets are significantly behind (Holm-corrected), by "
        f"{min(c['diff'] for _, c in behind):+.3f} to {worst[1]['diff']:+.3f} {rec['metric']}."
    ]
    sizes = [rows.loc[c["config_id"], "chunks_chars_mean"] for _, c in behind if c["config_id"] in rows.index]
    mine = chosen.get("chunks_chars_mean")
    hits = [rows.loc[c["config_id"], "hit"] for _, c in behind if c["config_id"] in rows.index]
    if sizes and mine and hits and max(hits) > chosen.get("hit", 1):
        lines.append(
            f"Their chunks average {min(sizes):,.0f}-{max(sizes):,.0f} characters against {mine:,.0f}: a few "
            f"of them cover much of a document, so their hit@{rec['config']['k']} "
            f"({min(hits):.2f}-{max(hits):.2f} against {chosen['hit']:.2f}) is high while less of the "
            "text a reader receives is evidence."
        )
    return lines


def snippet(run: Run) -> str:
    """Copy-paste code that carries the recommendation into LangChain and LlamaIndex."""
    path = run.store.dir / "recommendation.json"
    return (
        "from vera_lab.integrations.langchain import VeraLabRetriever, VeraLabTextSplitter\n"
        f'splitter = VeraLabTextSplitter.from_recommendation("{path}")\n'
        "chunks = splitter.split_documents(my_langchain_documents)\n"
        f'retriever = VeraLabRetriever.from_recommendation("{path}", my_langchain_documents)\n\n'
        "from vera_lab.integrations.llamaindex import VeraLabNodeParser\n"
        f'nodes = VeraLabNodeParser.from_recommendation("{path}").get_nodes_from_documents(my_documents)'
    )
