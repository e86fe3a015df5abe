# syntax=docker/dockerfile:1
# cita: one static binary on a Debian slim base with the offline translation data, running as a
# non-root user.
#   docker build -t cita .
#   docker run -e DATABASE_URL=postgres://... -e SLACK_BOT_TOKEN=... -p 8080:8080 cita
# The private PostgreSQL cluster of the CLI is not in the image: DATABASE_URL is required
# (PostgreSQL 15+ with pgvector 0.8+; compose.yaml starts one). See docs/production.md.

FROM golang:1.26 AS build
WORKDIR /src
# Dependencies first, so that source edits do not invalidate the module cache layer.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/cita ./cmd/cita

# Debian slim rather than distroless: cross-lingual search runs Debian's Apertium (a GPL
# program, run as child processes, not linked) and reads FreeDict's dictionaries, the same
# packages scripts/install-translation.sh installs. CA certificates (Slack, Discord, model APIs
# over HTTPS) and tzdata (cron schedules with CRON_TZ); "nonroot" is uid/gid 65532.
FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates tzdata apertium apertium-eng-spa dict-freedict-spa-eng dict-freedict-eng-spa \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --gid 65532 nonroot \
    && useradd --uid 65532 --gid 65532 --create-home --home-dir /home/nonroot --shell /usr/sbin/nologin nonroot
COPY --from=build /out/cita /usr/local/bin/cita
# The PDF extractor's WebAssembly compilation cache lives under the user cache directory.
ENV HOME=/home/nonroot XDG_CACHE_HOME=/home/nonroot/.cache
USER nonroot:nonroot
WORKDIR /home/nonroot
EXPOSE 8080
# /healthz (liveness) and /readyz (readiness) are HTTP probes for the orchestrator (the image
# has no curl for a Docker HEALTHCHECK).
ENTRYPOINT ["/usr/local/bin/cita"]
CMD ["serve", "--listen", ":8080"]
