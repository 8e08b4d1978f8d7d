"""Export a stored sweep as one self-contained HTML file or a Markdown file with its figures."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

import pandas as pd

from vera_lab.data import atomic_write
from vera_lab.data.dataset import edited_since_written, remember_written
from vera_lab.report.figures import FIGURES, figure_png
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
from vera_lab.report.verdict import Verdict, verdict

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")


def md_text(value: Any) -> str:
    """Text safe inside Markdown: HTML escaped, Markdown syntax backslash-escaped, one line."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(" ".join(str(value).split()), quote=False))


def _md_table(frame: pd.DataFrame) -> str:
    cell = md_text

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


GLOSSARY = (
    "budget_recall: the mean over budgets of recall_at_B, the share of gold evidence characters inside "
    "the first B characters of retrieved text (chunks in rank order, the last cut at the budget).",
    "hit_at_B: 1 when some gold span is at least half inside that context.",
    "hit: some chunk of the top k touches the gold evidence; mrr: the mean of 1 / rank of the first one.",
    "grounding_f1 (out of fold): F1 of calling a claim grounded, each claim judged by a threshold fitted "
    "without it; in-sample: with the threshold fitted on all claims; trivial: calling every claim grounded.",
    "lift: out-of-fold F1 minus the trivial F1, with a paired bootstrap 95% CI that resamples whole "
    "documents (claims linked by a shared document), since claims about one document are not independent.",
    "verifier: a cross-encoder trained here from the packaged MiniLM weights on public pairs, shipped with "
    "vera_lab; it reads the claim with each retrieved chunk (256 word pieces, longer chunks in overlapping "
    "windows) and says supported, contradicted or not mentioned. Adapted to a sweep's claims (verifier: "
    "{adapt: true}), every claim is scored by a model trained without its documents. verdict_macro_f1: "
    "its three-way macro-F1.",
    "95% CI and paired tests: bootstrap resampling of the dataset's clusters (cluster_by in dataset.json: "
    "claims about one document, or of one group, are drawn together), as the recommendation states.",
    "not worse than best: not significantly below the best by a paired bootstrap, Holm-corrected.",
    "vectors: chunks stored; forward tokens: word pieces the embedder reads per chunk, its special tokens "
    "included and its input limit applied; chars unread: chunk characters past that limit; embed s: "
    "seconds to embed every chunk, measured on a sample of 64 chunks on the machine that ran the sweep "
    "and scaled by forward tokens.",
    "chunk text unseen / gold evidence unseen: characters after the embedder's input limit (MiniLM: 256 "
    "word pieces), and gold evidence that no chunk shows the embedder.",
    "missed: straddle (no chunk holds half of a gold span), truncated (held only in unseen tails), diluted "
    "(held by a chunk at least 4x longer than the span), ranking (held, seen, focused, and ranked below k).",
)


def _provenance(run: Run) -> list[str]:
    """Where every number came from: data, sampling, grid, models, versions, times."""
    manifest, data = run.manifest, run.manifest["data"]
    config = manifest.get("config", {})
    files = ", ".join(f"{name} sha256 {digest[:16]}..." for name, digest in data.get("files", {}).items())
    sampling = ", ".join(f"{k} {v}" for k, v in data["sampling"].items() if v is not None)
    versions = ", ".join(f"{k} {v}" for k, v in manifest.get("versions", {}).items())
    devices = ", ".join(f"{k} on {v}" for k, v in manifest.get("embedding_devices", {}).items())
    return [
        f"Dataset {data['path']} ({data['name']}): {data['documents']} documents, "
        f"{data['claims']} claims; {files}.",
        f"Sampling: {sampling}; data fingerprint {data['fingerprint']}.",
        f"Grid: {len(manifest.get('points', {}))} configurations asked for, {len(run.final)} in the final "
        f"comparison; embedders {config.get('embedders')}, k {config.get('k')}, threshold "
        f"{config.get('threshold')}, scorer {config.get('scorer')}, scope {config.get('scope')}, "
        f"metric {config.get('metric')}.",
        *([f"Embedding: {devices}."] if devices else []),
        f"Versions: {versions}.",
        f"Started {manifest.get('started', '?')}, finished {manifest.get('finished', '?')} (UTC).",
    ]


Section = tuple[str, "list[str] | pd.DataFrame"]


