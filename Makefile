# Set-up is part of every target: a fresh clone needs only `make sweep` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export RAGAS_DO_NOT_TRACK := true

.PHONY: sweep test demo lint bench datasets clean

$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch is pinned to the local CPU build: an unpinned resolve pulls a multi-GB CUDA build.
	$(BIN)/pip install -q -c requirements/constraints.txt -e '.[model,ollama,dask,dev]'
	touch $@

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -q -c requirements/constraints.txt -e '.[model,ollama,dask,dev,bench]'
	touch $@

# The main job: sweep the default grid on SciFact, write results/default/ and its report.
sweep: $(STAMP)
	$(BIN)/vera-lab sweep sweeps/default.yaml

test: $(STAMP)
	$(BIN)/ruff check vera_lab tests benchmarks
	$(BIN)/pytest -q -n 2 --hypothesis-profile=ci

demo: $(STAMP)
	$(BIN)/vera-lab demo

lint: $(STAMP)
	$(BIN)/ruff check vera_lab tests benchmarks
	$(BIN)/ruff format --check vera_lab tests benchmarks

bench: $(BENCH_STAMP)
	$(BIN)/python benchmarks/sentence_boundaries.py
	$(BIN)/python benchmarks/chunking_speed.py
	$(BIN)/python benchmarks/embedding_speed.py
	$(BIN)/python benchmarks/chroma_reproduction.py
	$(BIN)/python benchmarks/sweep_cost.py

# Regenerate the bundled datasets from ../shared/data (they are committed; this proves the conversion).
datasets: $(STAMP)
	$(BIN)/vera-lab convert scifact ../shared/data/scifact datasets/scifact
	$(BIN)/vera-lab convert chroma-eval ../shared/data/chroma-eval datasets/chroma-eval

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
