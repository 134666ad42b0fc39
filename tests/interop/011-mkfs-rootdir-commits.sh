#!/bin/bash
# mkfs --rootdir fills the committed empty filesystem through the write
# engine and commits whenever 64 MiB of tree blocks are dirty: a tree with
# more metadata than that (60000 files with 2000-byte xattrs, hard links
# spread over the whole walk, so later links bump inodes of earlier
# commits) ends several generations after the empty one.  btrfs-progs'
# check with data checksums is clean and the kernel shows every file with
# its attributes, xattrs and link counts.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

src=$T/src
python3 - "$src" <<'PY'
import os, sys
root = sys.argv[1]
val = b"v" * 2000
for d in range(60):
    dd = os.path.join(root, "d%02d" % d)
    os.makedirs(dd)
    for f in range(1000):
        p = os.path.join(dd, "f%04d" % f)
        with open(p, "wb") as fh:
            fh.write(b"%d/%d\n" % (d, f) * (f % 7))
        os.setxattr(p, "user.big", val)
# hard links from the last directory to files of the first ones
for d in range(0, 60, 7):
    os.link(os.path.join(root, "d%02d" % d, "f0001"), os.path.join(root, "d59", "link%02d" % d))
with open(os.path.join(root, "data.bin"), "wb") as fh:
    fh.write(os.urandom(3 << 20))
PY
listing() { python3 "$TOP/tests/lib/tree-listing.py" --no-atime "$1"; }
listing "$src" > "$T/src.list"

loop_images 1 1G
run_check "$TOP/mkfs.btrfs" -q -f -r "$src" "${LOOPS[0]}"
gen=$("$PROGS_BTRFS" inspect-internal dump-super "${LOOPS[0]}" | awk '$1 == "generation" { print $2 }')
echo "generation after mkfs: $gen" >&2
# 1 the empty filesystem, then at least two commits in the middle and the last one
[ "$gen" -ge 4 ] || _fail "expected commits during the copy, generation is $gen"
progs_check_data "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt" ro
listing "$T/mnt" > "$T/dst.list"
diff -u "$T/src.list" "$T/dst.list" > "$T/diff" || { head -40 "$T/diff" >&2; _fail "the copy differs"; }
cmp "$src/data.bin" "$T/mnt/data.bin" || _fail "data.bin differs"
[ "$(stat -c %h "$T/mnt/d00/f0001")" = 2 ] || _fail "link count of d00/f0001 is not 2"
umount "$T/mnt"
echo ok
