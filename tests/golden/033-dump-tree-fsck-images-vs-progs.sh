#!/bin/bash
# dump-tree on every restored image of ../shared/fsck-images (old and odd
# filesystems: keyed shared block refs, keyed data refs, v1 space cache
# headers (UNTYPED), balance and orphan items, half-done qgroup rescans,
# selinux xattrs, non-ASCII names) against Debian's btrfs-progs 6.2, after
# tests/lib/normalise-619-to-62.py rewrites the lines 6.19 prints
# differently (documented there).  Images where 6.2 reports a block failing
# the tree-checker are only checked for a clean run: 6.2 stops printing the
# rest of that tree at such a block, 6.19 and we print what can be printed.
. "$TOP/tests/lib/common.sh"
check_prereq progs python3 fsck-images
PROGS=/usr/bin/btrfs
norm=$TOP/tests/lib/normalise-619-to-62.py
n=0 same=0
for d in "$SHARED"/fsck-images/*/; do
	[ -f "$d/restored.raw.tar.xz" ] || continue
	c=$(basename "$d")
	rm -rf "$T/img"; mkdir -p "$T/img"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/img" || _fail "cannot extract $c"
	img=$T/img/restored.raw
	timeout 120 "$BTRFS" inspect-internal dump-tree --noscan "$img" > "$T/ours" 2> "$T/ours.err"
	rc=$?
	[ $rc -lt 124 ] || _fail "$c: exit $rc"
	timeout 120 "$PROGS" inspect-internal dump-tree --noscan "$img" > "$T/theirs" 2> "$T/theirs.err"
	n=$((n + 1))
	if grep -q 'corrupt' "$T/theirs.err"; then
		echo "ok $c (6.2 reports corruption: not compared; ours exit $rc, $(wc -l < "$T/ours") lines)"
		continue
	fi
	python3 "$norm" < "$T/ours" > "$T/ours.n"
	python3 "$norm" -t < "$T/theirs" > "$T/theirs.n"
	if ! diff "$T/theirs.n" "$T/ours.n" > "$T/diff"; then
		head -n 20 "$T/diff" >&2
		_fail "$c: $(grep -c '^[<>]' "$T/diff") lines differ from Debian's dump-tree"
	fi
	same=$((same + 1))
	echo "ok $c ($(wc -l < "$T/ours.n") lines as Debian's)"
done
rm -rf "$T/img"
[ $n -gt 0 ] || _fail "no restored image in $SHARED/fsck-images"
echo "$same of $n images identical to Debian's dump-tree after normalisation"
