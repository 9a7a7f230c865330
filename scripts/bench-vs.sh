#!/usr/bin/env bash
# Compares this tree with an earlier commit on the same machine, in the same
# run: the two builds take turns (COUNT rounds of each), so a noisy
# neighbour hurts both alike, and benchstat prints old vs new for every
# metric, the same-run ratios (x_vs_*) included.
#
#   scripts/bench-vs.sh BASE                      # e.g. scripts/bench-vs.sh efa8691
#   COUNT=6 BENCHTIME=2s scripts/bench-vs.sh main
#   ROOT_BENCH='^BenchmarkWriters$' GROUP_BENCH=none scripts/bench-vs.sh BASE
#
# By default it measures what a fault or hook change must not slow down:
# Append from 64 goroutines (root module) and a consumer group end to end
# (module bench). The base is checked out with `git worktree add --detach`
# into a temporary directory, removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:?usage: scripts/bench-vs.sh BASE_COMMIT}
COUNT=${COUNT:-4}
BENCHTIME=${BENCHTIME:-2s}
ROOT_BENCH=${ROOT_BENCH:-^BenchmarkAppend$/parallel64/ratio}
GROUP_BENCH=${GROUP_BENCH:-^BenchmarkGroupEndToEnd$}

out=$(mktemp -d)
wt="$out/base"
git worktree add --quiet --detach "$wt" "$base"
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$out"' EXIT

run() { # dir label
	local dir=$1 label=$2
	if [ "$ROOT_BENCH" != none ]; then
		(cd "$dir" && go test -run '^$' -bench "$ROOT_BENCH" -benchtime "$BENCHTIME" -count 1 .) >>"$out/$label.txt"
	fi
	if [ "$GROUP_BENCH" != none ]; then
		(cd "$dir/bench" && go test -run '^$' -bench "$GROUP_BENCH" -benchtime "$BENCHTIME" -count 1 .) >>"$out/$label.txt"
	fi
}

for i in $(seq "$COUNT"); do
	echo "== round $i of $COUNT" >&2
	if ((i % 2)); then run "$wt" old; run . new; else run . new; run "$wt" old; fi
done

go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$out/old.txt" "$out/new.txt" 2>/dev/null ||
	{ echo "(benchstat unavailable: raw results follow)"; cat "$out/old.txt" "$out/new.txt"; }
