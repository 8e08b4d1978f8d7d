"""The real MiniLM model: few, small checks (the model loads once per test session)."""

import numpy as np
import pytest

from vera_lab.embedding import get_embedder

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm")


def test_minilm_vectors_are_unit_and_meaningful(minilm):
    v = minilm.embed(
        ["A cat sits on the mat.", "A kitten is sitting on a rug.", "Interest rates rose sharply."]
    )
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2
    assert minilm.name == "minilm-l6-v2-384"


def test_minilm_truncated_to_matryoshka_dims():
    v = get_embedder("minilm", dims=128).embed(["hello world"])
    assert v.shape == (1, 128) and np.isclose(np.linalg.norm(v), 1, atol=1e-5)


def test_loading_the_packaged_weights_draws_no_bar_and_leaves_the_bars_on(capfd):
    from transformers.utils import logging as hf_logging

    get_embedder("minilm").embed(["hallo"])  # a fresh embedder loads the weights again
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()  # a user's own downloads still show theirs
