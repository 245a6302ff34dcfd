# Trade Journal. `make run` serves the web app and the api on
# http://localhost:3100 with a private PostgreSQL under ./.data; `make test`
# installs and starts what the tests need, then runs every check and test.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

GOBIN := $(shell go env GOPATH)/bin
STATICCHECK_VERSION := v0.8.2
# The payment processor's mock server the billing tests start (shared/stripetest).
STRIPE_MOCK_VERSION := v0.203.0
# A release stamps its version: make build BUILD_VERSION=v0.14.0-abc1234. Left
# unset, a build in a git checkout stamps the checkout (`git describe --always
# --dirty`: 95053ea, v0.14.0-3-g95053ea-dirty); outside git it stays unknown.
BUILD_VERSION ?= $(shell git describe --always --dirty 2>/dev/null)
LDFLAGS := -s -w $(if $(BUILD_VERSION),-X tradejournal/shared/buildinfo.Version=$(BUILD_VERSION))
GROUPS := $(notdir $(patsubst %/lambda/,%,$(dir $(wildcard functions/*/lambda/main.go))))

.PHONY: run stop build test test-web check test-deps bench bench-load bench-web lambda clean

# The built web app, rebuilt when a source changed. bin/local serves it.
WEB_SOURCES := $(shell find web/src web/public -type f 2>/dev/null) \
	$(wildcard web/index.html web/package.json web/package-lock.json web/vite.config.* web/tsconfig*.json)

run: build web/dist/index.html
	@url=$$(infra/pg.sh start .data/pg); \
	[ -s .data/encryption.key ] || (umask 077; head -c 32 /dev/urandom | base64 > .data/encryption.key); \
	echo "Trade Journal on http://localhost:$${PORT:-3100} (database under ./.data/pg)"; \
	ENCRYPTION_KEY="$${ENCRYPTION_KEY:-$$(cat .data/encryption.key)}" DATABASE_URL="$${DATABASE_URL:-$$url}" exec bin/local

# Stops the private PostgreSQL that `make run` started under ./.data/pg.
stop:
	infra/pg.sh stop .data/pg

build:
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o bin/local ./cmd/local

web/dist/index.html: $(WEB_SOURCES)
	@infra/test-deps.sh node
	npm run build --prefix web
	@touch $@

test: test-deps check
	@export TEST_DATABASE_URL=$$(infra/pg.sh start .data/test-pg --fast | sed 's#/tradejournal?#/postgres?#'); \
	go test -race -count=1 -timeout 30m ./...
	@$(MAKE) --no-print-directory test-web

# The web app: its unit tests (vitest), its build, and the end-to-end tests:
# headless Chromium against PostgreSQL (.data/e2e-pg), bin/local and nginx
# configured by web/docker/start.sh, all started by web/e2e itself.
test-web: build web/dist/index.html
	npm test --prefix web
	npm run test:e2e --prefix web

# The house checks: formatting, vet, staticcheck.
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go') $$(git ls-files --others --exclude-standard '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	go vet ./...
	$(GOBIN)/staticcheck ./...

# Tools the tests need that a fresh machine lacks.
test-deps:
	@infra/test-deps.sh
	@[ -x $(GOBIN)/staticcheck ] || go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@[ -x $(GOBIN)/stripe-mock ] || go install github.com/stripe/stripe-mock@$(STRIPE_MOCK_VERSION)
	@[ -x $(GOBIN)/minio ] || go install github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c

bench:
	@export TEST_DATABASE_URL=$$(infra/pg.sh start .data/test-pg --fast | sed 's#/tradejournal?#/postgres?#'); \
	go test -run '^$$' -bench . -benchmem ./...

# One bootstrap per route group, as the function platform runs them.
lambda:
	@for g in $(GROUPS); do \
	  CGO_ENABLED=0 GOOS=linux GOARCH=$${GOARCH:-arm64} go build -trimpath -tags lambda.norpc -ldflags '$(LDFLAGS)' \
	    -o bin/lambda/$$g/bootstrap ./functions/$$g/lambda; \
	done

# AWS SAM (template.yaml, `BuildMethod: makefile`) runs `make build-<LogicalId>` with
# ARTIFACTS_DIR set: HealthFunction is functions/health/lambda, built as the `lambda` target does.
# A release stamps its version: BUILD_VERSION=v0.14.0-abc1234 sam build
build-%Function:
	@g=$$(printf '%s' '$*' | tr '[:upper:]' '[:lower:]'); \
	[ -f "functions/$$g/lambda/main.go" ] || { echo "$@: no functions/$$g/lambda/main.go" >&2; exit 1; }; \
	[ -n '$(ARTIFACTS_DIR)' ] || { echo "$@: ARTIFACTS_DIR is not set (sam build sets it)" >&2; exit 1; }; \
	CGO_ENABLED=0 GOOS=linux GOARCH=$${GOARCH:-arm64} go build -trimpath -tags lambda.norpc -ldflags '$(LDFLAGS)' \
	  -o '$(ARTIFACTS_DIR)/bootstrap' "./functions/$$g/lambda"

clean:
	infra/pg.sh stop .data/pg; infra/pg.sh stop .data/test-pg; infra/pg.sh stop .data/e2e-pg; rm -rf bin web/dist

# The dashboard of a 100,000-position journal in headless Chromium behind
# nginx, a few minutes (most of it seeding): web/e2e/bench-dashboard.mjs.
bench-web: build web/dist/index.html
	node web/e2e/bench-dashboard.mjs

# Loopback load tests, a few minutes: /me against pgbench -S, registrations/s,
# then the calculator against /me.
bench-load:
	infra/bench/me.sh && infra/bench/register.sh && infra/bench/calculator.sh
