"""Figures and exported reports (self-contained HTML, Markdown twin) for a stored sweep."""

from vera_lab.report.export import EditedReport, export
from vera_lab.report.figures import (
    FIGURES,
    pareto_front,
    plot_budget_curves,
    plot_chunk_sizes,
    plot_grounding_by_size,
    plot_heatmaps,
    plot_lengths,
    plot_metric_vs_size,
    plot_pr_curves,
    plot_quality_vs_cost,
    plot_roc_pr,
    plot_score_distributions,
)
from vera_lab.report.run import Run, config_label, load_run
from vera_lab.report.tables import (
    compare_configs,
    confirmation_table,
    confusion_table,
    indistinguishable_table,
    missed_claims,
    recommendation_lines,
    recommended_and_presets,
    summary_table,
)

__all__ = [
    "EditedReport",
    "FIGURES",
    "Run",
    "compare_configs",
    "config_label",
    "confirmation_table",
    "confusion_table",
    "indistinguishable_table",
    "export",
    "load_run",
    "missed_claims",
    "pareto_front",
    "plot_budget_curves",
    "plot_chunk_sizes",
    "plot_grounding_by_size",
    "plot_heatmaps",
    "plot_lengths",
    "plot_metric_vs_size",
    "plot_pr_curves",
    "plot_quality_vs_cost",
    "plot_roc_pr",
    "plot_score_distributions",
    "recommendation_lines",
    "recommended_and_presets",
    "summary_table",
]
