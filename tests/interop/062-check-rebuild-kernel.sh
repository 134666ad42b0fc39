#!/bin/bash
# btrfs check --clear-space-cache v2 / v1 and --init-csum-tree on
# filesystems the kernel filled (one device and raid1 on two): after each,
# our check --check-data-csum and Debian's are clean and the kernel mounts
# them and reads every file back equal.  v1 runs on a filesystem the kernel
# wrote space cache v1 files on; --init-csum-tree runs after a checksum was
# zeroed and csum items were deleted, and must give back the kernel's own
# checksum for every sector.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

cat > "$T/nritems.py" <<'PY'
# nritems.py DEV NODESIZE BYTENR N: every copy of tree block BYTENR keeps its first N items
import sys
sys.path.insert(0, sys.argv[5])
from blockpatch import crc32c
dev, nodesize, bytenr, nr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
want, n = bytenr.to_bytes(8, 'little'), 0
with open(dev, 'r+b') as f:
    size, off = f.seek(0, 2), 0
    while off + nodesize <= size:
        f.seek(off + 0x30)
        if f.read(8) == want:
            f.seek(off)
            blk = bytearray(f.read(nodesize))
            blk[0x60:0x64] = nr.to_bytes(4, 'little')
            blk[0:4] = crc32c(bytes(blk[32:])).to_bytes(4, 'little')
            f.seek(off)
            f.write(blk)
            n += 1
        off += nodesize
sys.exit(0 if n else 1)
PY

workload() { # MNT
	local m=$1 i
	"$PROGS_BTRFS" subvolume create "$m/sv" > /dev/null || _fail "subvolume create"
	mkdir -p "$m/sv/d" "$m/z"
	for i in $(seq 1 100); do echo "file $i" > "$m/sv/d/f$i"; done
	dd if=/dev/urandom of="$m/sv/big" bs=1M count=12 status=none
	cp --reflink=always "$m/sv/big" "$m/big.clone"
	touch "$m/nocow"; chattr +C "$m/nocow"
	dd if=/dev/urandom of="$m/nocow" bs=1M count=2 status=none
	chattr +c "$m/z"
	yes compress me | head -c 3000000 > "$m/z/text"
	fallocate -l 4M "$m/prealloc"
	dd if=/dev/urandom of="$m/prealloc" bs=64k count=3 conv=notrunc status=none
	"$PROGS_BTRFS" subvolume snapshot "$m/sv" "$m/snap" > /dev/null || _fail "snapshot"
	echo changed >> "$m/snap/d/f4"
	dd if=/dev/urandom of="$m/snap/big" bs=4k count=5 seek=100 conv=notrunc status=none
	sync
}

fill() { # DEV... : mount, workload, remember the sums, unmount
	local opts
	opts=$(device_opts "$@")
	mount_tracked "$1" "$T/mnt" "$opts"
	workload "$T/mnt"
	tree_sums "$T/mnt" > "$T/sums"
	umount "$T/mnt" || _fail "umount"
}
read_back() { # DEV... : the kernel mounts and reads every file equal
	local opts
	opts=$(device_opts "$@")
	mount_tracked "$1" "$T/mnt" "$opts"
	tree_sums "$T/mnt" > "$T/sums.now" || _fail "reading the files back failed"
	umount "$T/mnt" || _fail "umount"
	diff -u "$T/sums" "$T/sums.now" >&2 || _fail "files read back differ"
}
both_clean() { # DEV...
	run_check "$BTRFS" check --check-data-csum "$@" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	"$PROGS_BTRFS" device scan "$@" > /dev/null 2>&1
	progs_check_data "$1"
}
super_field() { "$BTRFS" inspect-internal dump-super "$1" | sed -n "s/^$2[[:space:]]*//p"; }
sector_sums() { "$BTRFS" inspect-internal dump-tree -t csum --csum-items "$@" | grep -o '\[[0-9]*\] 0x[0-9a-f]*' | sort; }
csum_leaves() { "$BTRFS" inspect-internal dump-tree -t csum "$@" | sed -n 's/^leaf \([0-9]*\) items \([0-9]*\).*/\1 \2/p'; }

