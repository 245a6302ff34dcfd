#!/usr/bin/env bash
# Installs what the tests start for real when a fresh machine lacks it:
# Debian packages with apt-get (redis-server; nginx, and busybox standing in
# for the nginx image's Alpine tools, for the web container's tests; chromium
# for the end-to-end tests), Node.js, and the web app's npm dependencies.
# PostgreSQL is infra/pg.sh's business.
#
#   infra/test-deps.sh          everything the tests need
#   infra/test-deps.sh node     Node.js and web/node_modules only (make run builds the SPA)
set -euo pipefail
cd "$(dirname "$0")/.."

# Vite's floor.
NODE_MIN=20.19

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=
apt_install() {
  echo "test-deps: installing $* with apt-get" >&2
  [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# has reports whether a command is installed; nginx lives in /usr/sbin, which
# a user's PATH may lack.
has() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }

node_ok() {
  has node && has npm && node -e '
    const [maj, min] = process.versions.node.split(".").map(Number);
    const [wantMaj, wantMin] = process.argv[1].split(".").map(Number);
    process.exit(maj > wantMaj || (maj === wantMaj && min >= wantMin) ? 0 : 1);' "$NODE_MIN"
}

ensure_node() {
  node_ok && return
  if ! has node || ! has npm; then apt_install nodejs npm; fi
  node_ok || {
    echo "test-deps: the web app needs Node.js $NODE_MIN or newer; this machine has $(node --version 2>/dev/null || echo none)." >&2
    echo "test-deps: Debian 13 ships it (apt-get install nodejs npm); on Debian 12 install Node.js 22 from nodejs.org or NodeSource." >&2
    exit 1
  }
}

# web/node_modules as web/package-lock.json pins it; npm ci rewrites
# node_modules/.package-lock.json, so a newer lock file means a stale tree.
ensure_web_modules() {
  local stamp=web/node_modules/.package-lock.json
  if [ ! -f "$stamp" ] || [ web/package-lock.json -nt "$stamp" ]; then
    echo "test-deps: npm ci in web/" >&2
    npm ci --prefix web --no-audit --no-fund --loglevel=error
  fi
}

if [ "${1:-}" = node ]; then
  ensure_node
  ensure_web_modules
  exit 0
fi

# command → package
declare -A need=(
  [redis-server]=redis-server
  [nginx]=nginx
  [busybox]=busybox
  [chromium]=chromium
)
missing=()
for cmd in "${!need[@]}"; do
  has "$cmd" || missing+=("${need[$cmd]}")
done
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
ensure_node
ensure_web_modules
