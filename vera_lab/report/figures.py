"""Matplotlib figures of a stored sweep (and of single evaluations, for the notebooks)."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import pandas as pd

from vera_lab.report.run import Run, unit_of

# One colour per strategy in every figure (matplotlib's tab10), so a reader learns it once.
STRATEGY_COLOURS = {
    "fixed": "#1f77b4", "sentence": "#ff7f0e", "recursive": "#2ca02c", "token": "#d62728",
    "markdown": "#9467bd", "code": "#8c564b", "pdf": "#e377c2", "semantic": "#7f7f7f", "tiered": "#bcbd22",
}  # fmt: skip
_OVERLAP_STYLES = ("-", "--", ":", "-.")


def strategy_colour(strategy: str) -> str:
    """The colour of ``strategy`` in every figure (grey-blue for strategies not listed)."""
    return STRATEGY_COLOURS.get(strategy, "#17becf")


def plain_log_axis(axis) -> None:
    """Log scale with ticks written as plain numbers (100, 300, 1000), not powers of ten.

    Call it once the data are plotted: the wider the range, the fewer ticks per decade, so labels
    never run together.
    """
    import math

    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    low, high = sorted(axis.get_view_interval())
    decades = math.log10(high / low) if low > 0 else 3.0
    subs = (1.0, 2.0, 3.0, 5.0) if decades <= 1.5 else (1.0, 3.0) if decades <= 2.5 else (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}" if value >= 1 else f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def figure_png(fig) -> bytes:
    """A figure as PNG bytes; the figure is closed (exports and widgets keep no pyplot state)."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def _finish(ax, xlabel: str, ylabel: str, title: str, legend: bool = True) -> None:
    """Axis labels, title, a small legend and a light grid: every figure's last lines."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend and ax.get_legend_handles_labels()[0]:
        legend_below(ax.figure, *ax.get_legend_handles_labels())
    ax.grid(alpha=0.3)


def legend_below(fig, handles, labels) -> None:
    """A legend under the axes that makes the figure taller, never the axes narrower.

    Beside the axes a long legend took most of the width (titles cut, tick labels run together);
    below, each row of entries adds its own height.
    """
    longest = max(map(len, labels), default=0)
    ncol = 2 if len(labels) > 3 and longest <= 45 else 1
    rows = -(-len(labels) // ncol)
    fig.set_figheight(fig.get_figheight() + 0.2 * rows + 0.2)
    wide = ncol * (0.055 * longest + 0.7)  # inches a row of entries takes at font size 7
    if wide > fig.get_figwidth():  # a long label widens the figure instead of leaving it
        fig.set_figwidth(wide)
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=7, frameon=False)


def _figure(*size):
    # pyplot, so a notebook's inline backend shows the figure; the package never selects a backend
    # (without a display matplotlib falls back to Agg by itself, and exports close what they save).
    import matplotlib.pyplot as plt

    return plt.subplots(*size[:2], figsize=size[2], squeeze=False, constrained_layout=True)


def recommended_pipeline_rows(run: Run) -> tuple[pd.DataFrame, str]:
    """The final configurations under the recommended retrieval pipeline, and a title suffix naming it.

    A size curve across pipelines would jump between them at each size; with one pipeline, every row.
    """
    table = run.final.copy()
    if "param_pipeline" not in table or table.param_pipeline.nunique() < 2:
        return table, ""
    chosen = table.loc[table.config_id == run.recommendation.get("config_id"), "param_pipeline"]
    pipeline = chosen.iloc[0] if len(chosen) else table.param_pipeline.iloc[0]
    return table[table.param_pipeline == pipeline].copy(), f" under {pipeline} retrieval"


def plot_metric_vs_size(run: Run):
    """Metric against chunk size per strategy, with 95% bootstrap bands.

    One panel per size unit and per scorer setting that varies (k, embedder); with several retrieval
    pipelines, the recommended one's configurations (one line per strategy and overlap).
    """
    metric, (table, pipeline) = run.metric, recommended_pipeline_rows(run)
    table["unit_"] = table.apply(unit_of, axis=1)
    panels = [
        (unit, title, group[group.unit_ == unit])
        for title, group in run.scorer_groups(table)
        for unit in sorted(table["unit_"].unique())
    ]
    fig, axes = _figure(1, len(panels), (6 * len(panels), 4))
    for ax, (unit, title, panel) in zip(axes[0], panels, strict=True):
        overlaps = sorted(panel.param_overlap.unique(), key=float)
        for (strategy, overlap), group in panel.groupby(["param_strategy", "param_overlap"]):
            group = group.sort_values("param_size")
            colour = strategy_colour(strategy)
            style = _OVERLAP_STYLES[overlaps.index(overlap) % len(_OVERLAP_STYLES)]
            ax.plot(group.param_size, group[metric], marker="o", color=colour, linestyle=style,
                    label=f"{strategy}, overlap {overlap}")  # fmt: skip
            if f"{metric}_ci_low" in group:
                ax.fill_between(group.param_size, group[f"{metric}_ci_low"], group[f"{metric}_ci_high"],
                                color=colour, alpha=0.12)  # fmt: skip
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis)
        ax.set_title(title)
        ax.set_xlabel(f"chunk size ({unit})")
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{metric} by chunk size{pipeline} (bands: 95% bootstrap CI)")
    entries = {
        label: handle for ax in axes[0] for handle, label in zip(*ax.get_legend_handles_labels(), strict=True)
    }
    if entries:  # one legend for every panel: the same strategies and overlaps
        legend_below(fig, list(entries.values()), list(entries))
    return fig


def plot_heatmaps(run: Run):
    """Size x overlap heatmaps of the metric on one colour scale.

    One panel per strategy, size unit and varying scorer setting; overlap is the share of a chunk
    asked for, so each axis has one unit.
    """
    metric, (table, _) = run.metric, recommended_pipeline_rows(run)
    table["unit_"] = table.apply(unit_of, axis=1)
    if "overlap_requested" in table:
        table["overlap_"] = table.overlap_requested.round(3).fillna(-1)  # -1: whole sentences
    else:
        table["overlap_"] = table.param_overlap
    panels = [
        (f"{strategy} ({unit})" + (f", {title}" if title else ""), sub)
        for title, group in run.scorer_groups(table)
        for (strategy, unit), sub in group.groupby(["param_strategy", "unit_"])
    ]
    values = table[metric].to_numpy(dtype=float)
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    fig, axes = _figure(1, len(panels), (4.2 * len(panels), 3.6))
    image = None
    for ax, (name, sub) in zip(axes[0], panels, strict=True):
        grid = sub.pivot_table(index="overlap_", columns="param_size", values=metric, aggfunc="max")
        image = ax.imshow(grid.to_numpy(dtype=float), cmap="viridis", aspect="auto", vmin=low, vmax=high)
        ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
        ax.set_yticks(range(len(grid.index)), [f"{i:.0%}" if i >= 0 else "sentences" for i in grid.index])
        for (i, j), value in np.ndenumerate(grid.to_numpy(dtype=float)):
            if math.isfinite(value):
                ax.text(j, i, f"{value:.3f}", ha="center", va="center", color="white", fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(f"size ({sub.unit_.iloc[0]})")
        ax.set_ylabel("overlap (share of a chunk)")
    if image is not None:
        fig.colorbar(image, ax=list(axes[0]), shrink=0.8, label=metric)
    fig.suptitle(f"{metric}: size x overlap (one colour scale)")
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
            label=("recommended: " if row.config_id == best_id else "") + run.label(row),
            **style,
        )
    _finish(ax, "recall (supported claims called grounded)", "precision", "Grounding precision-recall")
    return fig


def plot_chunk_sizes(run: Run):
    """Histograms of chunk lengths (chars) for the recommended config and the seed presets."""
    dataset = run.dataset()
    final = run.final
    best_id = run.recommendation.get("config_id")
    rows = final[(final.config_id == best_id) | (final.preset.fillna("") != "")]
    lengths = {}
    for _, row in rows.iterrows():
        chunker = run.point(row.config_id).make_chunker()
        name = ("recommended: " if row.config_id == best_id else "") + run.label(row)
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


def plot_score_distributions(
    per_claim: pd.DataFrame, thresholds: dict[str, float], xlabel: str = "claim score (aggregated cosine)"
):
    """A claim's score per original label, with threshold lines."""
    fig, axes = _figure(1, 1, (6, 4))
    ax = axes[0][0]
    bins = np.linspace(per_claim.score.min(), per_claim.score.max(), 30)
    for label, group in per_claim.groupby("label"):
        ax.hist(group.score, bins=bins, histtype="step", linewidth=1.5, label=f"{label} ({len(group)})")
    for i, (name, value) in enumerate(thresholds.items()):
        ax.axvline(value, color=f"C{i + 3}", linestyle="--", label=f"{name} = {value:.3f}")
    ax.set_xlabel(xlabel)
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
        ax.scatter(group.cost_n_chunks, group[metric], label=strategy, s=30, color=strategy_colour(strategy))
    front = pareto_front(cost, quality)
    ax.plot(cost[front], quality[front], color="black", linewidth=1, marker="o", markersize=11,
            markerfacecolor="none", label="Pareto front")  # fmt: skip
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis)
    _finish(ax, "chunks stored (cost)", metric, "Quality vs cost")
    return fig


