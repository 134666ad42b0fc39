#!/bin/bash
# Offline balance (issue 21) of a filesystem the kernel wrote (our mkfs.btrfs: Debian's
# 6.2 leaves free space tree items of its temporary chunks on several devices; then files
# and a snapshot through a mount) on 4 loop devices: single->raid1c3 and
# raid1->raid1c4, back to raid1, raid1->raid10, ->raid6 and back to raid1, raid1->single
# (-f), single->dup->single.  After each: our check (data checksums too) and Debian's
# check clean, dump-tree -t chunk shows only the target profiles, the incompat bits
# follow, the kernel mounts it and every file's sha256 is unchanged.  A convert that
# cannot fit leaves every device byte-identical.
# Loop devices and mounts: run under flock /tmp/btrfs-kit-loop.lock (make test-interop).
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs
PROGS=/usr/bin/btrfs
. "$TOP/tests/lib/balance-crash.sh"

crash_fs 512M 4
for i in 1 2 3 4; do head -c 25M /dev/urandom > "$mnt/f$i"; done
mkdir "$mnt/small"; for i in $(seq 300); do head -c $((i * 37)) /dev/urandom > "$mnt/small/$i"; done
run_check $PROGS subvolume snapshot "$mnt" "$mnt/snap" > /dev/null
echo changed > "$mnt/small/1"
sync
tree_sums "$mnt" > "$T/sums"
[ "$(wc -l < "$T/sums")" -gt 600 ] || _fail "too few files written"
umount "$mnt"

profiles() {
	"$BTRFS" inspect-internal dump-tree -t chunk "${devs[0]}" > "$T/chunks" || _fail "dump-tree -t chunk"
	grep -o 'type [A-Z]*|[A-Za-z0-9]*' "$T/chunks" | sed 's/type //' | sort -u | tr '\n' ' '
}
incompat() {
	"$BTRFS" inspect-internal dump-super "${devs[0]}" > "$T/super" || _fail "dump-super"
	sed -n '/^incompat_flags/,/)/p' "$T/super" | grep -o 'RAID56\|RAID1C34' | tr '\n' ' '
}
verify() { # what
	run_check "$BTRFS" check --check-data-csum "${devs[@]}" > "$T/check" 2>&1
	run_check $PROGS check --check-data-csum "${devs[0]}" > "$T/pcheck" 2>&1
	mount_tracked "${devs[0]}" "$mnt" "$opts"
	(cd "$mnt" && sha256sum -c --quiet "$T/sums") || _fail "data changed by $*"
	umount "$mnt"
}
convert() { # expected-profiles expected-incompat args...
	local want=$1 bits=$2; shift 2
	run_check "$BTRFS" balance start "$@" "${devs[@]}" > "$T/out"
	assert_grep '^Done, had to convert [1-9][0-9]* out of' "$T/out"
	[ "$(profiles)" = "$want" ] || _fail "after $*: profiles '$(profiles)', want '$want'"
	[ "$(incompat)" = "$bits" ] || _fail "after $*: incompat '$(incompat)', want '$bits'"
	verify "$@"
}
convert 'DATA|RAID1C3 METADATA|RAID1C4 SYSTEM|RAID1C4 ' 'RAID1C34 ' -dconvert=raid1c3 -mconvert=raid1c4
convert 'DATA|RAID1 METADATA|RAID1 SYSTEM|RAID1 ' '' -f -dconvert=raid1 -mconvert=raid1
convert 'DATA|RAID10 METADATA|RAID1 SYSTEM|RAID1 ' '' -dconvert=raid10
convert 'DATA|RAID6 METADATA|RAID6 SYSTEM|RAID6 ' 'RAID56 ' -f -dconvert=raid6 -mconvert=raid6
convert 'DATA|RAID1 METADATA|RAID1 SYSTEM|RAID1 ' '' -f -dconvert=raid1 -mconvert=raid1
convert 'DATA|single METADATA|single SYSTEM|single ' '' -f -dconvert=single -mconvert=single
convert 'DATA|single METADATA|DUP SYSTEM|DUP ' '' -mconvert=dup
convert 'DATA|single METADATA|single SYSTEM|single ' '' -f -mconvert=single

# Cannot fit: all the data as raid1c4 on 4 devices whose holes are too small.
run_check "$BTRFS" balance start -dconvert=raid1 -mconvert=raid1 "${devs[@]}" > /dev/null
for i in 1 2 3 4; do cp --sparse=always "$T/d$i.img" "$T/c$i.img"; done
mount_tracked "${devs[0]}" "$mnt" "$opts"
for i in 1 2 3 4 5 6; do head -c 50M /dev/urandom > "$mnt/g$i"; done
umount "$mnt"
for i in 1 2 3 4; do cp --sparse=always "$T/d$i.img" "$T/c$i.img"; done
expect_exit 1 "$BTRFS" balance start -dconvert=raid1c4 "${devs[@]}" 2> "$T/err"
assert_grep 'to raid1c4: it needs 4 devices with a free range of' "$T/err"
assert_grep 'Nothing was written' "$T/err"
for i in 1 2 3 4; do cmp "$T/d$i.img" "$T/c$i.img" || _fail "d$i changed by a refused convert"; done
echo ok
