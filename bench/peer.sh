#!/usr/bin/env bash
# Runs the PyTorch peer (../shared/peer) on the same configs for comparison. Needs Debian's python3-torch and
# libopenblas0-openmp (see ../shared/peer/README.md). Prints the peer's JSON lines; not a test.
set -euo pipefail
peer="$(dirname "$0")/../../shared/peer/torch_decoder.py"
/usr/bin/python3 "$peer" --config tiny --threads 1
/usr/bin/python3 "$peer" --config medium --threads 1
/usr/bin/python3 "$peer" --config medium --threads 2
