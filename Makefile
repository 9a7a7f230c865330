# echomq developer targets. Run `make help` for the list.
#
# Integration tests start their own redis-server processes on free loopback
# ports (see ./echomqtest); they never touch a redis on 6379.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO       ?= go
PKGS     ?= ./...
FUZZTIME ?= 30s

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*?## "} /^[a-zA-Z0-9_\/-]+:.*?## / {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: redis-server
redis-server: ## Ensure redis-server is installed (apt-get when missing and running as root).
	@if ! command -v redis-server >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server; \
		else \
			echo "warning: redis-server not found and not root; integration tests will be skipped (or fail with CI=true)" >&2; \
		fi; \
	fi

.PHONY: versitygw
versitygw: ## Ensure versitygw (the S3-compatible server the archive tests start) is installed.
	@command -v versitygw >/dev/null 2>&1 || test -x "$$($(GO) env GOPATH)/bin/versitygw" || $(GO) install github.com/versity/versitygw/cmd/versitygw@v1.8.0

.PHONY: test
test: redis-server versitygw ## Run all tests with the race detector (installs redis-server if needed).
	$(GO) test -race -count=1 $(PKGS)

.PHONY: test/watermill
test/watermill: redis-server ## Test the Watermill adapter (its own module): -race, then the engine-restart scenario.
	cd watermill && $(GO) test -race -count=1 ./... && $(GO) test -count=1 -run 'TestPubSub' ./...

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
vet: ## Run go vet.
	$(GO) vet $(PKGS)

.PHONY: tidy
tidy: ## Run go mod tidy.
	$(GO) mod tidy

.PHONY: verify
verify: ## Check go.mod/go.sum are tidy, go vet is clean and code is gofmt'ed.
	$(GO) mod tidy -diff
	$(GO) vet $(PKGS)
	@out="$$(gofmt -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
