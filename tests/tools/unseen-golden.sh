#!/bin/bash
# Output compatibility on filesystems the corpus lacks, made by btrfs-progs'
# mkfs and the running kernel: for each, dump-super -f and -a, dump-tree
# (plain, -R, --dfs --csum-headers --csum-items) and check (plain and
# --check-data-csum) of ours against a reference btrfs (btrfs-progs 6.19),
# stdout and stderr apart, the first dump-tree line (program and version)
# left out.  One line per filesystem and output: same / DIFF (lines).
# A figure, not a test: it needs the reference binaries, root, loop
# devices and btrfs in the kernel (run it under flock /tmp/btrfs-kit-loop.lock).
#
# usage: tests/tools/unseen-golden.sh REF_BTRFS REF_MKFS [WORKDIR]
# Filesystems: block-group-tree with a snapshot; squota with snapshots and a
# deleted subvolume; space cache v1 with many block groups; 64K nodes with
# xxhash and zstd (compressed inline extents); 4K nodes with sha256, chattr
# +C/+a/+i; RAID1C3 with a device replaced; quota limits and a qgroup
# hierarchy; a received subvolume (send/receive); mixed block groups; RAID5
# data with RAID1C4 metadata; a seed device and its sprout (both orders); a
# log tree (fsync'd, the image copied while mounted); a paused balance.
set -u
ref=$1 mkfs=$2 work=${3:-/tmp/unseen-golden}
top=$(cd "$(dirname "$0")/../.." && pwd)
ours=${BTRFS:-$top/btrfs}; progs=/usr/bin/btrfs
D=$work/img M=$work/mnt
mkdir -p "$D" "$M" "$M.2"
loops=()
cleanup() {
	umount "$M" "$M.2" 2> /dev/null
	for l in "${loops[@]}"; do losetup -d "$l" 2> /dev/null; done
	loops=()
}
trap cleanup EXIT
# attach VAR IMAGE: a loop device for IMAGE in VAR (detached by cleanup)
attach() { local l; l=$(losetup -f --show "$2") || exit 1; loops+=("$l"); printf -v "$1" %s "$l"; }
images() { local i; rm -f "$D/$1"-*.img; for ((i = 1; i <= $2; i++)); do truncate -s "${3:-512M}" "$D/$1-$i.img"; done; }
fill() {
	mkdir -p "$1/d"; for i in $(seq 1 200); do echo "file $i" > "$1/d/f$i"; done
	head -c 300000 /dev/urandom > "$1/rand"; head -c 2000000 /dev/zero > "$1/zeros"
	ln -s d/f1 "$1/link"; mkfifo "$1/fifo"; ln "$1/d/f2" "$1/hard"
}
fsync_paths() { python3 -c 'import os, sys; [os.fsync(os.open(p, os.O_RDONLY)) for p in sys.argv[1:]]' "$@"; }

images bgt 1; attach a "$D/bgt-1.img"; "$mkfs" -q -f -O block-group-tree "$a" > /dev/null
mount "$a" "$M" && fill "$M" && "$progs" subvolume snapshot "$M" "$M/snap" > /dev/null && rm -f "$M"/d/f1*; cleanup
images squota 1; attach a "$D/squota-1.img"; "$mkfs" -q -f -O squota "$a" > /dev/null
mount "$a" "$M" && fill "$M" && "$progs" subvolume create "$M/sv" > /dev/null && fill "$M/sv" &&
	"$progs" subvolume snapshot "$M/sv" "$M/sv-snap" > /dev/null && echo x > "$M/sv-snap/new" &&
	"$progs" subvolume delete "$M/sv" > /dev/null; cleanup
images v1 1 1G; attach a "$D/v1-1.img"; "$mkfs" -q -f -O ^free-space-tree,^block-group-tree "$a" > /dev/null
mount -o space_cache=v1 "$a" "$M" && fill "$M" && for i in 1 2 3 4 5 6; do head -c 50M /dev/urandom > "$M/big$i"; done &&
	sync && rm "$M/big2" "$M/big4"; cleanup
images n64k 1; attach a "$D/n64k-1.img"; "$mkfs" -q -f -n 65536 --csum xxhash "$a" > /dev/null
mount -o compress=zstd "$a" "$M" && fill "$M" && yes abcabc | head -c 3000 > "$M/inl" &&
	yes zzz | head -c 5000000 > "$M/comp"; cleanup
images n4k 1; attach a "$D/n4k-1.img"; "$mkfs" -q -f -n 4096 -s 4096 --csum sha256 "$a" > /dev/null
mount "$a" "$M" && fill "$M" && mkdir "$M/nocow" && chattr +C "$M/nocow" && head -c 100000 /dev/urandom > "$M/nocow/f" &&
	chattr +a "$M/d/f3" && chattr +i "$M/d/f4"; cleanup
images r1c3 4; attach a "$D/r1c3-1.img"; attach b "$D/r1c3-2.img"; attach c "$D/r1c3-3.img"; attach d "$D/r1c3-4.img"
"$mkfs" -q -f -m raid1c3 -d raid1 "$a" "$b" "$c" > /dev/null
mount "$a" "$M" && fill "$M" && "$progs" replace start -B "$c" "$d" "$M" > /dev/null 2>&1; cleanup; rm -f "$D/r1c3-3.img"
images qg 1; attach a "$D/qg-1.img"; "$mkfs" -q -f "$a" > /dev/null
mount "$a" "$M" && "$progs" quota enable "$M" && "$progs" subvolume create "$M/a" > /dev/null && fill "$M/a" &&
	"$progs" qgroup limit 100M "$M/a" && "$progs" qgroup create 1/1 "$M" && "$progs" qgroup assign 0/256 1/1 "$M" 2> /dev/null
