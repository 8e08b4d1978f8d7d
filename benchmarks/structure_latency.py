"""Seed ADR-0025's latency table for our implementation of the tiered chunker.

Run: .venv/bin/python benchmarks/structure_latency.py
Documents: a generated 10-page PDF (text of chroma-eval's state_of_the_union), this repository's
README.md (well-structured Markdown), and 20,000 characters of chroma-eval's chat logs as plain text
(messy: no punctuation-led structure). Tier 1 is the structure chunker alone; "tiered" adds the
heuristic quality gate and semantic re-chunking, with the hashing embedder and with MiniLM (cold
cache, so every sentence is embedded). No LLM gate: the LLM's latency is the server's, not ours.
"""

from __future__ import annotations

import tempfile
import textwrap
import time
from pathlib import Path

from common import ROOT, table

from vera_lab import Document, load_dataset
from vera_lab.chunking import TieredChunker
from vera_lab.data import load_pdf
from vera_lab.evaluation.resources import with_resources


def make_pdf(path: Path, text: str, pages: int = 10, lines_per_page: int = 45) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    lines = textwrap.wrap(text, 95)
    with PdfPages(path) as pdf:
        for p in range(pages):
            fig = plt.figure(figsize=(8.5, 11))
            for i, line in enumerate(lines[p * lines_per_page : (p + 1) * lines_per_page]):
                fig.text(0.08, 0.95 - i * 0.02, line, fontsize=9)
            pdf.savefig(fig)
            plt.close(fig)
    return path


def ms(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def _tier3_share(chunks) -> float:
    return sum(c.metadata["tier"] == 3 for c in chunks) / max(len(chunks), 1)


def main() -> None:
    chroma = load_dataset(ROOT / "datasets" / "chroma-eval").corpus
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        load_ms, pdf_doc = ms(
            lambda: load_pdf(make_pdf(Path(tmp) / "ten.pdf", chroma["state_of_the_union"].text))
        )
        docs = {
            f"10-page PDF (load {load_ms:.0f} ms)": pdf_doc,
            "Markdown (README.md)": Document("readme", (ROOT / "README.md").read_text(), format="markdown"),
            "messy plain text": Document("chat", chroma["chatlogs"].text[:20_000], format="text"),
        }
        for name, doc in docs.items():
            tier1 = TieredChunker(embedder="hashing").structure_chunker(doc)[0]
            t1, chunks = ms(lambda tier1=tier1, doc=doc: tier1.chunk(doc))
            hashing = with_resources(TieredChunker(embedder="hashing"), tmp)
            minilm = with_resources(TieredChunker(embedder="minilm"), tmp)
            th, hashed = ms(lambda doc=doc, chunker=hashing: chunker.chunk(doc))
            tm, mini = ms(lambda doc=doc, chunker=minilm: chunker.chunk(doc))
            rows.append(
                {
                    "document": name,
                    "chars": f"{len(doc.text):,}",
                    "tier 1 ms": f"{t1:.0f}",
                    "tier 1 chunks": len(chunks),
                    "tiered (hashing) ms": f"{th:.0f}",
                    "tiered (MiniLM, cold) ms": f"{tm:.0f}",
                    "tier-3 share (MiniLM)": f"{_tier3_share(mini):.0%}",
                    "chunks (MiniLM)": len(mini),
                }
            )
            print(rows[-1], flush=True)
        print()
        print(table(rows, list(rows[0])))


if __name__ == "__main__":
    main()
