# cita's developer and CI entry points. `make demo` and `make test` work on a fresh Debian/Ubuntu
# machine: they first install what is missing (scripts/setup.sh: PostgreSQL + pgvector, and the
# offline translation data for cross-lingual search).

GO        ?= go
BIN       := bin/cita
DEMO_DIR  ?= $(CURDIR)/.cita-demo
CITA      := $(BIN) --data-dir $(DEMO_DIR)/postgres

.PHONY: demo test lint bench build setup postgres eval clean help stop-demo

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

build: ## build bin/cita
	$(GO) build -o $(BIN) ./cmd/cita

setup: ## install PostgreSQL + pgvector and the translation data when missing (idempotent; sudo when not root)
	@bash scripts/setup.sh

postgres: ## install only PostgreSQL + pgvector when missing
	@bash scripts/install-postgres.sh

demo: setup build ## index the sample corpus in a private cluster and ask it questions
	@bash scripts/demo.sh "$(CITA)"

stop-demo: build ## stop the demo's private PostgreSQL cluster
	$(CITA) db stop

# The suite holds a lease on the shared test cluster and stops it at the end only when no other
# suite on the machine still uses it (internal/testdb/lease.go).
test: setup ## run the whole test suite against a real PostgreSQL with pgvector
	$(GO) vet ./...
	$(GO) run ./internal/testdb/testsuite $(GO) test -count=1 -timeout 30m ./...

lint: ## go vet (and staticcheck when installed)
	$(GO) vet ./...
	@command -v staticcheck >/dev/null && staticcheck ./... || true

bench: setup build ## retrieval benchmark at 10k and 100k chunks (see cita help bench)
	$(CITA) bench

clean: ## remove build output and the demo cluster
	-$(CITA) db stop 2>/dev/null
	rm -rf bin $(DEMO_DIR)
