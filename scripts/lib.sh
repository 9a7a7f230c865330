# Shared by the scripts in this folder: source it with
#   . scripts/lib.sh   (after cd to the repository root)

# free_port prints a free loopback port (nothing answers on it), or fails.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	echo "no free port found" >&2
	return 1
}
