#!/bin/bash
# btrfs check --repair of extent records on a filesystem the kernel wrote,
# with reflinks (keyed back references) and snapshots (tree blocks with two
# owners, shared data back references): one record removed at a time
# (tests/tools/tree-edit), --repair --force mends it, our check and Debian's
# are clean, and the kernel then mounts it, reads every file, writes and
# deletes, and both checks stay clean.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
need_tool EDIT tree-edit

base=$T/base.img
img=$T/work.img
mkdir -p "$T/mnt"
kernel_round() { # IMAGE: mount, read all, write, delete, unmount
	local dev
	dev=$(setup_loopdev "$1")
	track_loopdev "$dev"
	# once more after a moment: other tests' "device scan --forget" may race the mount's scan
	mount "$dev" "$T/mnt" 2> /dev/null || { sleep 1; "$PROGS_BTRFS" device scan "$dev" > /dev/null 2>&1; }
	mountpoint -q "$T/mnt" || mount_tracked "$dev" "$T/mnt"
	_cleanup_mounts+=("$T/mnt")
	find "$T/mnt" -type f -exec cat {} + > /dev/null || _fail "reading the files back failed"
	head -c 100000 /dev/urandom > "$T/mnt/new" || _fail "write failed"
	rm -f "$T/mnt/f2.r1" "$T/mnt/snap/f2.r2" "$T/mnt/snap/d/s2"
	umount "$T/mnt" || _fail "umount failed"
	losetup -d "$dev"
	forget_devices
}

truncate -s 512M "$base"
run_check "$TOP/mkfs.btrfs" -q -f "$base"
dev=$(setup_loopdev "$base")
track_loopdev "$dev"
mount_tracked "$dev" "$T/mnt"
for i in $(seq 1 60); do head -c $((4096 * (i % 7 + 1))) /dev/urandom > "$T/mnt/f$i"; done
for i in $(seq 1 40); do cp --reflink=always "$T/mnt/f2" "$T/mnt/f2.r$i"; done
"$PROGS_BTRFS" subvolume snapshot "$T/mnt" "$T/mnt/snap" > /dev/null || _fail "snapshot"
echo changed >> "$T/mnt/f3"
mkdir "$T/mnt/d"
for i in $(seq 1 300); do echo "$i" > "$T/mnt/d/s$i"; done
"$PROGS_BTRFS" subvolume snapshot "$T/mnt" "$T/mnt/snap2" > /dev/null || _fail "snapshot"
rm -f "$T/mnt"/d/s1*
umount "$T/mnt" || _fail "umount failed"
losetup -d "$dev"
forget_devices
run_check "$BTRFS" check "$base" > /dev/null 2>&1

"$BTRFS" inspect-internal dump-tree -t extent "$base" > "$T/extent.txt"
# data extent with keyed back references (the reflinked file) and one of them
read -r keyed_start keyed_ref <<< "$(sed -n 's/.*key (\([0-9]*\) EXTENT_DATA_REF \([0-9]*\)).*/\1 \2/p' "$T/extent.txt" | head -n 1)"
keyed_len=$(sed -n "s/.*key ($keyed_start EXTENT_ITEM \([0-9]*\)).*/\1/p" "$T/extent.txt")
# a tree block of two trees (snapshot), a data extent with a shared data back reference
shared_block=$(grep -A1 'METADATA_ITEM' "$T/extent.txt" | grep -B1 'refs 2 ' |
	sed -n 's/.*key (\([0-9]*\) METADATA_ITEM 0).*/\1/p' | head -n 1)
# a leaf the snapshot still uses after the fs tree copied it: FULL_BACKREF, its
# file extents' back references are shared ones naming it
full_leaf=$(grep -A1 'METADATA_ITEM 0)' "$T/extent.txt" | grep -B1 'FULL_BACKREF' |
	sed -n 's/.*key (\([0-9]*\) METADATA_ITEM 0).*/\1/p' | head -n 1)
read -r sdata_start sdata_len <<< "$(grep -A6 ' EXTENT_ITEM ' "$T/extent.txt" | awk '
	/key \(/ { s = $4; sub(/\(/, "", s); l = $6; sub(/\)/, "", l) }
	/shared data backref/ && s { print s, l; exit }')"
for v in keyed_start keyed_ref keyed_len shared_block full_leaf sdata_start sdata_len; do
	[ -n "${!v}" ] || _fail "extent tree layout not understood: no $v"
done

repair_case() { # NAME EDIT-ARGS...
	local name=$1; shift
	cp --sparse=always "$base" "$img"
	run_check "$EDIT" "$img" "$@"
	expect_exit 1 "$BTRFS" check "$img" > /dev/null 2>&1
	run_check "$BTRFS" check --repair --force "$img" > "$T/rep" 2>&1
	assert_grep "Repair committed" "$T/rep"
	run_check "$BTRFS" check "$img" > "$T/out" 2>&1
	progs_check "$img"
	if [ -n "${want_full:-}" ]; then  # the lost item came back with its flag
		"$BTRFS" inspect-internal dump-tree -t extent "$img" | grep -A1 "key ($want_full METADATA_ITEM" > "$T/item"
		assert_grep "FULL_BACKREF" "$T/item"
	fi
	kernel_round "$img"
	run_check "$BTRFS" check "$img" > "$T/out" 2>&1
	progs_check "$img"
	echo "ok: $name repaired, kernel round clean"
}

repair_case "extent item of a reflinked extent" del 2 "$keyed_start" 168 "$keyed_len"
repair_case "keyed data back reference" del 2 "$keyed_start" 178 "$keyed_ref"
repair_case "extent item of a snapshot-shared tree block" del 2 "$shared_block" 169 0
want_full=$full_leaf repair_case "extent item of a FULL_BACKREF leaf" del 2 "$full_leaf" 169 0
repair_case "extent item with a shared data back reference" del 2 "$sdata_start" 168 "$sdata_len"
# Sweep: every 4th extent item deleted, every 4th one's refs set to 100, one
# at a time; each --repair must mend it, clean for both checkers.  (Items of
# the extent tree's own blocks cannot be deleted through the engine: skipped.)
sed -n 's/.*key (\([0-9]*\) \(METADATA_ITEM\|EXTENT_ITEM\) \([0-9]*\)).*/\1 \2 \3/p' "$T/extent.txt" > "$T/items"
n=0 done_nr=0
while read -r start type off; do
	n=$((n + 1))
	t=168; [ "$type" = METADATA_ITEM ] && t=169
	case $((n % 4)) in
	0) op=(del 2 "$start" "$t" "$off") ;;
	2) op=(set 2 "$start" "$t" "$off" 0 64 100) ;;
	*) continue ;;
	esac
	cp --sparse=always "$base" "$img"
	"$EDIT" "$img" "${op[@]}" 2> /dev/null || continue
	run_check "$BTRFS" check --repair --force "$img" > "$T/rep" 2>&1
	run_check "$BTRFS" check "$img" > "$T/out" 2>&1
	"$PROGS_BTRFS" check "$img" > "$T/out" 2>&1 || { cat "$T/out" >&2; _fail "sweep: ${op[*]}: Debian's check finds errors after our repair"; }
	done_nr=$((done_nr + 1))
done < "$T/items"
[ "$done_nr" -ge 20 ] || _fail "sweep: only $done_nr corruptions made"
echo "ok: sweep, $done_nr single-item corruptions repaired, clean for us and Debian"
echo "all kernel-written extent repairs done"
