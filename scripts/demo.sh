#!/usr/bin/env bash
# The demo behind `make demo`: index the sample corpus (testdata/corpus, a fictional coffee
# exporter's documents in Spanish and English) into a private PostgreSQL cluster, then ask it
# questions as people with different access groups.
set -euo pipefail
CITA=${1:-bin/cita}
cd "$(dirname "$0")/.."

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
ask() { say "cita ask $*"; $CITA ask "$@"; }

say "cita index --access testdata/corpus.yaml testdata/corpus"
$CITA index --access testdata/corpus.yaml testdata/corpus

ask "¿Cuántos días de vacación tengo al año?"
say "# a table row chosen by the place the question names:"
ask "¿Cuántos días de vacaciones tengo en Madrid?"
say "# questions across languages: English about a Spanish policy, Spanish about an English procedure:"
ask "How many vacation days do I get per year?"
ask --groups engineering "¿Quién aprueba un despliegue a producción?"
ask --groups engineering "How do I deploy Tostador to production?"
ask --groups engineering --history "How do I deploy Tostador to production?" "and for staging?"
ask --groups engineering "What does ERR_4402 mean?"
say "# a row of a price list (CSV), by product name and by code:"
ask --groups finance "cuanto cuesta el cafe nariño"
ask --groups finance "precio del SKU-77812"
say "# two versions of the travel policy disagree: the newer one answers first, and the reply says so:"
ask "What is the per diem in Madrid?"
ask --history "What is the per diem in Madrid?" "and in Bogotá?"
say "# the salary bands are readable by hr only:"
ask "¿Cuál es el salario de la banda B7?"
ask --groups hr "¿Cuál es el salario de la banda B7?"
say "# not in the documentation: cita says so instead of guessing:"
ask "What is the parking policy in our Tokyo office?"
say "# unsure: the documents mention the office wifi, not a password for it; cita gives the closest passages and says so:"
ask "What is the wifi password in Madrid?"
say "# everyday words against the documents' own: \"baja por paternidad\" where the policy says \"licencia\" (--explain shows the glossary entry):"
say "cita ask --groups hr --explain \"¿cuánto es la baja por paternidad?\" | grep -E '^(Licencia|reply|bridges)'"
$CITA ask --groups hr --explain "¿cuánto es la baja por paternidad?" | grep -E '^(Licencia|reply|bridges)' | cut -c1-160

ask --groups sales --explain "feria de agronegosios"

say "# knowledge gaps: a question declined in a public Slack channel (a loopback Slack in this process, the real adapter),"
say "# the gap report, a page added and synced, and the thread answered once (docs/gaps.md):"
say "cita gaps tour"
$CITA gaps tour

say "# run it again: nothing changed, nothing is re-embedded"
$CITA index --access testdata/corpus.yaml testdata/corpus
printf '\nTry your own: %s ask "..." (add --groups hr,finance to read more; --explain for the trace)\n' "$CITA"
printf 'Stop the private database with: make stop-demo\n'
