#!/usr/bin/env bash
# Checks what a user of the root package inherits: a fresh module that
# imports only github.com/echomq/echomq must see at most MAX_MODULES modules
# in `go mod graph`, none of the heavy or optional ones (they live in nested
# modules), and a hello-world binary built from it must link neither the
# embedded engine (miniredis) nor its Lua interpreter. The binary also
# proves that a program that does not import package embedded cannot ask
# for it: Connect with "embedded:" and with "" both return ErrNoEngine.
#
# It also checks that tests wait on events, not on time: every time.Sleep in
# a _test.go file of any module must carry a `// sleep: <reason>` comment on
# its line or the line before, saying why the passing time is itself the
# subject (an engine kept paused for a while, a writer that runs for N
# seconds). A test waiting for something to happen waits on the event
# instead: echomqtest.Recv, echomqtest.WaitFor, a hook, or testing/synctest.
# Every Lua script is a file of internal/wire/lua. And every channel
# receive in a test is bounded (scripts/waitcheck): a test
# whose event never comes fails naming it instead of hanging until the
# binary's timeout.
#
#   scripts/check-house.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
MAX_MODULES=${MAX_MODULES:-30}
forbidden='go-redis|hibiken/asynq|ThreeDotsLabs/watermill|chromedp|go-telegram|minio|google.golang.org/grpc|spf13/cobra|apache/arrow|prometheus/client_golang|go.opentelemetry.io'

sleeps="$(cd "$root" && git ls-files -co --exclude-standard -- '*_test.go' | xargs awk '
	FNR == 1 { prev = "" }
	/time\.Sleep\(/ && $0 !~ /\/\/ sleep: / && prev !~ /\/\/ sleep: / { print FILENAME ":" FNR ":" $0 }
	{ prev = $0 }')"
if [ -n "$sleeps" ]; then
	echo "FAIL: time.Sleep in a test without a '// sleep: <reason>' comment (wait on the event instead):" >&2
	printf '%s\n' "$sleeps" >&2
	exit 1
fi
echo "sleeps in tests: every one says why"
(cd "$root" && go run ./scripts/waitcheck -strict)

# Every Lua script lives in internal/wire/lua/*.lua: none is written into Go.
if inline="$(cd "$root" && git ls-files -co --exclude-standard -- '*.go' | xargs grep -l 'redis\.call' || true)" && [ -n "$inline" ]; then
	echo "FAIL: Lua written into Go (move it to internal/wire/lua/*.lua):" >&2
	printf '%s\n' "$inline" >&2
	exit 1
fi
echo "Lua: every script in internal/wire/lua"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >go.mod <<MOD
module example.com/hello

go 1.26.0

require github.com/echomq/echomq v0.0.0-00010101000000-000000000000

replace github.com/echomq/echomq => $root
MOD
cat >main.go <<'GO'
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/echomq/echomq"
)

func main() {
	for _, url := range []string{"", "embedded:"} {
		_, err := echomq.Connect(context.Background(), &echomq.Config{URL: url})
		if !errors.Is(err, echomq.ErrNoEngine) {
			fmt.Fprintf(os.Stderr, "Connect(%q): want ErrNoEngine, got %v\n", url, err)
			os.Exit(1)
		}
	}
	fmt.Println("hello: no engine unless asked for")
}
GO
export GOWORK=off GOFLAGS=-mod=mod
go mod tidy >/dev/null 2>&1 || go mod tidy
modules="$(go mod graph | tr ' ' '\n' | sed 's/@.*//' | sort -u | grep -v '^example.com/hello$' | grep -v '^go$\|^toolchain$')"
count="$(printf '%s\n' "$modules" | grep -c .)"
echo "modules in the graph of a user of the root package: $count (at most $MAX_MODULES)"
printf '%s\n' "$modules" | sed 's/^/  /'
status=0
if [ "$count" -gt "$MAX_MODULES" ]; then
	echo "FAIL: $count modules > $MAX_MODULES" >&2
	status=1
fi
if bad="$(printf '%s\n' "$modules" | grep -E "$forbidden")"; then
	echo "FAIL: the root module drags in: $bad" >&2
	status=1
fi
go build -o hello .
./hello
linked="$(go version -m hello | awk '$1 == "dep" {print $2}')"
echo "modules linked into hello-world: $(printf '%s\n' "$linked" | tr '\n' ' ')"
if bad="$(printf '%s\n' "$linked" | grep -E 'miniredis|gopher-lua')"; then
	echo "FAIL: hello-world links $bad" >&2
	status=1
fi
echo "hello-world binary: $(du -k hello | cut -f1) KiB"
[ "$status" = 0 ] && echo "house check: ok"
exit "$status"
