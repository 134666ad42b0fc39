#!/bin/bash
# btrfs image -r on hostile dumps made from a real one (012-leaf-corruption):
# truncated in an item, in an index block and in the padding, wrong magic,
# a cluster whose bytenr is not its offset, nritems 84, an item size past the
# end, a huge item size, a corrupt zlib stream, one with a byte after its end, the superblock item missing,
# an item outside every chunk, an empty file.  Each: exit 1, an error naming
# the cluster (and item), no sanitizer report, and the existing target left
# untouched (the dump is read and checked before the target is opened), also
# when the dump comes through a pipe (spooled to a temporary file first; that
# run restores with -t 2: the same first error from items inflated in threads).
. "$TOP/tests/lib/common.sh"
check_prereq fsck-images
src=$(compgen -G "$SHARED/fsck-images/012-leaf-corruption--good/*.img")
[ -n "$src" ] || _fail "no dump in 012-leaf-corruption--good"
python3 - "$src" "$T" <<'PY'
import struct, sys, zlib
src, out = sys.argv[1], sys.argv[2]
d = bytearray(open(src, 'rb').read())
def clusters(b):
    pos = 0
    while pos < len(b):
        nr = struct.unpack_from('<I', b, pos + 16)[0]
        items = [struct.unpack_from('<QI', b, pos + 21 + 12 * i) for i in range(nr)]
        yield pos, items
        pos = (pos + 1024 + sum(s for _, s in items) + 1023) // 1024 * 1024
