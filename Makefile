# echomq developer targets. Run `make help` for the list.
#
# The repository is one workspace (go.work) of several modules: the library
# at the root, and nested modules for the parts a library user should not
# inherit (see docs/architecture.md). Package patterns name every module:
# github.com/echomq/echomq/... matches the packages of all of them.
#
# Integration tests start their own redis-server processes on free loopback
# ports (see ./echomqtest); they never touch a redis on 6379. `make test`
# runs every module's tests on Redis 7.0 (Debian's redis-server), then again
# on Valkey 8.0 (EMQ_ENGINE=valkey: Debian's valkey-server from the
# release's backports suite).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO       ?= go
PKGS     ?= github.com/echomq/echomq/...
MODULES  ?= . archive/s3store bench cmd/emq codemojex dashboard otel prometheus watermill webkit
FUZZTIME ?= 30s
GOLANGCI_LINT_VERSION ?= v2.15.0
# The packages the Valkey pass of `make test` runs again: all of them (the
# packages that never start an engine cost a second or two).
VALKEY_PKGS ?= $(PKGS)

# apt-get, as root or through sudo, for what the suite needs from Debian.
APT = $(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*?## "} /^[a-zA-Z0-9_\/-]+:.*?## / {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: deps
deps: redis-server valkey-server cc chromium versitygw ## Install everything the whole suite needs, or say what is skipped and why.

.PHONY: redis-server
redis-server: ## Ensure redis-server and redis-cli are installed (the engine every integration test starts).
	@if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then \
		$(APT) update && $(APT) install -y --no-install-recommends redis-server redis-tools; \
	fi
	@redis-server --version

.PHONY: valkey-server
valkey-server: ## Ensure valkey-server and valkey-cli (Valkey 8, from this Debian release's backports): the suite's second engine.
	@scripts/valkey-deps.sh || { \
		echo "make: ************************************************************************" >&2; \
		echo "make: Valkey 8 could not be installed: the Valkey pass of make test cannot run." >&2; \
		if [ "$${CI:-}" = true ]; then echo "make: CI=true: failing." >&2; exit 1; fi; \
		echo "make: it will be SKIPPED here (under CI=true this fails the build)." >&2; \
		echo "make: ************************************************************************" >&2; }

.PHONY: cc
cc: ## Ensure a C compiler (the race detector needs cgo).
	@command -v gcc >/dev/null 2>&1 || command -v cc >/dev/null 2>&1 || { $(APT) update && $(APT) install -y --no-install-recommends gcc libc6-dev; }

.PHONY: chromium
chromium: ## Ensure Debian's chromium for the browser tests (they skip, saying so, when none can be had).
	@if ! command -v chromium >/dev/null 2>&1; then \
		{ $(APT) update && { $(APT) install -y --no-install-recommends chromium fonts-noto-color-emoji || \
			$(APT) install -y --no-install-recommends chromium; }; } || \
		echo "make: chromium could not be installed: the browser tests of codemojex/web, dashboard and webkit/browsertest will be SKIPPED" >&2; \
	fi

.PHONY: versitygw
versitygw: ## Ensure versitygw (the S3-compatible server the archive/s3store tests start).
	@command -v versitygw >/dev/null 2>&1 || test -x "$$($(GO) env GOPATH)/bin/versitygw" || $(GO) install github.com/versity/versitygw/cmd/versitygw@v1.8.0

.PHONY: test
test: deps ## Run every module's tests with the race detector on Redis 7.0, then again on Valkey 8.0.
	$(GO) test -race -count=1 $(PKGS)
	@$(MAKE) --no-print-directory test/valkey-pass

.PHONY: test/valkey
test/valkey: valkey-server test/valkey-pass ## Run every module's tests (VALKEY_PKGS) on Valkey 8.0 only.

# test/valkey-pass is the Valkey half of test (deps already ran): it skips,
# saying so, where valkey-server is missing and CI is not set.
.PHONY: test/valkey-pass
test/valkey-pass:
	@if ! command -v valkey-server >/dev/null 2>&1 && [ "$${CI:-}" != true ]; then \
		echo "make: valkey-server not installed: the Valkey pass is SKIPPED (make valkey-server)" >&2; exit 0; fi; \
	echo "== Valkey pass: $$(valkey-server --version)"; \
	start=$$(date +%s); \
	EMQ_ENGINE=valkey $(GO) test -race -count=1 $(VALKEY_PKGS); \
	echo "== Valkey pass: $$(( $$(date +%s) - start )) s"

.PHONY: test/watermill
test/watermill: redis-server ## Test the Watermill adapter (its own module) with -race: Watermill's suite and the engine-restart scenario.
	cd watermill && $(GO) test -race -count=1 ./...

.PHONY: faults
faults: redis-server ## Run the full fault matrix (every component under every fault, a few minutes); the table goes to artifacts/faults.md (see docs/faults.md).
	@mkdir -p artifacts
	EMQ_FAULTS=full EMQ_FAULTS_REPORT=$(CURDIR)/artifacts/faults.md $(GO) test -race -count=1 -v -timeout 30m -run 'TestFaultMatrix' ./internal/faultmatrix
	EMQ_FAULT_OUTAGE=60s $(GO) test -race -count=1 -v -timeout 10m -run 'Outage' .

.PHONY: test/short
test/short: ## Run tests in -short mode (no race detector).
	$(GO) test -short -count=1 $(PKGS)

.PHONY: bench
bench: ## Run all benchmarks with allocation stats.
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

.PHONY: fuzz
fuzz: ## Run every Fuzz target for FUZZTIME each (default 30s).
	@$(GO) test -list '^Fuzz' $(PKGS) \
	| awk '/^Fuzz/ {names[n++] = $$1; next} /^ok/ {for (i = 0; i < n; i++) print $$2, names[i]; n = 0}' \
	| while read -r pkg name; do \
		echo "== $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$${name}\$$" -fuzztime $(FUZZTIME) "$$pkg" </dev/null; \
	done

.PHONY: vet
vet: ## Run go vet over every module.
	$(GO) vet $(PKGS)

.PHONY: golangci-lint
golangci-lint: ## Ensure golangci-lint $(GOLANGCI_LINT_VERSION) is installed.
	@bin="$$($(GO) env GOPATH)/bin/golangci-lint"; \
	if ! { command -v golangci-lint >/dev/null 2>&1 && golangci-lint version 2>/dev/null | grep -q "$(GOLANGCI_LINT_VERSION:v%=%)"; } && \
	   ! { test -x "$$bin" && "$$bin" version 2>/dev/null | grep -q "$(GOLANGCI_LINT_VERSION:v%=%)"; }; then \
		GOWORK=off GOFLAGS=-mod=mod $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION); \
	fi

.PHONY: lint
lint: golangci-lint ## Run golangci-lint (.golangci.yml) over every module.
	@lint="$$(command -v golangci-lint || echo "$$($(GO) env GOPATH)/bin/golangci-lint")"; \
	for m in $(MODULES); do echo "== lint $$m"; (cd "$$m" && "$$lint" run --allow-parallel-runners --timeout 10m --config "$(CURDIR)/.golangci.yml" ./...); done

.PHONY: house
house: ## Check what a user of the root package inherits (modules, linked engine).
	scripts/check-house.sh

.PHONY: api
api: ## Rewrite the API goldens api/<module>.txt after an intended change of the public API.
	scripts/check-api.sh -update

.PHONY: api-check
api-check: ## Check the public API of every module against api/ (fails with the diff).
	scripts/check-api.sh

.PHONY: tidy
tidy: ## Run go mod tidy in every module.
	@for m in $(MODULES); do (cd "$$m" && $(GO) mod tidy); done

.PHONY: verify
verify: ## Check every go.mod is tidy, go vet is clean and code is gofmt'ed.
	@for m in $(MODULES); do (cd "$$m" && GOWORK=off $(GO) mod tidy -diff); done
	$(GO) vet $(PKGS)
	@out="$$(gofmt -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
