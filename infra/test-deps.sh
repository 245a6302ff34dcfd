#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages the tests start for real when a
# fresh machine lacks them. PostgreSQL is infra/pg.sh's business.
set -euo pipefail

# command → package
declare -A need=(
  [redis-server]=redis-server
)
missing=()
for cmd in "${!need[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${need[$cmd]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
echo "test-deps: installing ${missing[*]} with apt-get" >&2
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
