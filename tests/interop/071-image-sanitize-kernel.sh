#!/bin/bash
# btrfs image -s and -ss on a kernel-filled filesystem (run under
# flock /tmp/btrfs-kit-loop.lock; 4K nodes so that directories span leaves):
# long and short file names, a directory of 300 files, xattrs (user.* with
# values, set through Python's os.setxattr), symlinks, 150 hard links of one
# file in one directory (past what an inode ref holds: inode extrefs), inline
# files, a subvolume and a snapshot, a label.  Every name of 5 bytes or more
# (the files' basenames from find, the xattr names, the subvolume names),
# every xattr value, symlink target, inline file content and the label: none
# is in the -c0 dump (the list is checked non-empty first; shorter names have
# no other name of their length and hash and are kept: cli/083).  The restore:
# our check and Debian's pass, the item keys of every tree equal the
# source's, the kernel mounts it read-only, `find` lists as many entries as
# on the source, and the kernel logs no tree-checker or other btrfs error.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

mkfs_mounted 512M "" -n 4096 -L label-of-the-source
dev=${LOOPS[0]}
m=$T/mnt
: > "$T/secrets"
mkdir -p "$m/directory-with-a-long-name/many-files-here" "$m/d"
for i in $(seq 1 300); do echo "x" > "$m/directory-with-a-long-name/many-files-here/file-number-$i.txt"; done
for i in $(seq 1 40); do echo "s" > "$m/d/f$i"; done
echo "inline-content-of-a-small-file" > "$m/d/inline-file"
echo "inline-content-of-a-small-file" >> "$T/secrets"
ln -s "target-of-the-first-symlink/somewhere" "$m/d/symlink-number-one"
echo "target-of-the-first-symlink" >> "$T/secrets"
ln -s "../directory-with-a-long-name" "$m/symlink-two"
echo "hard link source" > "$m/d/hardlinked-file"
for i in $(seq 1 150); do ln "$m/d/hardlinked-file" "$m/d/hard-link-with-a-rather-long-name-number-$i"; done
python3 - "$m" "$T/secrets" <<'PY' || _fail "setxattr failed"
import os, sys
m, out = sys.argv[1], sys.argv[2]
with open(out, 'a') as f:
    for i, p in enumerate(['d/inline-file', 'directory-with-a-long-name', 'd/hardlinked-file']):
        name, value = f'user.attribute-name-{i}', f'attribute-value-number-{i}'
        os.setxattr(os.path.join(m, p), name, value.encode())
        f.write(f'attribute-name-{i}\n{value}\n')
PY
"$PROGS_BTRFS" subvolume create "$m/subvolume-with-a-name" > /dev/null || _fail "subvolume create failed"
echo "data" > "$m/subvolume-with-a-name/file-in-the-subvolume"
"$PROGS_BTRFS" subvolume snapshot "$m" "$m/snapshot-of-the-top" > /dev/null || _fail "snapshot failed"
echo "label-of-the-source" >> "$T/secrets"
sync
n_src=$(cd "$m" && find . | wc -l)
(cd "$m" && find . -mindepth 1 -printf '%f\n') | awk 'length($0) >= 5' > "$T/basenames"
umount "$m" || _fail "umount failed"
sort -u "$T/basenames" "$T/secrets" > "$T/names"
[ "$(wc -l < "$T/names")" -ge 400 ] || _fail "only $(wc -l < "$T/names") names to look for"
"$BTRFS" inspect-internal dump-tree "$dev" > "$T/src-tree"
assert_grep "INODE_EXTREF" "$T/src-tree"
grep -E '^[[:space:]]+item [0-9]+ key ' "$T/src-tree" > "$T/src-keys"

for opt in -s -ss; do
	rm -f "$T/s.dump" "$T/s.raw"
	run_check "$BTRFS" image $opt -c0 "$dev" "$T/s.dump" 2> /dev/null
	grep -a -o -F -f "$T/names" "$T/s.dump" | sort -u > "$T/found"
	[ ! -s "$T/found" ] || { head "$T/found" >&8; _fail "$opt: original names in the dump"; }
	run_check "$BTRFS" image -r "$T/s.dump" "$T/s.raw"
	clean_checks "$T/s.raw"
	"$BTRFS" inspect-internal dump-tree "$T/s.raw" | grep -E '^[[:space:]]+item [0-9]+ key ' > "$T/s-keys"
	diff -u "$T/src-keys" "$T/s-keys" > "$T/keydiff" ||
		{ head -20 "$T/keydiff" >&8; _fail "$opt: the restore's keys differ from the source's"; }
	rdev=$(setup_loopdev "$T/s.raw")
	track_loopdev "$rdev"
	before=$(dmesg | wc -l)
	mount_tracked "$rdev" "$T/rmnt" ro
	n=$(cd "$T/rmnt" && find . | wc -l) || _fail "$opt: find failed on the restore"
	(cd "$T/rmnt" && find . > /dev/null) || _fail "$opt: find failed on the restore"
	[ "$n" -eq "$n_src" ] || _fail "$opt: find lists $n entries, the source $n_src"
	umount "$T/rmnt" || _fail "umount failed"
	losetup -d "$rdev"
	dmesg | tail -n +"$((before + 1))" > "$T/dmesg"
	assert_not_grep "corrupt leaf\|BTRFS critical\|BTRFS error\|tree-checker" "$T/dmesg"
done
echo "-s, -ss: no name, value, target, content or label left; keys kept; both checks; kernel lists $n_src entries"
