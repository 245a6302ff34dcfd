#!/usr/bin/env bash
# GET /api/auth/me against pgbench -S on the same PostgreSQL, with the same
# client count, on this machine, in one run: does /me reach 70% of what the
# database alone serves?
#
#   infra/bench/me.sh                      C=16 DURATION=15 ROUNDS=2 LOG_LEVEL=warn
#   LOG_LEVEL=info ROUNDS=1 infra/bench/me.sh
#   PHASES=wrk-me DB_SOCKET=1 GOGC=400 infra/bench/me.sh   try one knob
#   API_PORTS=3800-3899 infra/bench/me.sh   the server's port range (default 3200-3299)
#   PERF=1 BIN=/tmp/local-syms PHASES=wrk-me infra/bench/me.sh
#     profiles /me into .data/bench-out/perf.data; build BIN with
#     go build -o /tmp/local-syms ./cmd/local (make build strips the symbols)
#
# Phases: pgbench -S (prepared, simple), pgbench running /me's own SQL, and wrk
# on /me. Every phase runs ROUNDS times, interleaved, and the best round
# counts: on a shared machine a neighbour's compile otherwise decides. Each
# phase also reports the CPU every process spent per transaction, which shows
# where the time goes and hardly depends on neighbours.
# Everything started here (the cluster under .data/bench-pg, bin/local: lib.sh) is
# stopped on exit. Loopback only; the run lasts about 4 x ROUNDS x DURATION s.
set -euo pipefail
C=${C:-16}                 # concurrent clients, for pgbench and wrk alike
DURATION=${DURATION:-15}   # seconds per phase
ROUNDS=${ROUNDS:-2}
PHASES=${PHASES:-pgbench-prepared pgbench-simple pgbench-me-sql wrk-me}
DB_SOCKET=${DB_SOCKET:-}   # 1: the server reaches PostgreSQL by Unix socket, not TCP
export LOG_LEVEL=${LOG_LEVEL:-warn}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# pgbench gets its own database so its tables never touch tradejournal's.
pg psql -Atqc "SELECT 1 FROM pg_database WHERE datname='pgbench'" postgres | grep -q 1 || pg createdb pgbench
[ "$(pg psql -Atqc "SELECT count(*) FROM pgbench_branches" pgbench 2>/dev/null || true)" = 10 ] ||
  pg pgbench -i -s 10 -q pgbench >"$out/pgbench-init.log" 2>&1

# The server keeps its default pool of 10 connections.
if [ -n "$DB_SOCKET" ]; then
  start_server "postgres://postgres@/tradejournal?host=$(cd "$pgdir" && pwd)&port=$port&sslmode=disable"
else
  start_server "$url"
fi

# One user, one session: every /me does the indexed session+user lookup.
jar="$out/cookies.txt"
curl -fsS -c "$jar" -o /dev/null -H 'Content-Type: application/json' \
  -d "{\"email\":\"bench-$(date +%s%N)@example.com\",\"password\":\"correct horse battery\"}" "$base/api/auth/register"
token=$(awk '$6 == "tj_session" {print $7}' "$jar")
curl -fsS -o /dev/null -H "Cookie: tj_session=$token" "$base/api/auth/me"

# /me's own SQL for pgbench, the database's share of /me: taken from the
# server's backend (pg_stat_activity keeps each one's last statement), so it
# follows shared/auth; the session's token hash and now() fill in $1 and $2.
hash=$(printf %s "$token" | sha256sum | cut -d' ' -f1)
pg psql -Atqc "SELECT query FROM pg_stat_activity WHERE datname = 'tradejournal'
  AND query LIKE '%FROM sessions s JOIN users u%' LIMIT 1" postgres |
  sed -e "s/\\\$1/'\\\\x$hash'::bytea/" -e "s/\\\$2/now()/" >"$out/me.sql"
grep -q "x$hash" "$out/me.sql" || { echo "could not find /me's SQL in pg_stat_activity" >&2; exit 1; }

