#!/usr/bin/env python3
"""A tinylab model file as a PyTorch module (fine-tune or inspect it), its tokenizers, and a scorer CLI.

Also a GPT-2-layout reader (`from_hf_dir`) for the directory `tinylab export --format hf-gpt2` writes, written
from GPT-2's documented conventions rather than from tinylab's layout, so it checks the export independently.
Not a trainer, not a writer of tinylab files, and not the transformers library (it does not import it).

  python3 tools/tinylab_torch.py score --model M.safetensors [--data docs.jsonl] [--dtype float64|float32]
  python3 tools/tinylab_torch.py score --hf-dir DIR [--data docs.jsonl]
  python3 tools/tinylab_torch.py encode (--model M.safetensors | --hf-dir DIR) --data docs.jsonl

Needs numpy and torch only (Debian: python3-numpy python3-torch).
"""
import argparse
import json
import math
import os
import struct
import sys
import unicodedata

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_text import read_run, scoring_stride, trained_on_note, windows  # noqa: E402

# ----------------------------------------------------------------------------------------------------------------
# safetensors, read with numpy (header + frombuffer), as in tools/read_safetensors.py

DTYPES = {"F32": "<f4", "F64": "<f8", "I32": "<i4", "I64": "<i8", "U8": "u1"}


def read_safetensors(path):
    """(tensors as numpy arrays by name, metadata dict)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))  # header length: u64, little-endian
        header = json.loads(f.read(n))
        data = f.read()  # data_offsets are relative to this buffer
    meta = header.pop("__metadata__", {}) or {}
    tensors = {}
    for name, t in header.items():
        begin, end = t["data_offsets"]
        tensors[name] = np.frombuffer(data[begin:end], dtype=DTYPES[t["dtype"]]).reshape(t["shape"])
    return tensors, meta


# ----------------------------------------------------------------------------------------------------------------
# Tokenizers: ids BOS 0, EOS 1, byte b -> b + 2, merge r -> 258 + r (src/data/tokenizer.ts, src/data/bpe.ts)

BOS, EOS, BYTE_OFFSET, BYTE_VOCAB = 0, 1, 2, 258

# JavaScript's \s (ECMAScript WhiteSpace + LineTerminator), which tinylab's CHUNK_RE uses.
_JS_SPACE = set("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | {chr(c) for c in range(0x2000, 0x200B)}


def _is_space(ch):
    return ch in _JS_SPACE


def _is_letter(ch):
    return unicodedata.category(ch).startswith("L")


def _is_number(ch):
    return unicodedata.category(ch).startswith("N")


def _is_other(ch):
    return not (_is_space(ch) or _is_letter(ch) or _is_number(ch))


def split_chunks(text):
    """GPT-2's pre-split, as tinylab's CHUNK_RE and the ByteLevel pre-tokenizer use it, without the `regex` module:
    '(?:[sdmt]|ll|ve|re) | ?\\p{L}+ | ?\\p{N}+ | ?[^\\s\\p{L}\\p{N}]+ | \\s+(?!\\S) | \\s+ , first alternative that
    matches at each position wins (letter/number classes from unicodedata, whose Unicode version may differ from
    Node's for characters assigned recently)."""
    out, i, n = [], 0, len(text)

    def run(j, pred):
        while j < n and pred(text[j]):
            j += 1
        return j

    while i < n:
        ch = text[i]
        end = None
        if ch == "'":
            if text[i + 1:i + 2] in ("s", "d", "m", "t"):
                end = i + 2
            elif text[i + 1:i + 3] in ("ll", "ve", "re"):
                end = i + 3
        if end is None:
            j = i + 1 if ch == " " else i  # the optional leading space
            for pred in (_is_letter, _is_number, _is_other):
                if j < n and pred(text[j]):
                    end = run(j, pred)
                    break
        if end is None:  # whitespace: \s+(?!\S) leaves the run's last space to the next chunk, else \s+
            k = run(i, _is_space)
            end = k if k == n or k - i == 1 else k - 1
        out.append(text[i:end])
        i = end
    return out


class ByteTokenizer:
    def __init__(self, vocab_size=BYTE_VOCAB):
        self.vocab_size = vocab_size

    def encode(self, text):
        return [b + BYTE_OFFSET for b in text.encode("utf-8")]


def merge_lowest(seq, ranks, joined):
    """Byte-pair merging, as GPT-2's encoder does it: while some adjacent pair has a rank, join every
    non-overlapping occurrence (left to right) of the lowest-ranked one into joined(first, second, rank)."""
    while len(seq) >= 2:
        ranked = [(ranks[p], p) for p in zip(seq, seq[1:]) if p in ranks]
        if not ranked:
            break
        rank, (first, second) = min(ranked)
        merged, i = [], 0
        while i < len(seq):
            if i + 1 < len(seq) and seq[i] == first and seq[i + 1] == second:
                merged.append(joined(first, second, rank))
                i += 2
            else:
                merged.append(seq[i])
                i += 1
        seq = merged
    return seq


class BpeTokenizer:
    """tinylab's byte-level BPE on ids: in each chunk, apply the lowest-ranked merge present (all its
    non-overlapping occurrences, left to right) until none applies."""

    def __init__(self, merges):
        self.merges = [tuple(m) for m in merges]
        self.vocab_size = BYTE_VOCAB + len(self.merges)
        self.ranks = {m: r for r, m in enumerate(self.merges)}

    def encode(self, text):
        out = []
        for chunk in split_chunks(text):
            ids = [b + BYTE_OFFSET for b in chunk.encode("utf-8")]
            out.extend(merge_lowest(ids, self.ranks, lambda a, b, rank: BYTE_VOCAB + rank))
        return out


def tokenizer_from_json(j):
    if j.get("kind") == "byte":
        return ByteTokenizer(j["vocabSize"])
    if j.get("kind") == "bpe":
        tok = BpeTokenizer(j["merges"])
        if tok.vocab_size != j["vocabSize"]:
            raise ValueError(f"bpe tokenizer: vocabSize {j['vocabSize']} but {len(j['merges'])} merges")
        return tok
    raise ValueError(f"unknown tokenizer kind {j.get('kind')!r}")


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character map (openai/gpt-2 encoder.py)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class HfByteLevelBpe:
    """A Hugging Face tokenizer.json (model BPE, ByteLevel pre-tokenizer) applied as GPT-2's encoder.py does:
    pre-split, bytes to GPT-2's printable characters, then merges by rank on strings, tokens looked up in vocab.
    Only the subset `tinylab export` writes is accepted."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            j = json.load(f)
        model, pre = j["model"], j.get("pre_tokenizer") or {}
        if model.get("type") != "BPE":
            raise ValueError(f"{path}: model.type {model.get('type')!r}, expected BPE")
        if pre.get("type") != "ByteLevel" or pre.get("add_prefix_space") or not pre.get("use_regex", True):
            raise ValueError(f"{path}: expected a ByteLevel pre-tokenizer with add_prefix_space false and the GPT-2 regex")
        if j.get("normalizer") is not None:
            raise ValueError(f"{path}: a normalizer is not supported here")
        self.vocab = model["vocab"]
        merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
        self.ranks = {m: r for r, m in enumerate(merges)}
        self.byte_encoder = bytes_to_unicode()
        self.added = {t["content"]: t["id"] for t in j.get("added_tokens", [])}

    def _bpe(self, token):
        return merge_lowest(list(token), self.ranks, lambda first, second, rank: first + second)

    def encode(self, text):
        ids = []
        for chunk in split_chunks(text):
            token = "".join(self.byte_encoder[b] for b in chunk.encode("utf-8"))
            ids.extend(self.vocab[t] for t in self._bpe(token))
        return ids


# ----------------------------------------------------------------------------------------------------------------
# The tinylab decoder in PyTorch, parameters in tinylab's layout: y = x·W + b with W [in, out]

CONFIG_KEYS = ["vocabSize", "contextLength", "nLayers", "dModel", "nHeads", "dFF", "dropout", "tiedHead"]
LN_EPS = 1e-5  # src/model/ops.ts LN_EPS: biased variance, as torch's layer_norm


class LayerNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.g = nn.Parameter(torch.ones(d))
        self.b = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.g, self.b, LN_EPS)


class Block(nn.Module):
    def __init__(self, d, dff, n_heads, dropout):
        super().__init__()
        self.n_heads, self.p = n_heads, dropout
        self.ln1, self.ln2 = LayerNorm(d), LayerNorm(d)
        self.attn = nn.ParameterDict({"wqkv": nn.Parameter(torch.zeros(d, 3 * d)), "bqkv": nn.Parameter(torch.zeros(3 * d)),
                                      "wo": nn.Parameter(torch.zeros(d, d)), "bo": nn.Parameter(torch.zeros(d))})
        self.mlp = nn.ParameterDict({"w1": nn.Parameter(torch.zeros(d, dff)), "b1": nn.Parameter(torch.zeros(dff)),
                                     "w2": nn.Parameter(torch.zeros(dff, d)), "b2": nn.Parameter(torch.zeros(d))})

    def attention(self, x):
        B, T, C = x.shape
        H, a = self.n_heads, self.attn
        q, k, v = (x @ a["wqkv"] + a["bqkv"]).split(C, dim=-1)  # column blocks q | k | v, each [B, T, C]
        q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))  # [B, H, T, D]: head h = columns h·D..
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(C // H)  # [B, H, T, T]
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        att = F.dropout(scores.masked_fill(~causal, -math.inf).softmax(-1), self.p, self.training)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return y @ a["wo"] + a["bo"]

    def forward(self, x):
        x = x + F.dropout(self.attention(self.ln1(x)), self.p, self.training)
        m = self.mlp
        h = F.gelu(self.ln2(x) @ m["w1"] + m["b1"], approximate="tanh")  # [B, T, F]
        return x + F.dropout(h @ m["w2"] + m["b2"], self.p, self.training)


class TinylabGPT(nn.Module):
    """tinylab's decoder: pre-LN blocks, causal attention, tanh GELU, final LN, head tied to wte or `head` [d, V].
    State-dict names are tinylab's with `h{i}.` written `h.{i}.` (`tinylab_names` maps them back)."""

    def __init__(self, config):
        super().__init__()
        c = self.config = config
        V, T, d = c["vocabSize"], c["contextLength"], c["dModel"]
        self.wte = nn.Parameter(torch.zeros(V, d))
        self.wpe = nn.Parameter(torch.zeros(T, d))
        self.h = nn.ModuleList(Block(d, c["dFF"], c["nHeads"], c["dropout"]) for _ in range(c["nLayers"]))
        self.lnf = LayerNorm(d)
        self.head = None if c["tiedHead"] else nn.Parameter(torch.zeros(d, V))

    def forward(self, ids):
        """Logits [B, T, V] for token ids [B, T]; positions 0..T-1 in every row, T ≤ contextLength."""
        B, T = ids.shape
        if T > self.config["contextLength"]:
            raise ValueError(f"{T} positions, more than the model's context {self.config['contextLength']}")
        x = self.wte[ids] + self.wpe[torch.arange(T, device=ids.device)]  # [B, T, d]
        x = F.dropout(x, self.config["dropout"], self.training)
        for block in self.h:
            x = block(x)
        x = self.lnf(x)
        return x @ (self.wte.T if self.head is None else self.head)  # [B, T, V]

    @staticmethod
    def tinylab_names(state_dict):
        """This module's state dict under tinylab's tensor names (h.0.attn.wqkv -> h0.attn.wqkv)."""
        out = {}
        for k, v in state_dict.items():
            if k.startswith("h."):
                _, i, rest = k.split(".", 2)
                k = f"h{i}.{rest}"
            out[k] = v
        return out


def load(path, dtype=torch.float64):
    """A tinylab model file (format tinylab-model/1, /2 or /3) as a TinylabGPT in `dtype`, with `.tokenizer` and
    `.metadata`. Reads the `config` and `tokenizer` metadata only (unknown keys ignored). The integrity digest
    is not checked here: `tinylab evaluate` checks it."""
    tensors, meta = read_safetensors(path)
    fmt = meta.get("format", "")
    if not fmt.startswith("tinylab-model/"):
        raise ValueError(f"{path}: format {fmt!r} is not a tinylab model file (tinylab-model/N)")
    config = json.loads(meta["config"])
    missing = [k for k in CONFIG_KEYS if k not in config]
    if missing:
        raise ValueError(f"{path}: config lacks {', '.join(missing)}")
    model = TinylabGPT(config)
    expected = TinylabGPT.tinylab_names(model.state_dict())
    extra = sorted(set(tensors) - set(expected))
    if extra:
        raise ValueError(f"{path}: unexpected tensors {extra} for this config")
    state = {}
    for torch_name, tinylab_name in zip(model.state_dict(), expected):
        if tinylab_name not in tensors:
            raise ValueError(f"{path}: tensor {tinylab_name!r} is missing")
        a = tensors[tinylab_name]
        if list(a.shape) != list(expected[tinylab_name].shape):
            raise ValueError(f"{path}: tensor {tinylab_name!r} has shape {list(a.shape)}, the config needs {list(expected[tinylab_name].shape)}")
        state[torch_name] = torch.from_numpy(a.copy())
    model.load_state_dict(state)
    model.to(dtype).eval()
    model.tokenizer = tokenizer_from_json(json.loads(meta["tokenizer"]))
    model.metadata = meta
    model.bos, model.eos = BOS, EOS
    return model


# ----------------------------------------------------------------------------------------------------------------
# GPT-2 layout (the export), written from GPT-2's conventions: Conv1D weights [in, out], c_attn split along its
# last axis into q, k, v, heads as consecutive slices, gelu_new, lm_head tied to wte, position ids 0..T-1.


class Conv1D(nn.Module):
    def __init__(self, nx, nf):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).view(*x.shape[:-1], -1)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head, self.n_embd = cfg["n_head"], cfg["n_embd"]
        self.c_attn = Conv1D(self.n_embd, 3 * self.n_embd)
        self.c_proj = Conv1D(self.n_embd, self.n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).permute(0, 2, 1, 3) for t in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2)) / (v.size(-1) ** 0.5)  # scale_attn_weights
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
        w = torch.where(causal, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        a = torch.matmul(nn.functional.softmax(w, dim=-1), v)
        return self.c_proj(a.permute(0, 2, 1, 3).contiguous().view(B, T, C))


class Gpt2Mlp(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        inner = cfg.get("n_inner") or 4 * cfg["n_embd"]
        self.c_fc = Conv1D(cfg["n_embd"], inner)
        self.c_proj = Conv1D(inner, cfg["n_embd"])

    def forward(self, x):
        return self.c_proj(gelu_new(self.c_fc(x)))


class Gpt2Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        eps = cfg["layer_norm_epsilon"]
        self.ln_1 = nn.LayerNorm(cfg["n_embd"], eps=eps)
        self.attn = Gpt2Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg["n_embd"], eps=eps)
        self.mlp = Gpt2Mlp(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt2LMHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.config = cfg
        t = self.transformer = nn.Module()
        t.wte = nn.Embedding(cfg["vocab_size"], cfg["n_embd"])
        t.wpe = nn.Embedding(cfg["n_positions"], cfg["n_embd"])
        t.h = nn.ModuleList(Gpt2Block(cfg) for _ in range(cfg["n_layer"]))
        t.ln_f = nn.LayerNorm(cfg["n_embd"], eps=cfg["layer_norm_epsilon"])
        self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)
        if cfg.get("tie_word_embeddings", True):
            self.lm_head.weight = t.wte.weight

    def forward(self, input_ids):
        t = self.transformer
        position_ids = torch.arange(input_ids.shape[1]).unsqueeze(0)
        x = t.wte(input_ids) + t.wpe(position_ids)
        for block in t.h:
            x = block(x)
        return self.lm_head(t.ln_f(x))


def from_hf_dir(path, dtype=torch.float64):
    """The exported directory (config.json, model.safetensors, tokenizer.json) as a GPT-2 LM, with `.tokenizer`
    (tokenizer.json applied by HfByteLevelBpe), `.bos` and `.eos` from config.json."""
    with open(f"{path}/config.json", encoding="utf-8") as f:
        cfg = json.load(f)
    if cfg.get("model_type") != "gpt2" or cfg.get("activation_function") != "gelu_new" or not cfg.get("scale_attn_weights", True):
        raise ValueError(f"{path}/config.json: expected model_type gpt2, activation gelu_new, scaled attention")
    tensors, _ = read_safetensors(f"{path}/model.safetensors")
    model = Gpt2LMHead(cfg)
    state = {k: torch.from_numpy(v.copy()) for k, v in tensors.items()}
    if cfg.get("tie_word_embeddings", True):
        if "lm_head.weight" in state:
            raise ValueError(f"{path}: tie_word_embeddings is true, yet model.safetensors has lm_head.weight")
        state["lm_head.weight"] = state["transformer.wte.weight"]
    model.load_state_dict(state, strict=True)  # every GPT-2 name present with its shape, nothing else
    model.to(dtype).eval()
    model.tokenizer = HfByteLevelBpe(f"{path}/tokenizer.json")
    model.bos, model.eos = cfg["bos_token_id"], cfg["eos_token_id"]
    model.context = cfg["n_positions"]
    return model


# ----------------------------------------------------------------------------------------------------------------
# Documents and scoring: one document per row, BOS + content + EOS, targets ids[1:], summed in float64

# src/data/fixtures.ts OVERFIT_TEXTS
OVERFIT_TEXTS = [
    {"id": "train-aaab", "split": "train", "source": "constructed", "text": "aaab"},
    {"id": "train-aab", "split": "train", "source": "constructed", "text": "aab"},
    {"id": "validation-abaa", "split": "validation", "source": "constructed", "text": "abaa"},
    {"id": "validation-baa", "split": "validation", "source": "constructed", "text": "baa"},
]
SPLITS = ["train", "validation", "test"]


def read_documents(path):
    """Rows of a JSONL documents file (src/node/files.ts): {id, split, source?, text | ids}."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                row = json.loads(line)
                if row.get("split") not in SPLITS or ("text" in row) == ("ids" in row):
                    raise ValueError(f"{path} line {n}: needs a split ({', '.join(SPLITS)}) and exactly one of text, ids")
                rows.append(row)
    if not rows:
        raise ValueError(f"{path}: no documents (expected one JSON object per line)")
    return rows


def encode_rows(rows, model):
    """(id, split, ids): text as BOS + tokens + EOS with the model's tokenizer, an `ids` row as given."""
    return [(r["id"], r["split"], r["ids"] if "ids" in r else [model.bos, *model.tokenizer.encode(r["text"]), model.eos]) for r in rows]


def context_of(model):
    return model.config["contextLength"] if isinstance(model, TinylabGPT) else model.context


@torch.no_grad()
def score(model, docs, splits, stride=None):
    """Per split {nll, targets, total_nll}: the token-weighted mean of -log p(target), in windows of the context at
    `stride` (default the context: tinylab's one rule, docs/evaluation.md), only each window's new targets scored."""
    T = context_of(model)
    stride = scoring_stride(stride, T)
    out = {}
    for split in splits:
        chosen = [d for d in docs if d[1] == split]
        if not chosen:
            continue
        terms = []
        for _, _, ids in chosen:
            for start, length, scored in windows(len(ids) - 1, T, stride):
                x = torch.tensor([ids[start:start + length]])
                logp = model(x).log_softmax(-1)[0]  # [length, V]
                pos = torch.arange(length - scored, length)
                terms.extend((-logp[pos, torch.tensor(ids[start + 1 + length - scored:start + 1 + length])]).double().tolist())
        total = math.fsum(terms)
        out[split] = {"nll": total / len(terms), "targets": len(terms), "total_nll": total}
    return out


def main(argv):
    p = argparse.ArgumentParser(prog="tinylab_torch.py", description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["score", "encode"])
    src = p.add_mutually_exclusive_group(required=False)
    src.add_argument("--model", help="tinylab model file (.safetensors)")
    src.add_argument("--hf-dir", help="directory written by tinylab export --format hf-gpt2")
    p.add_argument("--data", help="JSONL documents file (default: --run, else the overfit fixture)")
    p.add_argument("--run", help="run directory of tinylab train --text: score the split it trained on (its manifest.json, sha256-checked)")
    p.add_argument("--text", help="with --run: where the run's text is now")
    p.add_argument("--stride", type=int, help="window stride, 1..context (default: the context, as tinylab evaluate)")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--final-test", action="store_true", help="also score the test split (a final report)")
    a = p.parse_args(argv)
    dtype = getattr(torch, a.dtype)
    note, data = None, a.data or "overfit fixture"
    try:
        if a.model is None and a.hf_dir is None:
            if a.run is None:
                raise ValueError("give --model FILE, --hf-dir DIR or --run DIR (its model.safetensors)")
            a.model = os.path.join(a.run, "model.safetensors")
        if a.text is not None and a.run is None:
            raise ValueError("--text needs --run DIR (the split is rebuilt from its manifest.json)")
        if a.run is not None and a.data is not None:
            raise ValueError("give one of --run (a run's text) and --data (a JSONL documents file)")
        model = load(a.model, dtype) if a.model else from_hf_dir(a.hf_dir, dtype)
        prov = json.loads(model.metadata.get("provenance", "{}")) if isinstance(model, TinylabGPT) else {}
        if a.run is not None:
            rows, manifest_sha, data = read_run(a.run, a.text)
            note = trained_on_note(a.model or a.hf_dir, prov, "text", manifest_sha, data)
        else:
            note = trained_on_note(a.model or a.hf_dir, prov, "documents" if a.data else "fixture", None, a.data)
            rows = read_documents(a.data) if a.data else OVERFIT_TEXTS
        docs = encode_rows(rows, model)
    except (OSError, ValueError, KeyError) as e:
        print(f"tinylab_torch: error: {e}", file=sys.stderr)
        return 1
    if a.mode == "encode":
        print(json.dumps({d[0]: d[2] for d in docs}))
        return 0
    splits = SPLITS if a.final_test else ["train", "validation"]
    try:
        result = score(model, docs, splits, a.stride)
    except ValueError as e:
        print(f"tinylab_torch: error: {e}", file=sys.stderr)
        return 1
    if note:
        print(note, file=sys.stderr)
    print(json.dumps({"source": a.model or a.hf_dir, "dtype": a.dtype, "data": data, "stride": a.stride or context_of(model), "splits": result}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
