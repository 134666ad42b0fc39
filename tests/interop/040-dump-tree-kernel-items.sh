#!/bin/bash
# dump-tree on filesystems the kernel writes during the test, with item kinds
# the corpus lacks: qgroup status/info/limit/relation, a finished dev-replace
# item, a paused balance item, orphan items, a log tree with dir-log items
# (device image copied while mounted after fsync: an unclean image), shared
# data refs from a snapshot, keyed data refs from 40 reflinks.  Our output is compared with Debian's
# btrfs-progs (6.2) dump-tree after normalising what 6.19 prints differently
# (tests/lib/dump-tree-compare.sh documents each rule); every block
# must read verified (nothing on stderr), and --format json must parse and
# agree with the text output.
. "$TOP/tests/lib/common.sh"
check_prereq root loop btrfs-kernel progs python3
PROGS=/usr/bin/btrfs
. "$TOP/tests/lib/dump-tree-compare.sh"

truncate -s 1G "$T/a.img" "$T/b.img"
# 4 KiB nodes: the subvolume's tree gets level 2 with a few thousand files,
# so COWing its shared nodes after the snapshot gives shared block refs.
run_check "$BTRFS" mkfs -f -q -n 4096 "$T/a.img" > /dev/null
da=$(setup_loopdev "$T/a.img"); track_loopdev "$da"
db=$(setup_loopdev "$T/b.img"); track_loopdev "$db"
mnt=$T/mnt
mount_tracked "$da" "$mnt" noatime

# Files of every kind, a subvolume and a snapshot (shared refs once the
# snapshot's leaves are COWed), qgroups with a parent, a limit.
run_check "$PROGS" quota enable "$mnt"
run_check "$PROGS" subvolume create "$mnt/sv" > /dev/null
run_check "$PROGS" qgroup create 1/100 "$mnt"
run_check "$PROGS" qgroup assign 0/256 1/100 "$mnt" > /dev/null
run_check "$PROGS" qgroup limit 100M 0/256 "$mnt"
python3 -c "
for i in range(1, 4001):
    open('$mnt/sv/f%d' % i, 'w').write('small %d\\n' % i)"
dd if=/dev/urandom of="$mnt/sv/big" bs=1M count=8 status=none
fallocate -l 1M "$mnt/sv/prealloc"
cp --reflink=always "$mnt/sv/big" "$mnt/sv/big.clone"
# 40 more clones: too many refs for the extent item, keyed EXTENT_DATA_REF items.
for i in $(seq 1 40); do cp --reflink=always "$mnt/sv/big" "$mnt/sv/clone$i"; done
ln "$mnt/sv/f1" "$mnt/sv/hardlink"
ln -s f2 "$mnt/sv/symlink"
mkfifo "$mnt/sv/fifo"
python3 -c "import os; os.setxattr('$mnt/sv/f3', 'user.test', b'value')"
sync
run_check "$PROGS" subvolume snapshot "$mnt/sv" "$mnt/snap" > /dev/null
for i in $(seq 1 7 300); do echo "changed $i" >> "$mnt/snap/f$i"; done
# COWing the original's shared blocks turns their refs into full (shared) backrefs.
for i in $(seq 2 37 4000); do echo "changed $i" >> "$mnt/sv/f$i"; done
sync

# A finished dev-replace leaves its item in the dev tree; the fs moves to b.
run_check "$PROGS" replace start -B "$da" "$db" "$mnt"

# A paused balance leaves its item in the root tree.
for i in $(seq 1 40); do dd if=/dev/urandom of="$mnt/bal$i" bs=1M count=4 status=none; done
sync
balance=0
for try in 1 2 3; do
	"$BTRFS" balance start -d "$mnt" > "$T/bal.out" 2>&1 &
	pid=$!
	for i in $(seq 300); do
		"$BTRFS" balance status "$mnt" 2>/dev/null | grep -q 'is running' && break
		sleep 0.01
	done
	if "$BTRFS" balance pause "$mnt" 2> /dev/null; then
		wait $pid; balance=1; break
	fi
	wait $pid
done
[ $balance -eq 1 ] || echo "note: no running balance caught, no balance item"

# An open unlinked file: an orphan item at the next commit.
exec 9> "$mnt/sv/orphan"
echo data >&9
rm "$mnt/sv/orphan"
sync
# fsync after the commit: a log tree; the image copied now is unclean.
echo "logged" > "$mnt/sv/logged"
mkdir "$mnt/sv/logdir"; echo x > "$mnt/sv/logdir/inner"
python3 - "$mnt/sv" <<'PY'
import os, sys
for p in ("logged", "logdir/inner", "logdir", "."):
    fd = os.open(os.path.join(sys.argv[1], p), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
PY
cp --sparse=always "$T/b.img" "$T/unclean.img"
exec 9>&-
umount "$mnt" || _fail "umount failed"
losetup -d "$da" "$db"

compare_with_progs "$T/unclean.img" unclean
compare_with_progs "$T/b.img" clean
# The unclean image must really hold what the test is about.
for what in "log tree" DIR_LOG_INDEX ORPHAN_ITEM "DEV_REPLACE" QGROUP_RELATION QGROUP_LIMIT \
	    "EXTENT_DATA_REF" "shared data backref" "shared block backref" "FULL_BACKREF" \
	    "INODE_REF" "state FINISHED write errors 0"; do
	assert_grep "$what" "$T/unclean.ours"
done
[ $balance -eq 0 ] || assert_grep "balance status flags" "$T/unclean.ours"
check_json_against_text "$T/unclean.img" unclean
check_json_against_text "$T/b.img" clean
echo ok
