"""Hardening II: readers of a run check its data, paths mean what the README says, files and ids as users have them."""

from __future__ import annotations

import codecs
import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from vera_lab.cli import main
from vera_lab.data.ingest import ingest_folder
from vera_lab.data.quotes import locate_quote
from vera_lab.data.user_claims import read_claims
from vera_lab.sweep import ResultsStore, list_runs, load_config
from vera_lab.types import Corpus, Document

HERE = Path(__file__).parent
TINY = HERE / "data" / "tiny"
GRID = {"embedders": ["hashing"], "presets": [], "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}


def sweep_file(path: Path, **fields) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": "t", **GRID, **fields}))
    return path


def test_a_relative_dataset_is_relative_to_the_sweep_file_and_the_run_finds_it_when_moved(
    tmp_path, monkeypatch
):
    shutil.copytree(TINY, tmp_path / "big" / "tiny")
    other = tmp_path / "tiny"  # the current folder holds another dataset of that name
    shutil.copytree(TINY, other)
    (other / "claims.jsonl").write_text((other / "claims.jsonl").read_text().splitlines()[0] + "\n")
    monkeypatch.chdir(tmp_path)
    config = load_config(sweep_file(Path("big/s.yaml"), dataset="tiny"))
    assert config.dataset == str(tmp_path / "big" / "tiny")
    assert main(["sweep", "big/s.yaml", "--results-dir", "results", "--cache-dir", "c", "--quiet"]) == 0
    data = json.loads((tmp_path / "results" / "t" / "data.json").read_text())
    assert data["path"] == str(tmp_path / "big" / "tiny") and data["claims"] == 6
    assert data["path_from_run"] == "../../big/tiny"
    # moved together (results and data), the run still finds its data, by its place beside the results
    shutil.move(tmp_path / "big", tmp_path / "moved" / "big")
    shutil.move(tmp_path / "results", tmp_path / "moved" / "results")
    monkeypatch.chdir(tmp_path / "moved")
    assert ResultsStore("results/t").dataset().claims.label_counts()["supported"] > 0
    assert main(["report", "results/t"]) == 0


def test_runs_lists_a_run_whose_data_changed_with_what_changed(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    path = sweep_file(tmp_path / "s.yaml", dataset=str(data))
    assert main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"),
                 "--quiet", "--no-report"]) == 0  # fmt: skip
    assert list_runs(tmp_path / "r")[0].problem == ""
    (data / "claims.jsonl").write_text((data / "claims.jsonl").read_text().replace("Solar", "Wind", 1))
    [run] = list_runs(tmp_path / "r")
    assert "the data behind this run changed" in run.problem and "claims.jsonl file changed" in run.problem


def test_k_larger_than_the_corpus_is_said(tmp_path, capsys):
    path = sweep_file(tmp_path / "s.yaml", dataset=str(TINY), k=1000)
    assert main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"),
                 "--quiet", "--no-report"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "k is at least the number of chunks in the corpus" in err and "k=1000 over about 14 chunks" in err


def test_a_sweep_with_a_failed_configuration_exits_non_zero_and_keeps_the_rest(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # nothing listens: the ollama configuration fails
    path = sweep_file(tmp_path / "s.yaml", dataset=str(TINY), embedders=["hashing", "ollama:m"])
    assert main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"),
                 "--quiet"]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("1 of 2 configurations failed (listed above, and in "
                            f"{tmp_path / 'r' / 't' / 'results.csv'}); run the same command again to retry them")  # fmt: skip
    assert (tmp_path / "r" / "t" / "report.html").exists()  # what finished is reported


def test_a_claims_csv_with_a_long_quoted_clause_imports(tmp_path):
    clause = "word " * 40_000  # 200 KB in one field, over the csv module's 128 KiB default
    corpus = Corpus((Document("contract.txt", "Preamble. " + clause + " End."),))
    path = tmp_path / "claims.csv"
    path.write_text(f'claim_id,claim,label,doc,evidence\na,x,supported,contract.txt,"{clause.strip()}"\n')
    claims, located = read_claims(path, corpus)
    assert located[0].match.start == len("Preamble. ")


