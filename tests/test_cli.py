import json
import subprocess
import sys
from pathlib import Path

import pytest

from vera_lab.cli import main


def run(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "vera_lab.cli", *args], input=stdin, capture_output=True, text=True
    )


def test_chunk_stdin_jsonl_reconstructs_text():
    text = "First sentence here. Second one follows!\n\nA new paragraph.\r\nWith CRLF."
    out = run("chunk", "-", "--strategy", "sentence", "--size", "30", "--overlap", "0", stdin=text)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows and all(text[r["start"] : r["end"]] == r["text"] for r in rows)
    assert {"chunk_id", "index", "start", "end", "text"} <= set(rows[0])


def test_chunk_reads_a_text_in_the_language_lang_names_and_records_it():
    # no common word decides this text; its letter trigrams guess German, and --lang names any language
    text = "Wie geht es dir am 3. Oktober? Gut."
    for lang, sentences in (("de", ["Wie geht es dir am 3. Oktober?", "Gut."]),
                            ("auto", ["Wie geht es dir am 3. Oktober?", "Gut."]),
                            ("en", ["Wie geht es dir am 3.", "Oktober?", "Gut."])):  # fmt: skip
        out = run("chunk", "-", "--strategy", "sentence", "--unit", "sentences", "--size", "1", "--overlap", "0",
                  "--lang", lang, stdin=text)  # fmt: skip
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        assert [text[r["start"] : r["end"]] for r in rows] == sentences
        assert {r["lang"] for r in rows} == {"de" if lang == "auto" else lang}
    out = run("chunk", "-", "--strategy", "sentence", "--lang", "xx", stdin=text)
    assert out.returncode == 2 and "--lang: invalid choice: 'xx'" in out.stderr


def test_chunk_table_and_stats(tmp_path, capsys):
    f = tmp_path / "doc.md"
    f.write_text("# Title\n\nSome text. " * 50)
    assert (
        main(["chunk", str(f), "--strategy", "token", "--size", "32", "--overlap", "8", "--format", "table"])
        == 0
    )
    assert capsys.readouterr().out.splitlines()[0].split()[:3] == ["index", "start", "end"]
    assert main(["chunk", str(f), "--strategy", "recursive", "--size", "100", "--format", "stats"]) == 0
    assert "storage_overhead" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["--strategy", "fixed", "--size", "10", "--overlap", "10"],
            "overlap=10 must be smaller than size=10",
        ),
        (["--strategy", "fixed", "--size", "0"], "size=0"),
        (["--strategy", "bogus"], "unknown strategy 'bogus'"),
        (["--strategy", "fixed", "--unit", "tokens"], "unit='tokens'"),
    ],
)
def test_bad_parameters_exit_non_zero_with_one_line(tmp_path, args, message):
    f = tmp_path / "t.txt"
    f.write_text("hello")
    out = run("chunk", str(f), *args)
    assert out.returncode != 0
    assert out.stderr.strip().count("\n") == 0 and message in out.stderr
    assert "Traceback" not in out.stderr


def test_unreadable_and_binary_files(tmp_path):
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"\x00\x01\x02abc")
    for path, message in ((binary, "looks binary"), (tmp_path / "missing.txt", "cannot read")):
        out = run("chunk", str(path), "--strategy", "fixed")
        assert out.returncode != 0 and message in out.stderr and "Traceback" not in out.stderr


def test_version_help_defaults_and_plain_progress_lines(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("vera-lab ")
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    help_text = capsys.readouterr().out
    assert "(default: .cache/vera_lab)" in help_text and "--quiet" in help_text
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps({"name": "q", "dataset": str(Path(__file__).parent / "data" / "tiny"),
                                "embedders": ["hashing"], "presets": [],
                                "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]}))  # fmt: skip
    args = [
        sys.executable,
        "-m",
        "vera_lab.cli",
        "sweep",
        str(path),
        "--cache-dir",
        str(tmp_path / "c"),
        "--no-report",
    ]
    piped = subprocess.run(
        [*args, "--results-dir", str(tmp_path / "r")], capture_output=True, text=True, check=True
    )
    lines = [line for line in piped.stderr.splitlines() if "warning" not in line]
    assert lines[0].startswith("estimate: about ") and "measured now" in lines[0]
    assert len(lines) == 3 and all(line.startswith("sweep ") and "\r" not in line for line in lines[1:])
    assert "fixed 40/0 chars (k=5, hashing): mrr" in piped.stderr  # named by its settings
    quiet = subprocess.run(
        [*args, "--results-dir", str(tmp_path / "q"), "--quiet"], capture_output=True, text=True
    )
    assert [line for line in quiet.stderr.splitlines() if "warning" not in line] == []
