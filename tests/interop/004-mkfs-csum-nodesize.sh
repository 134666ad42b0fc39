#!/bin/bash
# The four checksums and node sizes 4K..64K: check clean, mount, write, check.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

mk_images 1 256M
attach_images 1
while read -r csum ns name; do
	echo "== --csum $csum -n $ns" >&2
	run_check "$TOP/mkfs.btrfs" -q -f --csum "$csum" -n "$ns" "${LOOPS[0]}"
	progs_check "${LOOPS[0]}"
	"$PROGS_BTRFS" inspect-internal dump-super "${LOOPS[0]}" > "$T/super"
	assert_grep "^csum_type.*($name)" "$T/super"
	assert_grep "^nodesize[[:space:]]*$ns$" "$T/super"
	mount_and_fill 16 "${LOOPS[0]}"
	progs_check "${LOOPS[0]}"
done <<'LIST'
crc32c 4096 crc32c
xxhash 8192 xxhash64
sha256 32768 sha256
blake2 65536 blake2
crc32c 16384 crc32c
LIST
echo ok
