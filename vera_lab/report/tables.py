"""Tables and sentences of a stored sweep: ranking, comparisons, confusion, missed claims."""

from __future__ import annotations

import json

import pandas as pd

from vera_lab.report.run import Run


def summary_table(run: Run, top: int | None = None) -> pd.DataFrame:
    """The ranked final configs with their metric, CI and cost, ready to print."""
    metric, order = run.metric, run.final
    if top:
        order = order.head(top)
    out = pd.DataFrame(
        {
            "config": [run.label(r) for _, r in order.iterrows()],
            metric: order[metric].round(4),
            "95% CI": [
                f"[{r[f'{metric}_ci_low']:.3f}, {r[f'{metric}_ci_high']:.3f}]"
                if f"{metric}_ci_low" in r
                else ""
                for _, r in order.iterrows()
            ],  # fmt: skip
            "hit": order.get("hit", pd.Series(dtype=float)).round(3),
            "span_iou": order.get("span_iou", pd.Series(dtype=float)).round(4),
            "grounding_f1": order.get("grounding_f1", pd.Series(dtype=float)).round(3),
            "threshold": order.threshold.round(3),
            "chunks": order.cost_n_chunks.astype(int),
            f"rank_{metric}": order.get(f"rank_{metric}"),
            "config_id": order.config_id,
        }
    )
    return out.reset_index(drop=True)


def recommended_and_presets(run: Run) -> list[str]:
    """Config ids of the recommendation followed by the seed presets that reached the final round."""
    best_id = run.recommendation.get("config_id")
    presets = [cid for cid in run.final[run.final.preset.fillna("") != ""].config_id if cid != best_id]
    return ([best_id] if best_id else []) + presets


def compare_configs(run: Run, config_ids: list[str]) -> pd.DataFrame:
    """Quality and cost of chosen configs side by side."""
    rows = run.table.set_index("config_id").loc[config_ids]
    columns = [run.metric, "hit", "evidence_recall", "span_iou", "grounding_f1", "grounding_roc_auc",
               "threshold", "cost_n_chunks", "cost_index_mb", "cost_embed_s",
               "chunks_chars_mean"]  # fmt: skip
    out = rows[[c for c in dict.fromkeys(columns) if c in rows]].copy()
    out.index = [run.label(r) for _, r in rows.iterrows()]
    return out


def confusion_table(run: Run, config_ids: list[str]) -> pd.DataFrame:
    """Claims called grounded / not grounded per original label, for each config."""
    rows = run.table.set_index("config_id")
    frames = {}
    for cid in config_ids:
        counts = json.loads(rows.loc[cid, "confusion_by_label"])
        frames[run.label(rows.loc[cid])] = pd.DataFrame(counts).T
    return pd.concat(frames, names=["config", "label"])


def missed_claims(run: Run, config_id: str | None = None, limit: int = 15) -> pd.DataFrame:
    """Claims with gold evidence that a config (default: the recommended one) did not retrieve."""
    best_id = config_id or run.recommendation.get("config_id")
    if not best_id:
        return pd.DataFrame()
    dataset = run.dataset()
    claims = {c.claim_id: c for c in dataset.claims}
    rows = run.store.per_claim(best_id)
    missed = rows[rows.hit == 0].head(limit)
    out = []
    for _, row in missed.iterrows():
        claim = claims[str(row.claim_id)]
        gold = claim.evidence[0]
        retrieved = json.loads(row.retrieved_spans)
        doc_id, start, end = retrieved[0] if retrieved else ("", 0, 0)
        out.append(
            {
                "claim": claim.text,
                "label": claim.label,
                "gold evidence": dataset.corpus[gold.doc_id].text[gold.start : gold.end][:300],
                "retrieved first": dataset.corpus[doc_id].text[start:end][:300]
                if doc_id in dataset.corpus
                else "",
            }
        )
    return pd.DataFrame(out)


def recommendation_lines(run: Run) -> list[str]:
    """The recommendation and its paired comparisons as sentences."""
    rec = run.recommendation
    if not rec or "config" not in rec:
        return ["No configuration finished."]
    lines = [
        f"Best by {rec['metric']}: {rec['value']:.4f} "
        f"(95% CI {rec['ci_95'][0]:.4f} to {rec['ci_95'][1]:.4f}), "
        f"config {rec['config_id']}{' = ' + rec['preset'] if rec['preset'] else ''}: "
        f"chunker {json.dumps(rec['config']['chunker'])}, embedder {rec['config']['embedder']}, "
        f"k={rec['config']['k']}, threshold {rec['config']['threshold']:.3f}.",
        f"Compared with the {rec['n_compared'] - 1} other chunkers run at the same "
        + ", ".join(f"{k} {v}" for k, v in rec.get("compared_at", {}).items())
        + ".",
    ]
    comparisons = ([("runner-up", rec["vs_runner_up"])] if rec.get("vs_runner_up") else []) + list(
        rec.get("vs_presets", {}).items()
    )
    for name, c in comparisons:
        verdict = "significant" if c["significant"] else "not significant"
        lines.append(
            f"vs {name} ({c['config_id']}, {c['value']:.4f}): difference {c['diff']:+.4f}, "
            f"95% CI [{c['ci_low']:+.4f}, {c['ci_high']:+.4f}], p={c['p_value']:.3f}: {verdict}."
        )
    lines.append(rec.get("note", ""))
    return lines


def confirmation_table(run: Run) -> pd.DataFrame:
    """The sweep's estimate beside the held-out confirmation, per confirmed config and metric."""
    payload = run.store.read_optional_json("confirmation.json")
    if not payload:
        return pd.DataFrame()
    rows = run.table.set_index("config_id")
    out = []
    for item in payload["rows"]:
        name = ("recommended: " if item["role"] == "recommended" else "") + run.label(
            rows.loc[item["config_id"]]
        )
        for metric, sweep in item["sweep"].items():
            held_out = item["held_out"].get(metric)
            out.append(
                {
                    "config": name,
                    "metric": metric,
                    payload["sweep_data"]: _with_ci(sweep),
                    f"{payload['held_out_data']} (held out)": _with_ci(held_out) if held_out else "",
                }
            )
    return pd.DataFrame(out)


def _with_ci(values: list) -> str:
    value, low, high = (values + [None, None])[:3]
    return f"{value:.3f} [{low:.3f}, {high:.3f}]" if low is not None and high is not None else f"{value:.3f}"