def plot_budget_curves(run: Run):
    """Evidence recall against the context budget, with 95% bootstrap bands.

    The recommended config, the seed presets and the best few others: what a reader gets for a fixed
    number of characters.
    """
    from vera_lab.metrics import BUDGETS

    fig, axes = _figure(1, 1, (6.5, 4.5))
    ax = axes[0][0]
    best_id = run.recommendation.get("config_id")
    if f"recall_at_{BUDGETS[0]}" not in run.final:
        ax.set_title("No budget-matched metrics in this run")
        return fig
    for _, row in run.compared().iterrows():
        values = [row[f"recall_at_{b}"] for b in BUDGETS]
        style = {"linewidth": 2.5} if row.config_id == best_id else {"linewidth": 1, "linestyle": "--"}
        name = ("recommended: " if row.config_id == best_id else "") + run.label(row)
        ax.plot(BUDGETS, values, marker="o", label=name, **style)
        if f"recall_at_{BUDGETS[0]}_ci_low" in row:
            low = [row[f"recall_at_{b}_ci_low"] for b in BUDGETS]
            high = [row[f"recall_at_{b}_ci_high"] for b in BUDGETS]
            ax.fill_between(BUDGETS, low, high, alpha=0.1)
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(BUDGETS, [str(b) for b in BUDGETS])
    xlabel, ylabel = "context budget (characters handed to the reader)", "share of gold characters"
    _finish(ax, xlabel, ylabel, "Evidence recall at a fixed context budget")
    return fig


