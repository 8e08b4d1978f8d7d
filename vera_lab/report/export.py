"""Export a stored sweep as one self-contained HTML file or a Markdown file with its figures."""

from __future__ import annotations

import base64
import html
import io
import re
from pathlib import Path
from typing import Any

import pandas as pd

from vera_lab.data import atomic_write
from vera_lab.report.figures import FIGURES
from vera_lab.report.run import Run, load_run
from vera_lab.report.tables import (
    confirmation_table,
    diagnostics_table,
    dropped_table,
    halving_lines,
    indistinguishable_table,
    missed_claims,
    recommendation_lines,
    summary_table,
    validity_lines,
)


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")


def md_text(value: Any) -> str:
    """Text safe inside Markdown: HTML escaped, Markdown syntax backslash-escaped, one line."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(" ".join(str(value).split()), quote=False))


def _md_table(frame: pd.DataFrame) -> str:
    cell = md_text

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def export(run: Run | str | Path, fmt: str = "html", path: str | Path | None = None) -> Path:
    """Write ``report.html`` (self-contained, figures embedded) or ``report.md`` (figures beside it)."""
    if not isinstance(run, Run):
        run = load_run(run)
    if fmt not in ("html", "md"):
        raise ValueError(f"format {fmt!r}: use 'html' or 'md'")
    if run.final.empty:
        raise ValueError(
            f"{run.store.dir}: no configuration finished, nothing to report (errors: results.csv)"
        )
    target = Path(path) if path else run.store.dir / f"report.{fmt}"
    figures = {name: _png(make(run)) for name, make in FIGURES.items()}
    table, missed, confirmed = summary_table(run), missed_claims(run), confirmation_table(run)
    confirm_title = "Held-out confirmation (the sweep's estimate beside the held-out figure, 95% CI)"
    rivals = indistinguishable_table(run)
    rivals_title = "Rivals of the best (paired bootstrap, Holm-corrected): which are not significantly worse"
    checks, diagnosis = validity_lines(run), diagnostics_table(run)
    checks_title = "Is the comparison meaningful? (validity warnings)"
    diagnosis_title = "Why configurations win or lose (overlap, truncation, misses by reason)"
    screen, dropped = halving_lines(run), dropped_table(run)
    screen_title = "What the screen dropped, and whether the screen can be trusted"
    data = run.manifest["data"]
    sampling = ", ".join(f"{k} {v}" for k, v in data["sampling"].items() if v is not None)
    title = f"VERA Lab sweep '{run.manifest['sweep_id']}'"
    intro = (
        f"Dataset {data['path']}: {data['documents']} documents, {data['claims']} claims "
        f"{data['labels']} (sampling: {sampling}; data fingerprint {data['fingerprint']}). "
        f"{len(run.final)} configurations compared by {run.metric}."
    )
    if fmt == "md":
        files = target.parent / "report_files"
        parts = [f"# {md_text(title)}", "", md_text(intro), "", "## Recommendation", ""]
        parts += [f"- {md_text(line)}" for line in recommendation_lines(run)]
        if not confirmed.empty:
            parts += ["", f"## {md_text(confirm_title)}", "", _md_table(confirmed)]
        if not rivals.empty:
            parts += ["", f"## {md_text(rivals_title)}", "", _md_table(rivals)]
        if checks:
            parts += ["", f"## {md_text(checks_title)}", "", *(f"- {md_text(line)}" for line in checks)]
        if not diagnosis.empty:
            parts += ["", f"## {md_text(diagnosis_title)}", "", _md_table(diagnosis)]
        if screen:
            parts += ["", f"## {md_text(screen_title)}", "", *(f"- {md_text(line)}" for line in screen)]
            parts += ["", _md_table(dropped)] if not dropped.empty else []
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
    body.append("</ul>")
    if not confirmed.empty:
        body += [f"<h2>{esc(confirm_title)}</h2>", confirmed.to_html(index=False, escape=True, border=0)]
    if not rivals.empty:
        body += [f"<h2>{esc(rivals_title)}</h2>", rivals.to_html(index=False, escape=True, border=0)]
    if checks:
        body += [f"<h2>{esc(checks_title)}</h2><ul>", *(f"<li>{esc(line)}</li>" for line in checks), "</ul>"]
    if not diagnosis.empty:
        body += [f"<h2>{esc(diagnosis_title)}</h2>", diagnosis.to_html(index=False, escape=True, border=0)]
    if screen:
        body += [f"<h2>{esc(screen_title)}</h2><ul>", *(f"<li>{esc(line)}</li>" for line in screen), "</ul>"]
        body += [dropped.to_html(index=False, escape=True, border=0)] if not dropped.empty else []
    body += ["<h2>Configurations</h2>", table.to_html(index=False, escape=True, border=0)]
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
