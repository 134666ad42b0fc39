#!/bin/bash
# How tests/golden/data/squota was made (run once, by hand; not by the tests):
#   tests/golden/data/squota/make.sh /path/to/btrfs-progs-v6.19-build
# A simple-quota filesystem written by the kernel (6.18 here), its device image and
# btrfs-progs 6.19's dump-tree and dump-super -f of it.  Debian's btrfs-progs 6.2 has no
# `quota enable --simple`, so 6.19 is built from its source (tag v6.19:
# ./autogen.sh && ./configure --disable-documentation --disable-convert --disable-zoned
# --disable-libudev --disable-python && make btrfs mkfs.btrfs) outside this tree.
# Nodesize 4K and 1500 empty files give the subvolume a tree of three levels, so that
# after a snapshot, changing the original subvolume leaves shared tree blocks and leaves:
# every inline ref type appears (172 owner, 176 tree block, 178 extent data, 182 shared
# block, 184 shared data) and keyed EXTENT_DATA_REF (40 reflinks) and SHARED_DATA_REF.
# Needs root, a loop device and btrfs with simple quotas in the kernel; takes the
# machine-wide loop lock.
set -eu
progs=${1:?usage: make.sh PROGS_619_BUILD_DIR}
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/squota.XXXXXX)
trap 'rm -rf "$work"' EXIT
truncate -s 256M "$work/dev1.img"
"$progs/mkfs.btrfs" -q -f -n 4096 "$work/dev1.img"
flock /tmp/btrfs-kit-loop.lock sh -c '
set -eu
progs=$1 work=$2
dev=$(losetup -f --show "$work/dev1.img")
mnt=$work/mnt; mkdir -p "$mnt"
trap "mountpoint -q $mnt && umount $mnt; losetup -d $dev" EXIT
mount -o noatime "$dev" "$mnt"
"$progs/btrfs" quota enable --simple "$mnt"
"$progs/btrfs" subvolume create "$mnt/sv" > /dev/null
mkdir "$mnt/sv/d"
(cd "$mnt/sv/d" && touch $(seq 1 1500))
for i in $(seq 1 60); do yes "file $i" | head -c 9000 > "$mnt/sv/f$i"; done
for i in $(seq 1 10); do echo "small $i" > "$mnt/sv/s$i"; done
head -c 16384 /dev/urandom > "$mnt/sv/big"
for i in $(seq 1 40); do cp --reflink=always "$mnt/sv/f1" "$mnt/sv/r$i"; done
cp --reflink=always "$mnt/sv/big" "$mnt/top.clone"
sync
"$progs/btrfs" subvolume snapshot "$mnt/sv" "$mnt/snap" > /dev/null
sync
yes new | head -c 20000 > "$mnt/sv/new"
rm "$mnt/sv/f5" "$mnt/sv/d/700"
echo changed > "$mnt/sv/s3"
sync
umount "$mnt"
' sh "$progs" "$work"
(cd "$work" && "$progs/btrfs" inspect-internal dump-tree --noscan dev1.img) > "$work/dump-tree.txt"
(cd "$work" && "$progs/btrfs" inspect-internal dump-super -f dev1.img) > "$out/dump-super-f.txt"
for t in 172 176 178 182 184; do
	grep -q "^	*($t 0x" "$work/dump-tree.txt" || { echo "no inline ref of type $t" >&2; exit 1; }
done
xz -9 -c "$work/dump-tree.txt" > "$out/dump-tree.txt.xz"
xz -9 -c "$work/dev1.img" > "$out/dev1.img.xz"
echo "made $out: $(wc -l < "$work/dump-tree.txt") dump-tree lines"
