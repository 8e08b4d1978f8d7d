"""Should BM25 and tf-idf stem? Budget recall and MRR with and without a Snowball stemmer.

BM25 tokenises to lower-cased letter/digit runs (CJK: characters and pairs). A stemmer folds "disclose",
"disclosed" and "disclosure" together; whether that finds more evidence or more noise is measured
here on the labelled sets there are, chunked into sentences of 300 characters: the decision was taken
on ContractNLI dev (scope cited: each claim's contract), SciFact (all 5,183 abstracts) and chroma-eval
(5 long documents); ContractNLI test, the main job's held-out set, is printed last. Paired
differences resample whole documents. The tf-idf embedder (dense retrieval over its vectors) is
measured the same way, ContractNLI test again last.

Only English has labelled retrieval data here, so the other languages are measured by a proxy built
from the UD test treebanks' gold lemmas (benchmarks/data/sentences/ud/*.lemmas.jsonl; English's from
EWT's CoNLL-U, to show how the proxy reads a language also measured on labelled sets): each sentence
with at least three nouns, verbs or adjectives is looked for among all sentences of its treebank by
a query of its first six such words as the dictionary writes them ("machen Tauchen gefallen Jahr"
for "gemacht ... gefiel ... Jahr ... drangehängt"), the way a claim names what a passage inflects.
MRR and hit@1 of the sentence, plain and stemmed, paired differences resampling whole documents
(sentences where the treebank is one text). It
measures what stemming is for, matching inflected forms, and the noise it adds by conflating other
words in the same ranking; it is not a user's claims.

    .venv/bin/python benchmarks/bm25_stemming.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vera_lab.retrieval.lexical as lexical  # noqa: E402
from vera_lab import SentenceChunker, load_dataset  # noqa: E402
from vera_lab.data.clusters import document_clusters  # noqa: E402
from vera_lab.embedding.hashing import HashingEmbedder  # noqa: E402
from vera_lab.evaluation import evaluate  # noqa: E402
from vera_lab.grounding import GroundingParameters  # noqa: E402
from vera_lab.metrics.bootstrap import paired_bootstrap  # noqa: E402
from vera_lab.retrieval import parse_pipeline  # noqa: E402

SETS = ("contractnli-dev", "scifact", "chroma-eval", "contractnli-test")
UD = ROOT / "benchmarks" / "data" / "sentences" / "ud"
CONTENT = ("NOUN", "VERB", "ADJ")


def main() -> None:
    stemmed = lexical.stemmer
    print(f"{'dataset':<18}{'metric':<15}{'plain':>8}{'stemmed':>9}   difference [95% CI]   p")
    for name in SETS:
        data = load_dataset(ROOT / "datasets" / name)
        params = GroundingParameters(k=5, scope=data.scope or "corpus")
        rows = {}
        for label, stemmer in (("plain", lambda language: None), ("stemmed", stemmed)):
            lexical.stemmer = stemmer  # the BM25 index asks the module for its stemmer when built
            result = evaluate(data, SentenceChunker(size=300, overlap=0), HashingEmbedder(64), params,
                              pipeline=parse_pipeline("bm25"))  # fmt: skip
            rows[label] = result.per_claim
        lexical.stemmer = stemmed
        _print_pair(name, rows, document_clusters(list(data.claims)))


def tfidf_sets() -> None:
    """tf-idf's vectors from plain and from stemmed words, dense retrieval at sentence 300, k = 5."""
    import vera_lab.embedding.tfidf as tfidf
    from vera_lab.embedding.tfidf import TfidfEmbedder

    detected = tfidf.majority_language
    print("\ntf-idf embedder")
    print(f"{'dataset':<18}{'metric':<15}{'plain':>8}{'stemmed':>9}   difference [95% CI]   p")
    for name in SETS:  # ContractNLI test last: the sets the decision was taken on, then the held-out one
        data = load_dataset(ROOT / "datasets" / name)
        params = GroundingParameters(k=5, scope=data.scope or "corpus")
        rows = {}
        for label, language in (("plain", lambda texts: None), ("stemmed", detected)):
            tfidf.majority_language = language  # the language tf-idf stems in, read when it is fitted
            tfidf._LAST_FIT.clear()  # a fit of the same texts is reused otherwise
            rows[label] = evaluate(
                data, SentenceChunker(size=300, overlap=0), TfidfEmbedder(), params
            ).per_claim
        tfidf.majority_language = detected
        _print_pair(name, rows, document_clusters(list(data.claims)))


