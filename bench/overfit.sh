#!/usr/bin/env bash
# Benchmark: wall time of the whole default overfit run (3 seeds, checkpoints, baselines, figure), start-up
# included, as a user runs it. Prints one line per run; not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
for i in 1 2 3; do
  start=$(date +%s.%N)
  node bin/tinylab.js overfit --out tmp/bench-overfit.json --plot tmp/bench-overfit.svg > /dev/null
  end=$(date +%s.%N)
  echo "overfit default run $i: $(echo "$end - $start" | bc) s wall (backend $(node -e 'console.log(require("./tmp/bench-overfit.json").provenance.backend)'))"
done
