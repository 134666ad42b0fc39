#!/bin/bash
# btrfs image -r -o (old restore: every range at its logical address, the
# superblock flagged METADUMP with one SYSTEM chunk covering everything) on
# every btrfs-image dump of ../shared/fsck-images: byte for byte what Debian's
# btrfs-image -r -o writes (it then fails to reopen its own output and exits
# 1; ours exits 0).  -o with -m is refused.
. "$TOP/tests/lib/common.sh"
check_prereq fsck-images
[ -x /usr/bin/btrfs-image ] || _skip "no Debian btrfs-image"
n=0
for d in "$SHARED"/fsck-images/*/; do
	img=$(compgen -G "$d*.img" | head -n 1)
	[ -n "$img" ] || continue
	rm -f "$T/ours.raw" "$T/deb.raw"
	run_check "$BTRFS" image -r -o "$img" "$T/ours.raw"
	run_mayfail /usr/bin/btrfs-image -r -o "$img" "$T/deb.raw" 2> /dev/null
	[ -s "$T/deb.raw" ] || _fail "$(basename "$d"): Debian's btrfs-image -r -o wrote nothing"
	cmp "$T/ours.raw" "$T/deb.raw" || _fail "$(basename "$d"): differs from Debian's btrfs-image -r -o"
	n=$((n + 1))
done
[ $n -gt 0 ] || _fail "no *.img dump in $SHARED/fsck-images"
"$BTRFS" inspect-internal dump-super "$T/ours.raw" > "$T/super"
flags=$(awk '$1 == "flags" {print $2}' "$T/super")
(( flags & (1 << 33) )) || _fail "the superblock flags $flags lack METADUMP (bit 33)"
echo "$n dumps restored with -o, byte-identical to Debian's"
expect_exit 1 "$BTRFS" image -m -o "$img" "$T/x.raw" 2> "$T/err"
assert_grep "cannot be used together" "$T/err"
