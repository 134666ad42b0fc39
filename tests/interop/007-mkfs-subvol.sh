#!/bin/bash
# mkfs --rootdir with -u/--subvol: btrfs-progs' check is clean, the kernel
# mounts it, Debian's `btrfs subvolume list` shows every subvolume at its
# path, the default subvolume is what a plain mount shows, the copied tree
# compares equal (content, modes, owners, times, link counts inside each
# subvolume), hard links across a subvolume boundary became separate files,
# and the kernel refuses writes into the read-only one.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs

src=$T/src
mkdir -p "$src/home/user/docs" "$src/var/log" "$src/snapro" "$src/boot" "$src/home/user/nested"
echo top > "$src/top-file"
ln "$src/top-file" "$src/top-link"
ln "$src/top-file" "$src/home/user/split-link"      # crosses into subvolume home
head -c 300000 /dev/urandom > "$src/home/user/docs/blob"
echo nested > "$src/home/user/nested/n"
for i in $(seq 1 200); do echo "log $i" > "$src/var/log/l$i"; done
echo ro > "$src/snapro/r"
echo kernel > "$src/boot/vmlinuz"
chown 1000:1000 "$src/home/user" "$src/home/user/docs/blob"
chmod 700 "$src/home/user"
touch -d '2021-05-06 07:08:09.5' "$src/var/log" "$src/home/user/docs/blob"
listing() { file_listing "$1" '%p size=%s\n'; }   # DIR: what must survive, hard links aside
listing "$src" | grep -v -- '-link \|top-file ' > "$T/src.list"

loop_images 1 400M
run_check "$TOP/mkfs.btrfs" -f -r "$src" -u home -u rw:home/user/nested -u ro:snapro \
	-u default:var "${LOOPS[0]}" > "$T/mkfs.out"
progs_check "${LOOPS[0]}"

# The default subvolume is mounted without options.
mount_tracked "${LOOPS[0]}" "$T/mnt" ro
[ -f "$T/mnt/log/l200" ] || _fail "plain mount does not show the default subvolume var"
umount "$T/mnt"

mount_tracked "${LOOPS[0]}" "$T/mnt" subvolid=5,ro
"$PROGS_BTRFS" subvolume list "$T/mnt" > "$T/list"
cat "$T/list" >&2
for p in home home/user/nested snapro var; do
	grep -q " path $p\$" "$T/list" || _fail "subvolume $p not listed"
done
[ "$(wc -l < "$T/list")" = 4 ] || _fail "expected 4 subvolumes"
# nested lives in home: its top level is home's id
home_id=$(awk '/ path home$/ { print $2 }' "$T/list")
grep -q "top level $home_id path home/user/nested\$" "$T/list" || _fail "nested is not inside home"
"$PROGS_BTRFS" subvolume get-default "$T/mnt" | grep -q " path var\$" || _fail "default subvolume is not var"
"$PROGS_BTRFS" subvolume show "$T/mnt/snapro" | grep -q "Flags:.*readonly" || _fail "snapro is not read-only"
"$PROGS_BTRFS" subvolume show "$T/mnt/home" | grep -q "Flags:.*-" || _fail "home is not read-write"
# A subvolume's root directory is inode 256.
[ "$(stat -c %i "$T/mnt/home")" = 256 ] || _fail "home is not a subvolume root"
listing "$T/mnt" | grep -v -- '-link \|top-file ' > "$T/dst.list"
diff -u "$T/src.list" "$T/dst.list" >&2 || _fail "attributes differ after mkfs --subvol"
cmp "$src/home/user/docs/blob" "$T/mnt/home/user/docs/blob" || _fail "blob differs"
[ "$(stat -c %h "$T/mnt/top-file")" = 2 ] || _fail "top-file should have 2 links in the top level"
[ "$(stat -c %h "$T/mnt/home/user/split-link")" = 1 ] || _fail "split-link should be a separate file"
[ "$(cat "$T/mnt/home/user/split-link")" = top ] || _fail "split-link content"
umount "$T/mnt"

# The kernel enforces the read-only flag; the rest is writable and stays clean.
mount_tracked "${LOOPS[0]}" "$T/mnt" subvolid=5
"$PROGS_BTRFS" property get -ts "$T/mnt/snapro" ro | grep -q "ro=true" || _fail "kernel: snapro not read-only"
if touch "$T/mnt/snapro/x" 2> /dev/null; then _fail "could write into read-only snapro"; fi
umount "$T/mnt"
mount_tracked "${LOOPS[0]}" "$T/mnt" subvol=home
echo new > "$T/mnt/new-file" || _fail "cannot write into subvolume home"
"$PROGS_BTRFS" subvolume create "$T/mnt/made-later" > /dev/null || _fail "subvolume create failed"
umount "$T/mnt"
progs_check "${LOOPS[0]}"
echo ok
