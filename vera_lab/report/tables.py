"""Tables and sentences of a stored sweep: ranking, comparisons, confusion, missed claims."""

from __future__ import annotations

import json

import pandas as pd

from vera_lab.metrics.diagnostics import MISS_REASONS
from vera_lab.report.run import Run
from vera_lab.sweep.compare import interval

NO_BETTER = "no better than calling everything grounded"


def summary_table(run: Run, top: int | None = None) -> pd.DataFrame:
    """The ranked final configs, ready to print.

    Metric with CI, membership of the indistinguishable set, grounding F1 out of fold and its lift
    over calling everything grounded, and cost; ``*`` marks the recommendation.
    """
    metric, order = run.metric, run.final
    if top:
        order = order.head(top)
    rec = run.recommendation
    members = set(rec.get("indistinguishable", []))

    def lift(r: pd.Series) -> str:
        if "grounding_f1_lift" not in r or pd.isna(r["grounding_f1_lift_ci_low"]):
            return ""
        low, high = r.grounding_f1_lift_ci_low, r.grounding_f1_lift_ci_high
        text = f"{r.grounding_f1_lift:+.3f} [{low:+.3f}, {high:+.3f}]"
        return text if r.grounding_f1_lift_ci_low > 0 else f"{text} {NO_BETTER}"

    out = pd.DataFrame(
        {
            "config": [
                ("* " if r.config_id == rec.get("config_id") else "") + run.label(r)
                for _, r in order.iterrows()
            ],
            metric: order[metric].round(4),
            "95% CI": [_ci(r, metric) for _, r in order.iterrows()],
            "not worse than best": ["yes" if r.config_id in members else "" for _, r in order.iterrows()],
            "hit": order.get("hit", pd.Series(dtype=float)).round(3),
            "grounding_f1 (out of fold)": order.get("grounding_f1", pd.Series(dtype=float)).round(3),
            "lift over all-grounded [CI]": [lift(r) for _, r in order.iterrows()],
            **cost_columns(order),
            "config_id": order.config_id,
        }
    )
    return out.reset_index(drop=True)


def cost_columns(order: pd.DataFrame) -> dict[str, pd.Series]:
    """The cost columns of a table, as the recommendation weighs them (a store without one shows none)."""
    names = {"cost_n_chunks": "vectors", "cost_forward_tokens": "forward tokens",
             "cost_truncated_chars": "chars unread", "cost_embed_seconds": "embed s"}  # fmt: skip
    out = {}
    for column, name in names.items():
        if column in order:
            values = order[column].astype(float)
            out[name] = values.round(1) if column == "cost_embed_seconds" else values.round(0).astype("Int64")
    return out


def cost_text(cost: dict) -> str:
    """A configuration's cost in words: vectors, forward tokens, characters never read, seconds."""
    parts = [f"{cost['vectors']:,} vectors"] if "vectors" in cost else []
    if cost.get("stored_mb") is not None:
        parts.append(f"a {cost['stored_mb']:.1f} MB retrieval index")
    if cost.get("forward_tokens") is not None:
        parts.append(f"{cost['forward_tokens']:,} forward tokens")
    if cost.get("truncated_chars"):
        parts.append(f"{cost['truncated_chars']:,} characters past the embedder's input limit (never read)")
    if cost.get("embed_seconds") is not None:
        parts.append(f"about {cost['embed_seconds']:.0f} s to embed on the machine that ran it")
    return ", ".join(parts)


