#!/bin/bash
# Time our btrfs check against Debian's btrfs-progs check (original mode and
# --mode=lowmem) on one filesystem the kernel fills: NFILES inodes in 100
# directories (every 10th with an 8 KiB extent, the others inline), then
# NSNAP snapshots of the subvolume holding them, each snapshot changing a few
# files.  Prints wall time (best of RUNS) and peak RSS of each, and our
# figures as ratios against each peer measured in the same run (goal: wall
# below original mode's, peak RSS at most half of it).
#
# usage: bench/check-bench.sh [NFILES] [NSNAP] [RUNS]   (root, loop, btrfs)
# DATA_MB=N also writes N MiB of random data in 64 MiB files before the
# snapshots; CHECK_ARGS="--check-data-csum" (for example) is given to every
# check run, ours and Debian's alike.  BASE_BTRFS=path times that binary too
# (say, ours before a change) and prints our ratio against it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
nfiles=${1:-200000}; nsnap=${2:-4}; runs=${3:-3}
data_mb=${DATA_MB:-0}; read -r -a cargs <<< "${CHECK_ARGS:-}"
ours=${BTRFS:-$top/btrfs}; ref=${REF_BTRFS:-/usr/bin/btrfs}
[ -x "$ref" ] || { echo "no reference binary $ref" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ] || ! grep -qw btrfs /proc/filesystems; then
	echo "skipped: needs root and btrfs in the kernel"; exit 0
fi
work=$(mktemp -d /tmp/checkbench.XXXXXX)
loop=""; mnt=$work/mnt
. "$top/bench/bench-lib.sh"

truncate -s 8G "$work/fs.img"
"$ours" mkfs -f -q "$work/fs.img" > /dev/null || exit 1
loop=$(losetup -f --show "$work/fs.img") || exit 1
mkdir -p "$mnt"
mount -o noatime "$loop" "$mnt" || exit 1
"$ref" subvolume create "$mnt/sv" > /dev/null || exit 1
fill_files "$mnt/sv" "$nfiles"
for ((i = 0; i * 64 < data_mb; i++)); do
	dd if=/dev/urandom of="$mnt/sv/data$i" bs=1M count=$((data_mb - i * 64 < 64 ? data_mb - i * 64 : 64)) status=none
done
for ((s = 1; s <= nsnap; s++)); do
	"$ref" subvolume snapshot "$mnt/sv" "$mnt/snap$s" > /dev/null || exit 1
	for ((i = 0; i < 1000; i++)); do echo "snap $s" > "$mnt/snap$s/d$(printf %02d $((i % 100)))/new$i"; done
done
umount "$mnt"; losetup -d "$loop"; loop=""

ratio() { awk "BEGIN{if ($2 > 0) printf \"%.2f\", $1 / $2; else print \"n/a\"}"; }

"$ours" check "$work/fs.img" > "$work/ours.out" 2>&1 || { cat "$work/ours.out"; echo "our check found errors" >&2; }
t_o=$(best "$ours" check "${cargs[@]}" "$work/fs.img");         m_o=$(rss "$ours" check "${cargs[@]}" "$work/fs.img")
t_r=$(best "$ref" check "${cargs[@]}" "$work/fs.img");          m_r=$(rss "$ref" check "${cargs[@]}" "$work/fs.img")
t_l=$(best "$ref" check --mode=lowmem "${cargs[@]}" "$work/fs.img"); m_l=$(rss "$ref" check --mode=lowmem "${cargs[@]}" "$work/fs.img")
echo "filesystem: $nfiles files + $nsnap snapshots + $data_mb MiB data, $(grep -m1 'bytes used' "$work/ours.out")${cargs[*]:+, check ${cargs[*]}}"
echo "ours:             ${t_o}s, peak RSS ${m_o} KiB"
echo "progs original:   ${t_r}s, peak RSS ${m_r} KiB"
echo "progs lowmem:     ${t_l}s, peak RSS ${m_l} KiB"
if [ -n "${BASE_BTRFS:-}" ]; then
	t_b=$(best "$BASE_BTRFS" check "${cargs[@]}" "$work/fs.img"); m_b=$(rss "$BASE_BTRFS" check "${cargs[@]}" "$work/fs.img")
	echo "base ($BASE_BTRFS): ${t_b}s, peak RSS ${m_b} KiB"
	echo "ratio vs base:     wall $(ratio "$t_o" "$t_b"), peak RSS $(ratio "$m_o" "$m_b")"
fi
echo "ratio vs original: wall $(ratio "$t_o" "$t_r"), peak RSS $(ratio "$m_o" "$m_r")"
echo "ratio vs lowmem:   wall $(ratio "$t_o" "$t_l"), peak RSS $(ratio "$m_o" "$m_l")"
