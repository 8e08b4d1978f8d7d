"""Per-token int8 quantisation of an ONNX graph: close to fp32, and each token's output its own."""

import numpy as np
import pytest

from vera_lab.embedding.quantize import quantize_per_token

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.model

RNG = np.random.default_rng(7)
WEIGHT = RNG.normal(size=(16, 6)).astype(np.float32)
BIAS = RNG.normal(size=6).astype(np.float32)


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """y = (x @ W + b) and z = y @ y^T: one weight MatMul, which is quantised, one between activations."""
    from onnx import TensorProto, helper, numpy_helper

    folder = tmp_path_factory.mktemp("quantize")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="/dense/MatMul"),
        helper.make_node("Add", ["xw", "b"], ["y"]),
        helper.make_node("Transpose", ["y"], ["y_t"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["y", "y_t"], ["z"], name="/attention/MatMul"),
    ]
    graph = helper.make_graph(
        nodes,
        "toy",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", 16])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "tokens", 6]),
            helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", "tokens", "tokens"]),
        ],
        [numpy_helper.from_array(WEIGHT, "w"), numpy_helper.from_array(BIAS, "b")],
    )
    fp32, int8 = folder / "fp32.onnx", folder / "int8.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(fp32))
    count = quantize_per_token(fp32, int8)
    return count, int8


def run(path, x):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(["y", "z"], {"x": x})


def test_only_the_weight_matmul_is_quantised(graphs):
    count, int8 = graphs
    ops = [node.op_type for node in onnx.load(str(int8)).graph.node]
    assert count == 1 and ops.count("MatMulIntegerToFloat") == 1
    assert ops.count("MatMul") == 1  # the product of two activations stays fp32


def test_int8_is_close_to_fp32_with_the_shape_kept(graphs):
    x = RNG.normal(size=(2, 5, 16)).astype(np.float32)
    y, z = run(graphs[1], x)
    assert y.shape == (2, 5, 6) and z.shape == (2, 5, 5) and y.dtype == np.float32
    exact = x @ WEIGHT + BIAS
    # symmetric int8 rounds each x to half a step of its token's scale and each weight to half a step
    # of its channel's: x.w - x'.w' = (x - x').w + x'.(w - w')
    x_step = np.abs(x).max(-1, keepdims=True) / 127
    w_step = np.abs(WEIGHT).max(0) / 127
    bound = x_step / 2 * np.abs(WEIGHT).sum(0) + (np.abs(x) + x_step / 2) @ np.broadcast_to(
        w_step / 2, (16, 6)
    )
    assert np.all(np.abs(y - exact) <= bound + 1e-5)
    assert np.abs(y - exact).max() < 0.1 and not np.allclose(y, exact, atol=1e-6)  # quantised, not fp32


def test_a_token_output_depends_on_that_token_only(graphs):
    x = RNG.normal(size=(2, 5, 16)).astype(np.float32)
    louder = x.copy()
    louder[0, 1] *= 1000  # one outlier token: a per-tensor scale would coarsen every other token
    louder[1, 4] = 0  # an all-zero token (padding) gets a finite scale, and the bias only
    y, _ = run(graphs[1], x)
    y2, _ = run(graphs[1], louder)
    others = np.ones((2, 5), bool)
    others[0, 1] = others[1, 4] = False
    assert np.array_equal(y[others], y2[others])
    assert np.array_equal(y2[1, 4], BIAS)
    alone, _ = run(graphs[1], x[1:, 2:3])  # the same token in a batch of one
    assert np.array_equal(alone[0, 0], y[1, 2])
