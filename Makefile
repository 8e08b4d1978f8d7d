# Set-up is part of every target: a fresh clone needs only `make sweep` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export RAGAS_DO_NOT_TRACK := true

NOTEBOOKS := 01-chunkers 02-sweep 03-strategies 04-grounding-verifier 05-report 06-own-data

.PHONY: setup sweep test demo lint bench datasets notebooks lab lab-screenshot clean

$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch is pinned to the local CPU build: an unpinned resolve pulls a multi-GB CUDA build.
	$(BIN)/pip install -q -c requirements/constraints.txt -e '.[model,ollama,dask,notebooks,ragas,export,chroma,structure,ingest,langchain,llamaindex,mlflow,dev]'
	touch $@

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -q -c requirements/constraints.txt -e '.[model,ollama,dask,notebooks,ragas,export,chroma,structure,ingest,langchain,llamaindex,mlflow,dev,bench]'
	touch $@

# Only prepare .venv (every other target does it too): then `.venv/bin/vera-lab ...` works.
setup: $(STAMP)

# The main job: sweep chunking for long contracts (ContractNLI dev), confirm the choice and the seed
# presets on ContractNLI test, write results/contractnli/ and its report.
sweep: $(STAMP)
	$(BIN)/vera-lab sweep sweeps/contractnli.yaml

test: $(STAMP)
	$(BIN)/ruff check vera_lab tests benchmarks
	$(BIN)/pytest -q -n 2 --hypothesis-profile=ci

demo: $(STAMP)
	$(BIN)/vera-lab demo

# Execute every notebook with small parameters; executed copies land in results/notebooks/. small.yaml
# holds every notebook's parameters, so papermill would warn once per key a notebook does not declare:
# --log-level ERROR keeps that known-harmless notice out (a failing cell still stops the run).
notebooks: $(STAMP)
	$(BIN)/jupytext --sync notebooks/*.py
	mkdir -p results/notebooks
	for nb in $(NOTEBOOKS); do \
	  $(BIN)/papermill notebooks/$$nb.ipynb results/notebooks/$$nb.ipynb --cwd notebooks \
	    -f notebooks/small.yaml --log-level ERROR || exit 1; \
	done

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks

# Start JupyterLab on 127.0.0.1, run notebook 01 in headless chromium, move the explorer's size slider,
# save results/lab-01-explorer.png.
lab-screenshot: $(STAMP)
	$(BIN)/python tests/e2e/lab_screenshot.py results/lab-01-explorer.png

lint: $(STAMP)
	$(BIN)/ruff check vera_lab tests benchmarks
	$(BIN)/ruff format --check vera_lab tests benchmarks

bench: $(BENCH_STAMP)
	$(BIN)/python benchmarks/sentence_boundaries.py
	$(BIN)/python benchmarks/language_trigrams.py
	$(BIN)/python benchmarks/chunking_speed.py
	$(BIN)/python benchmarks/embedding_speed.py
	$(BIN)/python benchmarks/embedding_backends.py
	$(BIN)/python benchmarks/chroma_reproduction.py
	$(BIN)/python benchmarks/sweep_cost.py
	$(BIN)/python benchmarks/structure_latency.py
	$(BIN)/python benchmarks/grounding_honesty.py
	$(BIN)/python benchmarks/halving_fidelity.py
	$(BIN)/python benchmarks/verifier.py
	$(BIN)/python benchmarks/cluster_resampling.py  # reads results/contractnli: after `make sweep`
	$(BIN)/python benchmarks/retrievers.py
	$(BIN)/python benchmarks/label_planner.py  # reads results/contractnli too
	$(BIN)/python benchmarks/contrast_verifier.py

# Regenerate the bundled datasets from ../shared/data (they are committed; this proves the conversion).
datasets: $(STAMP)
	$(BIN)/vera-lab convert scifact ../shared/data/scifact datasets/scifact
	$(BIN)/vera-lab convert chroma-eval ../shared/data/chroma-eval datasets/chroma-eval
	$(BIN)/vera-lab convert contractnli ../shared/data/contractnli/dev.json datasets/contractnli-dev
	$(BIN)/vera-lab convert contractnli ../shared/data/contractnli/test.json datasets/contractnli-test

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
