#!/usr/bin/env bash
# Reproduces BENCHMARKS.md: prints the machine facts, measures a
# redis-benchmark XADD floor on a private redis-server (a free loopback port,
# never 6379), then runs the Go comparisons, which start their own servers.
#
#   scripts/bench.sh                  # -benchtime=2s -count=3
#   BENCHTIME=1x COUNT=1 scripts/bench.sh
#   BENCH='^BenchmarkAppend$/parallel64' scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

BENCHTIME=${BENCHTIME:-2s}
COUNT=${COUNT:-3}
BENCH=${BENCH:-^Benchmark(Append|AppendBatch|Read|Mint)$}
REQUESTS=${REQUESTS:-200000}

echo "== machine"
echo "nproc: $(nproc)"
go version
redis-server --version
uptime

# A free loopback port: nothing answers on it.
port=$(free_port)

dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no >"$dir/redis.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.05
done

payload=(room lobby-7 player PLR0KHTOWnGLuC points 120)
echo
echo "== redis-benchmark: XADD * with the benchmark payload, $REQUESTS requests, 64 connections"
for pipeline in 1 16; do
	redis-cli -p "$port" del bench:xadd >/dev/null
	echo -n "pipeline $pipeline: "
	redis-benchmark -h 127.0.0.1 -p "$port" -n "$REQUESTS" -c 64 -P "$pipeline" -q \
		XADD bench:xadd '*' "${payload[@]}" | tr '\r' '\n' | grep -v '^$' | tail -1
done
redis-cli -p "$port" del bench:xadd >/dev/null

echo
echo "== go test -run '^\$' -bench '$BENCH' -benchtime=$BENCHTIME -count=$COUNT ."
go test -run '^$' -bench "$BENCH" -benchtime="$BENCHTIME" -count="$COUNT" .
uptime
