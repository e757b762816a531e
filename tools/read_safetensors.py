"""Reads a .safetensors file with numpy alone (no safetensors package), as an independent check.

Not a loader of models (tools/score.py builds one on top of `read`): run as a script it prints one JSON
line per tensor (name, dtype, shape, first 8 values), then the metadata keys.
Usage: python3 tools/read_safetensors.py FILE
"""
import json
import struct
import sys

import numpy as np

# Little-endian numpy dtypes; F16 and BF16 print their raw 16-bit patterns (numpy has no bfloat16).
NP = {"F64": "<f8", "F32": "<f4", "F16": "<u2", "BF16": "<u2", "I64": "<i8", "I32": "<i4",
      "I16": "<i2", "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?"}


class SafetensorsError(ValueError):
    """A file that is not valid safetensors; the message says why."""


def read(path):
    """(tensors, metadata): tensors maps name → (dtype, array, raw little-endian bytes), in header order."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise SafetensorsError(f"{len(raw)} bytes, shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", raw[:8])  # header length, u64 little-endian
    if 8 + n > len(raw):
        raise SafetensorsError(f"header length {n} runs past the end of the file ({len(raw)} bytes)")
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SafetensorsError(f"header is not UTF-8 JSON: {err}") from None
    if not isinstance(header, dict):
        raise SafetensorsError("header is not a JSON object")
    data = raw[8 + n:]  # offsets are relative to here
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        dtype, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in NP:
            raise SafetensorsError(f'tensor "{name}" has unknown dtype {dtype}')
        if not 0 <= begin <= end <= len(data):
            raise SafetensorsError(f'tensor "{name}" has data_offsets [{begin}, {end}] outside the {len(data)} data bytes')
        chunk = data[begin:end]
        array = np.frombuffer(chunk, dtype=NP[dtype])
        if array.size != int(np.prod(shape, dtype=np.int64)):
            raise SafetensorsError(f'tensor "{name}" has {array.size} values, its shape {shape} needs {int(np.prod(shape))}')
        tensors[name] = (dtype, array.reshape(shape), chunk)
    return tensors, metadata


def main(path):
    tensors, metadata = read(path)
    for name, (dtype, array, _) in tensors.items():
        head = array.ravel()[:8].tolist()
        print(json.dumps({"name": name, "dtype": dtype, "shape": list(array.shape), "head": head}))
    print(json.dumps({"metadata_keys": sorted(metadata)}))


if __name__ == "__main__":
    main(sys.argv[1])
