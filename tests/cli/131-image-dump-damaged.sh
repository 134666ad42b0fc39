#!/bin/bash
# btrfs image of damaged filesystems that btrfs-image cannot dump (it stops
# at the first tree block no copy of which verifies): the corpus default-rich
# filesystem with (a) its extent tree's root leaf, (b) an fs tree node bad
# in both DUP copies (checksum).  Ours dumps every block: the bad one as it
# is on disk (said, by address), the blocks the unreadable extent tree does
# not name found by walking every tree from its root, and the trees of the
# superblock's backup roots as far as their blocks still verify (the older
# trees read on the restore as on the original); exit 0 and a summary.
# Our check of the restore prints what it prints of the original, exit 1
# both.  With the damage repaired away (the original), the dump is the one
# btrfs-image writes: cli/081.
. "$TOP/tests/lib/common.sh"
check_prereq corpus
need_corrupt_block
dir=$(corpus_case default-rich)
leaf=$("$BTRFS" inspect-internal dump-tree -t extent "$dir/dev1.img" | awk '/^(leaf|node) /{print $2; exit}')
node=$("$BTRFS" inspect-internal dump-tree -t fs "$dir/dev1.img" | awk '/^node /{print $2; exit}')
[ -n "$leaf" ] && [ -n "$node" ] || _fail "no extent tree block or fs tree node found"
for what in extent:$leaf fs-node:$node; do
	name=${what%%:*} bytenr=${what#*:}
	cp --sparse=always "$dir/dev1.img" "$T/$name.img"
	run_check "$CB" --no-csum "$T/$name.img" block "$bytenr" generation +1 > /dev/null
	if [ -x /usr/bin/btrfs-image ]; then
		expect_exit 1 /usr/bin/btrfs-image "$T/$name.img" "$T/deb.dump" > /dev/null 2>&1
	fi
	rm -f "$T/$name.dump" "$T/$name.r"
	run_check "$BTRFS" image "$T/$name.img" "$T/$name.dump" 2> "$T/err"
	assert_grep "tree block $bytenr: no copy passes its checksum and header checks: dumped as it is on disk" "$T/err"
	assert_grep "^the filesystem is damaged: [0-9]* tree blocks dumped, 1 of them as they are on disk" "$T/err"
	[ "$name" = extent ] && assert_grep "[1-9][0-9]* found only by walking the trees (the extent tree could not be read to its end)" "$T/err"
	run_check "$BTRFS" image -r "$T/$name.dump" "$T/$name.r" 2> /dev/null
	expect_exit 1 "$BTRFS" check "$T/$name.img" > "$T/orig" 2>&1
	expect_exit 1 "$BTRFS" check "$T/$name.r" > "$T/rest" 2>&1
	assert_grep "$bytenr" "$T/orig"
	diff <(sed "s|$T/$name.img|IMG|g" "$T/orig") <(sed "s|$T/$name.r|IMG|g" "$T/rest") ||
		_fail "$name: check of the restore differs from check of the original"
	# the backup roots' trees that read on the original read alike on the restore
	assert_grep "[0-9]* only in the trees of the backup roots$" "$T/err"
	older=0
	for r in $("$BTRFS" inspect-internal dump-super -f "$T/$name.img" |
		   awk '/backup_(tree|fs)_root:/ {print $2}' | sort -u); do
		"$BTRFS" inspect-internal dump-tree -b "$r" --follow "$T/$name.img" > "$T/orig-tree" 2>&1 || continue
		grep -q "$bytenr" "$T/orig-tree" && continue    # a tree under the damaged block
		run_check "$BTRFS" inspect-internal dump-tree -b "$r" --follow "$T/$name.r" > "$T/rest-tree" 2>&1
		diff <(sed "s|$T/$name.img|IMG|g" "$T/orig-tree") <(sed "s|$T/$name.r|IMG|g" "$T/rest-tree") > /dev/null ||
			_fail "$name: backup root $r reads otherwise on the restore"
		older=$((older + 1))
	done
	[ "$older" -ge 2 ] || _fail "$name: only $older backup root trees compared"
	echo "ok $name: dumped, the restore's check as the original's, $older backup root trees alike"
done
