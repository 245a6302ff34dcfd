#!/usr/bin/env bash
# POST /api/calculator against GET /api/auth/me, same server, same clients,
# interleaved in one run. The calculator's extra work is CPU only, so the
# issue's bound is: at most 15% more cost than /me (rate at least 1/1.15 of it).
#
#   infra/bench/calculator.sh          C=16 DURATION=15 ROUNDS=2 by default
#   API_PORTS=3700-3799 infra/bench/calculator.sh    the server's port range
#
# Each round also reports the CPU every process spent per request (wrk /
# server / PostgreSQL, in µs, from /proc); it is inflated in a round whose
# rate a neighbour cut (idle and background CPU spread over fewer requests).
# The verdict is given three ways: best round against best round, the mean
# CPU per request, and the median of each round's own comparison.
set -euo pipefail
# shellcheck source=infra/bench/lib.sh
source "$(dirname "$0")/lib.sh"

C=${C:-16}; DURATION=${DURATION:-15}; ROUNDS=${ROUNDS:-2}
start_server "$url"
jar="$out/cookies.txt"
curl -fsS -c "$jar" -o /dev/null -H 'Content-Type: application/json' \
  -d "{\"email\":\"calc-$(date +%s%N)@example.com\",\"password\":\"correct horse battery\"}" "$base/api/auth/register"
token=$(awk '$6 == "tj_session" {print $7}' "$jar")

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; anything well above 0 is a neighbour)"
declare -A best cpu last totals
pairs=()   # per round: how much more a calculator request cost than a /me request of the same round, in %
run() { # name, wrk args...: keeps the round with the highest rate
  local name=$1 txt="$out/$1.txt" pg0 srv0 pg1 srv1 n rps p99 used; shift
  pg0=$(pg_ticks); srv0=$(ticks "$srv")
  { TIMEFORMAT='%U %S'; time wrk -t2 -c "$C" -d"${DURATION}s" --latency -H "Cookie: tj_session=$token" "$@" >"$txt"; } 2>"$txt.time"
  pg1=$(pg_ticks); srv1=$(ticks "$srv")
  if grep -q '^  Non-2xx' "$txt"; then # a refused request is cheap: it would flatter the figure
    echo "$name: not every answer was a 2xx; see $txt" >&2; exit 1
  fi
  n=$(sed -nE 's/^ *([0-9]+) requests in .*/\1/p' "$txt")
  rps=$(awk '/^Requests\/sec/ {print $2}' "$txt")
  p99=$(awk '$1 == "99%" {print $2}' "$txt")
  used=$(awk -v n="$n" -v hz="$hz" -v s=$((srv1 - srv0)) -v p=$((pg1 - pg0)) '{
    f = 1e6 / n; printf "%.1f / %.1f / %.1f = %.1f", ($1 + $2) * f, s / hz * f, p / hz * f, ($1 + $2) * f + (s + p) / hz * f }' "$txt.time")
  echo "$name: $rps req/s, p99 $p99, CPU µs per request (wrk / server / postgres): $used"
  last[$name]=$rps
  totals[$name]+=" ${used##*= }"
  if [ -z "${best[$name]:-}" ] || awk -v a="$rps" -v b="${best[$name]%% *}" 'BEGIN {exit !(a > b)}'; then
    best[$name]="$rps $p99"; cpu[$name]=$used
  fi
}
for _ in $(seq "$ROUNDS"); do
  run me "$base/api/auth/me"
  run calculator -s infra/bench/calculator.lua "$base/api/calculator"
  pairs+=("$(awk -v m="${last[me]}" -v c="${last[calculator]}" 'BEGIN {printf "%.1f", (m / c - 1) * 100}')")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); raw outputs in $out/"
me=${best[me]%% *}; calc=${best[calculator]%% *}
awk -v m="$me" -v c="$calc" -v mp="${best[me]#* }" -v cp="${best[calculator]#* }" 'BEGIN {
  over = (m / c - 1) * 100
  printf "best rounds: /me %.0f req/s (p99 %s), calculator %.0f req/s (p99 %s): the calculator costs %.1f%% more per request (target <= 15%%): %s\n",
    m, mp, c, cp, over, (over <= 15 ? "met" : "NOT met")
}'
echo "CPU µs per request in those rounds: /me ${cpu[me]}; calculator ${cpu[calculator]}"
awk -v m="${totals[me]}" -v c="${totals[calculator]}" 'BEGIN {
  n = split(m, a, " "); for (i = 1; i <= n; i++) ms += a[i]; ms /= n
  n = split(c, a, " "); for (i = 1; i <= n; i++) cs += a[i]; cs /= n
  over = (cs / ms - 1) * 100
  printf "mean CPU µs per request over the rounds, every process: /me %.1f, calculator %.1f: %.1f%% more (target <= 15%%): %s\n",
    ms, cs, over, (over <= 15 ? "met" : "NOT met") }'
# Neighbours come and go within a round less than across rounds: the median
# of the rounds' own comparisons is the steadier figure.
printf '%s\n' "${pairs[@]}" | sort -g | awk '{v[NR] = $1} END {
  m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "per round, the calculator cost more than /me by:"; for (i = 1; i <= NR; i++) printf " %s%%", v[i]
  printf "; median %.1f%% (target <= 15%%): %s\n", m, (m <= 15 ? "met" : "NOT met") }'
