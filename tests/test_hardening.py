"""Bad input gets one clear line and touches nothing it should not (issue: hardening)."""

import json
import shutil
from pathlib import Path

import pytest

from vera_lab.cli import main

HERE = Path(__file__).parent
TINY = HERE / "data" / "tiny"


def sweep_file(tmp_path, **overrides):
    raw = {"name": "t", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]}  # fmt: skip
    raw.update(overrides)
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(raw))
    return path


def sweep_argv(tmp_path, path=None) -> list[str]:
    """`vera-lab sweep` on ``path`` (default: the tiny sweep file) with results and cache under tmp_path."""
    path = path or sweep_file(tmp_path)
    return ["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")]


@pytest.mark.parametrize("name", ["../../escape", "/tmp/abs", "a/b", "..", ".hidden"])
def test_a_sweep_name_must_be_one_safe_folder_name(tmp_path, capsys, name):
    results = tmp_path / "inner" / "results"
    assert main(["sweep", str(sweep_file(tmp_path, name=name)), "--results-dir", str(results)]) == 2
    err = capsys.readouterr().err
    assert f"name {name!r}: start with a letter or digit" in err and err.count("\n") == 1
    assert not (tmp_path / "inner").exists() and not (tmp_path / "escape").exists()


def test_when_every_configuration_fails_the_first_cause_is_shown(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # the discard port: refused
    path = sweep_file(tmp_path, embedders=["ollama:absent"])
    assert (
        main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")])
        == 2
    )
    err = capsys.readouterr().err
    assert "no configuration finished; the first failure: EmbedderError: no Ollama server" in err
    assert "Traceback" not in err
    assert main(["report", str(tmp_path / "r" / "t")]) == 2
    assert "no configuration finished, nothing to report" in capsys.readouterr().err


def test_document_ids_with_colons_and_claims_with_markup_report_safely(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    for name in ("corpus.jsonl", "claims.jsonl"):
        text = (data / name).read_text().replace('"solar"', '"doc:solar:1"').replace('"bees"', '"doc:bees"')
        (data / name).write_text(text)
    claims = [json.loads(line) for line in (data / "claims.jsonl").read_text().splitlines()]
    claims[0]["claim"] = "<script>alert(1)</script> ![x](http://example.com/x.png) *bold*"
    miss = {"claim_id": "miss", "claim": "zebra quartz", "label": "supported",  # retrieved nowhere near
            "evidence": [{"doc_id": "doc:bees", "start": 45, "end": 75}]}  # fmt: skip
    claims.append(miss)
    (data / "claims.jsonl").write_text("".join(json.dumps(c) + "\n" for c in claims))
    path = sweep_file(
        tmp_path, dataset=str(data), k=1, grid=[{"strategy": "fixed", "size": 10, "overlap": 0}]
    )
    assert (
        main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")])
        == 0
    )
    report = (tmp_path / "r" / "t" / "report.md").read_text()
    html = (tmp_path / "r" / "t" / "report.html").read_text()
    assert "Claims the recommended configuration missed" in report  # built from chunk spans, not ids
    assert "<script>" not in report and "![x](http" not in report and "<script>alert" not in html
    assert "&lt;script&gt;" in report and "\\!\\[x\\]\\(http" in report


def test_a_judge_whose_replies_are_mostly_unusable_gives_no_metrics(tmp_path, capsys, monkeypatch):
    from .fake_ollama import FakeOllama

    with FakeOllama({"m": 0}, chat=lambda prompt: "{not json") as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        code = main(["evaluate", "--dataset", str(TINY), "--strategy", "fixed", "--size", "80", "--overlap", "0",
                     "--embedder", "hashing", "--judge", "ollama:m", "--cache-dir", str(tmp_path)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "6 of 6 judge replies were unusable" in err and "no judge metrics" in err


def test_a_failed_export_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    from vera_lab.integrations.export import export_chunks

    from .faults import fill_the_disk

    path = sweep_file(tmp_path)
    assert main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"),
                 "--no-report"]) == 0  # fmt: skip
    target = tmp_path / "chunks.parquet"
    export_chunks(tmp_path / "r" / "t", "parquet", target, cache_dir=tmp_path / "c")
    good = target.read_bytes()
    fill_the_disk(monkeypatch)  # half of the file written, then the disk is full
    with pytest.raises(OSError, match="No space left"):
        export_chunks(tmp_path / "r" / "t", "parquet", target, cache_dir=tmp_path / "c")
    monkeypatch.undo()
    assert target.read_bytes() == good and not list(tmp_path.glob(".chunks.parquet.*.tmp"))


def test_a_long_run_without_whitespace_is_cut_into_bounded_chunks(capsys, tmp_path):
    from vera_lab.chunking import TokenChunker

    chunks = TokenChunker(size=512, overlap=0).chunk_text("x" * 300_000)  # WordPiece: one [UNK] "word"
    assert len(chunks) == 6 and max(c.end - c.start for c in chunks) == 51_200  # at most 512 x 100 chars
    assert "".join(c.text for c in chunks) == "x" * 300_000 and all(c.n_tokens == 1 for c in chunks)
    text = tmp_path / "t.txt"
    text.write_text("Cats purr. Dogs bark. Birds sing at dawn. " * 40)
    assert main(["chunk", str(text), "--strategy", "semantic", "--size", "100", "--format", "stats"]) == 0
    assert "n_chunks" in capsys.readouterr().out  # the fallback window follows a small size


def test_a_resumed_sweep_keeps_a_report_the_user_edited_and_says_how_to_replace_it(tmp_path, capsys):
    argv = sweep_argv(tmp_path)
    assert main(argv) == 0
    report = tmp_path / "r" / "t" / "report.md"
    notes = report.read_text() + "\nOur notes.\n"
    report.write_text(notes)
    capsys.readouterr()
    assert main(argv) == 0  # the sweep itself is done and stored; only the edited report is left alone
    out = capsys.readouterr().out
    assert f"report: {report} was changed since vera-lab wrote it: kept" in out
    assert f"vera-lab report {tmp_path / 'r' / 't'} --force" in out
    assert report.read_text() == notes
    assert f"report: {tmp_path / 'r' / 't' / 'report.html'}" in out  # the unedited twin is still rewritten


def test_a_results_folder_that_is_not_a_sweeps_is_left_alone_unless_restart_moves_it_aside(tmp_path, capsys):
    folder = tmp_path / "r" / "t"
    folder.mkdir(parents=True)
    (folder / "results.csv").write_text("my,own\n1,2\n")  # a name a sweep writes, in a folder of the user's
    argv = sweep_argv(tmp_path)
    assert main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert (
        f"{folder} holds files but no manifest.json" in err
        and "--restart" in err
        and "nothing was written" in err
    )
    assert [p.name for p in folder.iterdir()] == ["results.csv"]
    assert main([*argv, "--quiet", "--restart"]) == 0
    (aside,) = (tmp_path / "r").glob("t.*")
    assert (aside / "results.csv").read_text() == "my,own\n1,2\n"  # moved, never deleted


def test_a_halving_sweep_stopped_in_its_screen_resumes(tmp_path):
    path = sweep_file(tmp_path, halving={"screen": "tfidf", "keep": 0.5, "calibration": 0})
    argv = [*sweep_argv(tmp_path, path), "--quiet"]
    assert main(argv) == 0
    folder = tmp_path / "r" / "t"
    for entry in folder.iterdir():  # as a kill after the screen, before the full run's manifest, leaves it
        if entry.name not in ("screen", "data.json"):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    assert main(argv) == 0 and (folder / "manifest.json").exists()


def test_compare_never_writes_into_a_folder_of_the_users_under_the_run(tmp_path, capsys):
    argv = sweep_argv(tmp_path)
    assert main([*argv, "--quiet", "--no-report"]) == 0
    mine = tmp_path / "r" / "t" / "compare-tiny"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "r" / "t"), "--dataset", str(TINY), "--cache-dir", str(tmp_path / "c"),
                 "--quiet"]) == 2  # fmt: skip
    assert "compare: --name" in capsys.readouterr().err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
