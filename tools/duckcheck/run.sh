#!/usr/bin/env bash
# Independent check of fleetsim's Parquet outputs: runs a small simulation
# with the Go CLI, then reads requests.parquet with DuckDB (npm package
# @duckdb/node-api) and compares the row count, column sums and schema with
# the numbers Go computed while writing (summary.json). Then runs a small
# sweep whole and in 3 shards and checks that the documented DuckDB merge
# query (deploy/merge-parts.sql) gives the whole sweep's rows. Exits
# non-zero on a mismatch or on any failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [[ ! -d "$here/node_modules/@duckdb/node-api" ]]; then
  # npm ci installs exactly package-lock.json. Where the registry serves only
  # some platforms' builds of @duckdb/node-bindings, the lock file cannot list
  # the others and npm ci refuses it as out of sync; npm install then
  # installs the same locked versions.
  (cd "$here" && { npm ci --no-audit --no-fund --loglevel=silent ||
    npm install --no-audit --no-fund --no-save --loglevel=error; })
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cd "$root"
# A small two-pool run with rejections (requests longer than every pool) and
# warm-up rows, so NULL times and every column are exercised; kv timing (the
# papers' convention) keeps it the lightly loaded run it was written for.
go run ./cmd/fleetsim simulate --requests 20000 --rate 800 --seed 7 --timing kv \
  --pool short:a100:30:4096 --pool long:a100:60:6144 \
  --out "$tmp/run" --format json >"$tmp/summary-stdout.json"
node "$here/check.mjs" "$tmp/run"

# The check must be able to fail: a summary with a wrong count is caught.
mkdir "$tmp/bad"
cp "$tmp/run/requests.parquet" "$tmp/bad/"
sed 's/"rows": \([0-9]*\)/"rows": 1\1/' "$tmp/run/summary.json" >"$tmp/bad/summary.json"
if node "$here/check.mjs" "$tmp/bad" 2>/dev/null; then
  echo "duckcheck: a wrong row count was not detected" >&2
  exit 1
fi
echo "duckcheck: a wrong row count is detected (self-test OK)"

# A small sweep, whole and in 3 shards: the merge query documented in
# docs/sweep.md (deploy/merge-parts.sql) must give the whole sweep's rows.
grid=(--rates 20,40,60 --router length,token-budget --requests 500
  --pool short:a100:2:4096 --pool long:a100:4:65536 --no-plots)
go build -o "$tmp/fleetsim" ./cmd/fleetsim
quiet() { "$@" >/dev/null 2>"$tmp/sweep.log" || { cat "$tmp/sweep.log" >&2; exit 1; }; }
quiet "$tmp/fleetsim" sweep "${grid[@]}" --out "$tmp/sweep-whole"
for i in 0 1 2; do
  quiet "$tmp/fleetsim" sweep "${grid[@]}" --shard "$i/3" --out "$tmp/sweep-sharded"
done
node "$here/sweepcheck.mjs" "$root/deploy/merge-parts.sql" "$tmp/sweep-sharded" "$tmp/sweep-whole"
# The check must be able to fail: a missing part is caught.
rm "$tmp/sweep-sharded/parts/part-0001-of-0003.parquet"
if node "$here/sweepcheck.mjs" "$root/deploy/merge-parts.sql" "$tmp/sweep-sharded" "$tmp/sweep-whole" 2>/dev/null; then
  echo "sweepcheck: a missing part was not detected" >&2
  exit 1
fi
echo "sweepcheck: a missing part is detected (self-test OK)"

# The time series, sweep.parquet's footer and NULLs, and the notebook's
# DuckDB analysis (examples/notebook/analysis.sql).
node "$here/outputscheck.mjs" "$tmp/run" "$tmp/sweep-whole" "$root/examples/notebook/analysis.sql"
# The check must be able to fail: a summary with one arrival more is caught.
mkdir "$tmp/bad-ts"
cp "$tmp/run/requests.parquet" "$tmp/run/timeseries.parquet" "$tmp/bad-ts/"
sed 's/^  "requests": \([0-9]*\)/  "requests": 1\1/' "$tmp/run/summary.json" >"$tmp/bad-ts/summary.json"
if node "$here/outputscheck.mjs" "$tmp/bad-ts" "$tmp/sweep-whole" "$root/examples/notebook/analysis.sql" 2>/dev/null; then
  echo "outputscheck: a wrong arrival count was not detected" >&2
  exit 1
fi
echo "outputscheck: a wrong arrival count is detected (self-test OK)"
