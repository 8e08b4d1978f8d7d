"""int8 ONNX graphs with one activation scale per token, so that a vector depends on its text only.

ONNX Runtime's ``quantize_dynamic`` scales activations per tensor: one scale over a whole batch,
padding included, so a text's int8 vector changed with its batch-mates (cosine 0.993-0.996 to the
same text alone) and the embedding cache, keyed by text, kept whichever batch came first. Here each
row of an activation (one token) gets its own symmetric scale, which no other row affects; weights
are int8 with one scale per output channel. Every MatMul with a constant weight becomes::

    s = max|x| / 127 per token                       (ReduceMax over the last axis)
    q = QuantizeLinear(x, s, 128)                    uint8, zero point 128
    y = MatMulIntegerToFloat(q, W8, 1, w_scale, 128) * s

On 144 passages of ~250 tokens this gave a mean cosine of 0.9975 to fp32 (minimum 0.9958) against
0.9951 (0.9888) for per-tensor scales, as fast when the machine was quiet, and vectors of a text
alone and in a batch within 1.3e-7 of each other.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_ZERO_POINT = 128  # uint8 activations centred on 128: ONNX Runtime takes a scalar zero point only


def quantize_per_token(source: Path, target: Path) -> int:
    """Write ``source`` with every constant-weight MatMul in int8 to ``target``; return how many."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    weights = {init.name: init for init in graph.initializer}

    added: list = []  # the new initializers: int8 weights, their scales, graph constants

    def constant(value: np.ndarray, name: str) -> str:
        added.append(numpy_helper.from_array(value, name))
        return name

    zero_point = constant(np.array(_ZERO_POINT, np.uint8), "q/zero_point")
    one = constant(np.array(1.0, np.float32), "q/one")
    inv_127 = constant(np.array(1 / 127, np.float32), "q/inv_127")
    tiny = constant(np.array(1e-12, np.float32), "q/tiny")  # an all-zero row gets scale > 0
    first, last = constant(np.array([0], np.int64), "q/first"), constant(np.array([-1], np.int64), "q/last")
    unit = constant(np.array([1], np.int64), "q/unit")

    nodes: list = []
    quantized: dict[str, tuple[str, str]] = {}  # activation -> (its uint8 form, its scales as [..., 1])

    def quantize_rows(x: str, width: int) -> tuple[str, str]:
        """uint8 ``x`` with one scale per row; Q, K and V share one quantisation of their input."""
        if x not in quantized:
            p = f"q/{x}"
            shape, flat = f"{p}/shape", constant(np.array([-1, width], np.int64), f"{p}/flat_shape")
            nodes.extend(
                [
                    helper.make_node("Shape", [x], [shape]),
                    helper.make_node("Reshape", [x, flat], [f"{p}/rows"]),
                    helper.make_node("Abs", [f"{p}/rows"], [f"{p}/abs"]),
                    helper.make_node("ReduceMax", [f"{p}/abs"], [f"{p}/max"], axes=[1], keepdims=0),
                    helper.make_node("Max", [f"{p}/max", tiny], [f"{p}/max+"]),
                    helper.make_node("Mul", [f"{p}/max+", inv_127], [f"{p}/scale"]),
                    helper.make_node("Shape", [f"{p}/scale"], [f"{p}/n_rows"]),
                    helper.make_node("Expand", [zero_point, f"{p}/n_rows"], [f"{p}/zero_points"]),
                    # per-axis QuantizeLinear along the rows: one fused pass instead of divide, round, cast
                    helper.make_node(
                        "QuantizeLinear",
                        [f"{p}/rows", f"{p}/scale", f"{p}/zero_points"],
                        [f"{p}/q_rows"],
                        axis=0,
                    ),
                    helper.make_node("Reshape", [f"{p}/q_rows", shape], [f"{p}/q"]),
                    helper.make_node("Slice", [shape, first, last], [f"{p}/lead"]),
                    helper.make_node("Concat", [f"{p}/lead", unit], [f"{p}/column"], axis=0),
                    helper.make_node("Reshape", [f"{p}/scale", f"{p}/column"], [f"{p}/scales"]),
                ]
            )
            quantized[x] = (f"{p}/q", f"{p}/scales")
        return quantized[x]

    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in weights:  # attention's MatMuls stay fp32
            nodes.append(node)
            continue
        x, weight_name = node.input
        weight = numpy_helper.to_array(weights[weight_name]).astype(np.float32)
        scale = np.abs(weight).max(axis=0) / 127
        scale[scale == 0] = 1.0
        p = f"q/{node.name}"
        w8 = constant(np.clip(np.rint(weight / scale), -127, 127).astype(np.int8), f"{p}/weight")
        w_scale = constant(scale.astype(np.float32), f"{p}/weight_scale")
        q, row_scales = quantize_rows(x, weight.shape[0])
        nodes.extend(
            [
                helper.make_node(
                    "MatMulIntegerToFloat",
                    [q, w8, one, w_scale, zero_point],
                    [f"{p}/unscaled"],
                    domain="com.microsoft",
                ),
                helper.make_node("Mul", [f"{p}/unscaled", row_scales], [node.output[0]]),
            ]
        )
    used = {name for node in nodes for name in node.input}
    kept = [init for init in graph.initializer if init.name in used]
    graph.ClearField("node")
    graph.node.extend(nodes)
    graph.ClearField("initializer")
    graph.initializer.extend(kept + added)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, str(target))
    return sum(1 for node in nodes if node.op_type == "MatMulIntegerToFloat")
