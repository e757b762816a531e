"""The split a tinylab run trained on, rebuilt from its manifest.json by the rule docs/evaluation.md states (and
src/data/text_split.ts sourcesOfManifest / src/node/text_files.ts readRunText implement): each document re-read from
its file and checked against the manifest's sha256; and the scorers' one stride rule and windows (src/eval/passes/windows.ts).
Used by score.py and tinylab_torch.py; standard library only.
Not the seeded split itself: without a manifest (tinylab's --text alone) give the run directory instead.
"""
import errno
import hashlib
import json
import os
import re
import stat

MANIFEST_FILE = "manifest.json"
MANIFEST_FORMAT = "tinylab-text-manifest/1"
# what JavaScript's String.prototype.trim removes (Python's str.strip also removes \x1c-\x1f and \x85, and keeps \ufeff)
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
REMEDY = "restore it, or score other documents with --data"


class RunTextError(ValueError):
    """A run's text that cannot be rebuilt; printed as one line."""


def sha256_text(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def documents_of_text(text, file, source, one_per_line):
    """src/data/text_split.ts documentsOfText: blank-line (or per-line) documents, ids <file>#<n> from 1."""
    body = re.sub(r"\r\n?", "\n", text[1:] if text.startswith("\ufeff") else text)
    parts = body.split("\n") if one_per_line else re.split(r"\n[ \t]*\n", body)
    kept = [p.strip(JS_WHITESPACE) for p in parts]
    return [{"id": f"{file}#{i + 1}", "source": source, "file": file, "text": t} for i, t in enumerate(t for t in kept if t)]


# src/node/disk.ts notFoundReason: why a path names no file, in the words every tinylab command uses
NOT_FOUND = {errno.ENOENT: "", errno.ENOTDIR: " (a part of the path is not a directory)", errno.ELOOP: " (a loop of symbolic links)",
             errno.ENAMETOOLONG: " (the name is too long)"}


def kind_of(mode):
    """src/node/disk.ts kindOf: what a path that is not a regular file is."""
    kinds = [(stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_file(path, what):
    """The bytes of the regular file at path, refused in src/node/disk.ts's words (missing, or not a regular file)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        why = NOT_FOUND.get(err.errno)
        if why is not None:
            raise RunTextError(f"{what} not found: {path}{why}") from None
        raise RunTextError(f"cannot read {what} {path} ({errno.errorcode.get(err.errno, 'error')}: {err.strerror.lower()})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise RunTextError(f"{what} is not a regular file: {path} (it is {kind_of(mode)})")
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read()
    finally:
        os.close(fd)


def read_utf8(path, what):
    """src/node/text_files.ts readUtf8: the text, or the first line that is not UTF-8."""
    raw = read_file(path, what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        lines = raw.split(b"\n")
        line = next(i for i, b in enumerate(lines, 1) if not utf8(b))
        raise RunTextError(f"{path} line {line}: not valid UTF-8 (--text must be UTF-8 text)") from None


def utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


MISSING = object()


def js_kind(v):
    """src/util/formats/schema.ts kind: a JSON value's type as its refusals name it."""
    if v is None:
        return "null"
    return "an array" if isinstance(v, list) else "an object" if isinstance(v, dict) else "a boolean" if isinstance(v, bool) \
        else "a string" if isinstance(v, str) else "a number"


def refuse(where, path, what, v):
    """src/util/formats/schema.ts refuse: `<file>: <field>: <what is wrong> (got <value>)`, the value shortened to one line."""
    shown = "nothing" if v is MISSING else json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    raise RunTextError(f"{where}: {path}: {what} (got {shown if len(shown) <= 80 else shown[:77] + '...'})")


def read_run(run, text=None, one_per_line=None):
    """(documents [{id, split, source, text}] in manifest order, the manifest's sha256, how to name the data)."""
    where = os.path.join(run, MANIFEST_FILE)
    raw = read_file(where, f"run manifest of --run {run} (train --text writes {MANIFEST_FILE} there)")
    text_of_run = f"text file of --run {run} (pass --text PATH where the text is now)" if text is None else f"text file of --run {run} under --text {text}"
    try:
        m = json.loads(raw)
    except ValueError as err:
        raise RunTextError(f"{where}: not valid JSON: {err}") from None
    if not isinstance(m, dict):
        refuse(where, "the whole file", f"must be an object, not {js_kind(m)}", m)
    if "format" not in m or m["format"] != MANIFEST_FORMAT:
        refuse(where, "format", "is missing" if "format" not in m else f'must be "{MANIFEST_FORMAT}"', m.get("format", MISSING))
    if not isinstance(m.get("documents"), list):
        refuse(where, "documents", "is missing" if "documents" not in m else f"must be an array, not {js_kind(m['documents'])}", m.get("documents", MISSING))
    by_file = {}
    for e in m["documents"]:
        by_file.setdefault(e["file"], []).append(e)
    found = {}
    for file, entries in by_file.items():
        if not all(e["id"].startswith(f"{file}#") for e in entries):
            # one whole .txt file per document, under a directory (ids are paths relative to it)
            for e in entries:
                path = file if text is None else os.path.join(text, e["id"])
                body = read_utf8(path, text_of_run)
                found[e["id"]] = ((body[1:] if body.startswith("\ufeff") else body).strip(JS_WHITESPACE), path)
            continue
        path = file if text is None else text
        body = read_utf8(path, text_of_run)
        sha = {e["id"]: e["sha256"] for e in entries}
        matches = lambda docs: len(docs) == len(entries) and all(sha.get(d["id"]) == sha256_text(d["text"]) for d in docs)  # noqa: E731
        docs = documents_of_text(body, file, entries[0]["source"], bool(one_per_line))
        if one_per_line is None and not matches(docs) and matches(documents_of_text(body, file, entries[0]["source"], True)):
            docs = documents_of_text(body, file, entries[0]["source"], True)
        found.update({d["id"]: (d["text"], path) for d in docs})
    fix = f"(the split in {where} was made from other text; {REMEDY})"
    out = []
    for e in m["documents"]:
        if e["id"] not in found:
            raise RunTextError(f"{e['file']}: document {e['id']} of the split is missing {fix}")
        got = sha256_text(found[e["id"]][0])
        if got != e["sha256"]:
            raise RunTextError(f"{found[e['id']][1]} changed: document {e['id']} has sha256 {got[:12]}…, the manifest says {e['sha256'][:12]}… {fix}")
        out.append({"id": e["id"], "split": e["split"], "source": e["source"], "text": found.pop(e["id"])[0]})
    if found:
        extra = next(iter(found))
        raise RunTextError(f"{found[extra][1]} changed: document {extra} is not in the split {fix}")
    files = list(by_file)
    source = f"run {run} (its {MANIFEST_FILE} over {files[0] if len(files) == 1 else f'{len(files)} text files'})"
    return out, hashlib.sha256(raw).hexdigest(), source


def trained_on_note(model, provenance, given_kind, manifest_sha256=None, given_source=None):
    """src/lab/trained_on.ts: refuse a text model given no data (naming --run); a one-line note when the data is not its split."""
    d = provenance.get("data") if isinstance(provenance, dict) else None
    if not isinstance(d, dict):
        return None
    files = d.get("files") or []
    named = f"{files[0] if len(files) == 1 else f'{len(files)} text files'}, manifest sha256 {d.get('manifest_sha256', '')[:12]}…"
    if given_kind == "fixture":
        raise RunTextError(f"{model} was trained on text ({named}): give --run DIR (the directory train --text wrote) to score its own split, or --data FILE for other documents")
    if given_kind == "documents":
        return f"note: {model} was trained on text ({named}), not on {given_source}: these are not its own splits"
    if manifest_sha256 != d.get("manifest_sha256"):
        return f"note: {model} was trained on another split ({named}); {given_source} has manifest sha256 {manifest_sha256[:12]}…: not the data it was trained against"
    return None


def scoring_stride(stride, context):
    """src/eval/passes/windows.ts scoringStride: default the context; outside [1, context] refused naming --stride."""
    if stride is None:
        return context
    if not 1 <= stride <= context:
        raise RunTextError(f"--stride must be an integer in [1, {context}] (the model's context), got {stride}")
    return stride


def windows(n_targets, context, stride):
    """(start, length, scored) as src/eval/passes/windows.ts documentWindows: each target 1..N scored exactly once."""
    out, prev, end = [], 0, min(context, n_targets)
    while prev < n_targets:
        start = max(0, end - context)
        out.append((start, end - start, end - prev))
        prev, end = end, min(end + stride, n_targets)
    return out
