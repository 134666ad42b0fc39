#!/bin/bash
# Time our dump-tree against Debian's btrfs-progs dump-tree on the same image
# and print the ratio (ours / reference; goal <= 1.0) and our peak memory.
# usage: bench/dump-tree-bench.sh [CASE] [RUNS]   (CASE from ../shared/corpus, default nodesize4k-bulk)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
case=${1:-nodesize4k-bulk}; runs=${2:-5}
ours=${BTRFS:-$top/btrfs}; ref=${REF_BTRFS:-/usr/bin/btrfs}
src=$top/../shared/corpus/$case
[ -d "$src" ] || { echo "no corpus case $src" >&2; exit 1; }
[ -x "$ref" ] || { echo "no reference binary $ref" >&2; exit 1; }
work=$(mktemp -d /tmp/dtbench.XXXXXX); trap 'rm -rf "$work"' EXIT
devs=()
for x in "$src"/dev*.img.xz; do
	d=$work/$(basename "$x" .xz); xz -dc "$x" | dd of="$d" bs=64k conv=sparse status=none; devs+=("$d")
done
best() { # command... -> best wall time of $runs runs, in seconds
	local b="" t i
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -o "$work/t" -f %e "$@" > /dev/null 2>&1; t=$(tail -n1 "$work/t")
		if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
	done
	echo "$b"
}
t_ours=$(best "$ours" inspect-internal dump-tree --noscan "${devs[@]}")
t_ref=$(best "$ref" inspect-internal dump-tree "${devs[@]}")
/usr/bin/time -o "$work/m" -f %M "$ours" inspect-internal dump-tree --noscan "${devs[@]}" > /dev/null 2>&1
mem=$(tail -n1 "$work/m")
echo "case $case: ours ${t_ours}s, reference ${t_ref}s, ratio $(awk "BEGIN{if ($t_ref > 0) printf \"%.2f\", $t_ours / $t_ref; else print \"n/a\"}"), our peak RSS ${mem} KiB"
