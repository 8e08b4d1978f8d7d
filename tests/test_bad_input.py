"""A bad-input suite: every case exits 2 with one line naming the file, line or parameter, prints no
traceback, and leaves every file that was there before untouched."""

import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest

from vera_lab.cli import main
from vera_lab.sweep import ResultsStore

HERE = Path(__file__).parent
TINY = HERE / "data" / "tiny"
STORE_V1 = HERE / "data" / "store-v1"
SWEEP = {"name": "good", "embedders": ["hashing"], "presets": [],
         "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]}  # fmt: skip


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A finished sweep to point report, export and runs at."""
    root = tmp_path_factory.mktemp("stored")
    path = root / "good.yaml"
    path.write_text(json.dumps({**SWEEP, "dataset": str(TINY)}))
    assert (
        main(
            [
                "sweep",
                str(path),
                "--results-dir",
                str(root / "r"),
                "--cache-dir",
                str(root / "c"),
                "--no-report",
            ]
        )
        == 0
    )
    return root / "r" / "good"


class Workspace:
    """A scratch folder with a dataset copy and helpers to write bad inputs into it."""

    def __init__(self, root: Path, stored: Path) -> None:
        self.root, self.stored = root, stored
        self.data = Path(shutil.copytree(TINY, root / "data"))
        self.results = Path(shutil.copytree(stored.parent, root / "results"))

    def claims_line(self, line: str, replace: int = 1) -> list[str]:
        lines = (self.data / "claims.jsonl").read_text().splitlines()
        lines[replace] = line
        (self.data / "claims.jsonl").write_text("\n".join(lines) + "\n")
        return self.evaluate()

    def evaluate(self, *extra: str) -> list[str]:
        return ["evaluate", "--dataset", str(self.data), "--strategy", "fixed", "--size", "40", "--overlap", "0",
                "--embedder", "hashing", "--cache-dir", str(self.root / "cache"), *extra]  # fmt: skip

    def sweep(self, **overrides) -> list[str]:
        path = self.root / "sweep.yaml"
        path.write_text(json.dumps({**SWEEP, "dataset": str(self.data), **overrides}))
        return self.sweep_file(path)

    def sweep_yaml(self, text: str) -> list[str]:
        path = self.root / "sweep.yaml"
        path.write_text(text.replace("DATA", str(self.data)))
        return self.sweep_file(path)

    def sweep_file(self, path: Path) -> list[str]:
        return [
            "sweep",
            str(path),
            "--results-dir",
            str(self.results),
            "--cache-dir",
            str(self.root / "cache"),
        ]

    def then(self, path: Path, data: bytes | str, argv: list[str]) -> list[str]:
        """Write ``data`` to ``path`` (inside the workspace), then run ``argv``."""
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return argv

    def file(self, name: str, data: bytes | str) -> str:
        path = self.root / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return str(path)

    def chunk(self, *args: str) -> list[str]:
        text = self.file("doc.md", "# Title\n\nSome text. More text here.\n")
        return ["chunk", text, *args]


GOOD_CLAIM = {
    "claim_id": "x",
    "claim": "c",
    "label": "supported",
    "evidence": [{"doc_id": "bees", "start": 0, "end": 5}],
}


def claim(**changes) -> str:
    return json.dumps({**GOOD_CLAIM, **changes})


class Html501(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - the http.server interface
        body = b"<html><body><h1>501 Not Implemented</h1></body></html>"
        self.send_response(501)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def html_server(ws, monkeypatch):
    server = http.server.HTTPServer(("127.0.0.1", 0), Html501)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ws.servers.append(server)
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.server_port}")
    return ws.evaluate("--embedder", "ollama:m")


def encrypted_pdf(ws) -> list[str]:
    from .test_own_data import make_encrypted_pdf

    path = make_encrypted_pdf(ws.root / "locked.pdf")
    hidden = ws.root / "locked.bin"  # no .pdf extension: recognised by content
    path.rename(hidden)
    return ["chunk", str(hidden), "--strategy", "fixed"]


def locked(ws, monkeypatch):
    store = ResultsStore(ws.results / "good")
    context = store.lock()
    context.__enter__()
    ws.cleanup.append(lambda: context.__exit__(None, None, None))
    return ws.sweep()


def corrupt_cache(ws):
    (ws.root / "cache").mkdir()
    (ws.root / "cache" / "embeddings.sqlite").write_bytes(b"this is not a database" * 100)
    return ws.evaluate()


def data_changed(ws):
    text = (ws.data / "claims.jsonl").read_text().replace("Solar panels turn", "Solar panels change")
    (ws.data / "claims.jsonl").write_text(text)
    return ws.sweep()


def fake_ollama(ws, monkeypatch, vector) -> list[str]:
    """An Ollama stand-in on 127.0.0.1 whose model ``m`` answers ``vector(text)``; evaluate with it."""
    from .fake_ollama import FakeOllama

    server = FakeOllama(models={"m": 8})
    server.vector = lambda text, dim: vector(text)
    server.__enter__()
    ws.cleanup.append(lambda: server.__exit__(None, None, None))
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    return ws.evaluate("--embedder", "ollama:m")


class SlowOllama(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - the http.server interface
        import time

        time.sleep(2)  # longer than the timeout the case sets

    def log_message(self, *args):
        pass


def slow_server(ws, monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowOllama)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ws.servers.append(server)
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.server_port}")
    monkeypatch.setenv("VERA_LAB_OLLAMA_TIMEOUT", "0.5")
    return ws.evaluate("--embedder", "ollama:m")


def run_of_changed_data(ws, *command: str) -> list[str]:
    """Sweep the workspace's data, then change a document: ``command`` then reads that run."""
    assert main([*ws.sweep(name="fresh"), "--quiet", "--no-report"]) == 0
    corpus = ws.data / "corpus.jsonl"
    corpus.write_text(corpus.read_text().replace("Solar panels", "Solar panels, it is said,", 1))
    return [*command[:1], str(ws.results / "fresh"), *command[1:]]


def all_failed_then_export(ws, monkeypatch) -> list[str]:
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    main([*ws.sweep(name="failed", embedders=["ollama:m"]), "--quiet", "--no-report"])
    return ["export", str(ws.results / "failed"), "--to", "jsonl", str(ws.root / "x.jsonl")]


def without_evidence(ws) -> list[str]:
    lines = [json.loads(line) for line in (ws.data / "claims.jsonl").read_text().splitlines()]
    (ws.data / "claims.jsonl").write_text("".join(json.dumps({**r, "evidence": []}) + "\n" for r in lines))
    return [*ws.sweep(name="noevidence"), "--quiet"]


def disk_full_cache(ws, monkeypatch) -> list[str]:
    """The cache's real ``put`` on a database that answers as SQLite does when the disk is full."""
    import sqlite3

    from vera_lab.embedding.cache import EmbeddingCache

    class FullDatabase:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def execute(self, *args):
            raise sqlite3.OperationalError("database or disk is full")

    real_put = EmbeddingCache.put

    def put(self, *args):
        self._db = FullDatabase()
        return real_put(self, *args)

    monkeypatch.setattr(EmbeddingCache, "put", put)
    return ws.evaluate()


def disk_full_write(ws, monkeypatch) -> list[str]:
    from .faults import fill_the_disk

    fill_the_disk(monkeypatch)
    return ["ingest", str(ws.data), "--out", str(ws.root / "out"), "--quiet"]


CASES = {
    # dataset files
    "claims invalid JSON": (lambda ws, mp: ws.claims_line("{not json"), "claims.jsonl:2: invalid JSON"),
    "claims missing label": (lambda ws, mp: ws.claims_line('{"claim_id": "x", "claim": "c"}'), "claims.jsonl:2: missing field 'label'"),
    "claims unknown label": (lambda ws, mp: ws.claims_line(claim(label="maybe")), "label 'maybe'"),
    "evidence start true": (lambda ws, mp: ws.claims_line(claim(evidence=[{"doc_id": "bees", "start": True, "end": 5}])), "start and end must be integers"),
    "evidence doc_id list": (lambda ws, mp: ws.claims_line(claim(evidence=[{"doc_id": ["bees"], "start": 0, "end": 5}])), "doc_id must be a string"),
    "evidence out of range": (lambda ws, mp: ws.claims_line(claim(evidence=[{"doc_id": "bees", "start": 0, "end": 99999}])), "out of range"),
    "lone surrogate": (lambda ws, mp: ws.claims_line('{"claim_id": "x", "claim": "bad \\udc80", "label": "unsupported"}'), "lone surrogate"),
    "cited doc unknown": (lambda ws, mp: ws.claims_line(claim(cited_doc_ids=["nowhere"])), "'nowhere', which is not in the corpus"),
    "empty claims file": (lambda ws, mp: ws.then(ws.data / "claims.jsonl", "", ws.evaluate()), "claims.jsonl: no claims"),
    "empty corpus": (lambda ws, mp: ws.then(ws.data / "corpus.jsonl", "\n", ws.evaluate()), "corpus.jsonl: no documents"),
    "duplicate doc id": (lambda ws, mp: ws.then(ws.data / "corpus.jsonl", (ws.data / "corpus.jsonl").read_text() * 2, ws.evaluate()), "duplicate doc_id"),
    "corpus not UTF-8": (lambda ws, mp: ws.then(ws.data / "corpus.jsonl", b'{"doc_id": "a", "text": "x"}\n\xff\xfe', ws.evaluate()), "not UTF-8"),
    "dataset missing": (lambda ws, mp: ["evaluate", "--dataset", str(ws.root / "nowhere"), "--strategy", "fixed"], "no corpus.jsonl"),
    "dataset.json bad scope": (lambda ws, mp: ws.then(ws.data / "dataset.json", '{"scope": "everything"}', ws.evaluate()), "dataset.json: scope 'everything'"),
    # sweep definitions
    "invalid YAML": (lambda ws, mp: ws.sweep_yaml("name: [unclosed"), "invalid YAML"),
    "unknown key": (lambda ws, mp: ws.sweep(metrik="mrr"), "unknown key 'metrik'"),
    "unknown strategy": (lambda ws, mp: ws.sweep(grid=[{"strategy": "nope"}]), "unknown strategy 'nope'"),
    "unknown parameter": (lambda ws, mp: ws.sweep(grid=[{"strategy": "fixed", "chunk_size": 5}]), "no parameter 'chunk_size'"),
    "overlap inf in YAML": (lambda ws, mp: ws.sweep_yaml("dataset: DATA\nembedders: [hashing]\ngrid:\n  - {strategy: fixed, size: 50, overlap: .inf}\n"), "overlap=inf"),
    "overlap nan in YAML": (lambda ws, mp: ws.sweep_yaml("dataset: DATA\nembedders: [hashing]\ngrid:\n  - {strategy: fixed, size: 50, overlap: .nan}\n"), "overlap=nan"),
    "overlap 1.0 in YAML": (lambda ws, mp: ws.sweep(grid=[{"strategy": "fixed", "size": 50, "overlap": 1.0}]), "overlap=1.0 is ambiguous"),
    "preset as a string": (lambda ws, mp: ws.sweep(presets="vera-999"), "unknown preset 'vera-999'"),
    "name escapes": (lambda ws, mp: ws.sweep(name="../x"), "name '../x'"),
    "holdout too big": (lambda ws, mp: ws.sweep(holdout=1.5), "holdout 1.5"),
    "unknown metric": (lambda ws, mp: ws.sweep(metric="accuracy"), "metric 'accuracy'"),
    "k zero": (lambda ws, mp: ws.sweep(k=0), "k=0"),
    "threshold word": (lambda ws, mp: ws.sweep(threshold="high"), "threshold='high'"),
    "confirm missing": (lambda ws, mp: ws.sweep(confirm=str(ws.root / "nowhere")), "confirm"),
    "empty grid": (lambda ws, mp: ws.sweep(grid=[]), "the grid is empty"),
    # command-line numbers and files
    "--overlap inf": (lambda ws, mp: ws.chunk("--strategy", "fixed", "--overlap", "inf"), "argument --overlap: 'inf' is not a finite number"),
    "--overlap nan": (lambda ws, mp: ws.chunk("--strategy", "fixed", "--overlap", "nan"), "argument --overlap: 'nan' is not a finite number"),
    "--size word": (lambda ws, mp: ws.chunk("--strategy", "fixed", "--size", "abc"), "argument --size: 'abc' is not a number"),
    "--size 0": (lambda ws, mp: ws.chunk("--strategy", "fixed", "--size", "0"), "size=0"),
    "--overlap 1.0": (lambda ws, mp: ws.chunk("--strategy", "fixed", "--overlap", "1.0"), "overlap=1.0 is ambiguous"),
    "--strategy unknown": (lambda ws, mp: ws.chunk("--strategy", "nope"), "unknown strategy 'nope'"),
    "markdown overlap": (lambda ws, mp: ws.chunk("--strategy", "markdown", "--overlap", "10"), "does not overlap chunks"),
    "missing file": (lambda ws, mp: ["chunk", str(ws.root / "nowhere.txt"), "--strategy", "fixed"], "nowhere.txt: cannot read"),
    "binary file": (lambda ws, mp: ["chunk", ws.file("x.txt", b"\0\1\2" * 10), "--strategy", "fixed"], "x.txt: looks binary"),
    "encrypted PDF by content": (lambda ws, mp: encrypted_pdf(ws), "encrypted; decrypt it first"),
    "corrupt PDF": (lambda ws, mp: ["chunk", ws.file("bad.pdf", b"%PDF-1.4\ngarbage"), "--strategy", "fixed"], "not a readable PDF"),
    # servers and caches
    "Ollama absent": (lambda ws, mp: mp.setenv("OLLAMA_HOST", "127.0.0.1:9") or ws.evaluate("--embedder", "ollama:m"), "no Ollama server at http://127.0.0.1:9"),
    "not an Ollama server": (html_server, "did not answer like an Ollama server"),
    "OLLAMA_HOST not a URL": (lambda ws, mp: mp.setenv("OLLAMA_HOST", "http://[::1") or ws.evaluate("--embedder", "ollama:m"), "OLLAMA_HOST 'http://[::1' is not a server address"),
    "OLLAMA_HOST without a host": (lambda ws, mp: mp.setenv("OLLAMA_HOST", "http://:11434") or ws.evaluate("--embedder", "ollama:m"), "OLLAMA_HOST 'http://:11434' is not a server address"),
    "Ollama too slow": (slow_server, "did not answer within 0.5 s (it may still be loading 'm'); try again, or wait longer with VERA_LAB_OLLAMA_TIMEOUT"),
    "Ollama timeout setting not a number": (lambda ws, mp: mp.setenv("VERA_LAB_OLLAMA_TIMEOUT", "soon") or ws.evaluate("--embedder", "ollama:m"), "VERA_LAB_OLLAMA_TIMEOUT 'soon'"),
    # garbage vectors never reach a metric or the cache
    "NaN vectors": (lambda ws, mp: fake_ollama(ws, mp, lambda text: [float("nan")] * 8), "returned NaN or infinite values for"),
    "ragged vectors": (lambda ws, mp: fake_ollama(ws, mp, lambda text: [1.0] * (3 + len(text) % 4)), "returned vectors of different lengths"),
    # the data behind a run
    "export after the data changed": (lambda ws, mp: run_of_changed_data(ws, "export", "--to", "jsonl", str(ws.root / "b.jsonl")), "the data behind this run changed since it ran"),
    "report after the data changed": (lambda ws, mp: run_of_changed_data(ws, "report"), "the corpus.jsonl file changed"),
    # numbers refused, not coerced
    "k 2.5": (lambda ws, mp: ws.sweep(k=2.5), "k=2.5: a whole number >= 1 (2.5 is refused, not rounded)"),
    "--dims 0": (lambda ws, mp: ws.evaluate("--dims", "0"), "dims=0: must be between 1"),
    "claims sample 0": (lambda ws, mp: ws.sweep(claims={"sample": 0}), "claims: sample 0: a whole number >= 1"),
    "distractors -1": (lambda ws, mp: ws.sweep(corpus={"distractors": -1}), "corpus: distractors -1: a whole number >= 0"),
    "claims sample misspelt": (lambda ws, mp: ws.sweep(claims={"samples": 3}), "claims: unknown key 'samples'"),
    # exit status and empty results
    "no evidence anywhere": (lambda ws, mp: without_evidence(ws), "needs claims with gold evidence, and none of its 6 claims has any"),
    "export after every config failed": (all_failed_then_export, "no recommended configuration (none finished"),
    # full disks
    "disk full in the cache": (disk_full_cache, "no space left on the device holding"),
    "disk full writing a file": (disk_full_write, "out/corpus.jsonl: free some space"),
    # smaller
    "YAML not UTF-8": (lambda ws, mp: ws.sweep_file(Path(ws.file("latin.yaml", "name: caf\xe9\n".encode("latin-1")))), "latin.yaml: not UTF-8 text (byte 9)"),
    "YAML duplicate key": (lambda ws, mp: ws.sweep_yaml("dataset: DATA\nembedders: [hashing]\nk: 3\nk: 5\ngrid: [{strategy: fixed, size: 40, overlap: 0}]\n"), "sweep.yaml:4: invalid YAML (duplicate key 'k'"),
    "claims CSV not UTF-8": (lambda ws, mp: ["claims", ws.file("c.csv", "claim_id,claim,label,doc,evidence\na,caf\xe9,supported,bees,x\n".encode("latin-1")), "--dataset", str(ws.data), "--force"], "c.csv: not UTF-8 text"),
    "claims CSV unquoted comma": (lambda ws, mp: ["claims", ws.file("c.csv", "claim_id,claim,label,doc,evidence\na,bees, and more,supported,bees,x\n"), "--dataset", str(ws.data), "--force"], "c.csv:2: 6 fields for 5 columns; a field holding a comma must be in double quotes"),
    "chunk size under the default overlap": (lambda ws, mp: ws.chunk("--strategy", "fixed", "--size", "60"), "overlap 200 is fixed's default, not yours: pass --overlap"),
    "name starting with a dot": (lambda ws, mp: ws.sweep(name=".hidden"), "start with a letter or digit"),
    "corrupt cache": (lambda ws, mp: corrupt_cache(ws), "not a usable embedding cache"),
    # results folders
    "report on a plain folder": (lambda ws, mp: ["report", str(ws.root)], "no manifest.json"),
    "report on a corrupt manifest": (lambda ws, mp: ws.then(ws.results / "good" / "manifest.json", "{", ["report", str(ws.results / "good")]), "manifest.json:1: not valid JSON"),
    "report on schema 1": (lambda ws, mp: ["report", str(STORE_V1)], "results schema 1"),
    "export into a folder": (lambda ws, mp: ["export", str(ws.results / "good"), "--to", "jsonl", str(ws.root)], "is a folder"),
    "export unknown config": (lambda ws, mp: ["export", str(ws.results / "good"), "--to", "jsonl", "--config", "nope", str(ws.root / "x.jsonl")], "no config 'nope'"),
    "data changed": (lambda ws, mp: data_changed(ws), "computed on other data"),
    "sweep folder in use": (locked, "another sweep is using it"),
    # own data (--force: the workspace's claims.jsonl is not vera-lab's; bad input still changes nothing)
    "claims unknown doc": (lambda ws, mp: ["claims", ws.file("c.jsonl", json.dumps({"claim_id": "a", "claim": "x", "label": "supported", "doc": "nowhere.md", "evidence": ["x"]}) + "\n"), "--dataset", str(ws.data), "--force"], "c.jsonl:1: doc 'nowhere.md'"),
    "claims CSV missing column": (lambda ws, mp: ["claims", ws.file("c.csv", "claim_id,claim\na,b\n"), "--dataset", str(ws.data), "--force"], "c.csv:1: missing column(s) label, doc, evidence"),
    "claims over the user's own claims.jsonl": (lambda ws, mp: ["claims", ws.file("c.csv", "claim_id,claim,label,doc,evidence\n"), "--dataset", str(ws.data)], "claims.jsonl was not written by vera-lab (it may be your own): pass --force"),
    "ingest missing folder": (lambda ws, mp: ["ingest", str(ws.root / "nowhere"), "--out", str(ws.root / "out")], "not a folder"),
    "convert wrong folder": (lambda ws, mp: ["convert", "scifact", str(ws.root), str(ws.root / "out")], "not found"),
    "recommendation not JSON": (lambda ws, mp: ["evaluate", "--dataset", str(ws.data), "--config", ws.file("rec.json", "{")], "rec.json: not a readable recommendation.json"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gets_one_clear_line_and_changes_nothing(name, stored, tmp_path, capsys, monkeypatch):
    ws = Workspace(tmp_path, stored)
    ws.servers, ws.cleanup = [], []
    make, expected = CASES[name]
    try:
        argv = make(ws, monkeypatch)
        before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
        capsys.readouterr()
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors exit
            code = exc.code
        err = capsys.readouterr().err
    finally:
        for server in ws.servers:
            server.shutdown()
            server.server_close()
        for step in ws.cleanup:
            step()
    lines = [line for line in err.splitlines() if line.strip() and ": warning: " not in line]
    assert code == 2, err
    assert len(lines) == 1, err
    assert expected in lines[0], err
    assert "Traceback" not in err
    after = {p: p.read_bytes() for p in before if p.exists()}
    assert after == before  # nothing that was there before changed or disappeared
