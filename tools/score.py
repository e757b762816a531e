"""Scores documents with a tinylab model file in float64, using numpy only: an independent implementation of
docs/model-format.md (no tinylab code, no tfjs). Not a trainer and not fast: one window at a time.

Usage: python3 tools/score.py [MODEL] [--run DIR [--text PATH]] [--data FILE.jsonl] [--stride S]
                              [--split train|validation|test|all] [--final-test] [--batch-rows N] [--json]
--run DIR scores the split the run trained on (its manifest.json, each document's sha256 checked: tools/run_text.py)
and, without MODEL, its model.safetensors. Without --run or --data it scores the overfit fixture's four texts, as
`tinylab evaluate` does. The stride rule is tinylab's: default the context (docs/evaluation.md).
"""
import argparse
import hashlib
import json
import math
import os
import sys
import unicodedata

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_safetensors import SafetensorsError, read  # noqa: E402
from run_text import RunTextError, read_run, scoring_stride, trained_on_note, windows  # noqa: E402

FORMATS = ("tinylab-model/3", "tinylab-model/2", "tinylab-model/1")
CONFIG_KEYS = ("vocabSize", "contextLength", "nLayers", "dModel", "nHeads", "dFF", "dropout", "tiedHead")
SPLITS = ("train", "validation", "test")
BOS, EOS, BYTE_OFFSET, MERGE_OFFSET = 0, 1, 2, 258
# The pre-split this file implements by hand (pre_split below), as tinylab writes it in tokenizer_scheme.
PRE_SPLIT_PATTERN = r"/'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu"
LN_EPS = 1e-5
OVERFIT_TEXTS = [  # src/data/fixtures.ts
    {"id": "train-aaab", "split": "train", "source": "constructed", "text": "aaab"},
    {"id": "train-aab", "split": "train", "source": "constructed", "text": "aab"},
    {"id": "validation-abaa", "split": "validation", "source": "constructed", "text": "abaa"},
    {"id": "validation-baa", "split": "validation", "source": "constructed", "text": "baa"},
]


class Refusal(Exception):
    """Bad input; printed as one line."""


def architecture(tied):
    """What this scorer implements (docs/model-format.md, "architecture")."""
    return {"family": "gpt2", "activation": "gelu_tanh", "layer_norm": "pre", "layer_norm_eps": LN_EPS,
            "layer_norm_variance": "biased", "weight_layout": "in_out", "qkv_packing": "q|k|v",
            "attention_scale": "1/sqrt(d_head)", "positions": "per_row", "attention": "causal_within_row",
            "head": "tied" if tied else "untied", "biases": True}


SCHEME = {"bos": BOS, "eos": EOS, "byte_offset": BYTE_OFFSET, "merge_offset": MERGE_OFFSET, "pre_split": "gpt2",
          "pre_split_pattern": PRE_SPLIT_PATTERN}


# ---- the model file -------------------------------------------------------------------------------------------

def js_json(value):
    """JSON.stringify's bytes for strings, lists and integers (no spaces, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def integrity_digest(tensors, metadata):
    h = hashlib.sha256()
    for name in sorted(tensors, key=lambda s: s.encode("utf-16-be")):  # JavaScript's default sort: UTF-16 units
        dtype, array, raw = tensors[name]
        h.update((js_json(["tensor", name, dtype, list(array.shape)]) + "\n").encode("utf-8"))
        h.update(raw)
    for key in sorted(metadata, key=lambda s: s.encode("utf-16-be")):
        if key != "integrity":
            h.update((js_json(["metadata", key, metadata[key]]) + "\n").encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def unique_keys(pairs):
    """An object's pairs as a dict, refusing a key given twice (json.loads keeps the last, as JSON.parse does; tinylab refuses it)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f'key {json.dumps(k)} is given twice')
        out[k] = v
    return out


def meta_json(metadata, key, where):
    if key not in metadata:
        raise Refusal(f'{where}: metadata has no "{key}"')
    try:
        return json.loads(metadata[key], object_pairs_hook=unique_keys)
    except ValueError as err:  # json.JSONDecodeError is a ValueError
        raise Refusal(f'{where}: metadata "{key}" is not valid JSON: {err}') from None


