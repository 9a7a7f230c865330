#!/usr/bin/env bash
# Compares codemojex's guess path with a baseline commit in one run, on one
# private redis-server (a free loopback port, never 6379): builds this
# checkout's codemojex and the baseline's (from a separate git worktree,
# never committed), then runs `codemojex sim` of each against the same
# server, each in its own database, alternating ROUNDS times. Around every
# run it resets and reads INFO commandstats, and prints the engine commands
# per scored guess beside the sim's report, then the ratio of guesses/s.
#
#   scripts/codemojex-sim-compare.sh                       # baseline efa8691, 1000 players
#   BASE=efa8691 PLAYERS=1000 GUESSES=10 ROUNDS=2 scripts/codemojex-sim-compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

BASE=${BASE:-efa8691}
PLAYERS=${PLAYERS:-1000}
GUESSES=${GUESSES:-10}
ROUNDS=${ROUNDS:-2}
BASEDIR=${BASEDIR:-/tmp/prevmain}

work=$(mktemp -d)
if [ ! -d "$BASEDIR" ]; then
	git worktree add --detach "$BASEDIR" "$BASE" >/dev/null
fi
(cd "$BASEDIR" && go build -o "$work/base" ./codemojex/cmd/codemojex)
go build -o "$work/head" ./codemojex/cmd/codemojex

port=$(free_port)

redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --daemonize no >"$work/redis.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.05
done

echo "== machine: nproc $(nproc), $(redis-server --version | cut -d' ' -f3), $(uptime | sed 's/.*load/load/')"
echo "== $PLAYERS players x $GUESSES guesses, baseline $BASE vs $(git rev-parse --short HEAD), $ROUNDS rounds"

# calls sums the calls of every command in INFO commandstats.
calls() {
	redis-cli -p "$port" info commandstats | tr -d '\r' | sed -n 's/^cmdstat_[^:]*:calls=\([0-9]*\),.*/\1/p' | awk '{s+=$1} END {print s+0}'
}


# Each run serves one build on its own database of the shared server and
# plays this checkout's sim client against it (the baseline's own sim
# signs its players in from one address, which the server's sign-in limit
# throttles past ten players; this one spreads them over 127.0.0.0/8).
db=0
run() { # name binary
	db=$((db + 1))
	local hp tok spid out
	hp=$(free_port)
	tok=cmp-$RANDOM$RANDOM
	CODEMOJEX_OPERATOR_TOKEN=$tok "$2" serve --addr "127.0.0.1:$hp" --url "redis://127.0.0.1:$port/$db" \
		--dev-signin=true --demo=false --log-level warn >"$work/$1-$db.out" 2>&1 &
	spid=$!
	for _ in $(seq 200); do
		curl -sf "http://127.0.0.1:$hp/api/health" >/dev/null 2>&1 && break
		sleep 0.05
	done
	out=$("$work/head" sim --quiet --url "http://127.0.0.1:$hp" --operator-token "$tok" \
		--players "$PLAYERS" --guesses "$GUESSES" --engine-stats "redis://127.0.0.1:$port")
	kill "$spid"
	wait "$spid" || true
	echo "$1: $out"
	echo "$1 $(echo "$out" | sed -n 's/.*accepted\/s, \([0-9]*\) scored\/s.*/\1/p')" >>"$work/rates"
}

for _ in $(seq "$ROUNDS"); do
	run base "$work/base"
	run head "$work/head"
done
awk '$1 == "base" {b += $2; nb++} $1 == "head" {h += $2; nh++}
	END {printf "== scored/s: base %.0f, head %.0f, head/base %.2fx\n", b / nb, h / nh, (h / nh) / (b / nb)}' "$work/rates"