declare -A rate=() lat=() cpu=()
# phase NAME CMD...: runs the load, keeps the best round's rate, latency and
# CPU per transaction (load generator / server / postgres, in µs).
phase() {
  local name=$1 txt="$out/$1.txt" pg0 srv0 pg1 srv1 gen n r; shift
  [[ " $PHASES " == *" $name "* ]] || return 0
  pg0=$(pg_ticks); srv0=$(ticks "$srv")
  { TIMEFORMAT='%U %S'; time "$@" >"$txt" 2>/dev/null; } 2>"$txt.time"
  sleep 1   # lets the postmaster reap pgbench's backends, so their CPU is counted
  pg1=$(pg_ticks); srv1=$(ticks "$srv")
  if grep -q 'Non-2xx' "$txt"; then grep 'Non-2xx' "$txt" >&2; exit 1; fi
  n=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p; s/^ *([0-9]+) requests in .*/\1/p' "$txt")
  r=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p; s/^Requests\/sec: *([0-9.]+)/\1/p' "$txt")
  gen=$(awk '{print $1 + $2}' "$txt.time")
  echo "  $name: $r tx/s" >&2
  if awk -v a="$r" -v b="${rate[$name]:-0}" 'BEGIN {exit !(a > b)}'; then
    rate[$name]=$r
    lat[$name]=$(awk '$1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2} END {if (p50) printf "p50 %s  p99 %s", p50, p99}' "$txt")
    cpu[$name]=$(awk -v n="$n" -v hz="$hz" -v g="$gen" -v s=$((srv1 - srv0)) -v p=$((pg1 - pg0)) 'BEGIN {
      f = 1e6 / n; printf "%.1f %.1f %.1f", g * f, s / hz * f, p / hz * f }')
  fi
}

# PERF=1: a system-wide profile (perf record) of the wrk phase; its own CPU
# then counts as load generator. Needs a binary with symbols (BIN=).
prof=()
[ -n "${PERF:-}" ] && prof=(perf record -q -F 999 -a -g -o "$out/perf.data" --)

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; anything well above 0 is a neighbour)"
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS, c=$C, ${DURATION}s per phase" >&2
  phase pgbench-prepared pg pgbench -S -c "$C" -j 2 -T "$DURATION" -M prepared pgbench
  phase pgbench-simple pg pgbench -S -c "$C" -j 2 -T "$DURATION" -M simple pgbench
  phase pgbench-me-sql pg pgbench -n -f "$out/me.sql" -c "$C" -j 2 -T "$DURATION" -M prepared tradejournal
  phase wrk-me "${prof[@]}" wrk -t2 -c "$C" -d"${DURATION}s" --latency -H "Cookie: tj_session=$token" "$base/api/auth/me"
done

echo
printf '%-18s %10s  %-26s %s\n' phase "tx/s" "latency" "CPU µs per tx: load generator / server / postgres"
for name in $PHASES; do
  printf '%-18s %10.0f  %-26s %s\n' "$name" "${rate[$name]}" "${lat[$name]:--}" "$(awk '{printf "%6.1f / %5.1f / %5.1f  = %6.1f", $1, $2, $3, $1 + $2 + $3}' <<<"${cpu[$name]}")"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.0f%%", 100 * a / b}'; }
if [ -n "${rate[wrk-me]:-}" ] && [ -n "${rate[pgbench-prepared]:-}" ] && [ -n "${rate[pgbench-simple]:-}" ]; then
  met=$(awk -v a="${rate[wrk-me]}" -v b="${rate[pgbench-prepared]}" 'BEGIN {print (a >= 0.7 * b ? "met" : "NOT met")}')
  echo "GET /api/auth/me (LOG_LEVEL=$LOG_LEVEL) vs pgbench -S -M prepared: $(ratio "${rate[wrk-me]}" "${rate[pgbench-prepared]}")," \
    "vs -M simple: $(ratio "${rate[wrk-me]}" "${rate[pgbench-simple]}"); target >= 70% of prepared: $met"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); raw outputs in $out/"
