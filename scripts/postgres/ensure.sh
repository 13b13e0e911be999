#!/bin/sh
# Makes sure PostgreSQL server binaries (initdb, pg_ctl) exist for the tests and benchmarks.
# Installs the Debian `postgresql` package with apt-get only when they are missing.
# Prints the directory holding the binaries.
set -eu

find_bindir() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

if bindir=$(find_bindir); then
  echo "$bindir"
  exit 0
fi

echo "PostgreSQL binaries not found: installing the Debian postgresql package" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >&2
$SUDO apt-get install -y -q --no-install-recommends postgresql >&2
# The package starts a system cluster; the tests start their own throwaway clusters instead.

if bindir=$(find_bindir); then
  echo "$bindir"
  exit 0
fi
echo "PostgreSQL binaries still missing after installing postgresql" >&2
exit 1
