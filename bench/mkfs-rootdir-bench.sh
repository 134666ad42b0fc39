#!/bin/bash
# mkfs --rootdir benchmark: our mkfs.btrfs against Debian's /usr/sbin/mkfs.btrfs
# on the same source tree (by default the issue's scale: 100k small files in
# 1000 directories plus 1 GiB of data in 8 large files), each writing a fresh
# sparse image file.  A program that prints figures, not a test.
#
#   bench/mkfs-rootdir-bench.sh [-n ROUNDS] [-d DIR] [-s SMALL_FILES] [-g DATA_MIB] [-c]
#
# Each round runs both tools once, alternating which goes first (ABBA), so
# drift in the machine's load hits both alike.  Before every run the source
# tree is read whole (every file's data through cat: tar skips reading when
# its output is /dev/null) so both read it from the page cache, and sync
# leaves no writeback of the previous run pending.  Prints wall time, CPU
# time (user + system) and peak RSS (GNU time) of each run, the ratios
# ours/Debian of each round, and their medians (goal: <= 1.0 on wall and
# RSS; CPU time says more than wall time on a loaded machine).  -c: then mkfs once more with ours,
# run Debian's btrfs check --check-data-csum on the image, mount it and
# compare every file, its attributes, xattrs and holes with the source
# (tests/lib/tree-listing.py; needs root, loop).
#
# The source tree is kept in DIR/src between invocations (made again when
# the parameters change).  Needs: /usr/bin/time (package time), btrfs-progs.
#
# Figures (2026-12-04, -n 3 -c, same machine): mkfs --rootdir through the write
# engine (rootdir.c, commits every 64 MiB of dirty tree blocks): median ratios
# wall 0.44-0.45, CPU 0.42, peak RSS 0.50 (71.9 vs 142.6 MB; wall 6.2-9.2 s vs
# 13.9-19.3 s; two invocations), verified clean; the bottom-up build just
# before it (OURS=old build, same hour): wall 0.50, CPU 0.47, RSS 0.67 (95.0 MB).
# Figures (2026-12-03, 2 shared cores under load 4-9, ext4 source and image,
# bench/mkfs-rootdir-bench.sh -n 5 -c): median ratios ours/Debian 6.2
# wall 0.39, CPU 0.39, peak RSS 0.67 (95.0 vs 142.4 MB; wall 5.3-12.7 s vs
# 18.1-26.4 s).  Before the inode items went straight into the tree and the
# data was written during the copy (OURS=old build, -n 3): wall 0.62,
# CPU 0.39, RSS 0.83 (117.7 MB).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
runs=3 dir=${TMPDIR:-/tmp}/btrfs-kit-mkfs-bench small=100000 data_mib=1024 verify=no
while getopts n:d:s:g:c o; do
	case $o in
	n) runs=$OPTARG ;;
	d) dir=$OPTARG ;;
	s) small=$OPTARG ;;
	g) data_mib=$OPTARG ;;
	c) verify=yes ;;
	*) echo "usage: $0 [-n ROUNDS] [-d DIR] [-s SMALL_FILES] [-g DATA_MIB] [-c]" >&2; exit 1 ;;
	esac
done
ours=${OURS:-$TOP/mkfs.btrfs}   # OURS=path/to/mkfs.btrfs: another build (e.g. before a change)
theirs=/usr/sbin/mkfs.btrfs
[ -x "$ours" ] || { echo "build first: make" >&2; exit 1; }
[ -x "$theirs" ] || { echo "$theirs missing (apt-get install btrfs-progs)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$dir"
src=$dir/src
# Scratch space of this invocation, removed (with $mnt, $loop) by bench-lib's trap.
work=$dir/run mnt=$dir/run/mnt loop=""
. "$TOP/bench/bench-lib.sh"
mkdir -p "$work"
stamp="$small $data_mib"
if [ "$(cat "$dir/src.stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "making the source tree in $src ($small small files, $data_mib MiB of data) ..."
	rm -rf "$src"
	mkdir -p "$src/big"
	python3 - "$src" "$small" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
blob = os.urandom(1 << 16)
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 1000))
    if i < 1000:
        os.mkdir(d)
    size = rnd.choice((0, 10, 100, 500, 1000, 1800, 3000, 5000, 9000, 20000))
    off = rnd.randrange(0, len(blob) - size) if size else 0
    with open(os.path.join(d, "file-%06d" % i), "wb") as f:
        f.write(blob[off:off + size])