def plot_miss_reasons(run: Run):
    """Why claims were missed, as shares of the claims with evidence, for the configs worth comparing."""
    from vera_lab.metrics.diagnostics import MISS_REASONS

    shown = run.compared()
    fig, axes = _figure(1, 1, (11, 0.45 * max(3, len(shown)) + 1.5))
    ax = axes[0][0]
    if shown.empty or "miss_straddle" not in shown:
        ax.set_title("No miss attribution in this run")
        return fig
    labels = [run.label(r) for _, r in shown.iterrows()]
    left = np.zeros(len(shown))
    for reason in MISS_REASONS:
        values = shown[f"miss_{reason}"].to_numpy(dtype=float)
        ax.barh(labels, values, left=left, label=reason)
        left += values
    ax.invert_yaxis()
    ax.set_xlabel("share of the claims with evidence: evidence not in the top k, by reason")
    ax.set_title("Why evidence was missed")
    ax.legend(fontsize=7, loc="lower right")
    ax.tick_params(axis="y", labelsize=7)
    return fig


def plot_truncation(run: Run):
    """What the embedder never reads, by chunk size: chunk text and gold evidence in cut-off tails."""
    fig, axes = _figure(1, 1, (6.5, 4))
    ax = axes[0][0]
    table = run.final
    if "trunc_char_share" not in table:
        ax.set_title("No truncation audit in this run")
        return fig
    for strategy, group in table.groupby("param_strategy"):
        group, colour = group.sort_values("chunks_chars_mean"), strategy_colour(strategy)
        ax.plot(group.chunks_chars_mean, group.trunc_char_share, marker="o", color=colour,
                label=f"{strategy}: chunk text")  # fmt: skip
        ax.plot(group.chunks_chars_mean, group.trunc_gold_share, marker="x", linestyle="--", color=colour,
                label=f"{strategy}: gold evidence")  # fmt: skip
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis)
    _finish(ax, "mean chunk length (characters)", "share never read by the embedder",
            "Truncation at the embedder's input limit")  # fmt: skip
    return fig


