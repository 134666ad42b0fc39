#!/bin/bash
# Offline balance (issue 21): a piece's data checksums are found by a search for the
# last csum item at or before the piece's first byte.  Here the chunk's first extent has
# no checksums (nodatasum), so no csum item lies at or before it and the search must
# fall back to the first one after it: the extent behind, whose first sector is bad on
# mirror 1, is verified and repaired from mirror 2 (every stripe of the new layout holds
# the file's bytes); bad on both mirrors, the convert stops naming the sector and the
# chunk keeps its layout.
. "$TOP/tests/lib/common.sh"

mkdir -p "$T/root"
head -c 64K /dev/urandom > "$T/root/a"
head -c 1M /dev/urandom > "$T/root/b"
head -c 4096 "$T/root/b" > "$T/want"
imgs=("$T/d1.img" "$T/d2.img" "$T/d3.img")
make_fs() {
	rm -f "${imgs[@]}"
	truncate -s 256M "${imgs[@]}"
	run_check "$TOP/mkfs.btrfs" -q -f -d raid1 -m raid1 -r "$T/root" --inode-flags nodatasum:a "${imgs[@]}"
}
# stripes LOGICAL: "devid physical" of each stripe of the chunk holding LOGICAL
stripes() {
	"$BTRFS" inspect-internal dump-tree -t chunk "${imgs[@]}" > "$T/chunks" || _fail "dump-tree -t chunk"
	awk -v x="$1" '/CHUNK_ITEM/ { s = $(NF - 4) + 0; in_c = 0 }
		/^\t\tlength / { in_c = x >= s && x < s + $2 }
		in_c && /stripe [0-9]+ devid/ { print $4, $6 + (x - s) }' "$T/chunks"
}
# damage DEVID PHYSICAL: a sector of garbage there
damage() { head -c 4096 /dev/urandom | dd of="$T/d$1.img" bs=4096 seek=$(($2 / 4096)) conv=notrunc status=none; }
data_profile() { stripes "$b_at" > /dev/null; grep -o 'type DATA|[A-Z0-9]*' "$T/chunks" | sort -u | tr '\n' ' '; }

make_fs
"$BTRFS" inspect-internal dump-tree -t extent "${imgs[@]}" > "$T/extents" || _fail "dump-tree -t extent"
a_at=$(sed -n 's/.*key (\([0-9]*\) EXTENT_ITEM 65536).*/\1/p' "$T/extents")
b_at=$(sed -n 's/.*key (\([0-9]*\) EXTENT_ITEM 1048576).*/\1/p' "$T/extents")
first_csum=$("$BTRFS" inspect-internal dump-tree -t csum "${imgs[@]}" |
	sed -n 's/.*key (EXTENT_CSUM EXTENT_CSUM \([0-9]*\)).*/\1/p' | head -n1)
# the layout the test is about: a's extent first, the first csum item is b's
[ -n "$a_at" ] && [ -n "$b_at" ] || _fail "extents of a ('$a_at') and b ('$b_at') not found"
[ "$a_at" -lt "$b_at" ] || _fail "a's extent $a_at is not before b's $b_at"
[ "$first_csum" = "$b_at" ] || _fail "first csum item at '$first_csum', want b's extent $b_at"
stripes "$b_at" > "$T/old"
[ "$(wc -l < "$T/old")" -eq 2 ] || _fail "b's chunk has $(wc -l < "$T/old") stripes, want 2"

# mirror 1 bad: repaired from mirror 2, on every new stripe
read -r dev phys < "$T/old"
damage "$dev" "$phys"
run_check "$BTRFS" balance start -dconvert=raid1c3 "${imgs[@]}" > "$T/out" 2> "$T/err"
assert_grep "data sector $b_at: checksum mismatch on mirror 1, copied from mirror 2" "$T/err"
run_check "$BTRFS" check --check-data-csum "${imgs[@]}" > "$T/check" 2>&1
stripes "$b_at" > "$T/new"
[ "$(wc -l < "$T/new")" -eq 3 ] || _fail "b's chunk has $(wc -l < "$T/new") stripes after the convert, want 3"
while read -r dev phys; do
	dd if="$T/d$dev.img" bs=4096 skip=$((phys / 4096)) count=1 status=none > "$T/got"
	cmp -s "$T/want" "$T/got" || _fail "devid $dev at $phys: b's first sector is not the file's"
done < "$T/new"

# both mirrors bad: the convert stops naming the sector, the chunk stays raid1
make_fs
stripes "$b_at" > "$T/old"
while read -r dev phys; do damage "$dev" "$phys"; done < "$T/old"
expect_exit 1 "$BTRFS" balance start -dconvert=raid1c3 "${imgs[@]}" > "$T/out" 2> "$T/err"
assert_grep "data sector $b_at (chunk [0-9]*): checksum mismatch on every mirror (2 tried)" "$T/err"
[ "$(data_profile)" = 'type DATA|RAID1 ' ] || _fail "after the refused convert: '$(data_profile)'"
echo ok
