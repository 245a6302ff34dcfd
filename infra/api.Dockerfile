# syntax=docker/dockerfile:1
#
# The api image: one static Go binary (cmd/local) on distroless, running as a non-root user.
# docker-compose.yml builds it with the repository as the context:
#
#   docker compose build api
#
# A release stamps its version (reported by GET /api/health and service_build_info) with the
# APP_VERSION build argument, which compose takes from .env: APP_VERSION=v0.14.0-abc1234.
#
# The binary is the entrypoint: with no arguments it applies the migrations and serves on :3100;
# `docker compose exec api /usr/local/bin/tradejournal reset-password --email ...` and the other
# operator commands run the same binary. The image has no shell (distroless), hence no
# entrypoint script and no HEALTHCHECK command; deploy/dockerfile_test.go checks these rules.

FROM golang:1.26.8 AS build
# Never download another toolchain during an image build: a go.mod asking for a newer Go than
# this image fails here, visibly.
ENV GOTOOLCHAIN=local
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG APP_VERSION=""
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X tradejournal/shared/buildinfo.Version=${APP_VERSION}" \
      -o /out/tradejournal ./cmd/local

# distroless/static: CA certificates, tzdata and the nonroot user (65532), nothing else.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tradejournal /usr/local/bin/tradejournal
USER 65532:65532
EXPOSE 3100
ENTRYPOINT ["/usr/local/bin/tradejournal"]
