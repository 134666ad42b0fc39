#!/bin/bash
# The superblock's sys_chunk_array damaged (issue 37): a repair either commits a filesystem
# that checks clean or writes nothing.  A system chunk's stripe offset or devid damaged in
# the array (the chunk tree item and the dev extent still agree) made check --repair set the
# item from the damaged copy, then the stripe back from its dev extent, commit, rewrite
# "mirror 2" at the place the damaged array named, and exit 1 with the image changed: the
# re-check before the commit read the chunk map in memory, not the new superblock's array.
# Now the re-check maps the new generation as the next opener will (the new array, the new
# chunk tree), a fix of a system chunk's item carries into the array, and a copy is
# rewritten only where the committed layout still finds it bad.
#
# Every field of the array's first chunk (key offset, length, type, stripe count, each
# stripe's devid and offset) and seeded random bytes of the whole superblock, each with
# the checksum recomputed, on a single-device DUP and a two-device RAID1 filesystem: our
# repair exits 0 and both checks are clean after, or it exits 1 with every byte unchanged.
. "$TOP/tests/lib/common.sh"
check_prereq progs python3
need_corrupt_block
PROGS_BTRFS=/usr/bin/btrfs

truncate -s 300M "$T/a.img" "$T/r1.img" "$T/r2.img"
run_check "$TOP/mkfs.btrfs" -q -f "$T/a.img"
run_check "$TOP/mkfs.btrfs" -q -f -d raid1 -m raid1 "$T/r1.img" "$T/r2.img"

# the content of sparse images (tests/tools/image-digest.py: holes read as zeroes, a hole
# equals zeroes)
image_sum() {
	local img
	for img; do
		python3 "$TOP/tests/tools/image-digest.py" "$img" || _fail "image-digest.py $img"
	done
}

repaired=0 refused=0
# one_case FIELD VALUE IMG...: damage copies, repair, judge
one_case() {
	local field=$1 value=$2 w=() i rc
	shift 2
	for i in "$@"; do cp --sparse=always "$i" "$T/w.$(basename "$i")"; w+=("$T/w.$(basename "$i")"); done
	"$CB" "${w[0]}" super "$field" "$value" > /dev/null 2>&1 || return 0
	image_sum "${w[@]}" > "$T/sum.before"
	"$BTRFS" check --repair --force "${w[@]}" > "$T/repair" 2>&1
	rc=$?
	case $rc in
	0)
		"$BTRFS" check "${w[@]}" > "$T/after" 2>&1 ||
			{ cat "$T/repair" "$T/after"; _fail "$field $value on $*: repaired, our check still finds errors"; }
		if [ $# -eq 1 ]; then
			"$PROGS_BTRFS" check "${w[0]}" > "$T/after" 2>&1 ||
				{ cat "$T/after"; _fail "$field $value: repaired, Debian's check finds errors"; }
		fi
		repaired=$((repaired + 1)) ;;
	1)
		image_sum "${w[@]}" | cmp -s - "$T/sum.before" ||
			{ cat "$T/repair"; _fail "$field $value on $*: the repair exited 1 and changed the image"; }
		refused=$((refused + 1)) ;;
	*)
		cat "$T/repair"; _fail "$field $value on $*: repair exit $rc" ;;
	esac
}

# the array's first entry: key at 811 (offset at 820), chunk at 828: length, type at +24,
# num_stripes u16 at +44, sub_stripes at +46, stripes of 32 bytes from +48 (devid, offset)
fields="u64@820 u64@828 u64@852 u16@872 u16@874 u64@876 u64@884 u64@908 u64@916"
for img in "$T/a.img" "$T/r1.img $T/r2.img"; do
	for f in $fields; do
		for v in +1 +4096 0; do
			# shellcheck disable=SC2086
			one_case "$f" "$v" $img
		done
	done
done
# the stripe offsets the old repair committed and broke: repaired now, on both
for img in "$T/a.img" "$T/r1.img $T/r2.img"; do
	# shellcheck disable=SC2086
	one_case u64@916 +8388608 $img
	assert_grep "stripe 1: devid [0-9]* physical [0-9]* reset to devid" "$T/repair"
	assert_not_grep "Rewrote copy" "$T/repair"
done
# random bytes anywhere in the superblock past the checksum (seeded)
RANDOM=37
for n in $(seq 1 40); do
	off=$((32 + RANDOM % (3000 - 32)))
	one_case "u8@$off" $((RANDOM % 256)) "$T/a.img"
done
echo "repaired $repaired, refused (unchanged) $refused"
[ "$repaired" -ge 10 ] || _fail "only $repaired repaired"
[ "$refused" -ge 5 ] || _fail "only $refused refused"
echo ok