cl = list(clusters(d))
assert len(cl) >= 2 and d[20] == 1, "expected a zlib dump of two clusters or more"
c1, items1 = cl[1]
def w(name, b): open(f'{out}/{name}.dump', 'wb').write(b)
w('truncated-item', d[:1024 + items1[0][1] // 2 + cl[0][1][0][1]])
w('truncated-index', d[:c1 + 500])
last, litems = cl[-1]
end = last + 1024 + sum(s for _, s in litems)
if end % 1024:
    w('truncated-padding', d[:end])
else:
    w('truncated-padding', d[:end - 1])
b = bytearray(d); b[0] ^= 0xff; w('bad-magic', b)
b = bytearray(d); struct.pack_into('<Q', b, c1 + 8, c1 + 1024); w('bad-bytenr', b)
b = bytearray(d); struct.pack_into('<I', b, c1 + 16, 84); w('nritems-84', b)
b = bytearray(d); struct.pack_into('<I', b, c1 + 21 + 8, len(d)); w('item-past-end', b)
b = bytearray(d); struct.pack_into('<I', b, c1 + 21 + 8, 0xffffffff); w('item-huge', b)
b = bytearray(d); p = 1024 + cl[0][1][0][1]
b[p + 10:p + 40] = bytes(30); w('corrupt-zlib', b)
b = bytearray(d); struct.pack_into('<Q', b, 21, 1 << 20); w('no-super', b)
# a zlib stream followed by a byte inside its item: cluster 0's padding takes it
end0 = 1024 + sum(s for _, s in cl[0][1])
assert end0 % 1024, "cluster 0 has no padding to grow into"
b = bytearray(d); p = 1024 + cl[0][1][0][1] + cl[0][1][1][1]
b[p + 1:end0 + 1] = b[p:end0]; b[p] = 0x55
struct.pack_into('<I', b, 21 + 12 + 8, cl[0][1][1][1] + 1); w('zlib-trailing', b)
b = bytearray(d); struct.pack_into('<Q', b, c1 + 21, 1 << 50); w('outside-chunks', b)
w('empty', b'')
# the last item's stream corrupt: a tree block no chunk tree lookup needs
b = bytearray(d); p = last + 1024 + sum(s for _, s in litems[:-1])
b[p + 10:p + 40] = bytes(30); w('corrupt-zlib-late', b)
print(len(cl) - 1, len(litems) - 1, file=open(f'{out}/late-item', 'w'))
PY
read -r late_cluster late_item < "$T/late-item"
late_at=$(python3 -c "
import struct, sys
b = open(sys.argv[1], 'rb').read(); pos = 0
for _ in range(int(sys.argv[2])):
    nr = struct.unpack_from('<I', b, pos + 16)[0]
    pos = (pos + 1024 + sum(struct.unpack_from('<QI', b, pos + 21 + 12 * i)[1] for i in range(nr)) + 1023) // 1024 * 1024
print(pos)" "$src" "$late_cluster")
n=0
for f in "$T"/*.dump; do
	name=$(basename "$f" .dump)
	head -c 1M /dev/zero | tr '\0' 'k' > "$T/target"
	sum=$(md5sum < "$T/target")
	hostile_run -x 1 60 "image -r $name" "$BTRFS" image -r "$f" "$T/target"
	rc=$?
	[ $rc -eq 1 ] || _fail "$name: exit $rc, expected 1"
	case $name in
	empty) want="superblock item is missing" ;;
	truncated-item) want="cluster at 0 item [0-9]*: size [0-9]* past the end" ;;
	truncated-index) want="cluster at [0-9]*: truncated index block" ;;
	truncated-padding) want="cluster at [0-9]*: truncated, padding past the end" ;;
	bad-magic) want="cluster at 0: magic 0x[0-9a-f]* is not a btrfs-image dump" ;;
	bad-bytenr) want="cluster at [0-9]*: bytenr [0-9]* is not the cluster's offset" ;;
	nritems-84) want="cluster at [0-9]*: nritems 84 over 83" ;;
	item-past-end|item-huge) want="cluster at [0-9]* item 0: size [0-9]* past the end" ;;
	corrupt-zlib) want="cluster at 0 item 1: corrupt zlib stream" ;;
	corrupt-zlib-late) want="cluster at $late_at item $late_item: corrupt zlib stream" ;;
	zlib-trailing) want="cluster at 0 item 1: corrupt zlib stream (bad data or bytes after its end)" ;;
	no-super) want="cluster at 0 item 0: bytenr 1048576, the superblock item is missing" ;;
	outside-chunks) want="cluster at [0-9]* item 0: bytenr 1125899906842624 is outside every chunk" ;;
	*) _fail "no expected message for $name" ;;
	esac
	assert_grep "$want" "$T/err"
	[ "$(md5sum < "$T/target")" = "$sum" ] || _fail "$name: the target was written"
	hostile_run -x 1 60 "image -r -t 2 - ($name through a pipe)" sh -c 'cat "$1" | "$2" image -r -t 2 - "$3"' sh "$f" "$BTRFS" "$T/target"
	rc=$?
	[ $rc -eq 1 ] || _fail "$name through a pipe: exit $rc, expected 1"
	assert_grep "$want" "$T/err"
	[ "$(md5sum < "$T/target")" = "$sum" ] || _fail "$name through a pipe: the target was written"
	echo "ok $name: $(head -n 1 "$T/err")"
	n=$((n + 1))
done
[ $n -eq 14 ] || _fail "$n hostile dumps, expected 14"

# Onto a new file, or an empty one, the items are checked as they are
# written (only the superblock and chunk tree items first): a bad item
# found then leaves no file, or the empty file, behind.
f=$T/corrupt-zlib-late.dump
rm -f "$T/new.img"
hostile_run -x 1 60 "image -r (bad late item) onto a new file" "$BTRFS" image -r "$f" "$T/new.img"
rc=$?
[ $rc -eq 1 ] || _fail "bad late item onto a new file: exit $rc, expected 1"
assert_grep "cluster at $late_at item $late_item: corrupt zlib stream" "$T/err"
[ ! -e "$T/new.img" ] || _fail "a failed restore left the new file behind"
: > "$T/empty.img"
hostile_run -x 1 60 "image -r -t 2 (bad late item) onto an empty file" "$BTRFS" image -r -t 2 "$f" "$T/empty.img"
rc=$?
[ $rc -eq 1 ] || _fail "bad late item onto an empty file: exit $rc, expected 1"
assert_grep "cluster at $late_at item $late_item: corrupt zlib stream" "$T/err"
[ -f "$T/empty.img" ] && [ ! -s "$T/empty.img" ] || _fail "a failed restore left the empty file written"
echo "ok: a bad late item onto a new or empty file leaves nothing behind"

# -m on a dump of a 3-device filesystem (data/image-3dev-raid1-raid0.dump:
# Debian's btrfs-image -c9 of our mkfs --rootdir -m raid1 -d raid0 on three
# loop devices): restores; truncated inside an item, or given 2 or 4
# targets, refused with no target created.
md=$TOP/tests/robust/data/image-3dev-raid1-raid0.dump
[ -f "$md" ] || _fail "no $md"
rm -f "$T"/m?.img
hostile_run 60 "image -m (3 devices)" "$BTRFS" image -m "$md" "$T/m1.img" "$T/m2.img" "$T/m3.img" ||
	_fail "image -m of the 3-device dump failed"
run_check "$BTRFS" check "$T/m1.img" "$T/m2.img" "$T/m3.img" > /dev/null 2>&1
rm -f "$T"/m?.img
head -c 9000 "$md" > "$T/md-truncated.dump"
for t in "truncated:3:cluster at 0 item [0-9]: size [0-9]* past the end" \
	 "whole:2:the dump is of a filesystem with 3 devices, 2 targets given" \
	 "whole:4:the dump is of a filesystem with 3 devices, 4 targets given"; do
	IFS=: read -r which nt want <<< "$t"
	f=$md; [ "$which" = truncated ] && f=$T/md-truncated.dump
	targets=(); for ((i = 1; i <= nt; i++)); do targets+=("$T/m$i.img"); done
	hostile_run -x 1 60 "image -m $which onto $nt" "$BTRFS" image -m "$f" "${targets[@]}"
	rc=$?
	[ $rc -eq 1 ] || _fail "-m $which onto $nt targets: exit $rc, expected 1"
	assert_grep "$want" "$T/err"
	[ -z "$(compgen -G "$T/m?.img")" ] || _fail "-m $which onto $nt targets: a target was created"
	echo "ok -m $which onto $nt targets: $(head -n 1 "$T/err")"
done
