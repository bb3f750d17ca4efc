"""Quantizes a shared model with ONNX Runtime's quantizer, as the gallery's quantized cases do:
dynamic (int8 weights, activations quantized per run) and static QDQ (uint8 activations and int8
weights, calibrated on four seeded inputs of the model's shape).
Usage: quantize.py MODEL.onnx INPUT_NAME SHAPE(comma-separated) OUT_DIR
Writes OUT_DIR/dynamic.onnx and OUT_DIR/qdq.onnx."""
import os
import sys
import tempfile

import numpy as np
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType, quantize_dynamic,
                                      quantize_static)
from onnxruntime.quantization.shape_inference import quant_pre_process


class Calibration(CalibrationDataReader):
    def __init__(self, name, shape):
        rng = np.random.default_rng(7)
        self.data = iter([{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(4)])

    def get_next(self):
        return next(self.data, None)


def main():
    model, name, shape, out = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split(",")], sys.argv[4]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        quant_pre_process(model, pre, skip_symbolic_shape=True)
        quantize_dynamic(pre, os.path.join(out, "dynamic.onnx"), weight_type=QuantType.QInt8)
        quantize_static(pre, os.path.join(out, "qdq.onnx"), Calibration(name, shape), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


if __name__ == "__main__":
    main()
