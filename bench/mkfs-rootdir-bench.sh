#!/bin/bash
# mkfs --rootdir benchmark: our mkfs.btrfs against Debian's /usr/sbin/mkfs.btrfs
# on the same source tree (100k small files in 1000 directories plus 1 GiB of
# data in 8 large files), each writing a sparse image file.  Prints wall time
# and peak RSS (GNU time -v) of each, best of N runs, and the ratios
# ours/Debian's (goal: <= 1.0 on both).  A program that prints figures, not a test.
#
#   bench/mkfs-rootdir-bench.sh [-n RUNS] [-d WORKDIR] [-s SMALL_FILES] [-g DATA_MIB]
#
# The source tree is kept in WORKDIR/src between runs (made again when the
# parameters change).  Needs: /usr/bin/time (package time), btrfs-progs.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
runs=3 work=${TMPDIR:-/tmp}/btrfs-kit-mkfs-bench small=100000 data_mib=1024
while getopts n:d:s:g: o; do
	case $o in
	n) runs=$OPTARG ;;
	d) work=$OPTARG ;;
	s) small=$OPTARG ;;
	g) data_mib=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-d WORKDIR] [-s SMALL_FILES] [-g DATA_MIB]" >&2; exit 1 ;;
	esac
done
ours=$TOP/mkfs.btrfs
theirs=/usr/sbin/mkfs.btrfs
[ -x "$ours" ] || { echo "build first: make" >&2; exit 1; }
[ -x "$theirs" ] || { echo "$theirs missing (apt-get install btrfs-progs)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$work"
src=$work/src
stamp="$small $data_mib"
if [ "$(cat "$work/src.stamp" 2>/dev/null)" != "$stamp" ]; then
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
	echo "$stamp" > "$work/src.stamp"
fi
size_mib=$(( (data_mib * 2) + 2048 ))

# One run: "seconds maxrss_kib" of mkfs PROG on a fresh sparse image.
one_run() {
	local prog=$1 img=$work/bench.img log=$work/time.log
	rm -f "$img"
	truncate -s "${size_mib}M" "$img"
	sync
	/usr/bin/time -v "$prog" -q -f -r "$src" "$img" > /dev/null 2> "$log" || {
		cat "$log" >&2; echo "$prog failed" >&2; exit 1; }
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
			for (i = 1; i <= n; i++) s = s * 60 + p[i]; t = s }
		/Maximum resident set size/ { m = $2 }
		END { printf "%.3f %d\n", t, m }' "$log"
	rm -f "$img"
}

best() { # PROG: best wall time and best peak RSS over $runs runs
	local prog=$1 bt= bm= t m i
	for ((i = 0; i < runs; i++)); do
		read -r t m < <(one_run "$prog")
		if [ -z "$bt" ] || awk "BEGIN { exit !($t < $bt) }"; then bt=$t; fi
		if [ -z "$bm" ] || [ "$m" -lt "$bm" ]; then bm=$m; fi
	done
	echo "$bt $bm"
}

# Warm the page cache so both read the tree from memory.
tar -cf - -C "$src" . > /dev/null
read -r ot om < <(best "$ours")
read -r tt tm < <(best "$theirs")
printf "mkfs --rootdir: %d small files + %d MiB data, best of %d\n" "$small" "$data_mib" "$runs"
printf "%-28s %10s %14s\n" "" "wall (s)" "peak RSS (KiB)"
printf "%-28s %10.3f %14d\n" "btrfs-kit mkfs.btrfs" "$ot" "$om"
printf "%-28s %10.3f %14d\n" "Debian $($theirs -V 2>&1 | awk '{print $NF}')" "$tt" "$tm"
awk -v a="$ot" -v b="$tt" -v c="$om" -v d="$tm" \
	'BEGIN { printf "ratio ours/Debian: wall %.2f, peak RSS %.2f\n", a / b, c / d }'
