#!/bin/bash
# dump-tree and dump-super -f of a simple-quota filesystem the kernel wrote, byte-identical
# to btrfs-progs 6.19's (tests/golden/data/squota, made once by its make.sh): every inline
# ref type, the owner ref (EXTENT_OWNER_REF) printed as 6.19 prints it, keyed data refs,
# the simple-quota status, qgroup items; every block read verified (nothing on stderr).
. "$TOP/tests/lib/common.sh"
data=$TOP/tests/golden/data/squota

xz -dc "$data/dev1.img.xz" | dd of="$T/dev1.img" bs=64k conv=sparse status=none ||
	_fail "cannot decompress $data/dev1.img.xz"
xz -dc "$data/dump-tree.txt.xz" > "$T/dump-tree.expect" || _fail "cannot decompress the reference"
for t in 172 176 178 182 184; do
	grep -q "^	*($t 0x" "$T/dump-tree.expect" || _fail "the reference lacks inline refs of type $t"
done
(cd "$T" && "$BTRFS" inspect-internal dump-tree --noscan dev1.img) > "$T/dump-tree.out" 2> "$T/err" ||
	{ cat "$T/err" >&2; _fail "dump-tree failed"; }
[ ! -s "$T/err" ] || { cat "$T/err" >&2; _fail "messages on stderr"; }
check_golden "$T/dump-tree.expect" "$T/dump-tree.out" "dump-tree of the squota filesystem"
(cd "$T" && "$BTRFS" inspect-internal dump-super -f dev1.img) > "$T/dump-super.out" 2>&1 ||
	_fail "dump-super failed"
check_golden "$data/dump-super-f.txt" "$T/dump-super.out" "dump-super -f of the squota filesystem"
echo "$(wc -l < "$T/dump-tree.out") dump-tree lines identical to btrfs-progs 6.19's"
