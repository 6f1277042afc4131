#!/usr/bin/env bash
# Renders fleetsim's HTML reports headless in Chromium (Debian package
# `chromium`) and fails on any console error or failed load. Writes a
# screenshot of each report (1280×2400) into $REPORTCHECK_OUT (default: a
# temporary directory, removed at exit) for a person to look at.
#
# Usage: tools/reportcheck/run.sh [REPORT.html ...]
# Without arguments it builds fleetsim, writes the report of a small
# simulate run and of a small sweep, and checks both.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

browser="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$browser" ]]; then
  echo "reportcheck: chromium is not installed (apt-get install -y chromium)" >&2
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="${REPORTCHECK_OUT:-$tmp/shots}"
mkdir -p "$out"

reports=("$@")
if [[ ${#reports[@]} -eq 0 ]]; then
  (cd "$root" && go build -o "$tmp/fleetsim" ./cmd/fleetsim)
  "$tmp/fleetsim" simulate --requests 20000 --rate 800 --seed 7 --timing kv \
    --pool short:a100:30:4096 --pool long:a100:60:6144 \
    --out "$tmp/run" --report "$tmp/simulate.html" >/dev/null
  "$tmp/fleetsim" sweep --rates 20,40,60 --router length,token-budget --requests 500 \
    --pool short:a100:2:4096 --pool long:a100:4:65536 --no-plots \
    --out "$tmp/sweep" --report "$tmp/sweep.html" >/dev/null 2>&1
  reports=("$tmp/simulate.html" "$tmp/sweep.html")
fi

status=0
for r in "${reports[@]}"; do
  name="$(basename "$r" .html)"
  log="$tmp/$name.log"
  # No network: the report must render from the file alone.
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --disable-extensions --user-data-dir="$(mktemp -d -p "$tmp")" \
    --enable-logging=stderr --v=0 \
    --screenshot="$out/$name.png" --window-size=1280,2400 \
    "file://$(cd "$(dirname "$r")" && pwd)/$(basename "$r")" >"$log" 2>&1 || {
      echo "reportcheck: $r: chromium failed" >&2; cat "$log" >&2; status=1; continue; }
  if grep -E 'Uncaught|ERROR:CONSOLE|CONSOLE\(|net::ERR_|Failed to load' "$log" >&2; then
    echo "reportcheck: $r: console errors (above)" >&2
    status=1
    continue
  fi
  if [[ ! -s "$out/$name.png" ]]; then
    echo "reportcheck: $r: no screenshot" >&2
    status=1
    continue
  fi
  echo "reportcheck: $r renders without console errors ($out/$name.png)"
done
exit $status
