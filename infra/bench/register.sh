#!/usr/bin/env bash
# POST /api/auth/register over HTTP: every request hashes a password with
# argon2id, so this is the hash's throughput plus one insert transaction.
# Compare with go test -bench Password ./shared/auth/.
#
#   infra/bench/register.sh         C=4 DURATION=15 LOG_LEVEL=warn
#
# Everything started here (the cluster under .data/bench-pg, bin/local: lib.sh)
# is stopped on exit. Loopback only, DURATION seconds of load.
set -euo pipefail
C=${C:-4}                  # more clients than cores only queue on the hash
DURATION=${DURATION:-15}
export LOG_LEVEL=${LOG_LEVEL:-warn}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
start_server "$url"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; anything well above 0 is a neighbour)"
run=$(date +%s%N)   # this run's emails are r$run-THREAD-N@example.com
wrk -t2 -c "$C" -d"${DURATION}s" --latency -s infra/bench/register.lua "$base" -- "$run" >"$out/wrk-register.txt"
if grep -q 'Non-2xx' "$out/wrk-register.txt"; then grep 'Non-2xx' "$out/wrk-register.txt" >&2; exit 1; fi
awk '/Requests\/sec/ {r = $2} $1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2}
  END {printf "POST /api/auth/register (c=%s): %s registrations/s  p50 %s  p99 %s\n", c, r, p50, p99}' c="$C" "$out/wrk-register.txt"
echo "users this run created: $(pg psql -Atqc "SELECT count(*) FROM users WHERE email LIKE 'r$run-%'" tradejournal)"
echo "raw output in $out/wrk-register.txt"
