"""Operator cases checked against ONNX Runtime, beyond the ONNX node tests: each a one-node model
with seeded random inputs, written in the node tests' layout (DIR/NAME/model.onnx and
DIR/NAME/test_data_set_0/{input,output}_K.pb), its outputs computed here by ONNX Runtime, or by
onnx's reference implementation for the modes ONNX Runtime lacks (batch-first recurrences).

usage: gen_cases.py DIR
Prints how many cases it wrote; a case ONNX Runtime refuses is left out, and named.
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator


def recurrent(kind, name, rng, seq=5, batch=3, inp=4, hidden=6, direction="forward", layout=0,
              lens=None, peepholes=False, initial=False, outputs=("Y", "Y_h"), **attrs):
    """One RNN, GRU or LSTM node; `lens` gives sequence_lens."""
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    dirs = 2 if direction == "bidirectional" else 1
    x_shape = [batch, seq, inp] if layout else [seq, batch, inp]
    feeds = {
        "X": rng.standard_normal(x_shape).astype(np.float32),
        "W": (rng.standard_normal([dirs, gates * hidden, inp]) * 0.5).astype(np.float32),
        "R": (rng.standard_normal([dirs, gates * hidden, hidden]) * 0.5).astype(np.float32),
        "B": (rng.standard_normal([dirs, 2 * gates * hidden]) * 0.3).astype(np.float32),
    }
    names = ["X", "W", "R", "B"]
    if lens is not None:
        feeds["sequence_lens"] = np.array(lens, dtype=np.int32)
    names.append("sequence_lens" if lens is not None else "")
    state = [batch, dirs, hidden] if layout else [dirs, batch, hidden]
    if initial:
        feeds["initial_h"] = rng.standard_normal(state).astype(np.float32)
    names.append("initial_h" if initial else "")
    if kind == "LSTM":
        if initial:
            feeds["initial_c"] = rng.standard_normal(state).astype(np.float32)
        names.append("initial_c" if initial else "")
        if peepholes:
            feeds["P"] = (rng.standard_normal([dirs, 3 * hidden]) * 0.3).astype(np.float32)
        names.append("P" if peepholes else "")
    while names and names[-1] == "":
        names.pop()
    all_outputs = ["Y", "Y_h", "Y_c"] if kind == "LSTM" else ["Y", "Y_h"]
    node_outputs = [o if o in outputs else "" for o in all_outputs]
    while node_outputs[-1] == "":
        node_outputs.pop()
    node = helper.make_node(kind, names, node_outputs, hidden_size=hidden, direction=direction, **attrs)
    if layout:
        node.attribute.append(helper.make_attribute("layout", 1))
    return name, node, feeds, [o for o in node_outputs if o]


def cases(rng):
    yield recurrent("LSTM", "lstm_forward", rng)
    yield recurrent("LSTM", "lstm_reverse_initial_state", rng, direction="reverse", initial=True, outputs=("Y", "Y_h", "Y_c"))
    yield recurrent("LSTM", "lstm_bidirectional_lengths", rng, direction="bidirectional", lens=[5, 2, 4],
                    outputs=("Y", "Y_h", "Y_c"))
    yield recurrent("LSTM", "lstm_batch_first", rng, layout=1, direction="bidirectional", initial=True)
    yield recurrent("LSTM", "lstm_peepholes_clip", rng, peepholes=True, clip=0.7, outputs=("Y", "Y_c"))
    yield recurrent("LSTM", "lstm_input_forget", rng, input_forget=1, outputs=("Y_h",))
    yield recurrent("LSTM", "lstm_activations", rng, activations=["HardSigmoid", "Tanh", "Relu"])
    yield recurrent("GRU", "gru_forward", rng)
    yield recurrent("GRU", "gru_linear_before_reset", rng, linear_before_reset=1, direction="bidirectional")
    yield recurrent("GRU", "gru_reverse_lengths", rng, direction="reverse", lens=[3, 5, 1], initial=True)
    # onnx's reference implementation (the oracle for batch-first) ignores sequence_lens.
    yield recurrent("GRU", "gru_batch_first", rng, layout=1, linear_before_reset=1)
    yield recurrent("GRU", "gru_clip", rng, clip=0.5, outputs=("Y_h",))
    yield recurrent("RNN", "rnn_relu_bidirectional", rng, direction="bidirectional", activations=["Relu", "Relu"])
    yield recurrent("RNN", "rnn_lengths_initial", rng, lens=[2, 5, 3], initial=True)
    yield recurrent("RNN", "rnn_batch_first_reverse", rng, layout=1, direction="reverse")


def write(out, name, node, feeds, output_names):
    inputs = [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
              for k, v in feeds.items()]
    outputs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in output_names]
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    options = ort.SessionOptions()
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        results = session.run(output_names, feeds)
        oracle = "onnxruntime"
    except Exception:  # noqa: BLE001 - ONNX Runtime lacks some modes (batch-first recurrences)
        try:
            results = ReferenceEvaluator(model).run(output_names, feeds)
            oracle = "the onnx reference implementation"
        except Exception as e:  # noqa: BLE001 - a case neither oracle runs is named and left out
            print(f"left out {name}: no oracle runs it: {str(e).splitlines()[0]}", file=sys.stderr)
            return None
    case = os.path.join(out, f"test_{name}")
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    for k, (key, value) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, key).SerializeToString())
    for k, (key, value) in enumerate(zip(output_names, results)):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, key).SerializeToString())
    return oracle


def main():
    out = sys.argv[1]
    ort.set_default_logger_severity(3)
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261126)
    oracles = [write(out, *case) for case in cases(rng)]
    by_ort = oracles.count("onnxruntime")
    by_reference = len([o for o in oracles if o and o != "onnxruntime"])
    print(f"{by_ort + by_reference} gallery cases: {by_ort} checked by onnxruntime {ort.__version__}, "
          f"{by_reference} by the onnx reference implementation (modes onnxruntime lacks)")


if __name__ == "__main__":
    main()
