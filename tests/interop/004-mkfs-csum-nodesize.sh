#!/bin/bash
# The four checksums and node sizes 4K..64K: check clean, mount, write, check.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

loop_images 1 256M
while read -r csum ns name; do
	mkfs_fill_check 1 "^csum_type.*($name)" --csum "$csum" -n "$ns"
	# ($T/super: Debian's dump-super of before the filling)
	assert_grep "^nodesize[[:space:]]*$ns$" "$T/super"
done <<'LIST'
crc32c 4096 crc32c
xxhash 8192 xxhash64
sha256 32768 sha256
blake2 65536 blake2
crc32c 16384 crc32c
LIST
echo ok
