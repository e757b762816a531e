"""Test helper, not a test: runs tools/tinylab_torch.py's main() once per line of stdin in this one interpreter.

Each line is a JSON list of the tool's arguments, or {"args": [...], "cwd": DIR, "merged": true} to run it in DIR with
stderr written into stdout (what `2>&1` shows); each answer is one JSON line {status, stdout, stderr}, what the
tool's own process would have exited with and printed. A test file so imports torch (seconds of CPU) once, not once
per call. The tool's entry point and exit codes are tested through `python3 tools/tinylab_torch.py` itself.
"""
import contextlib
import io
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import tinylab_torch  # noqa: E402

for line in sys.stdin:
    request = json.loads(line)
    if isinstance(request, list):
        request = {"args": request}
    out = io.StringIO()
    err = out if request.get("merged") else io.StringIO()
    home = os.getcwd()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            os.chdir(request.get("cwd", home))
            status = tinylab_torch.main(request["args"])
        except SystemExit as e:  # argparse's refusals, as the process would exit
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Exception:  # an uncaught error: the process would print its traceback and exit 1
            traceback.print_exc()
            status = 1
        finally:
            os.chdir(home)
    stderr = "" if err is out else err.getvalue()
    print(json.dumps({"status": status, "stdout": out.getvalue(), "stderr": stderr}), flush=True)
