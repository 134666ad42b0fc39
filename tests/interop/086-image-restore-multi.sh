#!/bin/bash
# btrfs image -m: dumps made by Debian's btrfs-image (-c0 and -c9) of
# multi-device filesystems (kernel-filled corpus cases: RAID1 on 2 devices,
# RAID10 data with RAID1 metadata on 4, RAID1C3/RAID1C4 on 4; our mkfs
# --rootdir with RAID1 metadata and RAID0 data on 3) restored onto one file
# per device: every device gets its own superblock (its own dev_item, devid
# and size from the dump's dev items, backup superblocks that fit), chunks at
# their original devices and offsets.  Our check on the files and Debian's on
# loop devices are clean, the kernel mounts them read-only with all devices
# and lists the files.  RAID6 metadata with -m gets its parity computed: both
# checks clean, our check with any two of the four devices left out clean
# (every block rebuilt from the parity), the kernel mounts two devices
# degraded and lists the files.  Too few or too many targets are refused
# before any target is created.
# The same dumps restored onto one file (no -m: every chunk a SINGLE or DUP
# chunk of one device, as btrfs-progs 6.19 restores them; RAID5/6 too): both
# checks clean, the kernel mounts it, lists the files, takes a write and
# unmounts, and both checks are clean again.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs corpus
[ -x /usr/bin/btrfs-image ] || _skip "no Debian btrfs-image"

# Debian's btrfs-image of the N devices $T/d1.img..dN.img into $T/c0.dump and $T/c9.dump.
dump_images() {
	local n=$1
	forget_devices
	attach_images "$n"
	"$PROGS_BTRFS" device scan "${LOOPS[@]}" > /dev/null 2>&1
	run_check /usr/bin/btrfs-image "${LOOPS[0]}" "$T/c0.dump"
	run_check /usr/bin/btrfs-image -c9 "${LOOPS[0]}" "$T/c9.dump"
	for d in "${LOOPS[@]}"; do losetup -d "$d"; done
	forget_devices
}

# Restore $T/$dump onto $T/r1.img..rN.img and judge it; $3: files the kernel lists in the top folder.
restore_and_judge() {
	local n=$1 dump=$2 want=$3 i opts="" r=() loops=() dev sb
	for ((i = 1; i <= n; i++)); do rm -f "$T/r$i.img"; r+=("$T/r$i.img"); done
	run_check "$BTRFS" image -m "$T/$dump" "${r[@]}"
	run_check "$BTRFS" check "${r[@]}" > "$T/ours.log" 2>&1
	for ((i = 1; i <= n; i++)); do
		sb=$("$BTRFS" inspect-internal dump-super "${r[i - 1]}")
		# each device names itself, with the size the file was given
		grep -q "^dev_item.devid[[:space:]]*$i$" <<< "$sb" || _fail "$dump: r$i.img's superblock is not devid $i"
		[ "$(grep '^dev_item.total_bytes' <<< "$sb" | awk '{print $2}')" = "$(stat -c %s "${r[i - 1]}")" ] ||
			_fail "$dump: r$i.img's size is not its dev_item.total_bytes"
		grep -q "^num_devices[[:space:]]*$n$" <<< "$sb" || _fail "$dump: num_devices is not $n"
	done
	"$BTRFS" inspect-internal dump-super -a "${r[0]}" | grep -c '^superblock: bytenr=' > "$T/nsb"
	[ "$(cat "$T/nsb")" -ge 2 ] || _fail "$dump: no backup superblock on r1.img"
	forget_devices
	for ((i = 1; i <= n; i++)); do
		dev=$(setup_loopdev "${r[i - 1]}"); track_loopdev "$dev"; loops+=("$dev")
		opts="${opts:+$opts,}device=$dev"
	done
	progs_check "${loops[@]}"
	mount_tracked "${loops[0]}" "$T/mnt" "ro,$opts"
	[ "$(ls "$T/mnt" | wc -l)" -eq "$want" ] || _fail "$dump: the kernel lists $(ls "$T/mnt" | wc -l) entries, expected $want"
	umount "$T/mnt" || _fail "umount failed"
	for d in "${loops[@]}"; do losetup -d "$d"; done
	forget_devices
	echo "ok $dump: $n devices, both checks clean, kernel mount lists $want entries"
}

