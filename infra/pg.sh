#!/usr/bin/env bash
# A private PostgreSQL cluster under a directory of the project, from the
# machine's own PostgreSQL binaries (installed with apt-get when missing).
#
#   infra/pg.sh start DIR [--fast]   start (creating it on first use); prints the URL
#   infra/pg.sh stop DIR             stop it
#
# --fast turns durability off (fsync, synchronous_commit): for throwaway test
# clusters only. initdb refuses to run as root, so as root the cluster belongs
# to the unprivileged "postgres" user.
set -euo pipefail

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [--fast]" >&2; exit 2; }
fast=${3:-}

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
    echo "pg.sh: installing PostgreSQL with apt-get" >&2
    as_root apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >&2
    d=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  echo "$d"
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# run_pg runs a PostgreSQL binary as the cluster's owner.
run_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  local p
  for p in $(seq 54320 54999); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "pg.sh: no free port in 54320-54999" >&2; exit 1
}

case "$cmd" in
start)
  bin=$(bindir)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$dir"
  fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    run_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  if run_pg "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    port=$(cat "$dir/port")
  else
    port=$(free_port)
    opts="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300"
    [ "$fast" = "--fast" ] && opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    run_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 60 start >/dev/null ||
      { tail -n 20 "$dir/server.log" >&2; exit 1; }
    echo "$port" | run_pg tee "$dir/port" >/dev/null
  fi
  if ! run_pg "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -Atqc "SELECT 1 FROM pg_database WHERE datname='tradejournal'" postgres | grep -q 1; then
    run_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres tradejournal
  fi
  echo "postgres://postgres@127.0.0.1:$port/tradejournal?sslmode=disable"
  ;;
stop)
  bin=$(bindir)
  [ -d "$dir/data" ] && run_pg "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
  ;;
*) echo "usage: $0 start|stop DIR [--fast]" >&2; exit 2 ;;
esac
