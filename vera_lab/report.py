"""Figures and exported reports (self-contained HTML, Markdown twin) for a stored sweep."""

from __future__ import annotations

import base64
import html
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vera_lab.sweep.recommend import chunker_params, ranked
from vera_lab.sweep.store import ResultsStore, atomic_write

TABLE_COLUMNS = ["config_id", "preset", "strategy", "size", "overlap", "unit", "embedder"]


@dataclass
class Run:
    """A stored sweep loaded for reporting."""

    store: ResultsStore
    manifest: dict[str, Any]
    table: pd.DataFrame
    recommendation: dict[str, Any]

    @property
    def metric(self) -> str:
        return self.recommendation.get("metric") or self.manifest["config"]["metric"]

    @property
    def final(self) -> pd.DataFrame:
        return ranked(self.table, self.metric, self.manifest.get("final_config_ids"))


def load_run(directory: str | Path) -> Run:
    """Load a results directory written by ``run_sweep``."""
    store = ResultsStore(directory)
    manifest = store.read_manifest()
    rec_path = store.dir / "recommendation.json"
    recommendation = store.read_json("recommendation.json") if rec_path.exists() else {}
    return Run(store, manifest, store.rows(), recommendation)


def _label(row: pd.Series) -> str:
    p = chunker_params(row)
    unit = p.get("unit", "tokens" if p.get("strategy") == "token" else "chars")
    text = f"{p.get('strategy')} {p.get('size')}/{p.get('overlap')} {unit}"
    return f"{row.preset} ({text})" if isinstance(row.preset, str) and row.preset else text


def _unit(row: pd.Series) -> str:
    unit = row.get("param_unit")
    if isinstance(unit, str):
        return unit
    return "tokens" if row["param_strategy"] == "token" else "chars"


# --- figures ---------------------------------------------------------------------------------


def _figure(*size):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(*size[:2], figsize=size[2], squeeze=False, constrained_layout=True)


def plot_metric_vs_size(run: Run):
    """Metric against chunk size per strategy, with 95% bootstrap bands; one panel per unit."""
    metric, table = run.metric, run.final.copy()
    table["unit_"] = table.apply(_unit, axis=1)
    units = sorted(table["unit_"].unique())
    fig, axes = _figure(1, len(units), (6 * len(units), 4))
    for ax, unit in zip(axes[0], units, strict=True):
        for (strategy, overlap), group in table[table.unit_ == unit].groupby(
            ["param_strategy", "param_overlap"]
        ):
            group = group.sort_values("param_size")
            ax.plot(group.param_size, group[metric], marker="o", label=f"{strategy}, overlap {overlap}")
            if f"{metric}_ci_low" in group:
                ax.fill_between(
                    group.param_size, group[f"{metric}_ci_low"], group[f"{metric}_ci_high"], alpha=0.15
                )
        ax.set_xscale("log")
        ax.set_xlabel(f"chunk size ({unit})")
        ax.set_ylabel(metric)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{metric} by chunk size (bands: 95% bootstrap CI)")
    return fig


