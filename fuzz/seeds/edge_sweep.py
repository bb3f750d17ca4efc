"""Writes the edge sweep of the onnx_model fuzz target (usage: edge_sweep.py NODE_DATA OUTDIR):
for each ONNX node-test model of NODE_DATA (the test suite's generated
target/xcc-tests/onnx-node/data) under 16 KiB, a copy per value at the edges of what the
operators' arithmetic holds: each integer attribute (and the last entry of each list of
integers) set to i64's limits, 2^31, -2^31 and 2^40, each float attribute to NaN, the
infinities and 1e30, each dim of each graph input to 0, 2^31, 2^40 and 2^62, and each small
integer input (a shape, sizes, starts, pads: 8 values at most) made a constant of its test
data with one value at an edge (0, -1, 2^31, 2^40, +-2^62 and i64's limits).
scripts/fuzz.sh replays them through the target (its verifier and resource oracle) once,
before the random mutations: deterministic, and what libFuzzer's mutations reach only by chance.
The first sweep found operators whose sizes overflowed or asked for terabytes (DepthToSpace,
TfIdfVectorizer, SplitToSequence, TreeEnsemble, DeformConv, Scan before opset 9, AffineGrid)
and a Conv over an empty input that the kernel's verifier refused."""

import copy
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

INTS = [2**63 - 1, -(2**63), 2**40, -(2**31), 2**31]
FLOATS = [float("nan"), float("inf"), -float("inf"), 1e30]
DIMS = [0, 2**31, 2**40, 2**62]
VALUES = [0, -1, 2**31, 2**40, 2**62, -(2**62), 2**63 - 1, -(2**63)]


def edges(attribute):
    """(how to set it, value) for each edge value of `attribute`'s kind."""
    if attribute.type == onnx.AttributeProto.INT:
        return [("int", v) for v in INTS]
    if attribute.type == onnx.AttributeProto.INTS and len(attribute.ints) > 0:
        return [("last", v) for v in INTS]
    if attribute.type == onnx.AttributeProto.FLOAT:
        return [("float", v) for v in FLOATS]
    return []


def swept_dims(model):
    """(input, dim, k, copy) for each graph input's dim at each of DIMS."""
    for i, value in enumerate(model.graph.input):
        if not value.type.HasField("tensor_type"):
            continue
        for d in range(len(value.type.tensor_type.shape.dim)):
            for k, size in enumerate(DIMS):
                swept = copy.deepcopy(model)
                swept.graph.input[i].type.tensor_type.shape.dim[d].dim_value = size
                yield i, d, k, swept


def constant_inputs(model, case_dir):
    """(input, element, k, copy) for each small integer graph input made a constant of its test
    data (test_data_set_0) with one element at each of VALUES (int32 ones clipped to int32)."""
    for i, value in enumerate(model.graph.input):
        kind = value.type.tensor_type.elem_type if value.type.HasField("tensor_type") else None
        path = os.path.join(case_dir, "test_data_set_0", f"input_{i}.pb")
        if kind not in (onnx.TensorProto.INT64, onnx.TensorProto.INT32) or not os.path.exists(path):
            continue
        tensor = onnx.TensorProto()
        with open(path, "rb") as f:
            tensor.ParseFromString(f.read())
        data = numpy_helper.to_array(tensor)
        if not 0 < data.size <= 8:
            continue
        for e in range(data.size):
            for k, v in enumerate(VALUES):
                edged = data.astype(np.int64).reshape(-1)
                edged[e] = v
                if data.dtype != np.int64:
                    edged = np.clip(edged, -(2**31), 2**31 - 1)
                swept = copy.deepcopy(model)
                swept.graph.initializer.append(numpy_helper.from_array(edged.astype(data.dtype).reshape(data.shape), value.name))
                del swept.graph.input[i]
                yield i, e, k, swept


def main(data, out):
    os.makedirs(out, exist_ok=True)
    written = 0
    for path in sorted(glob.glob(os.path.join(data, "*", "model.onnx"))):
        if os.path.getsize(path) > 16384:
            continue
        model = onnx.load(path)
        case = os.path.basename(os.path.dirname(path))
        for n, node in enumerate(model.graph.node):
            for a, attribute in enumerate(node.attribute):
                for k, (how, value) in enumerate(edges(attribute)):
                    swept = copy.deepcopy(model)
                    target = swept.graph.node[n].attribute[a]
                    if how == "int":
                        target.i = value
                    elif how == "last":
                        target.ints[len(target.ints) - 1] = value
                    else:
                        target.f = value
                    with open(os.path.join(out, f"{case}-{n}-{attribute.name}-{k}"), "wb") as f:
                        f.write(swept.SerializeToString())
                    written += 1
        for i, d, k, swept in swept_dims(model):
            with open(os.path.join(out, f"{case}-input{i}-dim{d}-{k}"), "wb") as f:
                f.write(swept.SerializeToString())
            written += 1
        for i, e, k, swept in constant_inputs(model, os.path.dirname(path)):
            with open(os.path.join(out, f"{case}-constant{i}-value{e}-{k}"), "wb") as f:
                f.write(swept.SerializeToString())
            written += 1
    print(written)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
