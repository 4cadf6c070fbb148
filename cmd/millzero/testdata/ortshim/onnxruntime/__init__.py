"""A stand-in for Python's onnxruntime package, for the README's export test
where only ONNX Runtime's web build (onnxruntime-web, run under Node) is
installed: it answers the calls the README's snippet makes, and ONNX
Runtime computes the outputs.

InferenceSession(path) reads the file's metadata with the onnx package;
run(output_names, feeds) hands the float32 feeds to
model/onnx/testdata/ort/run.mjs (its path in MILLZERO_ORT_RUN) and returns
the outputs as numpy arrays, as onnxruntime's InferenceSession.run does.
"""
import json
import os
import subprocess
import tempfile

import numpy as np
import onnx


class ModelMetadata:
    """The part of onnxruntime's ModelMetadata the snippet reads."""

    def __init__(self, custom_metadata_map):
        self.custom_metadata_map = custom_metadata_map


class InferenceSession:
    """A session over one ONNX file, run by onnxruntime-web under Node."""

    def __init__(self, path, *args, **kwargs):
        self._path = os.path.abspath(path)
        model = onnx.load(self._path)
        self._meta = {p.key: p.value for p in model.metadata_props}
        self._outputs = [o.name for o in model.graph.output]

    def get_modelmeta(self):
        return ModelMetadata(dict(self._meta))

    def run(self, output_names, input_feed):
        script = os.environ["MILLZERO_ORT_RUN"]
        feeds = {name: {"dims": list(x.shape), "data": np.asarray(x, dtype=np.float32).ravel().tolist()}
                 for name, x in input_feed.items()}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(feeds, f)
        try:
            done = subprocess.run(["node", script, self._path, f.name], cwd=os.path.dirname(script),
                                  check=True, capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        outputs = json.loads(done.stdout)["outputs"]
        return [np.array(outputs[n]["data"], dtype=np.float32).reshape(outputs[n]["dims"])
                for n in (output_names or self._outputs)]