loop_images 2 512M
for n in 1 2; do
	devs=("${LOOPS[@]:0:$n}")
	prof=(); [ "$n" = 2 ] && prof=(-d raid1 -m raid1)

	# --- --clear-space-cache v2 (without block group tree, which needs v2) ---
	run_check "$TOP/mkfs.btrfs" -q -f "${prof[@]}" -O ^block-group-tree "${devs[@]}"
	fill "${devs[@]}"
	run_check "$BTRFS" check --clear-space-cache v2 --force "${devs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "^free space cache v2 cleared$" "$T/out"
	[ "$(super_field "${devs[0]}" compat_ro_flags)" = 0x0 ] || _fail "compat_ro $(super_field "${devs[0]}" compat_ro_flags) after v2 clear"
	both_clean "${devs[@]}"
	read_back "${devs[@]}"
	both_clean "${devs[@]}"
	forget_devices
	echo "ok: $n device(s), --clear-space-cache v2"

	# --- --init-csum-tree after checksums were damaged and deleted ---
	run_check "$TOP/mkfs.btrfs" -q -f "${prof[@]}" "${devs[@]}"
	fill "${devs[@]}"
	sector_sums "${devs[@]}" > "$T/sums.kernel"
	[ "$(wc -l < "$T/sums.kernel")" -gt 3000 ] || _fail "the kernel wrote only $(wc -l < "$T/sums.kernel") checksums"
	read -r leaf items < <(csum_leaves "${devs[@]}")
	first=$(head -n 1 "$T/sums.kernel" | sed 's/.* 0x//; s/\(..\)/\\x\1/g')
	for d in "${devs[@]}"; do
		python3 "$TOP/tests/lib/blockpatch.py" "$d" 16384 "$leaf" "$first" '\x00\x00\x00\x00' > /dev/null
	done
	expect_exit 1 "$BTRFS" check --check-data-csum "${devs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "csum mismatch against the csum tree" "$T/err"
	[ "$items" -gt 1 ] || _fail "csum leaf $leaf has $items item(s): nothing to delete"
	for d in "${devs[@]}"; do
		python3 "$T/nritems.py" "$d" 16384 "$leaf" 1 "$TOP/tests/lib" || _fail "leaf $leaf not found on $d"
	done
	"$PROGS_BTRFS" device scan "${devs[@]}" > /dev/null 2>&1
	run_mustfail "checksums zeroed and deleted" "$PROGS_BTRFS" check --check-data-csum "${devs[0]}" > "$T/out" 2>&1
	run_check "$BTRFS" check --init-csum-tree --force "${devs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "^Reinitialize checksum tree$" "$T/out"
	assert_grep "no error found" "$T/out"
	sector_sums "${devs[@]}" > "$T/sums.ours"
	check_golden "$T/sums.kernel" "$T/sums.ours"
	both_clean "${devs[@]}"
	read_back "${devs[@]}"
	forget_devices
	echo "ok: $n device(s), --init-csum-tree"
done

# --- --clear-space-cache v1 on cache files the kernel wrote (it writes them
# only for block groups of 100 MiB or more: a 3 GiB filesystem) ---
for d in "${LOOPS[@]}"; do losetup -d "$d"; done
rm -f "$T"/d*.img
truncate -s 3G "$T/v1.img"
dev=$(setup_loopdev "$T/v1.img"); track_loopdev "$dev"
run_check "$TOP/mkfs.btrfs" -q -f -O ^free-space-tree,^block-group-tree "$dev"
mount_tracked "$dev" "$T/mnt" space_cache=v1
workload "$T/mnt"
dd if=/dev/zero of="$T/mnt/fill" bs=1M count=120 status=none
sync; rm -f "$T"/mnt/sv/d/f1*; sync
tree_sums "$T/mnt" > "$T/sums"
umount "$T/mnt" || _fail "umount"
"$BTRFS" inspect-internal dump-tree -t root "$dev" > "$T/root"
assert_grep "key (FREE_SPACE UNTYPED" "$T/root"
both_clean "$dev"
run_check "$BTRFS" check --clear-space-cache v1 --force "$dev" > "$T/out" 2> "$T/err"
assert_grep "^Free space cache cleared$" "$T/out"
"$BTRFS" inspect-internal dump-tree -t root "$dev" > "$T/root"
assert_not_grep "FREE_SPACE" "$T/root"
[ "$(super_field "$dev" cache_generation)" = 18446744073709551615 ] || _fail "cache_generation $(super_field "$dev" cache_generation)"
both_clean "$dev"
read_back "$dev"
both_clean "$dev"
echo "ok: --clear-space-cache v1"
