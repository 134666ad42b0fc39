#!/bin/bash
# Time our btrfs check against Debian's btrfs-progs check (original mode and
# --mode=lowmem) on one filesystem the kernel fills: NFILES inodes in 100
# directories (every 10th with an 8 KiB extent, the others inline), then
# NSNAP snapshots of the subvolume holding them, each snapshot changing a few
# files.  Prints wall time and user+sys CPU time (best of RUNS, the checks
# interleaved: ours, original, lowmem, ours, ...) and peak RSS of each, and our
# figures as ratios against each peer measured in the same run (goal, issue
# 17: wall at most 0.3x original mode's, peak RSS at most 0.15x).
#
# usage: bench/check-bench.sh [NFILES] [NSNAP] [RUNS]   (root, loop, btrfs)
# FILL=rootdir: instead of the kernel, our mkfs --rootdir fills the filesystem
# from a generated tree (NFILES in directories of 2000, every 10th file 100
# bytes inline, the others empty; far faster at millions of files), in
# $WORKDIR (default /tmp; tree and image sparse, about 1 GiB per million
# files); snapshots still need root and loop.  LOWMEM=0 skips lowmem mode.
# DATA_MB=N also writes N MiB of random data in 64 MiB files before the
# snapshots; CHECK_ARGS="--check-data-csum" (for example) is given to every
# check run, ours and Debian's alike.  BASE_BTRFS=path times that binary too
# (say, ours before a change) and prints our ratio against it.
# IMAGE=path: time the checks on that filesystem image (kept) instead of
# building one.  Page cache: Debian's check drops the image's cached pages
# (POSIX_FADV_DONTNEED) as it opens and closes it, so it always reads from
# disk and so would the run after it; a run of ours or the base that follows
# one of Debian's comes after an unmeasured run of ours, which reads the
# image back into the cache.  COLD=1: the image's cached pages are dropped
# before every run instead, every check reads from disk.
#
# Figures (issue 17): IMAGE= runs, 3 interleaved, against btrfs-progs 6.19's
# original mode (LOWMEM=0); FILL=rootdir images, snapshots made by the kernel
# (4, each changing 1000 files); 2 cores shared with 5 other workers.
# Before: main at 65e3c74 (load average 1.6-3.6).  After: the fs roots pass
# finding entries through a table, BASE_BTRFS= the one before (load 2.1-3.7).
#   files  snap         ours: wall user+sys  peak RSS   6.19: wall   peak RSS   ratio: wall  RSS   vs before: wall
#   200k   0    before  0.20 s  0.18 s   5396 KiB       0.68 s    82352 KiB        0.29  0.07
#   200k   0    after   0.15 s  0.14 s   5732 KiB       0.58 s    82516 KiB        0.26  0.07        1.00
#   2M     0    before  0.75 s  1.37 s  17308 KiB       6.79 s   793076 KiB        0.11  0.02
#   2M     0    after   1.28 s  1.26 s  17932 KiB       7.84 s   793376 KiB        0.16  0.02        0.89
#   200k   4    before  0.65 s  0.78 s   8844 KiB       3.08 s   268792 KiB        0.21  0.03
#   200k   4    after   0.59 s  0.51 s   9124 KiB       3.06 s   268684 KiB        0.19  0.03        0.87
#   2M     4    before  4.70 s  5.44 s  20776 KiB      14.10 s  1100700 KiB        0.33  0.02
#   2M     4    after   4.09 s  3.89 s  20852 KiB      12.63 s  1100572 KiB        0.32  0.02        0.87
# Wall times are noisy (compare the ratios of one run): under load 5-8 the
# same 2M + 4 snapshots gave 0.24x, 0.73x the one before.  With snapshots
# pass 5 (every subvolume in turn, on one thread) was the long pole.
# Peak RSS 200k -> 2M: 3.1x for 10x the inodes without snapshots, 2.3x with.
# After (2026-12-05, load below 1): pass 5 on one worker per CPU plus the
# caller once passes 3 and 4 are done, and the tree-checker's verdicts shared
# by the readers (a block snapshots share is checked once); BASE_BTRFS= main
# before both.  2M + 4 snapshots with IMAGE= (the image kept), the others
# FILL=rootdir runs:
#   files  snap  ours: wall user+sys  peak RSS   6.19: wall   peak RSS   ratio: wall  RSS   vs before: wall
#   2M     4     1.12 s  2.23 s   24672 KiB       4.16 s  1100644 KiB        0.27  0.02        0.54
#   2M     0     0.40 s  0.75 s   20160 KiB       2.50 s   793264 KiB        0.16  0.03        0.95
#   200k   4     0.13 s  0.26 s   12416 KiB       1.18 s   268780 KiB        0.11  0.05        0.59
# Peak RSS 200k -> 2M with 4 snapshots: 2.0x for 10x the inodes.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
nfiles=${1:-200000}; nsnap=${2:-4}; runs=${3:-3}
data_mb=${DATA_MB:-0}; read -r -a cargs <<< "${CHECK_ARGS:-}"
ours=${BTRFS:-$top/btrfs}; ref=${REF_BTRFS:-/usr/bin/btrfs}
[ -x "$ref" ] || { echo "no reference binary $ref" >&2; exit 1; }
fill=${FILL:-kernel}
[ -z "${IMAGE:-}" ] || fill=rootdir nsnap=0 data_mb=0
if { [ "$fill" != rootdir ] || [ "$nsnap" -gt 0 ] || [ "$data_mb" -gt 0 ]; } &&
   { [ "$(id -u)" -ne 0 ] || ! grep -qw btrfs /proc/filesystems; }; then
	echo "skipped: needs root and btrfs in the kernel"; exit 0
