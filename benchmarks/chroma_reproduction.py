"""Reproduce Chroma's published chunking-evaluation rows on the bundled chroma-eval data.

Run: .venv/bin/python benchmarks/chroma_reproduction.py
Setting as published: all-MiniLM-L6-v2, 5 chunks retrieved, chunks of all five documents in one
index, recall / precision / IoU over character spans (means over the 472 questions, in %).
Difference: our token sizes count MiniLM WordPiece tokens; Chroma's count cl100k tokens.
"""

from __future__ import annotations

from common import ROOT, table

from vera_lab import RecursiveChunker, TokenChunker, load_dataset
from vera_lab.embedding import CachedEmbedder, EmbeddingCache, get_embedder
from vera_lab.evaluation import evaluate
from vera_lab.grounding import GroundingParameters

PUBLISHED = {  # (chunker, size, overlap): (recall, precision, IoU) in %, Smith & Troynikov 2024
    ("recursive", 250, 125): (78.7, 4.9, 4.9),
    ("token", 250, 125): (82.4, 3.6, 3.5),
    ("recursive", 250, 0): (78.5, 5.4, 5.4),
    ("token", 250, 0): (77.1, 3.3, 3.3),
    ("recursive", 200, 0): (75.7, 6.5, 6.5),
    ("token", 200, 0): (76.6, 4.1, 4.1),
}


def main() -> None:
    dataset = load_dataset(ROOT / "datasets" / "chroma-eval")
    embedder = CachedEmbedder(get_embedder("minilm"), EmbeddingCache(ROOT / ".cache" / "vera_lab"))
    scorer = GroundingParameters(k=5, scope="corpus")
    rows = []
    for (strategy, size, overlap), (p_recall, p_precision, p_iou) in PUBLISHED.items():
        cls = RecursiveChunker if strategy == "recursive" else TokenChunker
        chunker = cls(size=size, overlap=overlap, unit="tokens")
        m = evaluate(dataset, chunker, embedder, scorer).metrics
        recall, precision, iou = 100 * m["span_recall"], 100 * m["span_precision"], 100 * m["span_iou"]
        rows.append(
            {
                "chunker": f"{strategy} {size}/{overlap}",
                "recall ours": f"{recall:.1f}",
                "published": f"{p_recall:.1f}",
                "diff": f"{recall - p_recall:+.1f}",
                "precision ours": f"{precision:.1f}",
                "pub.": f"{p_precision:.1f}",
                "IoU ours": f"{iou:.1f}",
                "pub": f"{p_iou:.1f}",
                "precision_omega": f"{100 * m['precision_omega']:.1f}",
            }
        )
        print(rows[-1], flush=True)
    print()
    print(table(rows, list(rows[0])))
    print("\nGoal: recall within +/-3 points of every published row.")


if __name__ == "__main__":
    main()
