#!/usr/bin/env bash
# Installs what cita's demo and tests need on a Debian/Ubuntu machine, each step idempotent and
# quick when done already: PostgreSQL with its contrib modules and pgvector >= 0.8
# (install-postgres.sh), and the offline translation data for cross-lingual search
# (install-translation.sh). `make demo` and `make test` run it first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/install-postgres.sh"
bash "$here/install-translation.sh"