EOF
	per=$((data_mib / 8))
	for i in 1 2 3 4 5 6 7 8; do
		head -c "${per}M" /dev/urandom > "$src/big/data$i"
	done
	echo "$stamp" > "$dir/src.stamp"
fi
size_mib=$(( (data_mib * 2) + 2048 ))
img=$work/bench.img

# One run of mkfs PROG on a fresh sparse image: "wall_s cpu_s maxrss_kib".
one_run() {
	local prog=$1
	rm -f "$img"
	truncate -s "${size_mib}M" "$img"
	warm_tree "$src"
	sync
	/usr/bin/time -o "$work/t" -f '%e %U %S %M' "$prog" -q -f -r "$src" "$img" > /dev/null 2> "$work/err" || {
		cat "$work/err" >&2; echo "$prog failed" >&2; exit 1; }
	tail -n1 "$work/t" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "mkfs --rootdir: $small small files + $data_mib MiB data, $runs rounds, image ${size_mib} MiB (sparse file)"
printf "%-5s %8s %8s %8s %8s %10s %10s | %5s %5s %5s\n" round "wall s" Debian "cpu s" Debian \
	"RSS KiB" Debian wall cpu RSS
: > "$work/ratios"
for ((r = 1; r <= runs; r++)); do
	if ((r % 2)); then
		read -r ow oc om < <(one_run "$ours")
		read -r tw tc tm < <(one_run "$theirs")
	else
		read -r tw tc tm < <(one_run "$theirs")
		read -r ow oc om < <(one_run "$ours")
	fi
	echo "$ow $tw $oc $tc $om $tm" | tee -a "$work/ratios" | awk -v r="$r" '{
		printf "%-5d %8.2f %8.2f %8.2f %8.2f %10d %10d | %5.2f %5.2f %5.2f\n",
			r, $1, $2, $3, $4, $5, $6, $1 / $2, $3 / $4, $5 / $6 }'
done
printf "median ratio ours/Debian: wall %.2f, CPU %.2f, peak RSS %.2f   (Debian %s, cached: %s)\n" \
	"$(awk '{ print $1 / $2 }' "$work/ratios" | median)" \
	"$(awk '{ print $3 / $4 }' "$work/ratios" | median)" \
	"$(awk '{ print $5 / $6 }' "$work/ratios" | median)" \
	"$($theirs -V 2>&1 | awk '{ print $NF }')" "$(cached_share "$src/big")"

[ $verify = yes ] || exit 0
echo "verifying an image of ours: Debian's btrfs check --check-data-csum, mount, compare ..."
"$ours" -q -f -r "$src" "$img" > /dev/null
/usr/bin/btrfs check --check-data-csum "$img" > "$work/check.log" 2>&1 || {
	cat "$work/check.log" >&2; echo "btrfs check found errors" >&2; exit 1; }
loop=$(losetup -f --show -r "$img")
mkdir -p "$mnt"
mount -o ro "$loop" "$mnt"
listing() { python3 "$TOP/tests/lib/tree-listing.py" --no-atime "$1"; }
if ! diff <(listing "$src") <(listing "$mnt") > "$work/diff" || ! diff -rq "$src" "$mnt" >> "$work/diff"; then
	head -20 "$work/diff" >&2; echo "the mounted image differs from the source" >&2; exit 1
fi
echo "verified: check clean, $(find "$mnt" | wc -l) entries equal in content and attributes"