def json_object_with_keys(metadata, key, expected, where, unknown_says):
    """The JSON object under `key`, refused when it is not one, lacks an expected key or has another."""
    got = meta_json(metadata, key, where)
    if not isinstance(got, dict):
        raise Refusal(f'{where}: metadata "{key}" is not a JSON object')
    missing = [k for k in expected if k not in got]
    if missing:
        raise Refusal(f'{where}: metadata "{key}" lacks {", ".join(missing)}')
    unknown = [k for k in got if k not in expected]
    if unknown:
        raise Refusal(unknown_says(", ".join(unknown)))
    return got


def check_declared(metadata, key, implemented, where):
    got = json_object_with_keys(metadata, key, implemented, where,
                                lambda u: f'{where}: metadata "{key}" declares {u}, which score.py does not implement')
    for k, want in implemented.items():
        if type(got[k]) is not type(want) or got[k] != want:
            raise Refusal(f'{where}: metadata "{key}" declares "{k}": {json.dumps(got[k])}, which score.py does not implement (it implements {json.dumps(want)})')


def parameter_shapes(c):
    V, T, C, F = c["vocabSize"], c["contextLength"], c["dModel"], c["dFF"]
    shapes = [("wte", [V, C]), ("wpe", [T, C])]
    for l in range(c["nLayers"]):
        p = f"h{l}."
        shapes += [(p + "ln1.g", [C]), (p + "ln1.b", [C]), (p + "attn.wqkv", [C, 3 * C]), (p + "attn.bqkv", [3 * C]),
                   (p + "attn.wo", [C, C]), (p + "attn.bo", [C]), (p + "ln2.g", [C]), (p + "ln2.b", [C]),
                   (p + "mlp.w1", [C, F]), (p + "mlp.b1", [F]), (p + "mlp.w2", [F, C]), (p + "mlp.b2", [C])]
    shapes += [("lnf.g", [C]), ("lnf.b", [C])]
    if not c["tiedHead"]:
        shapes.append(("head", [C, V]))
    return shapes


def parse_config(metadata, where):
    c = json_object_with_keys(metadata, "config", CONFIG_KEYS, where, lambda u: f'{where}: metadata "config" has unknown key {u}')
    for k in CONFIG_KEYS[:6]:
        if type(c[k]) is not int or c[k] <= 0:
            raise Refusal(f'{where}: metadata "config" {k} must be a positive integer, got {json.dumps(c[k])}')
    if type(c["tiedHead"]) is not bool:
        raise Refusal(f'{where}: metadata "config" tiedHead must be a boolean')
    if c["dModel"] % c["nHeads"] != 0:
        raise Refusal(f'{where}: metadata "config": dModel ({c["dModel"]}) must be divisible by nHeads ({c["nHeads"]})')
    return c


