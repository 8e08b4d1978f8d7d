"""A user's own folder and claims: ingest, quotes located in their documents, declared scope,
budget-matched metrics, and the ContractNLI converter."""

import json
import shutil
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vera_lab.cli import main
from vera_lab.data import convert_contractnli, load_dataset
from vera_lab.data.quotes import QuoteNotFound, locate_quote
from vera_lab.metrics import BUDGETS, budget_depth, budget_scores, total, union
from vera_lab.sweep import parse_config, run_sweep
from vera_lab.types import Span

HERE = Path(__file__).parent
OWN = HERE / "data" / "own"


def make_encrypted_pdf(path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pypdf
    from matplotlib.backends.backend_pdf import PdfPages

    plain = path.with_suffix(".plain")
    with PdfPages(plain) as pdf:
        fig = plt.figure(figsize=(4, 4))
        fig.text(0.1, 0.5, "Secret text.")
        pdf.savefig(fig)
        plt.close(fig)
    writer = pypdf.PdfWriter(clone_from=plain)
    writer.encrypt("secret", algorithm="AES-128")
    writer.write(path)
    plain.unlink()
    return path


@pytest.fixture
def folder(tmp_path):
    """The shipped example folder plus the files ingest must skip."""
    root = Path(shutil.copytree(OWN / "docs", tmp_path / "docs"))
    make_encrypted_pdf(root / "locked.pdf")
    (root / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))
    (root / "empty.txt").write_text("")
    (root / ".hidden.md").write_text("# not ingested\n")
    return root


