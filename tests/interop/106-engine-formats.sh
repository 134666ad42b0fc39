#!/bin/bash
# The write engine across formats: 64 KiB and 8 KiB nodes, mixed block
# groups, non-skinny extent items without no-holes and block-group-tree,
# sha256/blake2/xxhash checksums.  For each: engine-fill with xattrs and
# deletes, Debian's btrfs check clean, the kernel mounts it and sees the
# files, writes data, check clean again.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/engine-helpers.sh"
check_prereq root loop btrfs-kernel progs
need_tool FILL engine-fill

loop_images 1 1G
dev=${LOOPS[0]}
while read -r opts; do
	# shellcheck disable=SC2086
	run_check "$TOP/mkfs.btrfs" -f -q $opts "$dev"
	run_check "$FILL" -n 5000 -c 3 -x -d 500 "$dev" > /dev/null
	progs_check "$dev"
	mount_tracked "$dev" "$T/mnt"
	entries_seen 4500 "$T/mnt" "$opts"
	dd if=/dev/urandom of="$T/mnt/data" bs=1M count=20 status=none || _fail "$opts: write failed"
	umount "$T/mnt" || _fail "umount failed"
	progs_check "$dev"
	echo "ok: $opts"
done <<'CONFIGS'
-n 65536
-n 8192 -O ^no-holes,^skinny-metadata,^block-group-tree
-M --csum xxhash
--csum sha256
--csum blake2 -n 4096
CONFIGS
echo ok
