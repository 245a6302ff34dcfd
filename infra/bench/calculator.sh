#!/usr/bin/env bash
# POST /api/calculator against GET /api/auth/me, same server, same clients,
# interleaved in one run. The calculator's extra work is CPU only, so the
# issue's bound is: at most 15% more cost than /me (rate at least 1/1.15 of it).
#
#   infra/bench/calculator.sh          C=16 DURATION=15 ROUNDS=2 by default
set -euo pipefail
# shellcheck source=infra/bench/lib.sh
source "$(dirname "$0")/lib.sh"

C=${C:-16}; DURATION=${DURATION:-15}; ROUNDS=${ROUNDS:-2}
start_server "$url"
jar="$out/cookies.txt"
curl -fsS -c "$jar" -o /dev/null -H 'Content-Type: application/json' \
  -d "{\"email\":\"calc-$(date +%s%N)@example.com\",\"password\":\"correct horse battery\"}" "$base/api/auth/register"
token=$(awk '$6 == "tj_session" {print $7}' "$jar")

declare -A best
run() { # name, wrk args...: keeps the round with the highest rate
  local name=$1; shift
  wrk -t2 -c "$C" -d"${DURATION}s" --latency -H "Cookie: tj_session=$token" "$@" >"$out/$name.txt"
  local rps p99
  rps=$(awk '/^Requests\/sec/ {print $2}' "$out/$name.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$out/$name.txt")
  echo "$name: $rps req/s, p99 $p99"
  if [ -z "${best[$name]:-}" ] || awk -v a="$rps" -v b="${best[$name]%% *}" 'BEGIN {exit !(a > b)}'; then
    best[$name]="$rps $p99"
  fi
}
for _ in $(seq "$ROUNDS"); do
  run me "$base/api/auth/me"
  run calculator -s infra/bench/calculator.lua "$base/api/calculator"
done
me=${best[me]%% *}; calc=${best[calculator]%% *}
awk -v m="$me" -v c="$calc" 'BEGIN {
  over = (m / c - 1) * 100
  printf "best rounds: /me %.0f req/s, calculator %.0f req/s: the calculator costs %.1f%% more per request (target <= 15%%): %s\n",
    m, c, over, (over <= 15 ? "met" : "NOT met")
}'