def test_ingest_keeps_every_readable_file_and_says_why_others_were_skipped(folder, tmp_path, capsys):
    out = tmp_path / "ds"
    assert main(["ingest", str(folder), "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "skipped locked.pdf: the PDF is encrypted; decrypt it first" in captured.err
    assert "skipped image.bin: binary (NUL bytes)" in captured.err
    assert "skipped empty.txt: empty" in captured.err
    assert "4 documents" in captured.out and "3 files skipped" in captured.out
    docs = {d["doc_id"]: d for d in map(json.loads, (out / "corpus.jsonl").read_text().splitlines())}
    assert sorted(docs) == ["contracts/service-agreement.pdf", "policies/remote-work.md",
                            "policies/security.html", "policies/travel.txt"]  # fmt: skip
    html = docs["policies/security.html"]["text"]
    assert "tracking" not in html and "font-family" not in html and "&mdash;" not in html
    assert "never shared — not even with IT staff" in html and "within 24 hours" in html
    pdf = docs["contracts/service-agreement.pdf"]
    assert pdf["format"] == "pdf" and pdf["page_starts"] == [0, 430] and pdf["metadata"]["words"]
    assert "\r\n" in docs["policies/travel.txt"]["text"]  # the text is kept as it is: offsets index into it
    first = (out / "corpus.jsonl").read_bytes()
    assert main(["ingest", str(folder), "--out", str(out), "--quiet"]) == 2  # it exists: --force replaces it
    assert main(["ingest", str(folder), "--out", str(out), "--quiet", "--force"]) == 0
    assert (out / "corpus.jsonl").read_bytes() == first  # the same folder gives byte-identical output


@pytest.fixture
def own_dataset(tmp_path):
    out = tmp_path / "ds"
    assert main(["ingest", str(OWN / "docs"), "--out", str(out), "--quiet"]) == 0
    return out


def test_claims_locate_every_quote_and_write_spans(own_dataset, capsys):
    capsys.readouterr()
    assert main(["claims", str(OWN / "claims.csv"), "--dataset", str(own_dataset), "--report"]) == 0
    out = capsys.readouterr().out
    assert "11 claims" in out and "11 quotes located (exact 6, normalised 5)" in out
    assert "claims.csv:11: payment in contracts/service-agreement.pdf" in out
    dataset = load_dataset(own_dataset)
    text = {
        c.claim_id: [dataset.corpus[s.doc_id].text[s.start : s.end] for s in c.evidence]
        for c in dataset.claims
    }
    assert text["trains"] == ["Train travel is the default for trips under  six hours."]  # double space
    assert text["reports"][0].startswith("The\nSupplier shall deliver")  # wraps a PDF line
    assert text["courts"] == ["Disputes are settled by the courts of Amster-\ndam under Dutch law."]
    assert text["payment"] == ["The Client shall pay each invoice within forty-five days of receipt."]
    assert len(text["hotel-london"]) == 2 and text["pets"] == []
    pets = next(c for c in dataset.claims if c.claim_id == "pets")
    assert pets.cited_doc_ids == ("policies/remote-work.md",)


def test_a_quote_not_in_its_document_fails_naming_the_line_and_writes_nothing(own_dataset, tmp_path, capsys):
    claims = own_dataset / "claims.jsonl"
    claims.write_text("previous\n")  # not vera-lab's: replaced only with --force, and not even then on error
    bad = tmp_path / "bad.jsonl"
    rows = [
        {"claim_id": "a", "claim": "x", "label": "supported", "doc": "policies/travel.txt",
         "evidence": ["Receipts must be submitted within 30 days of the trip."]},
        {"claim_id": "b", "claim": "y", "label": "supported", "doc": "policies/travel.txt",
         "evidence": ["Taxis are always reimbursed in full."]},
    ]  # fmt: skip
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    capsys.readouterr()
    assert main(["claims", str(bad), "--dataset", str(own_dataset), "--force"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2: quote not found in policies/travel.txt (closest: " in err and ", score " in err
    assert f"{bad}:1" not in err and "Traceback" not in err
    assert claims.read_text() == "previous\n"


@pytest.mark.parametrize(
    "text,quote,method,expected",
    [
        ("Alpha beta.  Gamma\r\ndelta.", "beta. Gamma delta.", "normalised", "beta.  Gamma\r\ndelta."),
        ("It is hyphen-\nated here.", "It is hyphenated here.", "normalised", "It is hyphen-\nated here."),
        ("a state‑of‑the‑art tool", "state-of-the-art tool", "normalised", "state‑of‑the‑art tool"),
        ("He said “yes” twice.", 'He said "yes" twice.', "normalised", "He said “yes” twice."),
        ("The ﬁnal report.", "The final report.", "normalised", "The ﬁnal report."),
        ("第一条。これは父の\n家です。", "これは父の家です。", "normalised", "これは父の\n家です。"),  # a PDF's line
        ("Payments are due within thirty days of the invoice date.",
         "Payments are due within thirty dayz of the invoice date", "fuzzy",
         "Payments are due within thirty days of the invoice date"),
    ],
)  # fmt: skip
def test_quotes_are_located_through_whitespace_hyphens_quotes_and_typos(text, quote, method, expected):
    match = locate_quote(text, quote)
    assert match.method == method and text[match.start : match.end] == expected


def test_an_ambiguous_quote_takes_the_first_occurrence_and_a_missing_one_names_the_closest():
    match = locate_quote("Pay now. Later. Pay now.", "Pay now.")
    assert (match.start, match.occurrences) == (0, 2)
    with pytest.raises(QuoteNotFound, match=r'closest: ".*", score \d+'):
        locate_quote("Completely unrelated text about cats.", "Quantum chromodynamics of quarks")


def test_a_dataset_declaring_cited_scope_is_swept_with_it(tmp_path):
    data = Path(shutil.copytree(HERE / "data" / "tiny", tmp_path / "tiny"))
    (data / "dataset.json").write_text('{"scope": "cited"}')
    raw = {"name": "s", "dataset": str(data), "embedders": ["hashing"], "presets": [],
           "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}  # fmt: skip
    config = parse_config(raw)
    assert config.scope == "cited"
    run = run_sweep(config, tmp_path / "r", cache_dir=tmp_path / "c", progress=False)
    assert set(run.table.param_scope) == {"cited"}
    with pytest.warns(UserWarning, match="declares scope 'cited'"):
        assert parse_config({**raw, "scope": "corpus"}).scope == "corpus"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_config({**raw, "scope": "cited"})


def test_budget_scores_by_hand():
    gold = [Span("d", 100, 200)]
    ranked = [Span("d", 0, 60), Span("d", 120, 220), Span("d", 150, 400)]
    scores = budget_scores(ranked, gold, budgets=(60, 100, 160, 400))
    # 60: only the first chunk, no gold. 100: 60 + the first 40 of [120, 220) -> [120, 160): 40 of 100.
    # 160: [120, 220) whole -> 80 gold characters. 400: + [150, 400) -> gold [120, 200) still 80.
    assert scores["recall"] == [0.0, 0.4, 0.8, 0.8]
    assert scores["hit"] == [0.0, 0.0, 1.0, 1.0]
    assert budget_scores(ranked, [Span("e", 0, 10)], budgets=(400,))["recall"] == [0.0]
    assert budget_depth([300, 10, 50, 40], 95) == 3 and budget_depth([5, 5], 100) == 2


def test_contractnli_converter_strips_spans_and_declares_cited_scope(tmp_path):
    text = "1. Parties.\n2. The Receiving Party shall not copy it. \n3. Term.\n"
    raw = {
        "labels": {"nda-1": {"hypothesis": "No copies.", "short_description": ""},
                   "nda-2": {"hypothesis": "Survives.", "short_description": ""}},
        "documents": [{"id": 7, "file_name": "a.pdf", "text": text,
                       "spans": [[0, 12], [12, 54], [54, 63]],
                       "annotation_sets": [{"annotations": {"nda-2": {"choice": "NotMentioned", "spans": []},
                                                            "nda-1": {"choice": "Entailment", "spans": [1]}}}]}],
    }  # fmt: skip
    source = tmp_path / "dev.json"
    source.write_text(json.dumps(raw))
    (tmp_path / "LICENSE").write_text("CC BY 4.0")
    dataset = convert_contractnli(source, tmp_path / "out")
    claims = {c.claim_id: c for c in dataset.claims}
    assert list(claims) == ["7/nda-1", "7/nda-2"]
    span = claims["7/nda-1"].evidence[0]
    assert text[span.start : span.end] == "2. The Receiving Party shall not copy it."
    assert claims["7/nda-2"].label == "unsupported" and claims["7/nda-2"].cited_doc_ids == ("7",)
    loaded = load_dataset(tmp_path / "out")
    assert loaded.scope == "cited" and (tmp_path / "out" / "LICENSE").read_text() == "CC BY 4.0"
    meta = json.loads((tmp_path / "out" / "dataset.json").read_text())
    assert meta["source_sha256"] and "CC BY 4.0" in meta["licence"]


def reference_budget_scores(
    retrieved: Sequence[Span], gold: Sequence[Span], budgets: Sequence[int] = BUDGETS
) -> dict[str, list[float]]:
    """Last round's direct computation, a union per budget: the reference the one-pass version matches."""
    gold_by_doc: dict[str, list[tuple[int, int]]] = {}
    for g in gold:
        gold_by_doc.setdefault(g.doc_id, []).append((g.start, g.end))
    gold_total = sum(total(union(v)) for v in gold_by_doc.values())
    out: dict[str, list[float]] = {"recall": [], "hit": []}
    for budget in budgets:
        context: dict[str, list[tuple[int, int]]] = {}
        left = budget
        for chunk in retrieved:
            if left <= 0:
                break
            take = min(len(chunk), left)
            context.setdefault(chunk.doc_id, []).append((chunk.start, chunk.start + take))
            left -= take
        covered = {d: union(v) for d, v in context.items()}
        hit_gold = sum(_inside(covered, d, g) for d, spans in gold_by_doc.items() for g in union(spans))
        out["recall"].append(hit_gold / gold_total if gold_total else 0.0)
        halves = (2 * _inside(covered, g.doc_id, (g.start, g.end)) >= len(g) > 0 for g in gold)
        out["hit"].append(float(any(halves)))
    return out


def _inside(covered, doc_id, span):
    return sum(max(0, min(e, span[1]) - max(s, span[0])) for s, e in covered.get(doc_id, ()))


spans_of = st.lists(
    st.tuples(st.sampled_from("ab"), st.integers(0, 60), st.integers(0, 25)).map(
        lambda t: Span(t[0], t[1], t[1] + t[2])
    ),
    max_size=8,
)


@given(spans_of, spans_of, st.lists(st.integers(0, 120), min_size=1, max_size=5))
@settings(max_examples=400, deadline=None)
def test_budget_scores_match_a_union_per_budget(retrieved, gold, budgets):
    assert budget_scores(retrieved, gold, budgets) == reference_budget_scores(retrieved, gold, budgets)
