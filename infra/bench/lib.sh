# shellcheck shell=bash
# Sourced by the load-test scripts of infra/bench: a private PostgreSQL and
# bin/local on loopback, both stopped when the calling script exits.
# Sets: url (the tradejournal database), port (PostgreSQL's), pgbin, base
# (the API's http://127.0.0.1:PORT), srv (its pid), out (raw outputs).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit
pgdir=.data/bench-pg
out=.data/bench-out; mkdir -p "$out"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v wrk >/dev/null; then
  as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq wrk >/dev/null
fi

srv=""
bench_cleanup() {
  if [ -n "$srv" ]; then kill "$srv" 2>/dev/null || true; wait "$srv" 2>/dev/null || true; fi
  infra/pg.sh stop "$pgdir"
}
trap bench_cleanup EXIT

# --fast (no fsync) keeps the disk out of the figures: these measure CPU.
url=$(infra/pg.sh start "$pgdir" --fast)
port=$(sed -E 's#.*:([0-9]+)/.*#\1#' <<<"$url")
pgbin=$(printf "%s\n" /usr/lib/postgresql/*/bin | sort -V | tail -n 1)   # pg.sh installed it if missing
pg() { "$pgbin/$1" -h 127.0.0.1 -p "$port" -U postgres "${@:2}"; }

# CPU accounting from /proc, in clock ticks (hz per second): a process's
# utime+stime, and for the cluster the postmaster, its live backends, and the
# backends it reaped.
ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
pg_ticks() {
  local pm t=0 c
  pm=$(head -n 1 "$pgdir/data/postmaster.pid")
  for c in $pm $(ps --ppid "$pm" -o pid=); do t=$((t + $(ticks "$c" 2>/dev/null || echo 0))); done
  echo $((t + $(awk '{sub(/.*\) /, ""); print $14 + $15}' "/proc/$pm/stat")))
}
hz=$(getconf CLK_TCK)

# start_server DATABASE_URL: the server as users run it (LOG_LEVEL from the
# environment, default warn), on the first free port of API_PORTS (default
# 3200-3299), stdout to $out/server.log.
# BIN=path runs that build instead of making bin/local (a release, or a
# snapshot while the tree is mid-edit).
start_server() {
  local p http="" bin=${BIN:-bin/local} ports=${API_PORTS:-3200-3299}
  [ -n "${BIN:-}" ] || make -s build
  for p in $(seq "${ports%-*}" "${ports#*-}"); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { http=$p; break; }; done
  DATABASE_URL="${1:-$url}" PORT="$http" LOG_LEVEL="${LOG_LEVEL:-warn}" "$bin" >"$out/server.log" 2>&1 &
  srv=$!
  base="http://127.0.0.1:$http"
  for _ in $(seq 100); do curl -fs "$base/api/health" >/dev/null && return; sleep 0.1; done
  echo "$bin did not answer; see $out/server.log" >&2; exit 1
}
