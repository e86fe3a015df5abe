#!/usr/bin/env bash
# Installs PostgreSQL with the contrib modules (unaccent, pg_trgm) and pgvector >= 0.8 on a
# Debian/Ubuntu machine. Idempotent: when every piece is already there it prints what it found and
# exits without touching apt. Needs root (or sudo) only when something is missing.
#
# Order of attempts for pgvector:
#   1. the distribution package postgresql-<major>-pgvector (Ubuntu 24.04, Debian trixie, PGDG);
#   2. a build from Debian trixie's source package, reusing the URI of the machine's own Debian
#      apt entry (bookworm does not package pgvector).
set -euo pipefail

log() { printf 'install-postgres: %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    log "not root and no sudo: install PostgreSQL and pgvector yourself, or run this script as root"; exit 1
  fi
fi

pg_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/postgres" ] && [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  return 1
}

have_ext() { # $1 = sharedir, $2 = extension
  [ -f "$1/extension/$2.control" ]
}

vector_ok() { # pgvector >= 0.8 (iterative index scans)
  local share=$1 v
  have_ext "$share" vector || return 1
  v=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$share/extension/vector.control")
  [ -n "$v" ] || return 1
  [ "$(printf '%s\n0.8.0\n' "$v" | sort -V | head -n1)" = "0.8.0" ]
}

check_all() {
  local bindir share
  bindir=$(pg_bindir) || return 1
  share=$("$bindir/pg_config" --sharedir 2>/dev/null) || return 1
  have_ext "$share" unaccent && have_ext "$share" pg_trgm && vector_ok "$share"
}

APT_UPDATED=""
apt_update() { [ -n "$APT_UPDATED" ] || { $SUDO apt-get update -qq; APT_UPDATED=1; }; }
apt_install() { apt_update; DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }

if check_all; then
  bindir=$(pg_bindir)
  log "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') with unaccent, pg_trgm and pgvector is installed ($bindir)"
  exit 0
fi

command -v apt-get >/dev/null 2>&1 || {
  log "no apt-get: install PostgreSQL (with contrib) and pgvector >= 0.8 with your package manager (macOS: brew install postgresql pgvector)"; exit 1; }

if ! pg_bindir >/dev/null; then
  log "installing PostgreSQL server and contrib"
  apt_install postgresql postgresql-contrib
fi
bindir=$(pg_bindir) || { log "PostgreSQL server binaries still missing after apt-get install"; exit 1; }
major=$("$bindir/postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)?.*/\1/')
share=$("$bindir/pg_config" --sharedir)
if ! have_ext "$share" unaccent; then apt_install "postgresql-contrib" || apt_install "postgresql-contrib-$major"; fi

if ! vector_ok "$share"; then
  apt_update
  if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1 && apt_install "postgresql-$major-pgvector" && vector_ok "$share"; then
    log "installed postgresql-$major-pgvector"
  else
    log "postgresql-$major-pgvector is not packaged here (or too old): building pgvector from Debian trixie's source package"
    src=/etc/apt/sources.list.d/cita-trixie-src.sources
    if [ ! -f "$src" ]; then
      uri=""
      if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
      fi
      if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
        uri=$(awk '$1=="deb" && $0 !~ /security/ {for (i=2;i<=NF;i++) if ($i ~ /^(https?|mirror|file):/) {print $i; exit}}' /etc/apt/sources.list)
      fi
      [ -n "$uri" ] || { log "cannot find the Debian mirror URI in /etc/apt; add a deb-src line for trixie yourself"; exit 1; }
      printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" | $SUDO tee "$src" >/dev/null
      APT_UPDATED=""
    fi
    apt_install "postgresql-server-dev-$major" build-essential dpkg-dev
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    ( cd "$work" && apt-get source --download-only pgvector >/dev/null 2>&1 ) || {
      log "apt-get source pgvector failed: check the trixie deb-src entry in $src"; exit 1; }
    tarball=$(ls "$work"/pgvector_*.orig.tar.* | head -n1)
    mkdir "$work/src" && tar -xf "$tarball" -C "$work/src" --strip-components=1
    make -s -C "$work/src" PG_CONFIG="$bindir/pg_config" >/dev/null
    $SUDO make -s -C "$work/src" install PG_CONFIG="$bindir/pg_config" >/dev/null
    vector_ok "$share" || { log "pgvector build finished but vector.control is missing or older than 0.8"; exit 1; }
    log "built and installed pgvector from source"
  fi
fi
check_all && log "ready: PostgreSQL $major with unaccent, pg_trgm and pgvector ($bindir)"