def _print_pair(name: str, rows: dict, clusters) -> None:
    for metric in ("budget_recall", "mrr"):
        column = "rr" if metric == "mrr" else metric
        a, b = rows["plain"][column].mean(), rows["stemmed"][column].mean()
        test = paired_bootstrap(rows["stemmed"], rows["plain"], metric, clusters=clusters)
        print(f"{name:<18}{metric:<15}{a:>8.3f}{b:>9.3f}   {test['diff']:+.3f} "
              f"[{test['ci_low']:+.3f}, {test['ci_high']:+.3f}]   {test['p_value']:.3f}")  # fmt: skip


def lemma_queries() -> None:
    """The proxy for the languages with no labelled retrieval data: gold lemmas looking for their sentence."""
    from sentence_boundaries import ud_documents

    print("\nUD treebanks: each sentence found by the lemmas of its first six nouns, verbs and adjectives")
    print(f"{'lang':<6}{'queries':>8}{'metric':>8}{'plain':>8}{'stemmed':>9}   difference [95% CI]   p")
    treebanks = {"en": _english()}
    for path in sorted(UD.glob("*-test.lemmas.jsonl")):
        language = path.name[:2]
        documents = ud_documents(path.with_name(path.name.replace(".lemmas.jsonl", ".text")), language)
        lemmas = [json.loads(line) for line in path.open(encoding="utf-8")]
        sentences = [sentence for document in documents for sentence in document]
        owners = [i for i, document in enumerate(documents) for _ in document]
        treebanks[language] = (sentences, owners, lemmas)
    for language, (sentences, documents, lemmas) in treebanks.items():
        asked = [i for i, words in enumerate(lemmas) if len(words) >= 3]
        queries = [" ".join(lemma for _, lemma in lemmas[i][:6]) for i in asked]
        rows = {label: _ranks(sentences, queries, asked, stemmed_in) for label, stemmed_in in
                (("plain", None), ("stemmed", language))}  # fmt: skip
        one_text = len(set(documents)) == 1  # de, fr, nl, ru: one document, so sentences are resampled
        clusters = None if one_text else [documents[i] for i in asked]
        for metric, column in (("mrr", "rr"), ("hit@1", "hit")):
            test = paired_bootstrap(rows["stemmed"], rows["plain"], metric.replace("hit@1", "hit"),
                                    clusters=clusters)  # fmt: skip
            a, b = rows["plain"][column].mean(), rows["stemmed"][column].mean()
            print(f"{language:<6}{len(asked):>8}{metric:>8}{a:>8.3f}{b:>9.3f}   {test['diff']:+.3f} "
                  f"[{test['ci_low']:+.3f}, {test['ci_high']:+.3f}]   {test['p_value']:.3f}")  # fmt: skip


def _english() -> tuple[list[str], list[int], list[list[list[str]]]]:
    """EWT's sentences, documents and content words ([form, lemma]) from its CoNLL-U, as the others'."""
    sentences, documents, lemmas, document = [], [], [], 0
    for line in (UD.parent / "en_ewt-ud-test.conllu").open(encoding="utf-8"):
        cols = line.rstrip("\n").split("\t")
        if line.startswith("# newdoc"):
            document += 1
        elif line.startswith("# text = "):
            sentences.append(line[len("# text = ") :].rstrip("\n"))
            documents.append(document)
            lemmas.append([])
        elif len(cols) == 10 and cols[0].isdigit() and cols[3] in CONTENT:
            lemmas[-1].append([cols[1], cols[2]])
    return sentences, documents, lemmas


def _ranks(
    sentences: list[str], queries: list[str], targets: list[int], language: str | None
) -> pd.DataFrame:
    """Reciprocal rank and hit@1 of each target sentence under BM25 stemmed in ``language`` (None: plain).

    Ties put the earlier sentence first.
    """
    bm25 = lexical.BM25(sentences, [str(i) for i in range(len(sentences))], language=language)
    scores = (bm25.queries(queries) @ bm25.index.vectors.T).toarray()
    own = scores[np.arange(len(targets)), targets][:, None]
    earlier = np.arange(len(sentences))[None, :] < np.asarray(targets)[:, None]
    rank = 1 + (scores > own).sum(1) + ((scores == own) & earlier).sum(1)
    return pd.DataFrame({"claim_id": [str(t) for t in targets], "rr": 1.0 / rank, "hit": (rank == 1) * 1.0})


if __name__ == "__main__":
    main()
    tfidf_sets()
    lemma_queries()
