#!/bin/bash
# dump-tree's selecting options against btrfs-progs 6.19's output on a kernel-made
# block-group-tree filesystem with a snapshot (tests/golden/data/bgt, README there):
# -e (each tree's "NAME tree key (...)" line, then its leaves), -d (root, chunk and
# device trees, no totals), -t block-group (named as a tree of its own, no totals),
# --hide-names (names hidden but in root refs, which 6.19 prints).
. "$TOP/tests/lib/common.sh"
data=$TOP/tests/golden/data/bgt
xz -dc "$data/dev1.img.xz" | dd of="$T/dev1.img" bs=64k conv=sparse status=none ||
	_fail "cannot decompress $data/dev1.img.xz"
xz -dc "$data/dump-tree-hide-names.txt.xz" > "$T/hide-names.expect" || _fail "cannot decompress"
for opt in -e -d "-t block-group" --hide-names; do
	ref=$data/dump-tree${opt// /-}.txt
	[ "$opt" = --hide-names ] && ref=$T/hide-names.expect
	(cd "$T" && "$BTRFS" inspect-internal dump-tree --noscan $opt dev1.img) > "$T/out" 2> "$T/err" ||
		{ cat "$T/err" >&2; _fail "dump-tree $opt failed"; }
	[ ! -s "$T/err" ] || { cat "$T/err" >&2; _fail "dump-tree $opt: messages on stderr"; }
	check_golden "$ref" "$T/out" "dump-tree $opt"
	echo "ok: dump-tree $opt as 6.19 ($(wc -l < "$T/out") lines)"
done
