"""Reads a .safetensors file with numpy alone (no safetensors package), as an independent check.

Not a loader: prints one JSON line per tensor (name, dtype, shape, first 8 values), then the
metadata keys. Usage: python3 tools/read_safetensors.py FILE
"""
import json
import struct
import sys

import numpy as np

# Little-endian numpy dtypes; F16 and BF16 print their raw 16-bit patterns (numpy has no bfloat16).
NP = {"F64": "<f8", "F32": "<f4", "F16": "<u2", "BF16": "<u2", "I64": "<i8", "I32": "<i4",
      "I16": "<i2", "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?"}

with open(sys.argv[1], "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))  # header length, u64 little-endian
    header = json.loads(f.read(n))
    data = f.read()  # offsets are relative to here

metadata = header.pop("__metadata__", {})
for name, info in header.items():
    begin, end = info["data_offsets"]
    array = np.frombuffer(data[begin:end], dtype=NP[info["dtype"]]).reshape(info["shape"])
    head = array.ravel()[:8].tolist()
    print(json.dumps({"name": name, "dtype": info["dtype"], "shape": list(array.shape), "head": head}))
print(json.dumps({"metadata_keys": sorted(metadata)}))
