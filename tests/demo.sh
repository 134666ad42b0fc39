#!/bin/bash
# The main job on sparse image files in a scratch folder: what exists today runs here,
# and the demo grows with each command (mkfs, dump-super, check).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
btrfs=$top/btrfs
dir=${DEMO_DIR:-$top/tests/.scratch/demo}
rm -rf "$dir"; mkdir -p "$dir"
echo "== scratch folder: $dir"
for i in 1 2 3 4; do truncate -s 1G "$dir/dev$i.img"; done
ls -ls "$dir"
echo "== $btrfs --version"
"$btrfs" --version
have() { "$btrfs" "$@" --help > /dev/null 2>&1; }
if have mkfs; then
	echo "== mkfs.btrfs -f -d raid1c3 -m raid1c4 dev1.img dev2.img dev3.img dev4.img"
	"$top/mkfs.btrfs" -f -d raid1c3 -m raid1c4 "$dir"/dev{1,2,3,4}.img || exit 1
else
	echo "== mkfs.btrfs: not built yet"
fi
if have inspect-internal dump-super && have mkfs; then
	echo "== btrfs inspect-internal dump-super dev1.img"
	"$btrfs" inspect-internal dump-super "$dir/dev1.img" || exit 1
fi
if have check && have mkfs; then
	echo "== btrfs check dev1.img dev2.img dev3.img dev4.img"
	"$btrfs" check "$dir"/dev{1,2,3,4}.img || exit 1
fi
echo "== done"