def load_model(path):
    where = f"model file {path}"
    try:
        tensors, metadata = read(path)
    except FileNotFoundError:
        raise Refusal(f"model file not found: {path}") from None
    except IsADirectoryError:
        raise Refusal(f"model file is not a file: {path}") from None
    except (SafetensorsError, KeyError, TypeError, ValueError) as err:
        raise Refusal(f"{path}: not a valid safetensors file: {err}") from None
    fmt = metadata.get("format")
    if fmt not in FORMATS:
        raise Refusal(f'{where}: format is {json.dumps(fmt)}, expected one of {", ".join(FORMATS)}')
    if fmt == "tinylab-model/1":
        integrity = "unverified (format tinylab-model/1 has no digest)"
    else:
        if "integrity" not in metadata:
            raise Refusal(f'{where}: format "{fmt}" needs metadata "integrity", which is missing')
        if metadata["integrity"] != integrity_digest(tensors, metadata):
            raise Refusal(f"{where}: integrity digest does not match the file's tensors and metadata: it was changed after it was written")
        integrity = "verified"
    config = parse_config(metadata, where)
    if fmt == "tinylab-model/3":
        check_declared(metadata, "architecture", architecture(config["tiedHead"]), where)
        check_declared(metadata, "tokenizer_scheme", SCHEME, where)
    tokenizer = make_tokenizer(meta_json(metadata, "tokenizer", where), where)
    if tokenizer.vocab_size > config["vocabSize"]:
        raise Refusal(f"{where}: tokenizer vocabulary {tokenizer.vocab_size} exceeds the model's vocabSize {config['vocabSize']}")
    weights = {}
    shapes = parameter_shapes(config)
    for name, shape in shapes:
        if name not in tensors:
            raise Refusal(f'{where}: tensor "{name}" is missing')
        dtype, array, _ = tensors[name]
        if dtype != "F32":
            raise Refusal(f'{where}: tensor "{name}" is {dtype}, expected F32')
        if list(array.shape) != shape:
            raise Refusal(f'{where}: tensor "{name}" has shape {list(array.shape)}, the config needs {shape}')
        if not np.all(np.isfinite(array)):
            raise Refusal(f'{where}: tensor "{name}" has a non-finite value at flat index {int(np.argmin(np.isfinite(array.ravel())))}')
        weights[name] = array.astype(np.float64)
    extra = sorted(set(tensors) - {n for n, _ in shapes})
    if extra:
        raise Refusal(f'{where}: unexpected tensor {", ".join(extra)} for this config')
    provenance = json.loads(metadata.get("provenance", "{}"))
    return {"config": config, "weights": weights, "tokenizer": tokenizer, "integrity": integrity, "format": fmt,
            "provenance": provenance}


# ---- the tokenizer --------------------------------------------------------------------------------------------

