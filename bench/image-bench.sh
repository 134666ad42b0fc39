#!/bin/bash
# btrfs image benchmark (issue 19, Performance): our dump and restore against
# Debian's /usr/bin/btrfs-image on the same filesystem, in the same run.
#
# The filesystem: NFILES files generated (gen_tree) and put in by our
# mkfs --rootdir, then a kernel mount adds a snapshot and 3000 files in it
# (kernel-written blocks: the extent tree is not only mkfs's).  Measured,
# interleaved (ours, Debian's, ours, ...) and best of RUNS: dump -c9 -t2,
# dump -c0, restore (-r -t2) of the -c9 dump and of the -c0 dump (the same
# dump file, ours, for both tools; each also followed by sync -f of the
# target: ours flushes, btrfs-image does not); wall, user+sys CPU (best) and peak RSS
# (highest), and the ratios ours/Debian (goal: wall at most 0.5), and the
# -c9 dump sizes, file and item payload, ours/Debian (goal: at most 1).  Then the
# memory scaling: our peak RSS for dump -c9 -t2 and restore at NFILES and
# at SCALE x NFILES files (SCALE=0 leaves it out).  BASE=path also times
# that binary (say, ours before a change) and prints our ratio against it
# (BASE_NO_T=1: a base from before restore -t restores without -t2).
#
# usage: bench/image-bench.sh [NFILES] [RUNS]   (root, loop, btrfs in the kernel)
# Work files (sparse images, dumps) in $WORKDIR (default /work/scratch-img),
# deleted at the end.  Prints figures; it is not a test.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
nfiles=${1:-200000}; runs=${2:-3}; scale=${SCALE:-4}
ours=${BTRFS:-$top/btrfs}; ref=${REF_IMAGE:-/usr/bin/btrfs-image}; base=${BASE:-}
[ -x "$ref" ] || { echo "skipped: no reference binary $ref"; exit 0; }
if [ "$(id -u)" -ne 0 ] || ! grep -qw btrfs /proc/filesystems || ! command -v losetup > /dev/null; then
	echo "skipped: needs root, loop devices and btrfs in the kernel"; exit 0
fi
mkdir -p "${WORKDIR:-/work/scratch-img}"
work=$(mktemp -d "${WORKDIR:-/work/scratch-img}/imagebench.XXXXXX")
loop=""; mnt=$work/mnt
. "$top/bench/bench-lib.sh"

# make_fs IMG N: the filesystem described above, N generated files
make_fs() {
	truncate -s $((2 + $2 / 200000))G "$1"
	gen_tree "$work/tree" "$2"
	"$ours" mkfs -f -q --rootdir "$work/tree" "$1" > /dev/null || exit 1
	rm -rf "$work/tree"
	# loop devices and mounts are machine-wide: under the shared lock
	exec 9> /tmp/btrfs-kit-loop.lock; flock 9
	loop=$(losetup -f --show "$1") || exit 1
	mkdir -p "$mnt"
	mount -o noatime "$loop" "$mnt" || exit 1
	btrfs subvolume snapshot "$mnt" "$mnt/snap" > /dev/null || exit 1
	mkdir "$mnt/snap/new"
	for ((i = 0; i < 3000; i++)); do echo "kernel $i" > "$mnt/snap/new/f$i"; done
	umount "$mnt"; losetup -d "$loop"; loop=""
	flock -u 9; exec 9>&-
}

