#!/bin/bash
# The write engine on a real filesystem: our mkfs, then engine-fill creates
# 20000 empty files with xattrs (grown and shrunk in place) over 5 commits
# and deletes 2000 again; Debian's btrfs check is clean, the kernel sees
# exactly the files and xattr values, takes writes, and check stays clean;
# the engine then writes again on the kernel-written filesystem (its trees
# and free space tree as the kernel left them), still clean and mountable.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/engine-helpers.sh"
check_prereq root loop btrfs-kernel progs python3
need_tool FILL engine-fill

loop_images 1 1G
run_check "$TOP/mkfs.btrfs" -f -q "${LOOPS[0]}"
gen0=$("$BTRFS" inspect-internal dump-super "${LOOPS[0]}" | awk '$1 == "generation" {print $2}')
run_check "$FILL" -n 20000 -c 5 -x -d 2000 "${LOOPS[0]}" > "$T/fill.out"
assert_grep "^generation $((gen0 + 6)) files 18000$" "$T/fill.out"
progs_check "${LOOPS[0]}"
"$PROGS_BTRFS" inspect-internal dump-super -f "${LOOPS[0]}" > "$T/super"
assert_grep "^generation[[:space:]]*$((gen0 + 6))$" "$T/super"
# backup roots rotated: the newest slot holds this generation
assert_grep "backup_tree_root:.*gen: $((gen0 + 6))" "$T/super"
assert_grep "backup_tree_root:.*gen: $((gen0 + 5))" "$T/super"

mount_tracked "${LOOPS[0]}" "$T/mnt"
entries_seen 18000 "$T/mnt" "the engine's files"
[ -e "$T/mnt/f17999" ] && [ ! -e "$T/mnt/f18000" ] || _fail "wrong names after the deletes"
python3 - "$T/mnt" <<'PY' || _fail "xattr values differ"
import os, sys
d = sys.argv[1]
bad = 0
for i in range(0, 18000, 7):
    p = os.path.join(d, "f%d" % i)
    ino = os.stat(p).st_ino
    v = os.getxattr(p, "user.engine")
    if ino % 3 == 0:
        want = b"x" * 200
    elif ino % 5 == 0:
        want = ("v%d" % ino).encode()[:1]
    else:
        want = ("v%d" % ino).encode()
    if v != want:
        bad += 1
        if bad < 5:
            print("f%d ino %d: %r != %r" % (i, ino, v[:20], want[:20]))
sys.exit(1 if bad else 0)
PY
echo hello > "$T/mnt/f5" || _fail "kernel cannot write an engine-made file"
rm "$T/mnt/f6" || _fail "kernel cannot delete an engine-made file"
umount "$T/mnt" || _fail "umount failed"
progs_check "${LOOPS[0]}"
mount_and_fill 100 "${LOOPS[0]}"
progs_check "${LOOPS[0]}"

# Our engine again, on what the kernel wrote.
run_check "$FILL" -n 3000 -c 3 -x -p g "${LOOPS[0]}" > "$T/fill2.out"
progs_check "${LOOPS[0]}"
mount_tracked "${LOOPS[0]}" "$T/mnt2"
n=$(ls "$T/mnt2" | grep -c '^g')
[ "$n" -eq 3000 ] || _fail "kernel sees $n g files, expected 3000"
[ "$(cat "$T/mnt2/f5")" = hello ] || _fail "f5 content lost"
umount "$T/mnt2" || _fail "umount failed"
progs_check "${LOOPS[0]}"
echo ok
