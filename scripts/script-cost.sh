#!/usr/bin/env bash
# Counts what the engine spends on each append path, in instructions per
# call (valgrind's callgrind on a private redis-server): a count, unlike a
# time, is the same on a busy machine and an idle one, so a change to a Lua
# script can be judged by it. Each path runs N and 2N times; the difference
# divided by N is the cost of one call, the server's start and stop
# cancelled out.
#
#   scripts/script-cost.sh          # N=2000
#   N=500 scripts/script-cost.sh
#   REF=efa8691 scripts/script-cost.sh   # the scripts as they were at a commit
#
# Paths: a bare XADD (the floor), an empty EVALSHA (what any script costs),
# the append script on a contended stream (a stale proposal: the script
# reads the top, chooses the id and builds the receipt) and the lean keyed
# append (a fresh key each call) and the lean contended append.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
command -v valgrind >/dev/null || { echo "script-cost: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

N=${N:-2000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo 'return 1' >"$dir/empty.lua"
PRE=() # a command run once on each server before the calls

# lua PATH: the script at PATH, from REF when set.
lua() {
	if [ -z "${REF:-}" ]; then echo "$1"; return; fi
	local f; f="$dir/$(basename "$1")"
	git show "$REF:$1" >"$f"
	echo "$f"
}

# total CALLS SCRIPT|'' ARGS...: instructions of a server that served CALLS
# requests (EVALSHA of SCRIPT with ARGS, or ARGS as a command).
total() {
	local calls=$1 script=$2; shift 2
	local port; port=$(free_port)
	rm -f "$dir"/cg.*
	valgrind --tool=callgrind --callgrind-out-file="$dir/cg.%p" \
		redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/vg.log" 2>&1 &
	local pid=$!
	# valgrind starts slowly on a busy machine: wait up to 2 minutes, then give up.
	local up=
	for _ in $(seq 1200); do redis-cli -p "$port" ping >/dev/null 2>&1 && { up=1; break; }; sleep 0.1; done
	[ -n "$up" ] || { echo "script-cost: redis-server under valgrind did not start (see $dir/vg.log)" >&2; kill "$pid"; exit 1; }
	if [ "${#PRE[@]}" -gt 0 ]; then redis-cli -p "$port" "${PRE[@]}" >/dev/null; fi
	if [ -n "$script" ]; then
		local sha; sha=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$script")")
		[[ $sha =~ ^[0-9a-f]{40}$ ]] || { echo "script-cost: SCRIPT LOAD failed: $sha" >&2; kill "$pid"; exit 1; }
		redis-benchmark -p "$port" -n "$calls" -r 100000000 -c 1 -q EVALSHA "$sha" "$@" >/dev/null 2>&1
	else
		redis-benchmark -p "$port" -n "$calls" -r 100000000 -c 1 -q "$@" >/dev/null 2>&1
	fi
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
	wait "$pid" || true
	awk '/^(summary|totals):/ {print $2; exit}' "$dir"/cg.*
}

per_call() {
	local name=$1; shift
	local a b
	a=$(total "$N" "$@")
	b=$(total $((2 * N)) "$@")
	printf '%-40s %8d instructions/call\n' "$name" $(((b - a) / N))
}

payload=(room lobby-7 player PLR0KHTOWnGLuC points 120)
per_call "XADD * (6 payload fields)" '' XADD st '*' "${payload[@]}"
per_call "EVALSHA of 'return 1'" "$dir/empty.lua" 1 st
# The scripts take the queue's engine id cells as KEYS[2] since receipts are
# unique (a REF before that takes the older layout).
append=$(lua internal/wire/lua/stream_append.lua)
if grep -q "engine id cell" "$append"; then
	per_call "stream_append, contended (mode h)" "$append" \
		2 st ids h 900 5000 5 '' 600000 1 '' 1704067200000-0 EVT00000000000 6 "${payload[@]}"
else
	per_call "stream_append, contended (mode h)" "$append" \
		1 st h 900 5000 5 '' 600000 1 1704067200000-0 EVT00000000000 6 "${payload[@]}"
fi
# The lean contended append (above a top entry written once before the run;
# skipped at a REF without the script).
contended=internal/wire/lua/stream_append_contended.lua
if [ -z "${REF:-}" ] || git cat-file -e "$REF:$contended" 2>/dev/null; then
	PRE=(XADD st 1704067200000-0 id EVT00000000000)
	if grep -q "engine id cell" "$(lua "$contended")"; then
		per_call "stream_append_contended (plain, hot)" "$(lua "$contended")" \
			2 st ids 900 5000 1 "${payload[@]}"
	else
		per_call "stream_append_contended (plain, hot)" "$(lua "$contended")" \
			1 st $((900 << 12)) 5000 1 "${payload[@]}"
	fi
	PRE=()
fi
per_call "stream_append_keyed, fresh key" "$(lua internal/wire/lua/stream_append_keyed.lua)" \
	2 st 'k:__rand_int__' '*' EVT00000000000 600000 "${payload[@]}"
