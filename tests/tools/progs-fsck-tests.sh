#!/bin/bash
# Validation on corrupted filesystems outside ../shared: the images of
# btrfs-progs' own fsck-tests (tests/fsck-tests/*/ at a tag of a btrfs-progs
# git repository), those not already in ../shared/fsck-images.  For each:
# restore (our `btrfs image -r` for *.img, xz for *.raw.xz), the reference
# check and ours, `check --repair --force` by both on copies, the checks
# after.  One line per image:
#   NAME  ref:EXIT ours:EXIT | rep ref:REPAIR->AFTER ours:REPAIR->AFTER/REF-ON-OURS  changed|unchanged
# Not a test (it needs the repository and a reference binary); a figure.
#
# usage: tests/tools/progs-fsck-tests.sh PROGS_GIT_DIR TAG REF_BTRFS [WORKDIR]
set -u
repo=$1 tag=$2 ref=$3 work=${4:-/tmp/progs-fsck-tests}
top=$(cd "$(dirname "$0")/../.." && pwd)
ours=${BTRFS:-$top/btrfs}
shared=$(ls "$top/../shared/fsck-images" 2> /dev/null)
mkdir -p "$work"
git -C "$repo" ls-tree -r --name-only "$tag" tests/fsck-tests | grep -E '\.(img|img\.xz|raw\.xz)$' |
while read -r path; do
	t=$(echo "$path" | cut -d/ -f3); b=$(basename "$path"); name="$t--${b%%.*}"
	echo "$shared" | grep -qx -- "$name" && continue
	d=$work/$name; rm -rf "$d"; mkdir -p "$d"
	git -C "$repo" show "$tag:$path" > "$d/src" 2> /dev/null || { echo "$name: not in the repository's objects"; continue; }
	case $path in
	*.img) "$ours" image -r "$d/src" "$d/raw" > "$d/restore.log" 2>&1 ;;
	*.img.xz) xz -dc "$d/src" > "$d/src.img" && "$ours" image -r "$d/src.img" "$d/raw" > "$d/restore.log" 2>&1 ;;
	*.raw.xz) xz -dc "$d/src" | dd of="$d/raw" bs=64k conv=sparse status=none ;;
	esac
	[ -s "$d/raw" ] || { echo "$name: no image ($(tail -1 "$d/restore.log" 2> /dev/null))"; continue; }
	run() { timeout 300 "$@" > "$d/$out" 2>&1; echo $?; }
	out=ref-before; rb=$(run "$ref" check "$d/raw")
	out=ours-before; ob=$(run "$ours" check "$d/raw")
	cp --sparse=always "$d/raw" "$d/ref.raw"; cp --sparse=always "$d/raw" "$d/ours.raw"
	out=ref-repair; rr=$(run "$ref" check --repair --force "$d/ref.raw" < /dev/null)
	out=ours-repair; orp=$(run "$ours" check --repair --force "$d/ours.raw")
	out=ref-after; ra=$(run "$ref" check "$d/ref.raw")
	out=ours-after; oa=$(run "$ours" check "$d/ours.raw")
	out=ref-on-ours; oar=$(run "$ref" check "$d/ours.raw")
	same=$(python3 "$top/../shared/tools/sparse-cmp.py" "$d/raw" "$d/ours.raw" > /dev/null 2>&1 && echo unchanged || echo changed)
	printf '%-62s ref:%s ours:%s | rep ref:%s->%s ours:%s->%s/%s %s\n' "$name" "$rb" "$ob" "$rr" "$ra" "$orp" "$oa" "$oar" "$same"
	rm -f "$d/ref.raw" "$d/src" "$d/src.img"
done