def _sections(run: Run) -> tuple[list[Section], list[Section]]:
    """The report's sections before and after the figures, each a title and sentences or a table."""
    labels = pd.DataFrame([{"label": k, "claims": v} for k, v in run.manifest["data"]["labels"].items()])
    sections: list[Section] = [
        ("Recommendation", recommendation_lines(run)),
        ("Held-out confirmation (the sweep's estimate beside the held-out figure, 95% CI)",
         confirmation_table(run)),
        ("Rivals of the best (paired bootstrap, Holm-corrected): which are not significantly worse",
         indistinguishable_table(run)),
        ("Is the comparison meaningful? (validity warnings)", validity_lines(run)),
        ("Why configurations win or lose (overlap, truncation, misses by reason)", diagnostics_table(run)),
        ("What the screen dropped, and whether the screen can be trusted", halving_lines(run)),
        ("Configurations the screen dropped", dropped_table(run)),
        ("Configurations", summary_table(run)),
    ]  # fmt: skip
    tail: list[Section] = [
        ("Claims the recommended configuration missed", missed_claims(run)),
        ("Claims by label", labels),
        ("Provenance", _provenance(run)),
        ("Glossary", list(GLOSSARY)),
    ]
    return [(t, c) for t, c in sections if len(c)], [(t, c) for t, c in tail if len(c)]


_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #ddd;"
    "text-align:left;vertical-align:top}img{max-width:100%}figcaption{font-size:13px;color:#555}"
    ".verdict{border:2px solid #2a7;border-radius:8px;padding:1em 1.4em;margin:1em 0;background:#f4fbf6}"
    ".verdict.unsure{border-color:#d80;background:#fff8ec}.verdict h2{margin:0 0 .4em}"
    ".badge{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;background:#2a7;"
    "font-weight:600;font-size:13px}.unsure .badge{background:#d80}"
    "pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:12px}summary{cursor:pointer;color:#555}"
    "th{cursor:pointer}th:after{content:' \\2195';color:#bbb;font-size:11px}"
)


class EditedReport(FileExistsError):
    """The report to write is the user's (edited since vera-lab wrote it, or a link they made): it is kept."""


def why_kept(target: str | Path) -> str:
    """Why a report must not be replaced unasked ("": vera-lab may replace it)."""
    target = Path(target)
    if target.is_symlink():
        return f"{target} is a link, not a report vera-lab wrote"
    figures = target.parent / "report_files"
    if target.suffix == ".md" and figures.is_symlink():  # the Markdown report's figures would go through it
        return f"{figures} is a link, not the folder vera-lab writes the report's figures in"
    if edited_since_written(target):
        return f"{target} was changed since vera-lab wrote it"
    return ""


def export(
    run: Run | str | Path, fmt: str = "html", path: str | Path | None = None, force: bool = False
) -> Path:
    """Write ``report.html`` (self-contained, figures embedded) or ``report.md`` (figures beside it).

    A report someone edited since vera-lab wrote it, or a link in its place, is kept (:class:`EditedReport`)
    unless ``force``: notes added to ``report.md`` are the user's work. A report with no record (an older
    run's) is replaced.
    """
    if not isinstance(run, Run):
        run = load_run(run)
    if fmt not in ("html", "md"):
        raise ValueError(f"format {fmt!r}: use 'html' or 'md'")
    if run.final.empty:
        raise ValueError(
            f"{run.store.dir}: no configuration finished, nothing to report (errors: results.csv)"
        )
    target = Path(path) if path else run.store.dir / f"report.{fmt}"
    if (why := why_kept(target)) and not force:
        raise EditedReport(f"{why}: kept; pass --force to replace it")
    if force and fmt == "md" and (target.parent / "report_files").is_symlink():
        (target.parent / "report_files").unlink()  # replaced as a link, never written through
    figures = {
        name: (figure_png(make(run)), (make.__doc__ or name).splitlines()[0])
        for name, make in FIGURES.items()
    }
    head, tail = _sections(run)
    data = run.manifest["data"]
    title = f"VERA Lab sweep '{run.manifest['sweep_id']}'"
    languages = data.get("languages")  # runs recorded before it lack it
    named = ": dataset.json" if data.get("languages_named") else ""
    written = f" ({', '.join(f'{lang} {n}' for lang, n in languages.items())}{named})" if languages else ""
    intro = (
        f"Dataset {data['path']}: {data['documents']} documents{written}, {data['claims']} claims. "
        f"{len(run.final)} configurations compared by {run.metric}."
    )
    card = verdict(run)
    if fmt == "md":
        page = _markdown_page(title, intro, card, head, tail, figures, target.parent / "report_files")
    else:
        page = _html_page(title, intro, card, head, tail, figures)
    atomic_write(target, page)
    remember_written(target)
    return target