def plot_heatmaps(run: Run):
    """Size x overlap heatmap of the metric, one panel per strategy."""
    metric, table = run.metric, run.final
    strategies = sorted(table.param_strategy.unique())
    fig, axes = _figure(1, len(strategies), (4.2 * len(strategies), 3.6))
    for ax, strategy in zip(axes[0], strategies, strict=True):
        sub = table[table.param_strategy == strategy]
        grid = sub.pivot_table(index="param_overlap", columns="param_size", values=metric, aggfunc="max")
        image = ax.imshow(grid.to_numpy(dtype=float), cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
        ax.set_yticks(range(len(grid.index)), [str(i) for i in grid.index])
        for (i, j), value in np.ndenumerate(grid.to_numpy(dtype=float)):
            if math.isfinite(value):
                ax.text(j, i, f"{value:.3f}", ha="center", va="center", color="white", fontsize=8)
        ax.set_title(strategy)
        ax.set_xlabel("size")
        ax.set_ylabel("overlap")
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle(f"{metric}: size x overlap")
    return fig


def plot_pr_curves(run: Run):
    """Precision-recall of 'grounded' for the recommended config and the seed presets."""
    from sklearn.metrics import precision_recall_curve

    fig, axes = _figure(1, 1, (6, 4.5))
    ax = axes[0][0]
    final = run.final
    best_id = run.recommendation.get("config_id")
    rows = final[(final.config_id == best_id) | (final.preset.fillna("") != "")]
    for _, row in rows.iterrows():
        claims = run.store.per_claim(row.config_id)
        y = (claims.label == "supported").to_numpy()
        if y.all() or not y.any():
            continue
        precision, recall, _ = precision_recall_curve(y, claims.score)
        style = {"linewidth": 2.5} if row.config_id == best_id else {"linewidth": 1, "linestyle": "--"}
        ax.plot(
            recall,
            precision,
            label=("recommended: " if row.config_id == best_id else "") + _label(row),
            **style,
        )
    ax.set_xlabel("recall (supported claims called grounded)")
    ax.set_ylabel("precision")
    ax.set_title("Grounding precision-recall")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return fig


def plot_chunk_sizes(run: Run):
    """Histograms of chunk lengths (chars) for the recommended config and the seed presets."""
    from vera_lab.sweep.config import SweepPoint
    from vera_lab.sweep.runner import prepared_dataset

    config = run.manifest["config"]
    dataset = prepared_dataset(
        run.manifest["dataset"]["path"],
        json.dumps({"claims": config.get("claims", {}), "corpus": config.get("corpus", {})}, sort_keys=True),
    )
    final = run.final
    best_id = run.recommendation.get("config_id")
    rows = final[(final.config_id == best_id) | (final.preset.fillna("") != "")]
    lengths = {}
    for _, row in rows.iterrows():
        stored = run.manifest["points"][row.config_id]
        point = SweepPoint(**{**stored, "chunker": tuple(tuple(kv) for kv in stored["chunker"])})
        chunker = point.make_chunker()
        name = ("recommended: " if row.config_id == best_id else "") + _label(row)
        lengths[name] = [c.end - c.start for d in dataset.corpus for c in chunker.chunk(d)]
    return plot_lengths(lengths)


def plot_lengths(lengths: dict[str, Any], title: str = "Chunk sizes"):
    """Step histograms of chunk lengths (chars), one per named chunker."""
    fig, axes = _figure(1, 1, (6, 4))
    ax = axes[0][0]
    for name, values in lengths.items():
        ax.hist(
            values, bins=40, histtype="step", linewidth=2 if name.startswith("recommended") else 1, label=name
        )
    ax.set_xlabel("chunk length (chars)")
    ax.set_ylabel("chunks")
    ax.set_title(title)
    ax.legend(fontsize=7)
    return fig


def plot_score_distributions(per_claim: pd.DataFrame, thresholds: dict[str, float]):
    """Aggregated similarity per original label, with threshold lines."""
    fig, axes = _figure(1, 1, (6, 4))
    ax = axes[0][0]
    bins = np.linspace(per_claim.score.min(), per_claim.score.max(), 30)
    for label, group in per_claim.groupby("label"):
        ax.hist(group.score, bins=bins, histtype="step", linewidth=1.5, label=f"{label} ({len(group)})")
    for i, (name, value) in enumerate(thresholds.items()):
        ax.axvline(value, color=f"C{i + 3}", linestyle="--", label=f"{name} = {value:.3f}")
    ax.set_xlabel("claim score (aggregated cosine)")
    ax.set_ylabel("claims")
    ax.legend(fontsize=7)
    return fig


def plot_roc_pr(per_claims: dict[str, pd.DataFrame]):
    """ROC and precision-recall curves of 'grounded' (supported vs the rest), one line per setting."""
    from sklearn.metrics import precision_recall_curve, roc_curve

    fig, axes = _figure(1, 2, (11, 4.2))
    for name, rows in per_claims.items():
        y = (rows.label == "supported").to_numpy()
        if y.all() or not y.any():
            continue
        fpr, tpr, _ = roc_curve(y, rows.score)
        precision, recall, _ = precision_recall_curve(y, rows.score)
        axes[0][0].plot(fpr, tpr, label=name)
        axes[0][1].plot(recall, precision, label=name)
    axes[0][0].plot([0, 1], [0, 1], color="grey", linewidth=0.5)
    axes[0][0].set(xlabel="false positive rate", ylabel="true positive rate", title="ROC")
    axes[0][1].set(xlabel="recall", ylabel="precision", title="Precision-recall")
    for ax in axes[0]:
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    return fig


def pareto_front(cost: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """Indices of points no other point beats on both lower cost and higher quality, by cost."""
    order = np.lexsort((-quality, cost))
    front, best = [], -np.inf
    for i in order:
        if quality[i] > best:
            front.append(i)
            best = quality[i]
    return np.array(front, dtype=int)


def plot_quality_vs_cost(run: Run):
    """Metric against the number of chunks stored, with the Pareto front."""
    metric, table = run.metric, run.final
    fig, axes = _figure(1, 1, (6, 4.5))
    ax = axes[0][0]
    cost, quality = table.cost_n_chunks.to_numpy(float), table[metric].to_numpy(float)
    for strategy, group in table.groupby("param_strategy"):
        ax.scatter(group.cost_n_chunks, group[metric], label=strategy, s=30)
    front = pareto_front(cost, quality)
    ax.plot(cost[front], quality[front], color="black", linewidth=1, marker="o", markersize=11,
            markerfacecolor="none", label="Pareto front")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("chunks stored (cost)")
    ax.set_ylabel(metric)
    ax.set_title("Quality vs cost")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return fig


FIGURES = {
    "metric_vs_size": plot_metric_vs_size,
    "heatmaps": plot_heatmaps,
    "pr_curves": plot_pr_curves,
    "chunk_sizes": plot_chunk_sizes,
    "quality_vs_cost": plot_quality_vs_cost,
}


# --- export ----------------------------------------------------------------------------------


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def summary_table(run: Run, top: int | None = None) -> pd.DataFrame:
    """The ranked final configs with their metric, CI and cost, ready to print."""
    metric, order = run.metric, run.final
    if top:
        order = order.head(top)
    out = pd.DataFrame(
        {
            "config": [_label(r) for _, r in order.iterrows()],
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
    out.index = [_label(r) for _, r in rows.iterrows()]
    return out


def confusion_table(run: Run, config_ids: list[str]) -> pd.DataFrame:
    """Claims called grounded / not grounded per original label, for each config."""
    rows = run.table.set_index("config_id")
    frames = {}
    for cid in config_ids:
        counts = json.loads(rows.loc[cid, "confusion_by_label"])
        frames[_label(rows.loc[cid])] = pd.DataFrame(counts).T
    return pd.concat(frames, names=["config", "label"])


def missed_claims(run: Run, config_id: str | None = None, limit: int = 15) -> pd.DataFrame:
    """Claims with gold evidence that a config (default: the recommended one) did not retrieve."""
    from vera_lab.sweep.runner import prepared_dataset

    best_id = config_id or run.recommendation.get("config_id")
    if not best_id:
        return pd.DataFrame()
    config = run.manifest["config"]
    dataset = prepared_dataset(
        run.manifest["dataset"]["path"],
        json.dumps({"claims": config.get("claims", {}), "corpus": config.get("corpus", {})}, sort_keys=True),
    )
    claims = {c.claim_id: c for c in dataset.claims}
    rows = run.store.per_claim(best_id)
    missed = rows[rows.hit == 0].head(limit)
    out = []
    for _, row in missed.iterrows():
        claim = claims[str(row.claim_id)]
        gold = claim.evidence[0]
        retrieved = json.loads(row.retrieved)
        top = retrieved[0] if retrieved else ""
        doc_id, span = (top.split(":")[0], top.split(":")[1]) if top else ("", "0-0")
        start, end = (int(x) for x in span.split("-"))
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


def _md_table(frame: pd.DataFrame) -> str:
    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


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


def export(run: Run | str | Path, fmt: str = "html", path: str | Path | None = None) -> Path:
    """Write ``report.html`` (self-contained, figures embedded) or ``report.md`` (figures beside it)."""
    if not isinstance(run, Run):
        run = load_run(run)
    if fmt not in ("html", "md"):
        raise ValueError(f"format {fmt!r}: use 'html' or 'md'")
    target = Path(path) if path else run.store.dir / f"report.{fmt}"
    figures = {name: _png(make(run)) for name, make in FIGURES.items()}
    table, missed = summary_table(run), missed_claims(run)
    dataset = run.manifest["dataset"]
    title = f"VERA Lab sweep '{run.manifest['sweep_id']}'"
    intro = (
        f"Dataset {dataset['path']}: {dataset['documents']} documents, {dataset['claims']} claims "
        f"{dataset['labels']}. {len(run.final)} configurations compared by {run.metric}."
    )
    if fmt == "md":
        files = target.parent / "report_files"
        parts = [f"# {title}", "", intro, "", "## Recommendation", ""]
        parts += [f"- {line}" for line in recommendation_lines(run)]
        parts += ["", "## Configurations", "", _md_table(table), ""]
        for name, png in figures.items():
            atomic_write(files / f"{name}.png", png)
            parts += [f"![{name}](report_files/{name}.png)", ""]
        if not missed.empty:
            parts += ["## Claims the recommended configuration missed", "", _md_table(missed), ""]
        atomic_write(target, "\n".join(parts))
        return target
    esc = html.escape
    body = [f"<h1>{esc(title)}</h1>", f"<p>{esc(intro)}</p>", "<h2>Recommendation</h2><ul>"]
    body += [f"<li>{esc(line)}</li>" for line in recommendation_lines(run)]
    body += ["</ul><h2>Configurations</h2>", table.to_html(index=False, escape=True, border=0)]
    for name, png in figures.items():
        data = base64.b64encode(png).decode()
        body.append(
            f'<figure><img alt="{name}" src="data:image/png;base64,{data}">'
            f"<figcaption>{name}</figcaption></figure>"
        )
    if not missed.empty:
        body += [
            "<h2>Claims the recommended configuration missed</h2>",
            missed.to_html(index=False, escape=True, border=0),
        ]
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #ddd;"
        "text-align:left;vertical-align:top}img{max-width:100%}"
    )
    page = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>"
    )
    atomic_write(target, page)
    return target