def ranking_table(run: Run, order: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Configurations of ``order`` (already ranked) with ``metric``, its CI and the characters embedded."""
    return pd.DataFrame({
        "rank": range(1, len(order) + 1),
        "config": [run.label(r) for _, r in order.iterrows()],
        metric: order[metric].round(4).to_numpy(),
        "95% CI": [_ci(r, metric) for _, r in order.iterrows()],
        **{name: values.to_numpy() for name, values in cost_columns(order).items()},
        "config_id": order["config_id"].to_numpy(),
    })  # fmt: skip


def _ci(row: pd.Series, metric: str) -> str:
    low, high = row.get(f"{metric}_ci_low"), row.get(f"{metric}_ci_high")
    return f"[{low:.3f}, {high:.3f}]" if low is not None and pd.notna(low) else ""


def recommended_and_presets(run: Run) -> list[str]:
    """Config ids of the recommendation followed by the seed presets that reached the final round."""
    best_id = run.recommendation.get("config_id")
    presets = [cid for cid in run.final[run.final.preset.fillna("") != ""].config_id if cid != best_id]
    return ([best_id] if best_id else []) + presets


def compare_configs(run: Run, config_ids: list[str]) -> pd.DataFrame:
    """Quality and cost of chosen configs side by side."""
    rows = run.table.set_index("config_id").loc[config_ids]
    columns = [run.metric, "hit", "evidence_recall", "span_iou", "grounding_f1", "grounding_roc_auc",
               "threshold", "cost_n_chunks", "cost_forward_tokens", "cost_truncated_chars",
               "cost_embed_seconds", "cost_index_mb", "chunks_chars_mean"]  # fmt: skip
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
    """The recommendation, the rule that chose it, its comparisons and its caveats, as sentences."""
    rec = run.recommendation
    if not rec or "config" not in rec:
        return _unfinished_lines(run)
    rows = run.table.set_index("config_id")
    label = run.label(rows.loc[rec["config_id"]])
    lines = []
    if rec.get("inconclusive"):
        lines.append(
            "INCONCLUSIVE: " + "; ".join(rec["inconclusive"]) + ". Treat the choice below as a guess."
        )
    lines.append(
        f"Recommended: {label} ({rec['config_id']}), {rec['metric']} {rec['value']:.4f} "
        f"(95% CI {rec['ci_95'][0]:.4f} to {rec['ci_95'][1]:.4f}); {cost_text(rec['cost'])}; "
        f"k={rec['config']['k']}, embedder "
        f"{rec['config']['embedder']}, threshold {rec['config']['threshold']:.3f} "
        f"({rec['config']['scorer']} scorer)."
    )
    held = rec.get("held_out", {})
    if rec["metric"] in held:
        value, low, high = interval(held[rec["metric"]])
        lines.append(
            f"On held-out claims ({held['data']}), which shaped nothing: {rec['metric']} {value:.4f}"
            + (f" (95% CI {low:.4f} to {high:.4f})." if low is not None else ".")
        )
    lines.append(f"Rule: {rec['rule']}.")
    sampled = rec.get("resampling")
    if sampled:
        lines.append(resampling_sentence(sampled))
    best = rec["best_by_metric"]
    if best["config_id"] != rec["config_id"]:
        c = rec["vs_best"]
        lines.append(
            f"Best by {rec['metric']}: {run.label(rows.loc[best['config_id']])}, {best['value']:.4f}, "
            f"{cost_text(best['cost'])}; the recommendation is {-c['diff']:+.4f} "
            f"behind it (95% CI [{-c['ci_high']:+.4f}, {-c['ci_low']:+.4f}])."
        )
    lines.append(
        f"{len(rec['indistinguishable'])} of {rec['n_compared']} configurations compared at "
        + ", ".join(f"{k} {v}" for k, v in rec.get("compared_at", {}).items())
        + " are not significantly worse than the best."
    )
    lines += _preset_lines(rec)
    lines += _lift_lines(rec)
    lines += pipeline_lines(rec)
    lines += grounding_choice_lines(run)
    lines += transfer_lines(run)
    lines += _stability_lines(rec)
    lines.append(rec.get("note", ""))
    return lines


def _unfinished_lines(run: Run) -> list[str]:
    """Why there is no recommendation: the sweep is unfinished, or nothing could be chosen."""
    rec = run.recommendation
    stored = int((run.table["status"] == "ok").sum()) if "status" in run.table else 0
    asked = len(run.manifest.get("points", {}))
    if stored and "error" not in rec:
        return [
            f"The sweep has not finished: {stored} of {asked} configurations are stored. Run the same "
            "vera-lab sweep command again: it resumes and then recommends."
        ]
    return [rec.get("error", "No configuration finished.") + " (see results.csv for each error)"]


def _preset_lines(rec: dict) -> list[str]:
    """The choice against each seed preset, with its paired difference and Holm-adjusted p."""
    lines = []
    for name, c in rec.get("vs_presets", {}).items():
        verdict = "significant" if c.get("significant") else "not significant"
        lines.append(
            f"vs {name} ({c['value']:.4f}): difference {c['diff']:+.4f}, 95% CI [{c['ci_low']:+.4f}, "
            f"{c['ci_high']:+.4f}], p={c['p_value']:.3f}, Holm-adjusted {c.get('p_holm', c['p_value']):.3f}: "
            f"{verdict}."
        )
    return lines


def _lift_lines(rec: dict) -> list[str]:
    """Grounding F1 out of fold against calling every claim grounded."""
    lines = []
    g = rec.get("grounding", {})
    if "grounding_f1_lift" in g:
        lines.append(
            f"Grounding F1 out of fold {g['grounding_f1']:.3f} "
            f"(in-sample optimum {g['grounding_f1_in_sample']:.3f}; "
            f"calling every claim grounded {g['grounding_f1_trivial']:.3f}): "
            f"lift {g['grounding_f1_lift']:+.3f}, "
            f"95% CI [{g['grounding_f1_lift_ci_low']:+.3f}, {g['grounding_f1_lift_ci_high']:+.3f}]: "
            f"{'better than calling everything grounded' if g.get('beats_trivial') else NO_BETTER}."
        )
    return lines


def _stability_lines(rec: dict) -> list[str]:
    """How stable the chunker ranking is across settings, and the robust choice."""
    lines = []
    stability = rec.get("stability") or {}
    if stability:
        pairs = sorted(stability["kendall_tau"], key=lambda t: t["tau"])
        taus = ", ".join(f"{t['a']} vs {t['b']}: {t['tau']:+.2f}" for t in pairs)
        if len(pairs) > 3:  # every pair is in recommendation.json; the range and the weakest say enough
            low = pairs[0]
            taus = (
                f"{low['tau']:+.2f} to {pairs[-1]['tau']:+.2f} over {len(pairs)} pairs of settings, "
                f"lowest {low['a']} vs {low['b']}"
            )
        lines.append(
            f"Rank stability (Kendall's tau of the chunker rankings): {taus}. "
            f"Robust choice (least worst-case regret over {len(stability['groups'])} settings): "
            f"{chunker_words(stability['robust_chunker'])}, "
            f"worst regret {stability['robust_worst_regret']:.4f}."
        )
    return lines


def chunker_words(params: dict) -> str:
    """A chunker's parameters as a short name: "sentence 300/0 chars", then any other set parameter."""
    params = dict(params)
    shown = f"{params.pop('strategy', '')} {params.pop('size', '')}/{params.pop('overlap', 0)} "
    shown += str(params.pop("unit", "chars"))
    extra = [f"{k}={v}" for k, v in sorted(params.items()) if v is not None and k != "tokenizer"]
    return shown + (f" ({', '.join(extra)})" if extra else "")


def pipeline_lines(rec: dict) -> list[str]:
    """Does the best chunking change with the retrieval pipeline? One line per pipeline and a verdict."""
    by_pipeline = rec.get("best_by_pipeline") or {}
    if not by_pipeline:
        return []

    def chunking(params: dict) -> str:
        shown = [params.get("strategy", ""), str(params.get("size", "")), str(params.get("overlap", ""))]
        return f"{shown[0]} {shown[1]}/{shown[2]} {params.get('unit', '')}".strip()

    best = {name: chunking(item["chunker"]) for name, item in by_pipeline.items()}
    lines = [
        f"Best chunking under {name}: {best[name]}, {rec['metric']} {item['value']:.4f}."
        for name, item in by_pipeline.items()
    ]
    verdict = "does not change" if len(set(best.values())) == 1 else "changes"
    lines.append(f"The best chunking {verdict} with the retrieval pipeline.")
    return lines


def resampling_sentence(sampled: dict) -> str:
    """What every interval and paired test resampled, in one sentence."""
    if sampled["resampled"] == "claims":
        why = sampled.get("note") or f"no two claims share a cluster under cluster_by {sampled['cluster_by']}"
        return f"Intervals and paired tests resample the {sampled['claims']:,} claims one by one ({why})."
    return (
        f"Intervals and paired tests resample whole {sampled['resampled']} (cluster_by "
        f"{sampled['cluster_by']}): {sampled['clusters']:,} clusters of {sampled['claims']:,} claims, the "
        f"largest {sampled['largest_cluster']:,}; claims of one cluster are not independent evidence."
    )


def transfer_lines(run: Run) -> list[str]:
    """Whether the choice holds on each held-out set (and each source within one), by the same test."""
    lines = []
    rows = run.table.set_index("config_id")
    for entry in run.store.read_optional_json("confirmation.json").get("confirmations", []):
        held = entry.get("holds")
        if not held:
            continue
        by_id = {r["held_out_config_id"]: r["config_id"] for r in entry["rows"] if "held_out_config_id" in r}

        def names(ids: list[str], by_id=by_id) -> str:
            return ", ".join(run.label(rows.loc[by_id[i]]) for i in ids if by_id.get(i) in rows.index)

        verdict = "holds" if held["holds"] else "does NOT hold"
        detail = (
            f"significantly better there: {names(held['rivals_better'])}"
            if held["rivals_better"]
            else "no compared configuration is significantly better"
        )
        beaten = f"; it beats {names(held['rivals_beaten'])}" if held["rivals_beaten"] else ""
        lines.append(
            f"On {entry['held_out_data']} ({entry['claims']:,} claims, "
            f"{entry['resampling']['clusters']:,} clusters resampled) the choice {verdict} by "
            f"{held['metric']}: {detail}{beaten}."
        )
        for source, check in entry.get("by_source", {}).items():
            verdict = "holds" if check["holds"] else "does NOT hold"
            better = (
                f" ({names(check['rivals_better'])} significantly better)" if check["rivals_better"] else ""
            )
            lines.append(f"  source {source} ({check['claims']:,} claims): {verdict}{better}.")
    return lines


def verifier_words(row: dict) -> str:
    """Which verifier judged, on what it was trained, and whether it had read these documents."""
    model = str(row.get("verifier_model") or "")
    if not model.startswith("general-"):
        return (
            "the verifier adapted to this sweep's claims (the shipped general verifier fine-tuned, "
            "cross-fitted by document: each claim scored by a model that never saw its documents)"
        )
    words = (
        "the general verifier shipped with vera_lab (a cross-encoder trained once on public pairs: "
        "SNLI, MultiNLI, Fool Me Twice, Check-COVID, Citation-Integrity and ContractNLI dev; no "
        "training on this sweep's claims)"
    )
    seen = row.get("verifier_seen_documents") or 0.0
    if seen > 0:
        words += (f"; it read {seen:.0%} of these documents in training, so its figures here are in sample: "
                  "judge it on held-out documents (the confirmation)")  # fmt: skip
    return words


def grounding_choice_lines(run: Run) -> list[str]:
    """What the verifier says of the chosen chunkings.

    The best for grounding, and whether one configuration is among the best for both retrieval and
    grounding.
    """
    choice = run.recommendation.get("grounding_choice") or {}
    if "best" not in choice:
        return [choice["error"]] if "error" in choice else []
    rows = run.table.set_index("config_id")
    best = choice["configurations"][choice["best"]]
    lines = [
        f"Grounding, judged by {verifier_words(best)}: best {run.label(rows.loc[choice['best']])}, "
        f"F1 {best['grounding_f1']:.3f} "
        f"(95% CI {best['grounding_f1_ci_low']:.3f} to {best['grounding_f1_ci_high']:.3f}; calling every "
        f"claim grounded {best['grounding_f1_trivial']:.3f}, lift {best['grounding_f1_lift']:+.3f} "
        f"[{best['grounding_f1_lift_ci_low']:+.3f}, {best['grounding_f1_lift_ci_high']:+.3f}]), "
        f"ROC-AUC {best['grounding_roc_auc']:.3f}, three-way macro-F1 {best['verdict_macro_f1']:.3f}."
    ]
    both = ", ".join(run.label(rows.loc[c]) for c in choice["in_both"])
    lines.append(
        f"{len(choice['indistinguishable'])} of {len(choice['configurations'])} verified chunkings are not "
        "significantly worse for grounding; "
        + (f"among the best for both retrieval and grounding: {both}." if both
           else "none is also among the best for retrieval: the two choices differ.")
    )  # fmt: skip
    return lines


def confirmation_table(run: Run) -> pd.DataFrame:
    """The sweep's estimate beside each held-out confirmation, per confirmed config and metric."""
    entries = run.store.read_optional_json("confirmation.json").get("confirmations", [])
    rows = run.table.set_index("config_id")
    out: dict[tuple[str, str], dict[str, str]] = {}
    for entry in entries:
        for item in entry["rows"]:
            name = ("recommended: " if item["role"] == "recommended" else "") + run.label(
                rows.loc[item["config_id"]]
            )
            for metric, sweep in item["sweep"].items():
                cells = out.setdefault((name, metric), {"config": name, "metric": metric})
                cells[entry["sweep_data"]] = _with_ci(sweep)
                held_out = item["held_out"].get(metric)
                cells[entry["held_out_data"]] = _with_ci(held_out) if held_out else ""
    return pd.DataFrame(list(out.values()))


def _with_ci(figure) -> str:
    value, low, high = interval(figure)
    return f"{value:.3f} [{low:.3f}, {high:.3f}]" if low is not None and high is not None else f"{value:.3f}"


def indistinguishable_table(run: Run) -> pd.DataFrame:
    """Every rival of the best with its difference from it, CI and (Holm-adjusted) p-value."""
    rec = run.recommendation
    comparisons = rec.get("comparisons_with_best", {})
    if not comparisons:
        return pd.DataFrame()
    rows = run.table.set_index("config_id")
    out = [
        {
            "config": ("* " if cid == rec["config_id"] else "") + run.label(rows.loc[cid]),
            f"{rec['metric']} behind the best": f"{c['diff']:+.4f} [{c['ci_low']:+.4f}, {c['ci_high']:+.4f}]",
            "p": round(c["p_value"], 4),
            "p (Holm)": round(c["p_holm"], 4),
            "not worse than best": "yes" if not c["worse"] else "",
            **{name: values.loc[cid] for name, values in cost_columns(rows).items()},
        }
        for cid, c in sorted(comparisons.items(), key=lambda item: item[1]["diff"])
    ]
    return pd.DataFrame(out)


TRUNCATION_WARNING = 0.05  # warn when more than this share of gold evidence is never seen by the model


def diagnostics_table(run: Run) -> pd.DataFrame:
    """Why configurations win or lose: realised overlap, what the model never sees, misses by reason."""
    shown = run.compared()
    if shown.empty or "miss_straddle" not in shown:
        return pd.DataFrame()
    return pd.DataFrame(
        {
            "config": [run.label(r) for _, r in shown.iterrows()],
            "overlap asked / realised": [
                f"{r.overlap_requested:.0%} / {r.overlap_realised:.0%}" if pd.notna(r.overlap_requested) else
                f"(sentences) / {r.overlap_realised:.0%}" for _, r in shown.iterrows()
            ],
            "chunks cut by the model": shown.trunc_chunk_share.map("{:.0%}".format),
            "chunk text unseen": shown.trunc_char_share.map("{:.0%}".format),
            "gold evidence unseen": shown.trunc_gold_share.map("{:.1%}".format),
            **{f"missed: {reason}": shown[f"miss_{reason}"].map("{:.1%}".format) for reason in MISS_REASONS},
        }
    )  # fmt: skip


def validity_lines(run: Run) -> list[str]:
    """Every warning about the comparison: data vs grid, overlap shortfalls, truncated evidence."""
    lines = [w["message"] for w in run.manifest.get("validity", [])]
    final = run.final
    if "overlap_shortfall" in final:
        for _, row in final[final.overlap_shortfall.astype(bool)].iterrows():
            lines.append(
                f"{run.label(row)}: overlap realised {row.overlap_realised:.0%} of a chunk, "
                "less than half the "
                f"{row.overlap_requested:.0%} asked for"
            )
    if "trunc_gold_share" in final:
        for _, row in final[final.trunc_gold_share > TRUNCATION_WARNING].iterrows():
            lines.append(
                f"{run.label(row)}: {row.trunc_gold_share:.0%} of the gold evidence lies in chunk tails the "
                "embedder never reads"
            )
    return lines


def halving_lines(run: Run) -> list[str]:
    """What the screen was, how far it could be trusted, and how to run what it dropped."""
    report = run.store.read_optional_json("halving.json")
    if not report or "fidelity" not in report:
        return []
    f = report["fidelity"]
    agreement = (
        f"Spearman {f['spearman']:.2f}, Kendall {f['kendall']:.2f}" if "spearman" in f else "too few to tell"
    )
    return [
        f"Screen: {report['screen']}; {len(report['screened'])} configurations screened, "
        f"{len(report['kept_by_evidence'])} kept as not significantly below the screen's best, "
        f"{len(report['kept_by_floor'])} by the floor, {len(report['kept_presets'])} presets, "
        f"{len(report['calibration'])} dropped ones run in full to calibrate; "
        f"{len(report['dropped'])} dropped.",
        f"Fidelity over {f['n']} configurations run both ways ({agreement}): "
        + ("FLAGGED: " if f["flagged"] else "")
        + f"{f['message']}.",
        *_fidelity_by_pipeline(report),
        "Run a dropped configuration in full: vera-lab sweep SWEEP.yaml --also CONFIG_ID.",
    ]


def _fidelity_by_pipeline(report: dict) -> list[str]:
    """With several pipelines: how far the screen ranked the configurations of each one."""
    by_pipeline = report.get("fidelity_by_pipeline") or {}
    if not by_pipeline:
        return []
    parts = [
        f"{name} {f['spearman']:.2f} ({f['n']}{', flagged' if f['flagged'] else ''})"
        if "spearman" in f
        else f"{name}: too few ({f['n']})"
        for name, f in by_pipeline.items()
    ]
    return [
        "Within each retrieval pipeline, which the floor screens separately (a lexical screen ranks BM25 "
        "exactly and dense retrieval with another model), Spearman between screen and full run: "
        + ", ".join(parts)
        + "."
    ]


def dropped_table(run: Run) -> pd.DataFrame:
    """The configurations the screen dropped, with their screen score, interval and distance to the best."""
    report = run.store.read_optional_json("halving.json")
    points = run.store.points()
    rows = []
    for d in report.get("dropped", []):
        low, high = d["screen_ci"]
        rows.append(
            {
                "config_id": d["config_id"],
                "chunker": json.dumps(points[d["config_id"]].chunker_params)
                if d["config_id"] in points
                else "",
                f"screen {report['metric']} [95% CI]": f"{d['screen_value']:.3f} [{low:.3f}, {high:.3f}]"
                if low is not None
                else f"{d['screen_value']:.3f}",
                "behind the screen's best": f"{d['behind_screen_best']:+.3f}",
                "p (Holm)": round(d["p_holm"], 4),
                "run in full to calibrate": "yes" if d["calibration"] else "",
            }
        )
    return pd.DataFrame(rows)
