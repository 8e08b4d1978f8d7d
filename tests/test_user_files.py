"""No command writes over what the user owns, or outside the folder it names (issue 40, items 1-4)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from vera_lab.cli import main

HERE = Path(__file__).parent
TINY = HERE / "data" / "tiny"
OWN = HERE / "data" / "own"


@pytest.fixture
def dataset(tmp_path) -> Path:
    folder = tmp_path / "d"
    shutil.copytree(TINY, folder)
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_contrast_never_writes_over_the_datasets_claims_or_an_existing_file(dataset, tmp_path, capsys):
    before = _snapshot(dataset)
    assert main(["contrast", "--dataset", str(dataset), "--out", str(dataset / "claims.jsonl")]) == 2
    assert "is this command's own input" in capsys.readouterr().err
    assert (
        main(["contrast", "--dataset", str(dataset), "--out", str(dataset / "claims.jsonl"), "--force"]) == 2
    )
    assert _snapshot(dataset) == before  # --force never replaces the dataset itself
    mine = tmp_path / "mine.jsonl"
    mine.write_text("my own notes\n")
    assert main(["contrast", "--dataset", str(dataset), "--out", str(mine)]) == 2
    assert "exists: name another file, or pass --force" in capsys.readouterr().err
    assert mine.read_text() == "my own notes\n"
    assert main(["contrast", "--dataset", str(dataset), "--out", str(mine), "--force"]) == 0
    assert mine.read_text() != "my own notes\n"
    assert main(["contrast", "--dataset", str(dataset), "--out", str(tmp_path)]) == 2
    assert "is a folder: name a file" in capsys.readouterr().err


def test_drafting_never_writes_over_a_labelled_csv(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    labelled = tmp_path / "labelled.csv"
    labelled.write_text("claim_id,claim,label,doc,evidence\n1,x,supported,a,y\n")
    # refused before any server is asked: the address below is never contacted
    argv = [
        "claims",
        str(labelled),
        "--dataset",
        str(data),
        "--draft",
        "3",
        "--llm",
        "ollama:m@http://127.0.0.1:9",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"the drafts file {labelled} exists: name another file, or pass --force" in err
    assert labelled.read_text() == "claim_id,claim,label,doc,evidence\n1,x,supported,a,y\n"


def test_init_run_again_keeps_the_users_edited_sweep_file(tmp_path, capsys, monkeypatch):
    docs = tmp_path / "docs"
    shutil.copytree(OWN / "docs", docs)
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")
    argv = ["init", str(docs), str(OWN / "claims.csv"), "--minutes", "1", "--cache-dir", str(tmp_path / "c"),
            "--quiet"]  # fmt: skip
    assert main(argv) == 0
    sweep = tmp_path / "docs-dataset" / "sweep.yaml"
    edited = sweep.read_text() + "# my own note: k 10 next time\n"
    sweep.write_text(edited)
    capsys.readouterr()
    assert main(argv) == 0
    assert sweep.read_text() == edited
    assert "kept as it is" in capsys.readouterr().out
    assert main([*argv, "--force"]) == 0
    assert "my own note" not in sweep.read_text()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "sweep.yaml").write_text("name: mine\n")
    assert main(["init", str(docs), str(OWN / "claims.csv"), "--out", str(mine), "--minutes", "1",
                 "--cache-dir", str(tmp_path / "c"), "--quiet"]) == 0  # fmt: skip
    assert (mine / "sweep.yaml").read_text() == "name: mine\n"


def test_claims_replaces_only_a_claims_file_vera_lab_wrote_and_nobody_changed(tmp_path, capsys):
    data = tmp_path / "ds"
    assert main(["ingest", str(OWN / "docs"), "--out", str(data), "--quiet"]) == 0
    argv = ["claims", str(OWN / "claims.csv"), "--dataset", str(data)]
    assert main(argv) == 0 and main(argv) == 0  # its own file: re-run after editing the CSV, as usual
    claims = data / "claims.jsonl"
    claims.write_text(claims.read_text().replace('"supported"', '"contradicted"', 1))  # relabelled by hand
    edited = claims.read_bytes()
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{claims} was changed since vera-lab wrote it: pass --force" in err
    assert claims.read_bytes() == edited
    own = tmp_path / "own"
    shutil.copytree(TINY, own)  # a dataset made by hand: its claims.jsonl was never vera-lab's
    before = _snapshot(own)
    assert main(["claims", str(OWN / "claims.csv"), "--dataset", str(own)]) == 2
    assert "was not written by vera-lab (it may be your own)" in capsys.readouterr().err
    assert _snapshot(own) == before
    assert main([*argv, "--force"]) == 0 and claims.read_bytes() != edited


def test_init_never_replaces_a_corpus_or_claims_file_of_the_users_own(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")
    mine = tmp_path / "mine"
    shutil.copytree(TINY, mine)
    (mine / "corpus.jsonl").rename(mine / "kept.jsonl")  # init ingests here: a corpus of its own...
    shutil.copy(mine / "kept.jsonl", mine / "corpus.jsonl")  # ...only where the folder has none
    docs = tmp_path / "docs"
    shutil.copytree(OWN / "docs", docs)
    before = _snapshot(mine)
    argv = ["init", str(docs), str(OWN / "claims.csv"), "--out", str(mine), "--minutes", "1",
            "--cache-dir", str(tmp_path / "c"), "--quiet"]  # fmt: skip
    capsys.readouterr()
    assert main(argv) == 2
    assert f"{mine / 'corpus.jsonl'} was not written by vera-lab" in capsys.readouterr().err
    assert _snapshot(mine) == before  # nothing written: not the corpus, the claims or a sweep file
    (mine / "corpus.jsonl").unlink()
    assert main(argv) == 2  # the claims.jsonl there is the user's too
    assert "claims.jsonl was not written by vera-lab" in capsys.readouterr().err
    assert not (mine / "corpus.jsonl").exists() and not (mine / "sweep.yaml").exists()
    (mine / "claims.jsonl").unlink()
    assert main(argv) == 0 and main(argv) == 0  # then its own files, again and again


@pytest.mark.parametrize("name", ["init", "claims"])
@pytest.mark.parametrize("kind", ["hand-made file", "link to a file elsewhere"])
def test_no_dataset_writer_replaces_a_data_file_the_user_owns_without_force(
    name, kind, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")
    data = tmp_path / "ds"
    assert main(["ingest", str(OWN / "docs"), "--out", str(data), "--quiet"]) == 0
    target = data / ("corpus.jsonl" if name == "init" else "claims.jsonl")
    target.unlink(missing_ok=True)
    outside = tmp_path / "elsewhere" / "precious.jsonl"
    outside.parent.mkdir()
    outside.write_text('{"the user\'s own": "data"}\n')
    if kind == "hand-made file":
        shutil.copy(outside, target)
    else:
        target.symlink_to(outside)
    argv = {"init": ["init", str(OWN / "docs"), str(OWN / "claims.csv"), "--out", str(data), "--minutes", "1",
                     "--cache-dir", str(tmp_path / "c"), "--quiet"],
            "claims": ["claims", str(OWN / "claims.csv"), "--dataset", str(data)]}[name]  # fmt: skip
    before = _snapshot(tmp_path)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    why = (
        "changed since vera-lab wrote it" if name == "init" else "not written by vera-lab"
    )  # ingest wrote one
    assert f"{target} was {why}" in err and "--force" in err
    assert _snapshot(tmp_path) == before and target.is_symlink() == (kind != "hand-made file")


@pytest.mark.parametrize("name", ["../../x", "/abs/path", "..", "a/b", " spaced"])
def test_compare_names_only_a_folder_under_the_run(name):
    from vera_lab.sweep.confirm import compare_on

    with pytest.raises(ValueError, match="a folder name under the run"):
        compare_on(HERE / "data" / "store-v1", TINY, name=name, progress=False)


def test_a_drafted_claim_that_looks_like_a_formula_is_written_as_text_and_read_back_whole(tmp_path):
    from vera_lab.data.user_claims import import_claims
    from vera_lab.labelling.drafting import Drafts, write_drafts

    data = tmp_path / "d"
    shutil.copytree(TINY, data)
    doc, text = next(
        (r["doc_id"], r["text"]) for r in map(__import__("json").loads, (data / "corpus.jsonl").open())
    )
    quote = text[:30]
    claim = '=HYPERLINK("http://x.example","click")'
    path = write_drafts(Drafts(rows=[{"claim_id": "c1", "claim": claim, "label": "supported", "doc": doc,
                                      "evidence": quote, "status": "draft"}]), tmp_path / "drafts.csv")  # fmt: skip
    with path.open(encoding="utf-8") as handle:
        written = next(csv.DictReader(handle))
    assert written["claim"] == "'" + claim  # a spreadsheet shows it as text, never runs it
    claims, _ = import_claims(path, data)
    assert claims.claims[0].text == claim


def test_numbers_a_command_cannot_honour_are_refused_in_words(capsys, tmp_path):
    for minutes in ("-5", "nan", "0"):
        with pytest.raises(SystemExit) as stop:
            main(["init", str(tmp_path), "--minutes", minutes])
        assert stop.value.code == 2 and "argument --minutes" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["plan", str(tmp_path), "--claims", "c.csv", "--top", "-1"])
    assert stop.value.code == 2 and "'-1' is not a whole number >= 1" in capsys.readouterr().err
    from vera_lab.sweep.config import Configuration

    chunker = {"strategy": "fixed", "size": 40, "overlap": 0}
    with pytest.raises(ValueError, match=r"k=7\.5: a whole number >= 1 \(7\.5 is refused, not rounded\)"):
        Configuration.create(chunker, k=7.5)
    for k in (0, -3):
        with pytest.raises(ValueError, match=rf"k={k}: a whole number >= 1 \(below 1\)"):
            Configuration.create(chunker, k=k)
    from vera_lab.grounding.cross_encoder import TrainRecipe

    with pytest.raises(ValueError, match=r"frozen_layers=5 \(the default\) must be below layers=1"):
        TrainRecipe(layers=1)


def test_ingest_skips_link_loops_folder_links_and_files_that_vanish(tmp_path, capsys, monkeypatch):
    import vera_lab.data.ingest as ingest

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Bees pollinate crops.")
    (docs / "self").symlink_to("self")
    (docs / "here").symlink_to(".")
    listed = list(ingest.files_under(docs))
    monkeypatch.setattr(ingest, "files_under", lambda root, exclude=None: [*listed, docs / "gone.txt"])
    assert main(["ingest", str(docs), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "skipped self: a symbolic link loop (to self)" in err
    assert "skipped here: a link to a folder (not followed" in err
    assert "skipped gone.txt: cannot read (No such file or directory)" in err
    assert (tmp_path / "out" / "corpus.jsonl").read_text().count("\n") == 1


def test_init_on_the_current_folder_names_the_dataset_after_it(tmp_path, capsys, monkeypatch):
    docs = tmp_path / "docs"
    shutil.copytree(OWN / "docs", docs)
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")
    monkeypatch.chdir(docs)
    assert main(["init", ".", str(OWN / "claims.csv"), "--minutes", "1", "--cache-dir", str(tmp_path / "c"),
                 "--quiet"]) == 0  # fmt: skip
    assert (tmp_path / "docs-dataset" / "sweep.yaml").is_file()


def test_help_says_each_default_once_and_percent_signs_plainly(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = capsys.readouterr().out
    flat = " ".join(text.split())
    assert "95%%" not in flat and "95%" in flat and "(default: None)" not in flat
    assert "(default: compare-<dataset folder>)" in flat and "compare-<dataset folder>) (default" not in flat


def test_compare_on_a_run_that_recommended_nothing_says_so(tmp_path):
    import json

    from vera_lab.sweep.confirm import compare_on

    run = tmp_path / "run"
    shutil.copytree(HERE / "data" / "store-v1", run)
    (run / "recommendation.json").write_text(json.dumps({"metric": "mrr", "error": "no finished config"}))
    with pytest.raises(ValueError, match="the sweep recommended nothing"):
        compare_on(run, TINY, progress=False)


def test_compare_on_the_data_the_sweep_chose_on_says_it_is_no_held_out_check(tmp_path, capsys):
    from vera_lab.sweep import parse_config, run_sweep

    config = parse_config({"name": "s", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}], "metric": "hit"})  # fmt: skip
    run = run_sweep(config, tmp_path / "r", cache_dir=tmp_path / "c", progress=False)
    capsys.readouterr()
    assert main(["compare", str(run.directory), "--dataset", str(TINY), "--cache-dir", str(tmp_path / "c"),
                 "--quiet"]) == 0  # fmt: skip
    out = " ".join(capsys.readouterr().out.split())
    assert "are ones the sweep chose on, so this is not a held-out check" in out
    assert "INCONCLUSIVE" in out and "too few to tell" in out


def test_a_default_overlap_too_big_for_a_parent_size_is_named_as_a_default():
    from vera_lab.sweep.config import Configuration

    with pytest.raises(ValueError, match="overlap 200 is fixed's default, not yours: set overlap"):
        Configuration.create({"strategy": "sentence", "size": 300, "overlap": 0}, "hashing",
                          retrieval={"expand": {"parent": {"strategy": "fixed", "size": 20}}})  # fmt: skip


def test_a_cited_id_that_differs_from_the_corpus_only_by_unicode_normalisation_is_named(tmp_path):
    import json
    import unicodedata

    from vera_lab.data import DatasetError, load_dataset

    nfd = unicodedata.normalize("NFD", "café.txt")
    (tmp_path / "corpus.jsonl").write_text(
        json.dumps({"doc_id": nfd, "text": "Bees pollinate crops."}) + "\n"
    )
    claim = {"claim_id": "1", "claim": "x", "label": "unsupported", "evidence": [],
             "cited_doc_ids": [unicodedata.normalize("NFC", "café.txt")]}  # fmt: skip
    (tmp_path / "claims.jsonl").write_text(json.dumps(claim) + "\n")
    with pytest.raises(DatasetError, match="differ only by Unicode normalisation"):
        load_dataset(tmp_path)


def test_a_password_protected_word_document_is_skipped_as_encrypted(tmp_path):
    from vera_lab.data.ingest import OLE_MAGIC, SkippedFile, docx_text

    locked = tmp_path / "locked.docx"
    locked.write_bytes(OLE_MAGIC + b"\0" * 100 + "EncryptedPackage".encode("utf-16-le") + b"\0" * 100)
    with pytest.raises(SkippedFile, match="encrypted \\(password-protected\\) Word document"):
        docx_text(locked)


def test_a_verifier_that_cannot_cross_fit_is_said_in_words_and_the_sweep_finishes(tmp_path, monkeypatch):
    import json

    from vera_lab.sweep import parse_config, run_sweep

    monkeypatch.setattr("vera_lab.grounding.verifier.MIN_PER_SIDE_TO_ADAPT", 1)  # tiny has 6 claims

    options = {"adapt": True, "start": "minilm", "layers": 2, "frozen_layers": 1, "folds": 99}
    config = parse_config({"name": "v", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}], "metric": "hit",
                           "verify": "choice", "verifier": options})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False)
    choice = json.loads((run.directory / "recommendation.json").read_text())["grounding_choice"]
    assert choice["error"].startswith("no configuration judged by the verifier finished: VerifierError")
    assert "99 folds need claims about at least 99 separate documents" in choice["error"]


def test_a_full_disk_while_the_verifier_is_written_names_the_folder_and_what_to_do(tmp_path, monkeypatch):
    import errno

    import safetensors.numpy

    from vera_lab.grounding import cross_encoder
    from vera_lab.grounding.verifier import VerifierError, _write_checked

    def full(tensors, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cross_encoder, "trained_tensors", lambda model, frozen: {})
    monkeypatch.setattr(safetensors.numpy, "save_file", full)
    with pytest.raises(VerifierError, match=f"no space left on the device holding {tmp_path}.*--cache-dir"):
        _write_checked(None, tmp_path / "fold0.safetensors", 5)
    assert not list(tmp_path.iterdir())  # nothing half-written is left behind


@pytest.mark.parametrize("spec", ["openai:@http://127.0.0.1:9/v1", "openai:m@ftp://127.0.0.1/v1", "openai:m"])
def test_drafting_and_embedders_read_a_server_address_by_one_rule(spec):
    from vera_lab.embedding.base import EmbedderError
    from vera_lab.embedding.openai_compat import parse_spec
    from vera_lab.labelling.drafting import asker

    with pytest.raises(ValueError, match="write openai:<model>@<base URL>"):
        asker(spec)
    with pytest.raises(EmbedderError, match="write openai:<model>@<base URL>"):
        parse_spec(spec)


def test_a_slow_openai_compatible_server_is_said_to_have_timed_out(monkeypatch):
    import httpx

    from vera_lab.llm.ollama import OllamaError
    from vera_lab.llm.structured import ask_json_once

    def slow(*args, **kwargs):
        raise httpx.ReadTimeout("timed out")

    monkeypatch.setattr(httpx, "post", slow)
    monkeypatch.setenv("VERA_LAB_OLLAMA_TIMEOUT", "5")
    with pytest.raises(OllamaError, match="did not answer within 5 s.*VERA_LAB_OLLAMA_TIMEOUT"):
        ask_json_once("openai", "m", "http://127.0.0.1:9/v1", "system", "user", {"type": "object"})


def test_credentials_in_a_base_url_are_refused_before_anything_is_stored(tmp_path):
    from vera_lab.sweep import parse_config
    from vera_lab.sweep.config import SweepConfigError

    spec = "openai:nomic@https://me:s3cret@llm.example.org/v1"
    with pytest.raises(SweepConfigError) as caught:
        parse_config({"dataset": str(TINY), "embedders": [spec],
                      "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]})  # fmt: skip
    assert "carries credentials" in str(caught.value) and "OPENAI_API_KEY" in str(caught.value)
    assert "s3cret" not in str(caught.value)  # the message itself never repeats the secret
    assert main(["evaluate", "--dataset", str(TINY), "--embedder", spec, "--cache-dir", str(tmp_path)]) == 2


def test_a_refused_write_is_not_called_a_damaged_cache(tmp_path, monkeypatch):
    import sqlite3

    from vera_lab.embedding import EmbedderError
    from vera_lab.embedding.cache import EmbeddingCache

    def refuse(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")  # what SQLite says under ulimit -f

    monkeypatch.setattr(sqlite3, "connect", refuse)
    with pytest.raises(EmbedderError) as caught:
        EmbeddingCache(tmp_path)
    assert "cannot write the embedding cache" in str(caught.value) and "ulimit -f" in str(caught.value)
    assert "delete" not in str(caught.value)


# Every command that writes a file the user names, with what it reads (its own inputs) and the option
# that names its output. The refusals come before any work, so a run folder need not hold a sweep.
def _writers(tmp_path: Path) -> dict[str, tuple[list[str], list[Path]]]:
    data = tmp_path / "data"
    if not data.exists():
        shutil.copytree(TINY, data)
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "a.md").write_text("# A\n\nA document of its own.\n")
        (tmp_path / "pairs.jsonl").write_text(
            '{"claim": "A cat sat.", "passage": "The cat sat on the mat."}\n'
        )
        (tmp_path / "candidates.csv").write_text("claim_id,claim,doc\nc1,A claim.,d1\n")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    return {
        "contrast": (["contrast", "--dataset", str(data), "--out"], [data / "claims.jsonl"]),
        "verify": (["verify", str(tmp_path / "pairs.jsonl"), *cache, "--out"], [tmp_path / "pairs.jsonl"]),
        "plan": (["plan", str(tmp_path), "--claims", str(tmp_path / "candidates.csv"), *cache, "--out"],
                 [tmp_path / "candidates.csv"]),
        "export": (["export", str(tmp_path), "--to", "jsonl", *cache], []),
        "claims --draft": (["claims", "--dataset", str(data), "--draft", "2", "--llm", "ollama:m"], []),
        "ingest": (["ingest", str(tmp_path / "docs"), "--quiet", "--out"], []),
        "convert": (["convert", "scifact", str(tmp_path / "nowhere")], []),
    }  # fmt: skip


def _argv(command: list[str], name: str, target: Path) -> list[str]:
    """The command line with ``target`` as its output (a folder for the commands that write one)."""
    if name in ("ingest", "convert"):
        return [*command, str(target.parent)]
    if name == "claims --draft":
        return [command[0], str(target), *command[1:]]
    return [*command, str(target)]


def _output_name(name: str) -> str:
    return {"ingest": "corpus.jsonl", "convert": "corpus.jsonl", "plan": "order.csv",
            "claims --draft": "drafts.csv"}.get(name, "out.jsonl")  # fmt: skip


WRITERS = ["contrast", "verify", "plan", "export", "claims --draft", "ingest", "convert"]


@pytest.mark.parametrize("name", WRITERS)
@pytest.mark.parametrize("kind", ["existing file", "link to a file elsewhere"])
def test_no_writing_command_changes_a_file_the_user_owns_without_force(name, kind, tmp_path, capsys):
    command, _ = _writers(tmp_path)[name]
    outside = tmp_path / "elsewhere" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("the user's own words\n")
    target = tmp_path / "out" / _output_name(name)
    target.parent.mkdir()
    if kind == "existing file":
        target.write_text("the user's own words\n")
    else:
        target.symlink_to(outside)
    before = _snapshot(tmp_path)
    assert main(_argv(command, name, target)) == 2
    err = capsys.readouterr().err
    assert str(target) in err and "--force" in err
    assert _snapshot(tmp_path) == before  # nothing changed, nothing written anywhere


@pytest.mark.parametrize("name", ["contrast", "verify", "plan"])
def test_no_writing_command_writes_over_its_own_input_even_with_force(name, tmp_path, capsys):
    command, inputs = _writers(tmp_path)[name]
    before = _snapshot(tmp_path)
    for force in ([], ["--force"]):
        assert main([*_argv(command, name, inputs[0]), *force]) == 2
        assert "is this command's own input" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


@pytest.mark.model
@pytest.mark.parametrize("name", ["contrast", "verify"])
def test_forced_over_a_link_a_command_replaces_the_link_never_the_file_it_points_to(name, tmp_path):
    command, _ = _writers(tmp_path)[name]
    outside = tmp_path / "elsewhere" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("the user's own words\n")
    target = tmp_path / "out" / "out.jsonl"
    target.parent.mkdir()
    target.symlink_to(outside)
    inputs = {k: v for k, v in _snapshot(tmp_path).items() if not k.startswith(("out", "cache"))}
    assert main([*_argv(command, name, target), "--force"]) == 0
    assert outside.read_text() == "the user's own words\n"
    assert not target.is_symlink() and target.read_text().startswith("{")
    after = {k: v for k, v in _snapshot(tmp_path).items() if not k.startswith(("out", "cache"))}
    assert after == inputs  # written: the named output (and the cache it was told to use), nothing else


def test_evaluates_older_config_spelling_still_works_and_says_it_will_go(capsys):
    from vera_lab.cli.main import build_parser

    args = build_parser().parse_args(["evaluate", "--dataset", "d", "--config", "rec.json"])
    assert args.recommendation == "rec.json"
    assert "vera-lab evaluate: warning: --config is now --recommendation here" in capsys.readouterr().err
    build_parser().parse_args(["evaluate", "--dataset", "d", "--recommendation", "rec.json"])
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", ["ingest", "init"])
@pytest.mark.parametrize("out", [".", ".."])
def test_a_dataset_is_never_written_in_or_around_the_folder_of_documents(
    command, out, tmp_path, capsys, monkeypatch
):
    docs = tmp_path / "docs"
    shutil.copytree(OWN / "docs", docs)
    monkeypatch.chdir(docs)
    before = _snapshot(tmp_path)
    assert (
        main(
            [
                command,
                ".",
                "--out",
                out,
                "--quiet",
                *(["--cache-dir", str(tmp_path / "c")] * (command == "init")),
            ]
        )
        == 2
    )
    word = "is" if out == "." else "holds"
    assert (
        f"--out {out} {word} the documents folder .: the dataset would be written among"
        in capsys.readouterr().err
    )
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("out", ["afile", "afile/sub"])
def test_a_file_where_a_folder_is_needed_is_named_and_left_as_it_is(out, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("afile").write_text("the user's own words\n")
    assert main(["ingest", str(OWN / "docs"), "--out", out, "--quiet"]) == 2
    assert "error: afile is a file where a folder is needed: name a folder" in capsys.readouterr().err
    assert Path("afile").read_text() == "the user's own words\n"


@pytest.mark.parametrize("name", ["export", "plan"])
@pytest.mark.parametrize(
    "inside", ["results.csv", "manifest.json", "claims/abc.csv", "compare-x/results.csv"]
)
def test_no_command_writes_over_the_runs_own_files_even_with_force(name, inside, tmp_path, capsys):
    command, _ = _writers(tmp_path)[name]
    run = tmp_path  # the run folder these commands read (see _writers)
    (run / inside).parent.mkdir(exist_ok=True)
    (run / "compare-x" / "manifest.json").parent.mkdir(exist_ok=True)
    (run / "compare-x" / "manifest.json").write_text("{}")  # a comparison's store under the run
    (run / inside).write_text("the run's own rows\n")
    before = _snapshot(tmp_path)
    assert main([*_argv(command, name, run / inside), "--force"]) == 2
    assert "is one of the run's own files" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


def test_convert_never_writes_over_the_public_source_it_reads_even_with_force(tmp_path, capsys):
    source = tmp_path / "scifact"
    source.mkdir()
    (source / "corpus.jsonl").write_text('{"doc_id": 1, "title": "T", "abstract": ["A sentence."]}\n')
    (source / "claims_train.jsonl").write_text(
        '{"id": 1, "claim": "A claim.", "evidence": {}, "cited_doc_ids": [1]}\n'
    )
    before = _snapshot(tmp_path)
    for force in ([], ["--force"]):
        assert main(["convert", "scifact", str(source), str(source), *force]) == 2
        assert "is this command's own input" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


def test_a_claims_file_among_the_documents_is_never_a_document(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")
    docs = tmp_path / "docs"
    shutil.copytree(OWN / "docs", docs)
    (docs / "claims.csv").write_bytes((OWN / "claims.csv").read_bytes().replace(b"\n", b"\r\n"))
    assert main(["init", str(docs), str(docs / "claims.csv"), "--minutes", "1", "--cache-dir", str(tmp_path / "c"),
                 "--quiet"]) == 0  # fmt: skip
    assert "left out claims.csv: the claims file, not a document" in capsys.readouterr().out
    assert '"claims.csv"' not in (tmp_path / "docs-dataset" / "corpus.jsonl").read_text()
    data = tmp_path / "ingested"  # ingest alone cannot know; claims then refuses the mix
    assert main(["ingest", str(docs), "--out", str(data), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["claims", str(docs / "claims.csv"), "--dataset", str(data)]) == 2
    assert "claims.csv in the corpus is this claims file" in capsys.readouterr().err
    assert not (data / "claims.jsonl").exists()


def test_a_new_file_in_a_folder_of_the_users_under_the_run_may_be_written(tmp_path):
    from vera_lab.sweep.store import ResultsStore

    store = ResultsStore(tmp_path)
    (tmp_path / "exports").mkdir()
    assert not store.holds_file(tmp_path / "exports" / "chunks.jsonl")
    assert not store.holds_file(tmp_path / "to_label.csv") and not store.holds_file(tmp_path.parent / "x.csv")
    assert store.holds_file(tmp_path / "report.md") and store.holds_file(tmp_path / "configs" / "a.json")
