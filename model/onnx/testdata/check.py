"""check.py validates an ONNX file with the onnx package's checker, for
model/onnx's test.

Usage: python3 check.py MODEL.onnx

Runs onnx.checker.check_model with full_check (strict shape inference),
then prints one JSON object: the IR version, the opsets, the metadata, and
the inputs and outputs with their shapes as shape inference sees them.
"""
import json
import sys

import onnx

model = onnx.load(sys.argv[1])
onnx.checker.check_model(model, full_check=True)
inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)


def shape(vi):
    dims = vi.type.tensor_type.shape.dim
    return [d.dim_param if d.HasField("dim_param") else d.dim_value for d in dims]


print(json.dumps({
    "ir_version": model.ir_version,
    "opsets": {o.domain: o.version for o in model.opset_import},
    "metadata": {p.key: p.value for p in model.metadata_props},
    "inputs": {vi.name: shape(vi) for vi in inferred.graph.input},
    "outputs": {vi.name: shape(vi) for vi in inferred.graph.output},
    "ops": sorted({n.op_type for n in model.graph.node}),
}))