"$progs" quota rescan -w "$M" > /dev/null 2>&1; cleanup
images sr 2; attach a "$D/sr-1.img"; attach b "$D/sr-2.img"; "$mkfs" -q -f "$a" > /dev/null; "$mkfs" -q -f "$b" > /dev/null
mount "$a" "$M" && mount "$b" "$M.2" && "$progs" subvolume create "$M/s" > /dev/null && fill "$M/s" &&
	"$progs" subvolume snapshot -r "$M/s" "$M/s-ro" > /dev/null && "$progs" send -q "$M/s-ro" | "$progs" receive "$M.2" > /dev/null 2>&1
cleanup; rm -f "$D/sr-1.img"
images mixed 1 200M; attach a "$D/mixed-1.img"; "$mkfs" -q -f --mixed "$a" > /dev/null; mount "$a" "$M" && fill "$M"; cleanup
images r5 4; attach a "$D/r5-1.img"; attach b "$D/r5-2.img"; attach c "$D/r5-3.img"; attach d "$D/r5-4.img"
"$mkfs" -q -f -m raid1c4 -d raid5 "$a" "$b" "$c" "$d" > /dev/null 2>&1; mount "$a" "$M" && fill "$M"; cleanup
images seed 2; attach a "$D/seed-1.img"; attach b "$D/seed-2.img"; "$mkfs" -q -f "$a" > /dev/null
mount "$a" "$M" && fill "$M" && umount "$M" && btrfstune -S 1 "$a" && mount "$a" "$M" 2> /dev/null &&
	"$progs" device add -f "$b" "$M" > /dev/null && mount -o remount,rw "$M" && echo sprout > "$M/sprouted"; cleanup
images log 1; attach a "$D/log-1.img"; "$mkfs" -q -f "$a" > /dev/null
mount -o commit=300 "$a" "$M" && mkdir "$M/d" && for i in $(seq 1 50); do echo "$i" > "$M/d/f$i"; done && sync &&
	for i in $(seq 1 20); do echo "logged $i" > "$M/d/g$i"; done && head -c 100000 /dev/urandom > "$M/d/big" &&
	mv "$M/d/f3" "$M/d/f3-renamed" && rm "$M/d/f4" && ln "$M/d/f5" "$M/d/f5-link" &&
	fsync_paths "$M/d/g1" "$M/d/big" "$M/d" "$M/d/f3-renamed" "$M/d/f5-link" && cp --sparse=always "$D/log-1.img" "$D/logc-1.img"
cleanup; rm -f "$D/log-1.img"
images bal 1 2G; attach a "$D/bal-1.img"; "$mkfs" -q -f "$a" > /dev/null
mount "$a" "$M" && for i in $(seq 1 8); do head -c 100M /dev/urandom > "$M/f$i"; done && sync &&
	{ "$progs" balance start -d "$M" > /dev/null 2>&1 & sleep 1; "$progs" balance pause "$M"; wait; }; cleanup

out=$work/out
compare() { # NAME DEV...
	local name=$1 tag; shift
	rm -rf "${out:?}/$name"; mkdir -p "$out/$name"
	run() { # TAG ARGS...
		local tag=$1 b; shift
		for b in ref ours; do
			timeout 300 "${!b}" "$@" > "$out/$name/$tag.$b" 2> "$out/$name/$tag.$b.err"
			echo "exit $?" >> "$out/$name/$tag.$b"
			sed -i '1{/^btrfs-progs v\|^btrfs-kit v/d}' "$out/$name/$tag.$b"
			cat "$out/$name/$tag.$b.err" >> "$out/$name/$tag.$b"
		done
		if cmp -s "$out/$name/$tag.ref" "$out/$name/$tag.ours"; then
			echo "same $name $tag ($(wc -l < "$out/$name/$tag.ref") lines)"
		else
			echo "DIFF $name $tag ($(diff "$out/$name/$tag.ref" "$out/$name/$tag.ours" | grep -c '^[<>]') lines)"
		fi
	}
	run super-f inspect-internal dump-super -f "$1"
	run super-a inspect-internal dump-super -a "$@"
	run tree inspect-internal dump-tree --noscan "$@"
	run tree-R inspect-internal dump-tree --noscan -R "$@"
	run tree-dfs inspect-internal dump-tree --noscan --dfs --csum-headers --csum-items "$@"
	# btrfs-progs' check takes one device (it scans for the others)
	run check check "$1"
	run check-data check --check-data-csum "$1"
}
for n in bgt squota v1 n64k n4k qg mixed logc bal; do compare "$n" "$D/$n-1.img"; done
compare r1c3 "$D/r1c3-1.img" "$D/r1c3-2.img" "$D/r1c3-4.img"
compare sr "$D/sr-2.img"
compare r5 "$D"/r5-?.img
compare seed "$D/seed-1.img" "$D/seed-2.img"
compare sprout "$D/seed-2.img" "$D/seed-1.img"
