#!/usr/bin/env bash
# Checks the public API of every module of the workspace against its
# committed golden, api/<module>.txt (see scripts/apilist): every exported
# constant, variable, function, type, field, method and interface method,
# with its signature. A difference fails with the diff, so a change to the
# public API is always a visible, reviewed change of api/. The root
# package, the one most users import, also keeps to at most MAX_ROOT_NAMES
# exported identifiers (fields not counted): what does not belong to it
# lives in the feature packages.
#
#   scripts/check-api.sh            # compare (make api-check)
#   scripts/check-api.sh -update    # rewrite api/ (make api)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ "${1:-}" = -update ]; then
	rm -f api/*.txt
	mkdir -p api
	go run ./scripts/apilist -out api
	echo "api/ updated: review and commit the diff"
	exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/api"
go run ./scripts/apilist -out "$tmp/api"
if ! (cd "$tmp" && diff -ru "$root/api" api) >"$tmp/diff"; then
	cat "$tmp/diff"
	echo
	echo "check-api: the public API differs from api/ (above: - committed, + now)."
	echo "check-api: if the change is intended, run \`make api\` and commit api/ with it."
	exit 1
fi
echo "check-api: the public API of $(ls api | wc -l) modules matches api/"
MAX_ROOT_NAMES=${MAX_ROOT_NAMES:-380}
names="$(go run ./scripts/apilist -count github.com/echomq/echomq | awk '$1 == "total" {print $2}')"
case "$names" in
'' | *[!0-9]*)
	echo "check-api: no count of the root package's identifiers from scripts/apilist -count (got '$names')" >&2
	exit 1
	;;
esac
if [ "$names" -gt "$MAX_ROOT_NAMES" ]; then
	echo "check-api: the root package exports $names identifiers, more than $MAX_ROOT_NAMES" >&2
	exit 1
fi
echo "check-api: the root package exports $names identifiers (at most $MAX_ROOT_NAMES)"