def test_a_quote_typed_in_nfd_is_found_in_nfc_text_with_the_documents_offsets():
    text = "Le café est fermé le dimanche."
    match = locate_quote(text, unicodedata.normalize("NFD", "café est fermé"))
    assert (match.method, text[match.start : match.end]) == ("normalised", "café est fermé")
    nfd = unicodedata.normalize("NFD", text)  # and the other way round: the span keeps the combining marks
    match = locate_quote(nfd, "café est fermé")
    assert nfd[match.start : match.end] == unicodedata.normalize("NFD", "café est fermé")


def test_a_doc_typed_in_nfc_names_the_nfd_file_and_twins_are_warned_at_ingest(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    nfd_name = unicodedata.normalize("NFD", "résumé.txt")
    (folder / nfd_name).write_text("I worked at the café for two years.")
    corpus = ingest_folder(folder, progress=False).corpus
    path = tmp_path / "claims.csv"
    path.write_text("claim_id,claim,label,doc,evidence\na,x,supported,résumé.txt,worked at the café\n")
    claims, _ = read_claims(path, corpus)
    assert claims.claims[0].cited_doc_ids == (nfd_name,)  # the id as the corpus spells it
    (folder / unicodedata.normalize("NFC", "résumé.txt")).write_text("Another file.")
    if len(list(folder.iterdir())) == 2:  # a file system that keeps both spellings apart
        with pytest.warns(UserWarning, match="differ only by Unicode normalisation"):
            ingest_folder(folder, progress=False)


def test_ingest_leaves_out_its_own_output_reports_broken_links_and_reads_utf16(tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Plain text.")
    (folder / "wide.txt").write_bytes(codecs.BOM_UTF16_LE + "Wide text, UTF-16.".encode("utf-16-le"))
    (folder / "gone.txt").symlink_to(folder / "missing.txt")
    out = folder / "dataset"
    for again in ([], ["--force"]):  # the second run must not ingest the first run's corpus.jsonl
        assert main(["ingest", str(folder), "--out", str(out), "--quiet", *again]) == 0
    ids = [json.loads(line)["doc_id"] for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert ids == ["a.txt", "wide.txt"]
    texts = [json.loads(line)["text"] for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert texts[1] == "Wide text, UTF-16."
    captured = capsys.readouterr()
    assert "skipped gone.txt: a broken symbolic link" in captured.err and "1 files skipped" in captured.out


def test_ctrl_c_during_ingest_says_nothing_was_lost(tmp_path, capsys, monkeypatch):
    import vera_lab.data.ingest as ingest

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest, "ingest_folder", interrupted)
    (tmp_path / "docs").mkdir()
    assert main(["ingest", str(tmp_path / "docs"), "--out", str(tmp_path / "out")]) == 130
    assert "interrupted before it finished" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_mlflow_uris_file_unknown_and_database(tmp_path):
    pytest.importorskip("mlflow")
    from vera_lab.integrations.tracking import TrackingError, check_uri, client_for

    check_uri(f"file://{tmp_path / 'runs'}")
    client_for(f"file://{tmp_path / 'runs'}").search_experiments()  # the file store is allowed, made
    assert (tmp_path / "runs").is_dir()
    with pytest.raises(TrackingError, match="unknown scheme 'foo'"):
        check_uri("foo://bar")
    import importlib.util

    if importlib.util.find_spec("alembic") is None:
        with pytest.raises(
            TrackingError, match="database store needs alembic, not installed here: pip install"
        ):
            check_uri(f"sqlite:///{tmp_path / 'm.db'}")


def test_chunk_names_the_encrypted_pdf_it_was_given_not_a_temporary_copy(tmp_path, capsys):
    from .test_own_data import make_encrypted_pdf

    path = make_encrypted_pdf(tmp_path / "locked.pdf")
    assert main(["chunk", str(path), "--strategy", "fixed"]) == 2
    assert f"error: {path}: the PDF is encrypted" in capsys.readouterr().err
