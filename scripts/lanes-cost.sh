#!/usr/bin/env bash
# Counts what the engine spends on the lanes job lifecycle, in instructions
# per job (valgrind's callgrind on a private redis-server), the way
# scripts/script-cost.sh does for the append paths: the benchmark
# BenchmarkEngineCommands/SHAPE of lanes/cost_test.go runs N and 2N jobs,
# each against a fresh server, and the difference divided by N is the cost
# of one job (the server's start, the warm-up and the test's set-up cancel
# out).
#
#   scripts/lanes-cost.sh                      # N=1000, one job per lane
#   SHAPE=backlog_of_10_per_lane N=500 scripts/lanes-cost.sh
#   REF=2bcb0f2 scripts/lanes-cost.sh          # the scripts as they were at a commit
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
command -v valgrind >/dev/null || { echo "lanes-cost: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

N=${N:-1000}
SHAPE=${SHAPE:-one_job_per_lane}
dir=$(mktemp -d)
tree=$PWD
cleanup() {
	if [ -n "${REF:-}" ]; then git worktree remove --force "$dir/ref" >/dev/null 2>&1 || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
if [ -n "${REF:-}" ]; then
	# The scripts of REF, measured by this tree's test.
	git worktree add --detach "$dir/ref" "$REF" >/dev/null 2>&1
	cp lanes/cost_test.go lanes/export_test.go "$dir/ref/lanes/"
	tree=$dir/ref
fi
(cd "$tree" && go test -c -o "$dir/lanes.test" ./lanes/)

# total JOBS: instructions of a server that served the benchmark of JOBS jobs.
total() {
	local port; port=$(free_port)
	rm -f "$dir"/cg.*
	valgrind --tool=callgrind --callgrind-out-file="$dir/cg.%p" \
		redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/vg.log" 2>&1 &
	local pid=$!
	for _ in $(seq 300); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
	(cd "$tree/lanes" && EMQ_TEST_ADDR="127.0.0.1:$port" "$dir/lanes.test" -test.run '^$' \
		-test.bench "BenchmarkEngineCommands/$SHAPE\$" -test.benchtime "${1}x" >"$dir/bench.log" 2>&1) ||
		{ cat "$dir/bench.log" >&2; exit 1; }
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
	wait "$pid" || true
	awk '/^(summary|totals):/ {print $2; exit}' "$dir"/cg.*
}

a=$(total "$N")
b=$(total $((2 * N)))
printf '%-40s %8d instructions/job (%s)\n' "$SHAPE" $(((b - a) / N)) "${REF:-$(git rev-parse --short HEAD)}"