# JavaScript's \s (with the u flag): ECMAScript WhiteSpace and LineTerminator. Not Python's str.isspace().
JS_SPACE = set("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | {chr(c) for c in range(0x2000, 0x200B)}


def is_letter(ch):
    return unicodedata.category(ch).startswith("L")  # \p{L}


def is_number(ch):
    return unicodedata.category(ch).startswith("N")  # \p{N}


def is_other(ch):
    return not (ch in JS_SPACE or is_letter(ch) or is_number(ch))  # [^\s\p{L}\p{N}]


def pre_split(text):
    """GPT-2's pre-split, the alternatives of the pattern tried in order at each position (leftmost match)."""
    out, i, n = [], 0, len(text)
    while i < n:
        j = match_at(text, i)
        out.append(text[i:j])
        i = j
    return out


def run(text, i, pred):
    while i < len(text) and pred(text[i]):
        i += 1
    return i


def match_at(text, i):
    n = len(text)
    if text[i] == "'":  # '(?:[sdmt]|ll|ve|re)
        if i + 1 < n and text[i + 1] in "sdmt":
            return i + 2
        if text[i + 1:i + 3] in ("ll", "ve", "re"):
            return i + 3
    for pred in (is_letter, is_number, is_other):  # ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
        if text[i] == " " and i + 1 < n and pred(text[i + 1]):
            return run(text, i + 1, pred)
        if pred(text[i]):
            return run(text, i, pred)
    j = run(text, i, lambda ch: ch in JS_SPACE)  # text[i] is whitespace here
    if j == n:
        return j  # \s+(?!\S) at the end of the text
    if j - i >= 2:
        return j - 1  # \s+(?!\S) backs off one, leaving the last space to the next word
    return j  # \s+


class ByteTokenizer:
    def __init__(self, vocab_size):
        self.vocab_size = vocab_size

    def encode(self, text):
        return [b + BYTE_OFFSET for b in text.encode("utf-8")]


class BpeTokenizer:
    def __init__(self, merges):
        self.vocab_size = MERGE_OFFSET + len(merges)
        self.ranks = {}
        for r, (a, b) in enumerate(merges):
            self.ranks[(a, b)] = r
        self.merges = merges
        self.cache = {}

    def encode(self, text):
        out = []
        for chunk in pre_split(text):
            if chunk not in self.cache:
                self.cache[chunk] = self.encode_chunk(chunk)
            out.extend(self.cache[chunk])
        return out

    def encode_chunk(self, chunk):
        ids = [b + BYTE_OFFSET for b in chunk.encode("utf-8")]
        while len(ids) >= 2:
            ranked = [self.ranks[p] for p in zip(ids, ids[1:]) if p in self.ranks]
            if not ranked:
                break
            best = min(ranked)  # the lowest-ranked merge present, applied left to right without overlap
            a, b = self.merges[best]
            merged, i = [], 0
            while i < len(ids):
                if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
                    merged.append(MERGE_OFFSET + best)
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            ids = merged
        return ids


def make_tokenizer(j, where):
    if not isinstance(j, dict):
        raise Refusal(f'{where}: metadata "tokenizer" is not a JSON object')
    kind, vocab = j.get("kind"), j.get("vocabSize")
    if type(vocab) is not int or vocab < MERGE_OFFSET:
        raise Refusal(f'{where}: metadata "tokenizer": vocabSize must be an integer ≥ {MERGE_OFFSET}, got {json.dumps(vocab)}')
    if kind == "byte":
        return ByteTokenizer(vocab)
    if kind != "bpe":
        raise Refusal(f'{where}: metadata "tokenizer": unknown tokenizer kind {json.dumps(kind)} (expected "byte" or "bpe")')
    merges = j.get("merges")
    if not isinstance(merges, list) or len(merges) != vocab - MERGE_OFFSET:
        raise Refusal(f'{where}: metadata "tokenizer": vocabSize {vocab} needs {vocab - MERGE_OFFSET} merges')
    for r, m in enumerate(merges):
        if not (isinstance(m, list) and len(m) == 2 and all(type(x) is int and BYTE_OFFSET <= x < MERGE_OFFSET + r for x in m)):
            raise Refusal(f'{where}: metadata "tokenizer": bpe merge {r} ({json.dumps(m)}) is not a pair of bytes or earlier merges')
    if len({tuple(m) for m in merges}) != len(merges):
        raise Refusal(f'{where}: metadata "tokenizer": a bpe merge repeats')
    return BpeTokenizer([tuple(m) for m in merges])


# ---- documents ------------------------------------------------------------------------------------------------

def read_documents(path, tokenizer):
    """A JSONL documents file as src/node/files.ts reads it: text rows get BOS + content + EOS, ids rows as given."""
    try:
        raw = open(path, "rb").read()
    except FileNotFoundError:
        raise Refusal(f"documents file not found: {path}") from None
    except OSError as err:
        raise Refusal(f"cannot read documents file {path}: {err.strerror}") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    docs, seen = [], {}
    for number, line_bytes in enumerate(raw.split(b"\n"), 1):
        at = f"{path} line {number}"
        try:
            line = line_bytes.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise Refusal(f"{at}: not valid UTF-8 (a documents file must be UTF-8 text)") from None
        if not line:
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise Refusal(f"{at}: not valid JSON ({err})") from None
        if not isinstance(row, dict):
            raise Refusal(f'{at}: expected a JSON object {{"id", "split", "source", "text" or "ids"}}')
        unknown = [k for k in row if k not in ("id", "split", "source", "text", "ids")]
        if unknown:
            raise Refusal(f"{at}: unknown key {', '.join(json.dumps(k) for k in unknown)} (keys are id, split, source, text or ids)")
        if not isinstance(row.get("id"), str) or not row["id"]:
            raise Refusal(f'{at}: "id" must be a non-empty string')
        if row.get("split") not in SPLITS:
            raise Refusal(f"{at}: split must be one of {', '.join(SPLITS)}, got {json.dumps(row.get('split'))}")
        if ("text" in row) == ("ids" in row):
            raise Refusal(f'{at}: give exactly one of "text" and "ids"')
        if "text" in row:
            if not isinstance(row["text"], str):
                raise Refusal(f'{at}: "text" must be a string')
            try:
                ids = [BOS] + tokenizer.encode(row["text"]) + [EOS]
            except UnicodeEncodeError:
                raise Refusal(f'{at}: "text" holds a lone surrogate, which is not text') from None
        else:
            ids = row["ids"]
            if not isinstance(ids, list) or len(ids) < 2:
                raise Refusal(f'{at}: "ids" must be an array of at least two token ids (a context id and a target)')
            for i, v in enumerate(ids):
                if type(v) is not int or not 0 <= v < tokenizer.vocab_size:
                    raise Refusal(f"{at}: ids[{i}] = {json.dumps(v)} is not a token id in [0, {tokenizer.vocab_size})")
        if row["id"] in seen:
            raise Refusal(f'{at}: document id "{row["id"]}" already used on line {seen[row["id"]]}')
        seen[row["id"]] = number
        docs.append({"id": row["id"], "split": row["split"], "ids": ids})
    if not docs:
        raise Refusal(f"{path}: no documents (expected one JSON object per line)")
    return docs


# ---- the forward pass in float64 ------------------------------------------------------------------------------

def layer_norm(x, g, b):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)  # biased: divided by C
    return (x - mean) / np.sqrt(var + LN_EPS) * g + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def logits(model, ids):
    """Logits [n, V] for one row of ids; positions 0..n−1, causal attention within the row."""
    c, w = model["config"], model["weights"]
    n, C, H = len(ids), c["dModel"], c["nHeads"]
    D = C // H
    x = w["wte"][ids] + w["wpe"][np.arange(n)]  # [n, C]
    causal = np.tril(np.ones((n, n), dtype=bool))
    for l in range(c["nLayers"]):
        p = lambda name: w[f"h{l}.{name}"]  # noqa: E731
        qkv = layer_norm(x, p("ln1.g"), p("ln1.b")) @ p("attn.wqkv") + p("attn.bqkv")  # [n, 3C]: q | k | v
        y = np.empty((n, C))
        for h in range(H):
            q, k, v = (qkv[:, blk * C + h * D: blk * C + (h + 1) * D] for blk in range(3))  # each [n, D]
            s = np.where(causal, q @ k.T / math.sqrt(D), -np.inf)
            a = np.exp(s - s.max(-1, keepdims=True))
            y[:, h * D:(h + 1) * D] = (a / a.sum(-1, keepdims=True)) @ v
        x = x + y @ p("attn.wo") + p("attn.bo")
        x = x + gelu(layer_norm(x, p("ln2.g"), p("ln2.b")) @ p("mlp.w1") + p("mlp.b1")) @ p("mlp.w2") + p("mlp.b2")
    x = layer_norm(x, w["lnf.g"], w["lnf.b"])
    return x @ (w["wte"].T if c["tiedHead"] else w["head"])  # [n, V]


