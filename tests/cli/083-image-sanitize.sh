#!/bin/bash
# btrfs image -s and -ss (names replaced, image/sanitize.c) on corpus
# filesystems (default-rich: subvolumes, snapshots, xattrs, symlinks, hard
# links, inline files; compress-zlib: the same with compression): every name of
# 5 bytes or more that dump-tree shows in the source (file, xattr and
# subvolume names; the list is checked non-empty), every xattr value and the
# label are absent from the -c0 dump; the restore passes our check and
# Debian's; its trees have the source's keys, item for item (same lengths and
# hashes: no key moves); dir items, dir indexes and inode refs name the same
# new names (check verifies it; here: each new name is seen at least twice);
# the names dump-tree shows are other names of the same lengths.
. "$TOP/tests/lib/common.sh"
check_prereq corpus progs

# "name: X" and "namelen N name: X" lines of dump-tree, X alone
names_of() {
	"$BTRFS" inspect-internal dump-tree "$1" | sed -n 's/^.*[[:space:]]name: //p'
}
keys_of() {
	"$BTRFS" inspect-internal dump-tree "$1" | grep -E '^[[:space:]]+item [0-9]+ key '
}
for case in default-rich compress-zlib; do
	src=$(corpus_case "$case")/dev1.img
	names_of "$src" > "$T/all-names"
	# printable names of 5 bytes and more but "default" (the root tree's, kept)
	grep -v '\\' "$T/all-names" | awk 'length($0) >= 5 && $0 != "default"' | sort -u > "$T/names"
	n=$(wc -l < "$T/names")
	[ "$n" -ge 20 ] || _fail "$case: only $n names to look for"
	label=$("$BTRFS" inspect-internal dump-super "$src" | sed -n 's/^label[[:space:]]*//p')
	keys_of "$src" > "$T/src-keys"
	for opt in -s -ss; do
		rm -f "$T/s.dump" "$T/s.raw"
		run_check "$BTRFS" image $opt -c0 "$src" "$T/s.dump" 2> "$T/err"
		assert_grep "names of 1 to 4 bytes kept" "$T/err"
		grep -a -o -F -f "$T/names" "$T/s.dump" | sort -u > "$T/found"
		[ ! -s "$T/found" ] || { head "$T/found" >&8; _fail "$case $opt: original names in the dump"; }
		if [ -n "$label" ]; then
			assert_not_grep "$label" "$T/s.dump"
		fi
		run_check "$BTRFS" image -r "$T/s.dump" "$T/s.raw"
		run_check "$BTRFS" check "$T/s.raw" > "$T/check" 2>&1
		run_check /usr/bin/btrfs check "$T/s.raw" > "$T/dcheck" 2>&1
		keys_of "$T/s.raw" > "$T/s-keys"
		[ -s "$T/s-keys" ] || _fail "$case $opt: no items in the restore"
		diff -u "$T/src-keys" "$T/s-keys" > "$T/keydiff" ||
			{ head -20 "$T/keydiff" >&8; _fail "$case $opt: the keys differ from the source's"; }
		names_of "$T/s.raw" > "$T/new-names"
		[ "$(wc -l < "$T/new-names")" -eq "$(wc -l < "$T/all-names")" ] ||
			_fail "$case $opt: $(wc -l < "$T/new-names") names, the source has $(wc -l < "$T/all-names")"
		# the lengths, line for line (dump-tree escapes bytes alike in both)
		awk '{ print (length($0) >= 5 ? "long" : $0) }' "$T/all-names" > "$T/shape-src"
		sed 's/\\[0-7][0-7][0-7]/x/g' "$T/new-names" | awk '{ print (length($0) >= 5 ? "long" : $0) }' > "$T/shape-new"
		[ "$(grep -c '^long$' "$T/shape-src")" -ge 20 ] || _fail "$case $opt: no long names to compare"
		cmp -s "$T/shape-src" "$T/shape-new" || _fail "$case $opt: names changed length or short names changed"
	done
done
echo "-s and -ss: no name of 5 bytes or more left, keys kept, both checks pass"