fi
work=$(mktemp -d "${WORKDIR:-/tmp}/checkbench.XXXXXX")
loop=""; mnt=$work/mnt
. "$top/bench/bench-lib.sh"

img=${IMAGE:-$work/fs.img}
[ -n "${IMAGE:-}" ] || truncate -s $((8 + nfiles / 250000))G "$work/fs.img"
if [ -n "${IMAGE:-}" ]; then
	:
elif [ "$fill" = rootdir ]; then
	gen_tree "$work/tree" "$nfiles"
	"$ours" mkfs -f -q --rootdir "$work/tree" "$work/fs.img" > /dev/null || exit 1
	rm -rf "$work/tree"
else
	"$ours" mkfs -f -q "$work/fs.img" > /dev/null || exit 1
fi
if [ "$fill" != rootdir ] || [ "$nsnap" -gt 0 ] || [ "$data_mb" -gt 0 ]; then
	loop=$(losetup -f --show "$work/fs.img") || exit 1
	mkdir -p "$mnt"
	mount -o noatime "$loop" "$mnt" || exit 1
	sv=$mnt
	if [ "$fill" != rootdir ]; then
		"$ref" subvolume create "$mnt/sv" > /dev/null || exit 1
		sv=$mnt/sv
		fill_files "$sv" "$nfiles"
	fi
	for ((i = 0; i * 64 < data_mb; i++)); do
		dd if=/dev/urandom of="$sv/data$i" bs=1M count=$((data_mb - i * 64 < 64 ? data_mb - i * 64 : 64)) status=none
	done
	mapfile -t dirs < <(cd "$sv" && ls -d d* | head -n 100)
	for ((s = 1; s <= nsnap; s++)); do
		"$ref" subvolume snapshot "$sv" "$mnt/snap$s" > /dev/null || exit 1
		for ((i = 0; i < 1000; i++)); do echo "snap $s" > "$mnt/snap$s/${dirs[i % ${#dirs[@]}]}/new$i"; done
	done
	umount "$mnt"; losetup -d "$loop"; loop=""
fi

"$ours" check "$img" > "$work/ours.out" 2>&1 || { cat "$work/ours.out"; echo "our check found errors" >&2; }
names=(ours original); cmds=("$ours check" "$ref check")
[ "${LOWMEM:-1}" = 0 ] || { names+=(lowmem); cmds+=("$ref check --mode=lowmem"); }
[ -z "${BASE_BTRFS:-}" ] || { names+=(base); cmds+=("$BASE_BTRFS check"); }
declare -A wall cpu mem
after_ref=0
for ((r = 0; r < runs; r++)); do
	for ((c = 0; c < ${#names[@]}; c++)); do
		read -r -a cmd <<< "${cmds[c]}"
		n=${names[c]}
		if [ "${COLD:-0}" = 1 ]; then
			dd if="$img" iflag=nocache count=0 status=none
		elif [ $after_ref = 1 ] && [ "$n" != original ] && [ "$n" != lowmem ]; then
			"$ours" check "${cargs[@]}" "$img" > /dev/null 2>&1
		fi
		read -r w u m < <(measure "${cmd[@]}" "${cargs[@]}" "$img")
		after_ref=0
		[ "$n" != original ] && [ "$n" != lowmem ] || after_ref=1
		keep_best "$n" "$w" "$u" "$m"
	done
done
[ -z "${IMAGE:-}" ] || echo "image: $IMAGE${COLD:+ (cold: cache dropped before every run)}"
[ -n "${IMAGE:-}" ] || echo "filesystem: $nfiles files ($fill) + $nsnap snapshots + $data_mb MiB data, $(grep -m1 'bytes used' "$work/ours.out")${cargs[*]:+, check ${cargs[*]}}"
echo "best wall and user+sys of $runs interleaved runs, highest peak RSS"
print_figures "${names[@]}"
