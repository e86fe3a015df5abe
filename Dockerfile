# syntax=docker/dockerfile:1
# cita: one static binary on a distroless base, running as a non-root user.
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

# distroless/static: CA certificates (Slack, Discord, model APIs over HTTPS) and tzdata (cron
# schedules with CRON_TZ), no shell, no package manager; "nonroot" is uid/gid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cita /usr/local/bin/cita
# The PDF extractor's WebAssembly compilation cache lives under the user cache directory.
ENV HOME=/home/nonroot XDG_CACHE_HOME=/home/nonroot/.cache
USER nonroot:nonroot
WORKDIR /home/nonroot
EXPOSE 8080
# /healthz (liveness) and /readyz (readiness) are HTTP probes for the orchestrator: the image
# has no shell or curl for a Docker HEALTHCHECK.
ENTRYPOINT ["/usr/local/bin/cita"]
CMD ["serve", "--listen", ":8080"]