def window_nll(model, ids, targets, scored):
    z = logits(model, np.asarray(ids))
    m = z.max(-1)
    lse = m + np.log(np.exp(z - m[:, None]).sum(-1))
    nll = lse - z[np.arange(len(ids)), targets]
    return float(nll[len(ids) - scored:].sum())


def score(model, docs, split, stride, batch_rows):
    T = model["config"]["contextLength"]
    chosen = [d for d in docs if d["split"] == split]
    total, targets, rows = 0.0, 0, 0
    for d in chosen:
        n = len(d["ids"]) - 1
        for start, length, scored in windows(n, T, stride):
            total += window_nll(model, d["ids"][start:start + length], d["ids"][start + 1:start + length + 1], scored)
            targets += scored
            rows += 1
    nll = total / targets
    return {"nll": nll, "perplexity": math.exp(nll), "targets": targets, "total_nll": total, "batches": -(-rows // batch_rows)}


def main(argv):
    ap = argparse.ArgumentParser(prog="score.py", description="Score documents with a tinylab model file in float64 (numpy only).")
    ap.add_argument("model", nargs="?", help="model file (default with --run: its model.safetensors)")
    ap.add_argument("--run", help="run directory of tinylab train --text: score the split it trained on (its manifest.json)")
    ap.add_argument("--text", help="with --run: where the run's text file (or .txt directory) is now")
    ap.add_argument("--data", help="JSONL documents file (src/node/files.ts); the overfit fixture's texts when absent")
    ap.add_argument("--stride", type=int, help="window stride, 1..context (default: the context; as tinylab evaluate --stride)")
    ap.add_argument("--split", default="all", choices=["train", "validation", "test", "all"])
    ap.add_argument("--final-test", action="store_true", help="allow the test split (a final report)")
    ap.add_argument("--batch-rows", type=int, default=1, help="rows per batch; only the printed batch count depends on it")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.batch_rows < 1:
        raise Refusal(f"--batch-rows must be a positive integer, got {a.batch_rows}")
    if a.split == "test" and not a.final_test:
        raise Refusal("--split test scores the test split, which only a final report may do: add --final-test")
    if a.text is not None and a.run is None:
        raise Refusal("--text needs --run DIR: score.py rebuilds a split from the run's manifest.json (tinylab evaluate --text also makes it from the split options)")
    if a.run is not None and a.data is not None:
        raise Refusal("give one of --run (a run's text) and --data (a JSONL documents file)")
    if a.model is None and a.run is None:
        raise Refusal("give a MODEL file, or --run DIR (its model.safetensors)")
    if a.model is None:
        a.model = os.path.join(a.run, "model.safetensors")
    model = load_model(a.model)
    T = model["config"]["contextLength"]
    try:
        a.stride = scoring_stride(a.stride, T)
    except RunTextError as err:
        raise Refusal(str(err)) from None
    tok = model["tokenizer"]
    encode = lambda rows: [{"id": d["id"], "split": d["split"], "ids": [BOS] + tok.encode(d["text"]) + [EOS]} for d in rows]  # noqa: E731
    try:
        if a.run is not None:
            rows, manifest_sha, source = read_run(a.run, a.text)
            note = trained_on_note(a.model, model["provenance"], "text", manifest_sha, source)
            docs = encode(rows)
        else:
            source = a.data or "overfit fixture"
            note = trained_on_note(a.model, model["provenance"], "documents" if a.data else "fixture", None, a.data)
            docs = read_documents(a.data, tok) if a.data else encode(OVERFIT_TEXTS)
    except RunTextError as err:
        raise Refusal(str(err)) from None
    allowed = [a.split] if a.split != "all" else [s for s in SPLITS if s != "test" or a.final_test]
    splits = [s for s in allowed if a.split != "all" or any(d["split"] == s for d in docs)]
    scores = {}
    for s in splits:
        if not any(d["split"] == s for d in docs):
            raise Refusal(f"no {s} documents in {source}")
        scores[s] = score(model, docs, s, a.stride, a.batch_rows)
    sha = hashlib.sha256(open(a.model, "rb").read()).hexdigest()
    if a.json:
        print(json.dumps({"model": a.model, "model_sha256": sha, "format": model["format"], "integrity": model["integrity"],
                          "data": {"source": source, "documents": len(docs), **({"note": note} if note else {})}, "layout": "strided windows",
                          "stride": a.stride, "splits": scores, "scorer": "tools/score.py (float64, numpy)"}, indent=2))
        return
    p = model["provenance"]
    print(f"model {a.model}")
    print(f"model_sha256 {sha} (integrity {model['integrity']})")
    print(f"trained: seed {p.get('seed')}, update {p.get('update')}, backend {p.get('backend')}; scored by tools/score.py in float64 (numpy {np.__version__}), no training")
    print(f"data: {source} ({len(docs)} documents), encoded with the model file's tokenizer; {a.batch_rows} row(s) per batch, "
          + f"one window per row, stride {a.stride}" + (" (= the context)" if a.stride == T else ""))
    if note:
        print(note)
    print(f"{'split':<10} {'NLL':>9} {'perplexity':>12} {'targets':>7} {'batches':>7}")
    for s, r in scores.items():
        print(f"{s:<10} {r['nll']:9.6f} {r['perplexity']:12.6f} {r['targets']:7d} {r['batches']:7d}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Refusal as err:
        print(f"score.py: error: {err}", file=sys.stderr)
        sys.exit(1)
