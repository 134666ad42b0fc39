#!/bin/bash
# Write engine on RAID5 against RAID1: files per second of tests/tools/engine-fill
# on three sparse image files made by our mkfs (-m P -d P), same machine, same
# run.  A program that prints figures, not a test.
#
#   bench/engine-raid56-bench.sh [-n ROUNDS] [-f FILES] [-D DATA_FILES] [-d DIR]
#
# Two workloads per profile: FILES empty files with xattrs (engine-fill -x,
# metadata only, 4 commits) and DATA_FILES files of 1 MiB data each (-D 1024,
# 2 commits: every file's data is written and flushed on its own, so each is
# a read-modify-write of its stripe rows on RAID5).  Each round runs both
# profiles, alternating which goes first (ABBA).  Prints wall and CPU
# (user + system) seconds and files/s of each run, then the median ratio
# RAID5/RAID1 of files/s for each workload.  Needs make unit-bins, /usr/bin/time.
#
# Figures (2026-12-04, 2 shared cores under load ~2, ext4 images, -n 3 -f 60000
# -D 256): median RAID5/RAID1 files/s 0.53 for xattr files (68-78k vs
# 107-146k files/s: about 40% of the rows written need their other units
# read first) and 1.41 for 1 MiB data files (whole rows go straight to disk,
# 1.5x the bytes against RAID1's 2x; 298-413 vs 213-281 files/s).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
runs=3 files=6000 dfiles=64 dir=${TMPDIR:-/tmp}/btrfs-kit-engine-bench
while getopts n:f:D:d: o; do
	case $o in
	n) runs=$OPTARG ;;
	f) files=$OPTARG ;;
	D) dfiles=$OPTARG ;;
	d) dir=$OPTARG ;;
	*) echo "usage: $0 [-n ROUNDS] [-f FILES] [-D DATA_FILES] [-d DIR]" >&2; exit 1 ;;
	esac
done
FILL=$TOP/.obj/default/tests/tools/engine-fill
[ -x "$FILL" ] || { echo "build it first: make unit-bins" >&2; exit 1; }
mkdir -p "$dir"
trap 'rm -f "$dir"/d[123].img "$dir"/t' EXIT

# one run: profile workload -> "wall cpu files/s"
one() {
	local prof=$1 what=$2 n i imgs=()
	for i in 1 2 3; do
		rm -f "$dir/d$i.img"; truncate -s 1G "$dir/d$i.img"; imgs+=("$dir/d$i.img")
	done
	"$TOP/mkfs.btrfs" -f -q -m "$prof" -d "$prof" "${imgs[@]}"
	sync
	if [ "$what" = xattr ]; then
		n=$files
		/usr/bin/time -o "$dir/t" -f "%e %U %S" "$FILL" -n "$n" -c 4 -x "${imgs[@]}" > /dev/null
	else
		n=$dfiles
		/usr/bin/time -o "$dir/t" -f "%e %U %S" "$FILL" -n "$n" -c 2 -D 1024 "${imgs[@]}" > /dev/null
	fi
	"$TOP/btrfs" check --noscan "${imgs[@]}" > /dev/null 2>&1 || { echo "check failed after $prof $what" >&2; exit 1; }
	awk -v n="$n" '{ printf "%.2f %.2f %.0f\n", $1, $2 + $3, n / ($1 > 0 ? $1 : 0.01) }' "$dir/t"
}

declare -A ratios
for ((r = 1; r <= runs; r++)); do
	for what in xattr data; do
		if ((r % 2)); then order="raid1 raid5"; else order="raid5 raid1"; fi
		declare -A fps=()
		for prof in $order; do
			read -r wall cpu rate < <(one "$prof" "$what")
			fps[$prof]=$rate
			printf "round %d %-5s %-5s wall %6.2f s cpu %6.2f s %8s files/s\n" "$r" "$what" "$prof" "$wall" "$cpu" "$rate"
		done
		ratios[$what]+="$(awk -v a="${fps[raid5]}" -v b="${fps[raid1]}" 'BEGIN { printf "%.3f ", a / b }')"
	done
done
for what in xattr data; do
	echo "$what: RAID5/RAID1 files/s ratio per round: ${ratios[$what]}median $(echo "${ratios[$what]}" | tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
done