# Restore $T/$dump onto the one file $T/one.img (no -m) and judge it; $2: files the kernel lists.
one_and_judge() {
	local dump=$1 want=$2 dev
	rm -f "$T/one.img"
	run_check "$BTRFS" image -r "$T/$dump" "$T/one.img"
	run_check "$BTRFS" check "$T/one.img" > "$T/ours.log" 2>&1
	"$BTRFS" inspect-internal dump-super "$T/one.img" > "$T/sb"
	assert_grep "^num_devices[[:space:]]*1$" "$T/sb"
	forget_devices
	dev=$(setup_loopdev "$T/one.img"); track_loopdev "$dev"
	progs_check "$dev"
	"$BTRFS" inspect-internal dump-tree -t chunk "$T/one.img" > "$T/chunk"
	assert_not_grep "RAID" "$T/chunk"
	[ "$(grep -o 'devid [0-9]*' "$T/chunk" | sort -u | wc -l)" = 1 ] || _fail "$dump onto one: the chunk tree names several devices"
	mount_tracked "$dev" "$T/mnt"
	[ "$(ls "$T/mnt" | wc -l)" -eq "$want" ] || _fail "$dump onto one: the kernel lists $(ls "$T/mnt" | wc -l) entries, expected $want"
	echo written > "$T/mnt/new-file" || _fail "$dump onto one: the kernel did not take a write"
	umount "$T/mnt" || _fail "umount failed"
	progs_check "$dev"
	losetup -d "$dev"
	forget_devices
	run_check "$BTRFS" check "$T/one.img" > "$T/ours.log" 2>&1
	echo "ok $dump onto one target: both checks clean, kernel mount lists $want entries, takes a write"
}

corpus_multi() { # case ndev
	local dir i
	dir=$(corpus_case "$1")
	for ((i = 1; i <= $2; i++)); do cp --sparse=always "$dir/dev$i.img" "$T/d$i.img"; done
}

n=0
for c in raid1-raid1:2 raid10-4dev:4 raid1c3-raid1c4:4; do
	corpus_multi "${c%:*}" "${c#*:}"
	mkdir -p "$T/orig"
	forget_devices
	attach_images "${c#*:}"
	"$PROGS_BTRFS" device scan "${LOOPS[@]}" > /dev/null 2>&1
	mount_tracked "${LOOPS[0]}" "$T/orig" ro
	want=$(ls "$T/orig" | wc -l)
	umount "$T/orig"
	for d in "${LOOPS[@]}"; do losetup -d "$d"; done
	[ "$want" -gt 0 ] || _fail "${c%:*}: the original lists no files"
	dump_images "${c#*:}"
	restore_and_judge "${c#*:}" c0.dump "$want"
	restore_and_judge "${c#*:}" c9.dump "$want"
	one_and_judge c9.dump "$want"
	n=$((n + 1))
done

# our mkfs, 3 devices, RAID1 metadata, RAID0 data, files
src=$T/src
mkdir -p "$src/a"
for i in $(seq 1 300); do echo "f$i" > "$src/a/f$i"; done
head -c 300000 /dev/urandom > "$src/big"
mk_images 3 300M
run_check "$TOP/mkfs.btrfs" -q -f --rootdir "$src" -m raid1 -d raid0 "$T/d1.img" "$T/d2.img" "$T/d3.img"
dump_images 3
restore_and_judge 3 c0.dump 2
restore_and_judge 3 c9.dump 2
one_and_judge c0.dump 2

# too few, too many targets: refused before any target exists
rm -f "$T"/r?.img
expect_exit 1 "$BTRFS" image -m "$T/c9.dump" "$T/r1.img" "$T/r2.img" 2> "$T/err"
assert_grep "the dump is of a filesystem with 3 devices, 2 targets given" "$T/err"
expect_exit 1 "$BTRFS" image -m "$T/c9.dump" "$T/r1.img" "$T/r2.img" "$T/r3.img" "$T/r4.img" 2> "$T/err"
assert_grep "the dump is of a filesystem with 3 devices, 4 targets given" "$T/err"
[ -z "$(compgen -G "$T/r?.img")" ] || _fail "a refused restore created a target"

# RAID6 metadata, RAID5 data: -m with parity, and onto one target
corpus_multi raid5-raid6 4
dump_images 4
restore_and_judge 4 c9.dump 2
for pair in "1 2" "3 4" "1 4" "2 3"; do
	set -- $pair
	others=()
	for i in 1 2 3 4; do [ "$i" = "$1" ] || [ "$i" = "$2" ] || others+=("$T/r$i.img"); done
	run_check "$BTRFS" check "${others[@]}" > "$T/ours.log" 2>&1
done
forget_devices
l1=$(setup_loopdev "$T/r1.img"); track_loopdev "$l1"
l3=$(setup_loopdev "$T/r3.img"); track_loopdev "$l3"
mount_tracked "$l1" "$T/mnt" "ro,degraded,device=$l3"
[ "$(ls "$T/mnt" | wc -l)" -eq 2 ] || _fail "RAID6 -m: the kernel lists $(ls "$T/mnt" | wc -l) entries on two devices, expected 2"
umount "$T/mnt" || _fail "umount failed"
losetup -d "$l1"; losetup -d "$l3"
forget_devices
echo "ok RAID6 -m: every two devices left out read clean, the kernel reads it degraded"
one_and_judge c9.dump 2
one_and_judge c0.dump 2
echo "$n corpus cases and our mkfs restored with -m and onto one target, RAID5/6 onto one target"