def plot_ranking(run: Run, order: pd.DataFrame, metric: str):
    """Configurations of ``order`` (best first) as bars of ``metric`` with 95% CI, one colour per strategy."""
    fig, axes = _figure(1, 1, (7, 0.35 * max(len(order), 3) + 1))
    ax = axes[0][0]
    rows = order.iloc[::-1]
    values = rows[metric].to_numpy(float)
    error = None
    if f"{metric}_ci_low" in rows:
        error = [
            values - rows[f"{metric}_ci_low"].to_numpy(float),
            rows[f"{metric}_ci_high"].to_numpy(float) - values,
        ]
    colours = [strategy_colour(s) for s in rows["param_strategy"]]
    ax.barh([run.label(r) for _, r in rows.iterrows()], values, xerr=error, color=colours, capsize=3)
    _finish(ax, f"{metric} (bars: 95% bootstrap CI)", "", f"Configurations by {metric}", legend=False)
    return fig


def plot_grounding_by_size(run: Run):
    """Out-of-fold grounding F1 against mean chunk length, one series per scorer, 95% bootstrap bars.

    The verified chunkings and their cosine twins when the sweep ran the verifier; else every final
    configuration. The dashed line is calling every claim grounded.
    """
    verified = run.manifest.get("verified", {})
    ids = set(verified) | set(verified.values()) if verified else set(run.final.config_id)
    rows = run.table[run.table.config_id.isin(ids) & (run.table.status == "ok")]
    fig, axes = _figure(1, 1, (6.5, 4.5))
    ax = axes[0][0]
    if rows.empty or "grounding_f1" not in rows:
        ax.set_title("No grounding results in this run")
        return fig
    for (scorer, group), marker in zip(rows.groupby("param_scorer"), "osD^", strict=False):
        group = group.sort_values("chunks_chars_mean")
        error = [
            group.grounding_f1 - group.grounding_f1_ci_low,
            group.grounding_f1_ci_high - group.grounding_f1,
        ]
        ax.errorbar(group.chunks_chars_mean, group.grounding_f1, yerr=error, fmt=marker, capsize=3,
                    label=f"{scorer} scorer")  # fmt: skip
    ax.axhline(rows.grounding_f1_trivial.mean(), color="grey", linestyle="--", label="every claim grounded")
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis)
    _finish(ax, "mean chunk length (characters)", "grounding F1 (out of fold)", "Grounding F1 by chunk size")
    return fig


FIGURES = {
    "budget_curves": plot_budget_curves,
    "metric_vs_size": plot_metric_vs_size,
    "heatmaps": plot_heatmaps,
    "pr_curves": plot_pr_curves,
    "chunk_sizes": plot_chunk_sizes,
    "quality_vs_cost": plot_quality_vs_cost,
    "miss_reasons": plot_miss_reasons,
    "truncation": plot_truncation,
    "grounding_by_size": plot_grounding_by_size,
}
