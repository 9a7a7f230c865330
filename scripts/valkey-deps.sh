#!/usr/bin/env bash
# Installs Valkey 8 (valkey-server and valkey-cli), the second engine the
# integration suites run on, from Debian's backports suite of this machine's
# own release. The apt source is derived from the Debian sources the machine
# already has (deb822 *.sources or one-line *.list): same mirror URI, same
# components, same keyring, suite <codename>-backports. No host name is
# written into the repository; the entry lands in
# /etc/apt/sources.list.d/echomq-backports.sources on the machine.
#
#   scripts/valkey-deps.sh          # install if missing, print the version
#   scripts/valkey-deps.sh --source # only print the derived sources entry
#
# Exits non-zero, saying why on stderr, when Valkey cannot be installed; the
# Makefile's valkey-server target decides whether that fails the build.
set -euo pipefail

APT=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
if [ "$(id -u)" != 0 ]; then APT=(sudo "${APT[@]}"); fi
ETC="${APT_ETC:-/etc/apt}" # another root only to try the parsing
ENTRY="$ETC/sources.list.d/echomq-backports.sources"

die() { echo "valkey-deps: $*" >&2; exit 1; }

# have reports whether valkey-server and valkey-cli are both on $PATH.
have() { command -v valkey-server >/dev/null 2>&1 && command -v valkey-cli >/dev/null 2>&1; }

# codename prints the Debian release codename (bookworm, trixie, ...).
codename() {
	# shellcheck disable=SC1091
	. /etc/os-release
	[ "${ID:-}" = debian ] || die "not Debian (ID=${ID:-unknown} in /etc/os-release): install Valkey 8 yourself and put valkey-server and valkey-cli on \$PATH"
	[ -n "${VERSION_CODENAME:-}" ] || die "no VERSION_CODENAME in /etc/os-release"
	echo "$VERSION_CODENAME"
}

# debian_sources prints one line "URI<TAB>SUITES<TAB>COMPONENTS<TAB>SIGNED-BY"
# per enabled binary (deb) source of the machine, deb822 and one-line alike.
debian_sources() {
	local f
	for f in "$ETC"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && enabled != "no" && uris != "")
					printf "%s\t%s\t%s\t%s\n", uris, suites, comps, signed
				types = uris = suites = comps = signed = enabled = ""; key = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]/ { next }  # continuation line (an inline key block)
			{
				key = tolower(substr($0, 1, index($0, ":") - 1))
				val = substr($0, index($0, ":") + 1); gsub(/^[ \t]+|[ \t]+$/, "", val)
				if (key == "types") types = val
				else if (key == "uris") uris = val
				else if (key == "suites") suites = val
				else if (key == "components") comps = val
				else if (key == "signed-by" && val !~ /BEGIN PGP/) signed = val
				else if (key == "enabled") enabled = tolower(val)
			}
			END { flush() }
		' "$f"
	done
	for f in "$ETC"/sources.list "$ETC"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '
			/^[ \t]*deb[ \t]/ {
				sub(/#.*/, ""); signed = ""; i = 2
				if ($2 ~ /^\[/) {
					for (; i <= NF; i++) {
						if ($i ~ /^\[?signed-by=/) { signed = $i; sub(/^\[?signed-by=/, "", signed); sub(/\]$/, "", signed) }
						if ($i ~ /\]$/) { i++; break }
					}
				}
				uri = $i; suite = $(i + 1); comps = ""
				for (j = i + 2; j <= NF; j++) comps = comps (comps == "" ? "" : " ") $j
				printf "%s\t%s\t%s\t%s\n", uri, suite, comps, signed
			}
		' "$f"
	done
}

# backports_entry prints the deb822 entry for <codename>-backports, built
# from the first Debian source that carries <codename> itself.
backports_entry() {
	local code="$1" uris suites comps signed uri
	while IFS=$'\t' read -r uris suites comps signed; do
		case " $suites " in *" $code "*) ;; *) continue ;; esac
		uri="${uris%% *}"
		printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: %s\n' "$uri" "$code" "${comps:-main}"
		if [ -n "$signed" ]; then printf 'Signed-By: %s\n' "$signed"; fi
		return 0
	done < <(debian_sources)
	die "no apt source for suite $code in $ETC/sources.list or $ETC/sources.list.d: cannot derive $code-backports"
}

# has_backports reports whether some source already carries <codename>-backports.
has_backports() {
	debian_sources | cut -f2 | tr ' ' '\n' | grep -qx "$1-backports"
}

code="$(codename)"
if [ "${1:-}" = --source ]; then
	backports_entry "$code"
	exit 0
fi

if ! have; then
	if ! has_backports "$code"; then
		entry="$(backports_entry "$code")"
		echo "valkey-deps: adding $ENTRY:" >&2
		echo "$entry" | sed 's/^/  /' >&2
		echo "$entry" | { if [ "$(id -u)" = 0 ]; then cat >"$ENTRY"; else sudo tee "$ENTRY" >/dev/null; fi; }
	fi
	"${APT[@]}" update || die "apt-get update failed"
	pkgs=(valkey-server)
	# valkey-cli ships in valkey-tools; valkey-server depends on it, but say so.
	if apt-cache show valkey-tools >/dev/null 2>&1; then pkgs+=(valkey-tools); fi
	"${APT[@]}" install -y --no-install-recommends -t "$code-backports" "${pkgs[@]}" ||
		die "apt-get install -t $code-backports ${pkgs[*]} failed"
	have || die "valkey-server or valkey-cli still not on \$PATH after installing ${pkgs[*]}"
fi

version="$(valkey-server --version)"
echo "$version"
case "$version" in
*" v=8."*) ;;
*) echo "valkey-deps: warning: the suite's matrix targets Valkey 8.0; this is: $version" >&2 ;;
esac
