"""Interactive notebook views (ipywidgets): explore a chunker on a document, re-rank a sweep.

Each view is a widget that updates in place when a control moves; nothing is re-run but what the
view shows. ``ipywidgets`` comes with the notebooks extra.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from vera_lab.chunking import CHUNKERS, chunk_stats, make_chunker
from vera_lab.data.ingest import SkippedFile, load_file
from vera_lab.notebook import boundaries_html
from vera_lab.report.figures import figure_png, plot_ranking
from vera_lab.report.run import Run
from vera_lab.report.tables import ranking_table
from vera_lab.sweep.config import METRICS
from vera_lab.sweep.recommend import ranked
from vera_lab.tokens import get_tokenizer
from vera_lab.types import Document

EXPLORED = ("fixed", "sentence", "recursive", "token")  # the strategies sized by a slider alone


def _widgets():
    try:
        import ipywidgets
    except ImportError as exc:
        raise ImportError("interactive views need ipywidgets: pip install 'vera-lab[notebooks]'") from exc
    return ipywidgets


def chunker_explorer(
    documents: Mapping[str, Document] | Iterable[Document] | Document, preview_chars: int = 2000
):
    """Pick a document (bundled, or a file of yours) and move strategy, size, overlap and unit.

    The boundary view, the realised overlap and the statistics update in place. Returns the widget.
    """
    w = _widgets()
    if isinstance(documents, Document):
        documents = [documents]
    docs = dict(documents) if isinstance(documents, Mapping) else {d.doc_id: d for d in documents}
    pick = w.Dropdown(options=list(docs), description="document")
    own = w.Text(placeholder="or a file of yours: .txt .md .html .pdf", description="own file",
                 continuous_update=False, layout=w.Layout(width="420px"))  # fmt: skip
    strategy = w.ToggleButtons(options=EXPLORED, value="sentence", description="strategy")
    size = w.IntSlider(value=1000, min=50, max=4000, step=50, description="size", continuous_update=False)
    overlap = w.FloatSlider(value=0.2, min=0.0, max=0.5, step=0.05, description="overlap",
                            readout_format=".0%", continuous_update=False)  # fmt: skip
    unit = w.Dropdown(options=["chars", "tokens"], value="chars", description="unit")
    status = w.HTML()
    stats = w.HTML()
    view = w.HTML(layout=w.Layout(max_height="520px", overflow="auto"))

    def document() -> Document:
        if own.value.strip():
            path = Path(own.value.strip()).expanduser()
            try:
                return load_file(path, path.name)
            except (OSError, SkippedFile) as exc:
                raise ValueError(f"{path}: {exc}") from None
        return docs[pick.value]

    def refresh(_=None) -> None:
        units = CHUNKERS[strategy.value].units
        if tuple(unit.options) != units:
            unit.options = units  # the strategy decides which units exist
        try:
            doc = document()
            chunker = make_chunker(strategy.value, size=size.value, overlap=overlap.value, unit=unit.value)
            chunks = chunker.chunk(doc)
        except ValueError as exc:  # an impossible combination, an unreadable file: say so, keep the view
            status.value = f'<span style="color:#b00">{html.escape(str(exc))}</span>'
            return
        row = chunk_stats(chunks, [doc], get_tokenizer())  # the chunks above, not chunked again
        table = pd.DataFrame({strategy.value: row}).T.round(2)
        realised = row.get("overlap_chars_mean", 0) / max(row.get("chars_mean", 1), 1)
        status.value = (
            f"<b>{html.escape(doc.doc_id)}</b>: {len(doc.text):,} characters, <b>{len(chunks)}</b> chunks of "
            f"{strategy.value} {size.value} {unit.value}, overlap asked {overlap.value:.0%}, "
            f"realised {realised:.0%} of a chunk"
        )
        stats.value = table.to_html(border=0)
        view.value = boundaries_html(doc.text, chunks, preview_chars)

    for control in (pick, own, strategy, size, overlap, unit):
        control.observe(refresh, names="value")
    refresh()
    controls = w.VBox([w.HBox([pick, own]), strategy, w.HBox([size, overlap, unit])])
    return w.VBox([controls, status, view, stats])


def ranking_explorer(run: Run, top: int = 12):
    """Choose a metric and a cost budget: the table and the figure re-rank the sweep's configurations.

    The budget is the most vectors (chunks) a configuration may store, the cost the recommendation
    weighs first; configurations above it drop out. Returns the widget.
    """
    w = _widgets()
    table = run.table
    metrics = [m for m in METRICS if m in table and table[m].notna().any()]
    metric = w.Dropdown(options=metrics, value=run.metric if run.metric in metrics else metrics[0],
                        description="metric")  # fmt: skip
    costs = table.loc[table["status"] == "ok", "cost_n_chunks"]
    budget = w.IntSlider(value=int(costs.max()), min=int(costs.min()), max=int(costs.max()),
                         step=max(1, int((costs.max() - costs.min()) // 100)), description="max vectors",
                         continuous_update=False, layout=w.Layout(width="480px"))  # fmt: skip
    summary = w.HTML()
    ranking = w.HTML()
    figure = w.HTML()

    def refresh(_=None) -> None:
        order = ranked(table, metric.value, run.manifest.get("final_config_ids"))
        order = order[order["cost_n_chunks"] <= budget.value].head(top)
        summary.value = (
            f"{len(order)} configuration{'s' if len(order) != 1 else ''} store at most {budget.value:,} "
            f"vectors; ranked by {metric.value}"
        )
        ranking.value = ranking_table(run, order, metric.value).to_html(index=False, border=0)
        figure.value = _png_img(plot_ranking(run, order, metric.value))

    metric.observe(refresh, names="value")
    budget.observe(refresh, names="value")
    refresh()
    return w.VBox([w.HBox([metric, budget]), summary, figure, ranking])


def _png_img(fig) -> str:
    """A figure as an inline PNG <img>: an HTML widget shows it in any frontend."""
    return f'<img alt="ranking" src="data:image/png;base64,{base64.b64encode(figure_png(fig)).decode()}">'
