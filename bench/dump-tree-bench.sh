#!/bin/bash
# Time our dump-tree against Debian's btrfs-progs dump-tree on the same images
# and print, per image, the ratio (ours / reference wall time, best of RUNS;
# goal <= 1.0) and both peak RSS figures.  Our peak RSS must not grow with the
# filesystem: compare the figure for the small corpus image with the one for
# the kernel-filled filesystem.
#
# usage: bench/dump-tree-bench.sh [CASE] [RUNS] [NFILES]
#   CASE    ../shared/corpus case (default nodesize4k-bulk), "-" to skip
#   RUNS    timed runs per binary (default 5)
#   NFILES  files the kernel writes into a fresh filesystem made by our mkfs
#           on a loop device (default 100000; 0 skips; needs root, loop, btrfs)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
case=${1:-nodesize4k-bulk}; runs=${2:-5}; nfiles=${3:-100000}
ours=${BTRFS:-$top/btrfs}; ref=${REF_BTRFS:-/usr/bin/btrfs}
[ -x "$ref" ] || { echo "no reference binary $ref" >&2; exit 1; }
work=$(mktemp -d /tmp/dtbench.XXXXXX)
loop=""; mnt=$work/mnt
. "$top/bench/bench-lib.sh"

bench() { # name devices...
	local name=$1; shift
	local t_ours t_ref m_ours m_ref lines
	lines=$("$ours" inspect-internal dump-tree --noscan "$@" 2>/dev/null | wc -l)
	t_ours=$(best "$ours" inspect-internal dump-tree --noscan "$@")
	t_ref=$(best "$ref" inspect-internal dump-tree --noscan "$@")
	m_ours=$(rss "$ours" inspect-internal dump-tree --noscan "$@")
	m_ref=$(rss "$ref" inspect-internal dump-tree --noscan "$@")
	echo "$name ($lines lines): ours ${t_ours}s, reference ${t_ref}s," \
	     "ratio $(awk "BEGIN{if ($t_ref > 0) printf \"%.2f\", $t_ours / $t_ref; else print \"n/a\"}")," \
	     "peak RSS ours ${m_ours} KiB, reference ${m_ref} KiB"
}

if [ "$case" != "-" ]; then
	src=$top/../shared/corpus/$case
	[ -d "$src" ] || { echo "no corpus case $src" >&2; exit 1; }
	devs=()
	for x in "$src"/dev*.img.xz; do
		d=$work/$(basename "$x" .xz); xz -dc "$x" | dd of="$d" bs=64k conv=sparse status=none; devs+=("$d")
	done
	bench "corpus $case" "${devs[@]}"
	rm -f "${devs[@]}"
fi

if [ "$nfiles" -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ] || ! grep -qw btrfs /proc/filesystems; then
		echo "kernel-filled filesystem: skipped (needs root and btrfs in the kernel)"
		exit 0
	fi
	truncate -s 4G "$work/big.img"
	"$ours" mkfs -f -q "$work/big.img" > /dev/null || exit 1
	loop=$(losetup -f --show "$work/big.img") || exit 1
	mkdir -p "$mnt"
	mount -o noatime "$loop" "$mnt" || exit 1
	# NFILES small files in 100 directories, every 10th one a 8 KiB regular extent.
	fill_files "$mnt" "$nfiles"
	umount "$mnt"; losetup -d "$loop"; loop=""
	bench "kernel-filled, $nfiles files" "$work/big.img"
fi
