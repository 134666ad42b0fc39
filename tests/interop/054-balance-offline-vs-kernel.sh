#!/bin/bash
# Offline balance (issue 21) against the kernel's online convert of the same filesystem:
# the same converts (data raid6 + metadata raid10, then data raid0 + metadata raid1c4) on
# a copy of the images offline and on loop devices through the kernel; the chunk types
# and their stripe layouts (num_stripes, sub_stripes, stripe_len, io_align) must be the
# same set.  Chunk lengths are not compared: offline keeps every chunk's logical size,
# the kernel packs the extents into new chunks.
# Loop devices and mounts: run under flock /tmp/btrfs-kit-loop.lock (make test-interop).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
. "$TOP/tests/lib/balance-crash.sh"

crash_fs 512M 4
for i in 1 2 3 4; do head -c 20M /dev/urandom > "$mnt/f$i"; done
mkdir "$mnt/small"; for i in $(seq 100); do echo "file $i" > "$mnt/small/$i"; done
umount "$mnt"
offl=()
for i in 1 2 3 4; do cp --sparse=always "$T/d$i.img" "$T/o$i.img"; offl+=("$T/o$i.img"); done

layouts() { # dump-tree -t chunk output: "TYPE stripe_len N io_align N num_stripes N sub_stripes N"
	awk '/CHUNK_ITEM/ { getline; t = $NF; sl = $6; getline; io = $2; getline
		 printf "%s stripe_len %s io_align %s num_stripes %s sub_stripes %s\n", t, sl, io, $2, $4
	     }' "$1" | sort -u
}
for conv in "-dconvert=raid6 -mconvert=raid10" "-dconvert=raid0 -mconvert=raid1c4"; do
	mount_tracked "${devs[0]}" "$mnt" "$opts"
	# shellcheck disable=SC2086
	run_check "$BTRFS" balance start -f $conv "$mnt" > "$T/online"
	umount "$mnt"
	# shellcheck disable=SC2086
	run_check "$BTRFS" balance start -f $conv "${offl[@]}" > "$T/offline"
	assert_grep '^Done, had to convert [1-9]' "$T/offline"
	run_check "$BTRFS" check "${offl[@]}" > "$T/check" 2>&1
	"$BTRFS" inspect-internal dump-tree -t chunk "${devs[0]}" > "$T/chunks.kernel" || _fail "dump-tree"
	"$BTRFS" inspect-internal dump-tree -t chunk "${offl[@]}" > "$T/chunks.offline" || _fail "dump-tree"
	layouts "$T/chunks.kernel" > "$T/l.kernel"
	layouts "$T/chunks.offline" > "$T/l.offline"
	[ -s "$T/l.kernel" ] || _fail "no chunk layouts read from the kernel's result"
	diff -u "$T/l.kernel" "$T/l.offline" || _fail "chunk layouts differ after $conv"
done
echo ok
