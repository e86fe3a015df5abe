#!/usr/bin/env bash
# Installs the offline translation data for cross-lingual search on a Debian/Ubuntu machine:
# Apertium's Spanish-English pair (apertium, apertium-eng-spa), which cita runs as child
# processes, and FreeDict's Spanish-English dictionaries (dict-freedict-spa-eng,
# dict-freedict-eng-spa). Idempotent: when every package is installed it says so and exits
# without touching apt. Needs root (or sudo) only when something is missing. Without this data
# cita still works; its search stays monolingual (`cita doctor` says so).
set -euo pipefail

log() { printf 'install-translation: %s\n' "$*" >&2; }

PACKAGES=(apertium apertium-eng-spa dict-freedict-spa-eng dict-freedict-eng-spa)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
else
  missing=("${PACKAGES[@]}")
fi
if [ ${#missing[@]} -eq 0 ]; then
  log "Apertium (eng-spa) and the FreeDict dictionaries are installed"
  exit 0
fi

command -v apt-get >/dev/null 2>&1 || {
  log "no apt-get: install Apertium with its eng-spa pair (https://wiki.apertium.org) for cross-lingual search, or go without it (search stays monolingual)"; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    log "not root and no sudo: run apt-get install ${missing[*]} as root"; exit 1
  fi
fi

log "installing ${missing[*]}"
# The package lists may be missing (a fresh container) or stale: update first when the
# packages are not known.
if ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then $SUDO apt-get update -qq; fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for p in "${PACKAGES[@]}"; do installed "$p" || { log "$p is still missing after apt-get install"; exit 1; }; done
log "ready: Apertium modes $(apertium -l 2>/dev/null | xargs), FreeDict dictionaries in /usr/share/dictd"
