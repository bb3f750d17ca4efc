"""Checks `xcc inspect --json`'s report of an ONNX model against the model read with onnx.
Usage: check_inspect.py MODEL.onnx REPORT.json [MACS]. Prints "ok" or what differs."""
import collections
import json
import sys

import numpy as np
import onnx

model_path, report_path = sys.argv[1], sys.argv[2]
macs = int(sys.argv[3]) if len(sys.argv) > 3 else None
m = onnx.load(model_path)
r = json.load(open(report_path))
problems = []


def expect(what, got, want):
    if got != want:
        problems.append(f"{what}: {got!r}, expected {want!r}")


def dims(vi):
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]


initializers = {t.name for t in m.graph.initializer}
inputs = [i for i in m.graph.input if i.name not in initializers]
expect("inputs", [(i["name"], i["dims"]) for i in r["inputs"]], [(i.name, dims(i)) for i in inputs])
expect("outputs", [o["name"] for o in r["outputs"]], [o.name for o in m.graph.output])
for o, want in zip(r["outputs"], m.graph.output):
    if all(isinstance(d, int) for d in dims(want)):
        expect(f"output {o['name']} dims", o["dims"], dims(want))
expect("ir_version", r["ir_version"], m.ir_version)
expect("opsets", r["opsets"], {(o.domain or "ai.onnx"): o.version for o in m.opset_import})
expect("ops", {k: v["count"] for k, v in r["ops"].items()}, dict(collections.Counter(n.op_type for n in m.graph.node)))
expect("parameters", r["parameters"], sum(int(np.prod(t.dims)) for t in m.graph.initializer))
if macs is not None:
    expect("macs", r["macs"], macs)
expect("compiles", r["compiles"], True)
print("ok" if not problems else "\n".join(problems))