Figures = dict[str, tuple[bytes, str]]  # name -> (PNG bytes, caption)


def _markdown_page(
    title: str,
    intro: str,
    card: Verdict | None,
    head: list[Section],
    tail: list[Section],
    figures: Figures,
    files: Path,
) -> str:
    """The Markdown report; its figures are written beside it, in ``files``."""
    parts = [f"# {md_text(title)}", "", *_md_verdict(card), md_text(intro)]
    for section, content in head:
        parts += ["", *_md_section(section, content)]
    parts.append("")
    for name, (png, caption) in figures.items():
        atomic_write(files / f"{name}.png", png)
        parts += [f"![{md_text(caption)}](report_files/{name}.png)", "", f"*{md_text(caption)}*", ""]
    for section, content in tail:
        parts += [*_md_section(section, content), ""]
    return "\n".join(parts)


def _html_page(
    title: str, intro: str, card: Verdict | None, head: list[Section], tail: list[Section], figures: Figures
) -> str:
    """The self-contained HTML report: figures embedded, tables sortable."""
    esc = html.escape
    body = [f"<h1>{esc(title)}</h1>", _html_verdict(card), f"<p>{esc(intro)}</p>"]
    body += [_html_section(section, content) for section, content in head]
    for png, caption in figures.values():
        data_uri = base64.b64encode(png).decode()
        body.append(
            f'<figure><img alt="{esc(caption)}" src="data:image/png;base64,{data_uri}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>"
        )
    body += [_html_section(section, content) for section, content in tail]
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
        f"<style>{_STYLE}</style></head><body>{''.join(body)}<script>{_SORTABLE}</script></body></html>"
    )


# Click a column header to sort its table (numbers as numbers, text as text); click again to reverse.
_SORTABLE = """
document.querySelectorAll("table").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.from(body.rows);
      var up = th.dataset.order !== "asc";
      var key = function (row) {
        var text = row.cells[column].textContent.trim(), number = parseFloat(text.replace(/^[*\\s]+/, ""));
        return isNaN(number) ? text.toLowerCase() : number;
      };
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
      });
      rows.forEach(function (row) { body.appendChild(row); });
      th.dataset.order = up ? "asc" : "desc";
    });
  });
});
"""


def _md_section(title: str, content: list[str] | pd.DataFrame) -> list[str]:
    body = (
        [_md_table(content)]
        if isinstance(content, pd.DataFrame)
        else [f"- {md_text(line)}" for line in content]
    )
    return [f"## {md_text(title)}", "", *body]


COLLAPSE_ROWS = 15  # a longer table starts folded, its size in the summary line


def _html_verdict(card: Verdict | None) -> str:
    """The card at the top: the choice in words, a badge, the reasons, a snippet and what to run next."""
    esc = html.escape
    if card is None:
        return ""
    lines = "".join(f"<li>{esc(line)}</li>" for line in card.lines)
    unsure = "" if card.conclusive else " unsure"
    steps = "\n".join(card.next_steps)
    return (
        f'<section class="verdict{unsure}"><h2>{esc(card.headline)}</h2>'
        f'<span class="badge">{esc(card.badge)}</span><ul>{lines}</ul>'
        f"<details><summary>Use it in LangChain or LlamaIndex</summary><pre>{esc(card.snippet)}</pre>"
        "</details>" + (f"<h3>Next</h3><pre>{esc(steps)}</pre>" if steps else "") + "</section>"
    )


def _md_verdict(card: Verdict | None) -> list[str]:
    if card is None:
        return []
    lines = [f"- {md_text(line)}" for line in card.lines]
    heading = f"**{md_text(card.headline)}** ({md_text(card.badge)})"
    steps = ["Next:", "", "```sh", *card.next_steps, "```", ""] if card.next_steps else []
    return ["## Verdict", "", heading, "", *lines, "", "```python", card.snippet, "```", "", *steps]


def _html_section(title: str, content: list[str] | pd.DataFrame) -> str:
    if isinstance(content, pd.DataFrame):
        table = content.to_html(index=False, escape=True, border=0)
        if len(content) > COLLAPSE_ROWS:
            table = f"<details><summary>{len(content)} rows: show</summary>{table}</details>"
        return f"<h2>{html.escape(title)}</h2>" + table
    items = "".join(f"<li>{html.escape(line)}</li>" for line in content)
    return f"<h2>{html.escape(title)}</h2><ul>{items}</ul>"