# run_set TITLE NAME CMD NAME CMD ...: the commands interleaved, best of $runs
# (each writes $work/out, removed before every run); prints every figure and
# the first command's ratios against the others.
run_set() {
	local title=$1 r c w u m
	local -a names=() cmds=() cmd
	local -A wall=() cpu=() mem=()
	shift
	while [ $# -gt 0 ]; do names+=("$1"); cmds+=("$2"); shift 2; done
	for ((r = 0; r < runs; r++)); do
		for ((c = 0; c < ${#names[@]}; c++)); do
			rm -f "$work/out"; sync
			read -r -a cmd <<< "${cmds[c]}"
			read -r w u m < <(measure "${cmd[@]}")
			keep_best "${names[c]}" "$w" "$u" "$m"
		done
	done
	rss_ours=${mem[ours]}; rss_debian=${mem[debian]}
	echo "$title"
	print_figures "${names[@]}" | sed 's/^/  /'
}

# set_of ARGS...: "ours CMD debian CMD [base CMD]" for run_set, each tool given ARGS
set_of() {
	local -a s=(ours "$ours image $*" debian "$ref $*")
	# a base binary from before restore -t: restore without it
	if [ "$1" = -r ] && [ -n "${BASE_NO_T:-}" ]; then
		[ -z "$base" ] || s+=(base "$base image -r $3 $4")
	else
		[ -z "$base" ] || s+=(base "$base image $*")
	fi
	printf '%s\n' "${s[@]}"
}

df -h "$(dirname "$work")" | tail -n1 | awk '{ print "work space: " $4 " free on " $6 }'
make_fs "$work/fs.img" "$nfiles"
"$ours" image -c9 -t2 "$work/fs.img" "$work/c9.img" || exit 1
"$ours" image -c0 "$work/fs.img" "$work/c0.img" || exit 1
echo "filesystem: $nfiles files (mkfs --rootdir) + a snapshot with 3000 kernel-written files;" \
	"dump -c0 $(du -m --apparent-size "$work/c0.img" | cut -f1) MiB, -c9 $(du -m --apparent-size "$work/c9.img" | cut -f1) MiB"
echo "best wall and user+sys of $runs interleaved runs, highest peak RSS"
mapfile -t s < <(set_of -c9 -t2 "$work/fs.img" "$work/out"); run_set "dump -c9 -t2" "${s[@]}"
dump_rss="$rss_ours $rss_debian"
# the dump sizes: files and item payload (what the compression level decides)
"$ref" -c9 -t2 "$work/fs.img" "$work/deb-c9.img" > /dev/null 2>&1 || exit 1
for f in c9 deb-c9; do
	read -r "size_${f//-/_}" < <(stat -c %s "$work/$f.img")
	read -r "pay_${f//-/_}" < <(python3 "$top/tests/tools/metadump-clusters.py" --inflate "$work/$f.img" "$work/inflated")
done
rm -f "$work/inflated" "$work/deb-c9.img"
awk -v so="$size_c9" -v sd="$size_deb_c9" -v po="$pay_c9" -v pd="$pay_deb_c9" 'BEGIN {
	printf "  dump size -c9: ours %d bytes (payload %d), debian %d (payload %d): ratio %.5f (payload %.5f)\n",
		so, po, sd, pd, so / sd, po / pd }'
mapfile -t s < <(set_of -c0 "$work/fs.img" "$work/out"); run_set "dump -c0" "${s[@]}"
mapfile -t s < <(set_of -r -t2 "$work/c9.img" "$work/out"); run_set "restore -t2 of the -c9 dump" "${s[@]}"
restore_rss="$rss_ours $rss_debian"
mapfile -t s < <(set_of -r -t2 "$work/c0.img" "$work/out"); run_set "restore -t2 of the -c0 dump" "${s[@]}"
# ours flushes the target (tree blocks before superblocks, so that a cut
# restore never looks complete); btrfs-image leaves its writes to the page
# cache: timed again with every command followed by sync -f of the target
synced() { set_of "$@" | sed "n; s#^#$top/bench/with-sync.sh $work/out #"; }
mapfile -t s < <(synced -r -t2 "$work/c9.img" "$work/out"); run_set "restore -t2 of the -c9 dump, then sync -f" "${s[@]}"
mapfile -t s < <(synced -r -t2 "$work/c0.img" "$work/out"); run_set "restore -t2 of the -c0 dump, then sync -f" "${s[@]}"

if [ "$scale" -gt 0 ]; then
	big=$((nfiles * scale))
	rm -f "$work/fs.img" "$work/c0.img" "$work/c9.img" "$work/out"
	make_fs "$work/fs.img" "$big"
	"$ours" image -c9 -t2 "$work/fs.img" "$work/c9.img" || exit 1
	read -r _ _ m1 < <(measure "$ours" image -c9 -t2 "$work/fs.img" "$work/out")
	read -r _ _ m0 < <(measure "$ref" -c9 -t2 "$work/fs.img" "$work/out")
	rm -f "$work/out"
	read -r _ _ r1 < <(measure "$ours" image -r -t2 "$work/c9.img" "$work/out")
	rm -f "$work/out"
	read -r _ _ r0 < <(measure "$ref" -r -t2 "$work/c9.img" "$work/out")
	read -r d1 d0 <<< "$dump_rss"; read -r s1 s0 <<< "$restore_rss"
	echo "memory scaling, peak RSS (KiB) at $nfiles -> $big files (one run at $big):"
	echo "  dump -c9 -t2: ours $d1 -> $m1, debian $d0 -> $m0"
	echo "  restore -t2:  ours $s1 -> $r1, debian $s0 -> $r0"
fi
