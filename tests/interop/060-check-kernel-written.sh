#!/bin/bash
# Filesystems the kernel just wrote are clean for our check, as for Debian's:
# one device and raid1 on two, a workload with files, hardlinks, symlinks,
# reflinks, a sparse file, xattrs, snapshots (one deleted), compression and
# quotas with a parent qgroup.  A mounted device is refused unless --force.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

workload() { # MNT
	local m=$1 i
	"$PROGS_BTRFS" quota enable "$m" > /dev/null || _fail "quota enable"
	"$PROGS_BTRFS" qgroup create 1/100 "$m" > /dev/null || _fail "qgroup create"
	"$PROGS_BTRFS" subvolume create "$m/sv" > /dev/null || _fail "subvolume create"
	"$PROGS_BTRFS" qgroup assign --no-rescan 0/256 1/100 "$m" > /dev/null 2>&1 || true
	mkdir -p "$m/sv/d"
	for i in $(seq 1 300); do echo "file $i" > "$m/sv/d/f$i"; done
	dd if=/dev/urandom of="$m/sv/big" bs=1M count=24 status=none
	cp --reflink=always "$m/sv/big" "$m/sv/big.clone"
	ln "$m/sv/d/f1" "$m/sv/d/hard"
	ln -s d/f2 "$m/sv/sym"
	truncate -s 50M "$m/sv/sparse"; echo tail >> "$m/sv/sparse"
	setfattr -n user.k -v value "$m/sv/d/f3" 2>/dev/null || true
	chattr +c "$m/sv/d" 2>/dev/null || true
	yes compress me | head -c 2000000 > "$m/sv/d/compressed"
	"$PROGS_BTRFS" subvolume snapshot "$m/sv" "$m/snap" > /dev/null || _fail "snapshot"
	"$PROGS_BTRFS" subvolume snapshot -r "$m/sv" "$m/snap-ro" > /dev/null || _fail "snapshot -r"
	echo changed > "$m/snap/d/f4"
	"$PROGS_BTRFS" subvolume snapshot "$m/sv" "$m/gone" > /dev/null || _fail "snapshot"
	"$PROGS_BTRFS" subvolume delete "$m/gone" > /dev/null || _fail "subvolume delete"
	"$PROGS_BTRFS" subvolume sync "$m" > /dev/null 2>&1 || true
	"$PROGS_BTRFS" quota rescan -w "$m" > /dev/null 2>&1 || true
	sync
}

loop_images 2 512M
for n in 1 2; do
	devs=("${LOOPS[@]:0:$n}")
	if [ "$n" = 1 ]; then run_check "$TOP/mkfs.btrfs" -q -f "${devs[0]}"
	else run_check "$TOP/mkfs.btrfs" -q -f -d raid1 -m raid1 "${devs[@]}"; fi
	opts=$(device_opts "${devs[@]}")
	mount_tracked "${devs[0]}" "$T/mnt" "$opts"
	workload "$T/mnt"
	# mounted: refused, then allowed read-only with --force
	expect_exit 1 "$BTRFS" check "${devs[0]}" > /dev/null 2> "$T/err"
	assert_grep "is currently mounted" "$T/err"
	expect_exit 1 "$BTRFS" check --repair --force "${devs[0]}" > /dev/null 2> "$T/err"
	assert_grep "repair is not possible" "$T/err"
	umount "$T/mnt" || _fail "umount"
	run_check "$BTRFS" check "${devs[@]}" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	assert_grep "checking quota groups$" "$T/err"
	run_check "$BTRFS" check --check-data-csum "${devs[0]}" > "$T/out" 2> "$T/err"
	assert_grep "no error found" "$T/out"
	progs_check "${devs[@]}"
	# the summary figures agree with Debian's
	"$PROGS_BTRFS" check "${devs[0]}" 2> /dev/null | grep -e '^total' -e '^file data' -e referenced > "$T/theirs"
	"$BTRFS" check "${devs[0]}" 2> /dev/null | grep -e '^total' -e '^file data' -e referenced > "$T/ours"
	check_golden "$T/theirs" "$T/ours"
	forget_devices
	echo "ok: $n device(s)"
done
