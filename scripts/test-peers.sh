#!/usr/bin/env bash
# The real peers the tests start: Debian's headless Chromium, redis-server and PostgreSQL. `npm test`
# runs this first, so the README's test command works on a fresh Debian or Ubuntu machine: what is
# missing is installed when we may (root, or sudo without a password), else the one command that
# installs it is printed and the run stops before any test.
set -euo pipefail

# Debian keeps PostgreSQL's server programs off the PATH, in /usr/lib/postgresql/<version>/bin: look
# there, then where pg_config says, then on the PATH (as spec/helpers/postgres.ts does).
has_initdb() {
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && return 0
  command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ] && return 0
  command -v initdb >/dev/null 2>&1
}

missing=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
has_initdb || missing+=(postgresql)
[ ${#missing[@]} -eq 0 ] && exit 0

install_cmd="apt-get install -y ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo)
else
  echo "npm test needs ${missing[*]} (real peers of the tests). Install them with:" >&2
  echo "  sudo apt-get update && sudo $install_cmd" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "npm test needs ${missing[*]}; this machine has no apt-get: install them with its package manager." >&2
  exit 1
fi

echo "npm test: installing ${missing[*]} (Debian packages) ..." >&2
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine: update once when the first try fails.
"${as_root[@]}" apt-get install -y "${missing[@]}" >/dev/null 2>&1 ||
  { "${as_root[@]}" apt-get update >/dev/null && "${as_root[@]}" apt-get install -y "${missing[@]}" >/dev/null; }
