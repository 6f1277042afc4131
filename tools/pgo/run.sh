#!/usr/bin/env bash
# Regenerates cmd/fleetsim/default.pgo, the CPU profile that `go build` and
# `go run` of cmd/fleetsim use for profile-guided optimization (Go's -pgo=auto
# default; BENCHMARKS.md, "Profile-guided optimization"). The profile is the
# benchmark scenario's: BenchmarkSimulate/parquet (simulate --compat papers,
# 200,000 requests per iteration, requests.parquet written), ten iterations.
# Run it after a change that moves the hot path, then commit the file.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/cmd.test" ./cmd/fleetsim
"$tmp/cmd.test" -test.run '^$' -test.bench 'BenchmarkSimulate$/^parquet$' \
  -test.benchtime 10x -test.cpuprofile "$tmp/cpu.prof" >/dev/null
cp "$tmp/cpu.prof" cmd/fleetsim/default.pgo.tmp
mv cmd/fleetsim/default.pgo.tmp cmd/fleetsim/default.pgo
echo "wrote cmd/fleetsim/default.pgo ($(wc -c < cmd/fleetsim/default.pgo) bytes)"
