#!/bin/bash
# btrfs image -r on every btrfs-image dump of ../shared/fsck-images: the
# restored image equals the case's restored.raw (btrfs-progs 6.19's restore)
# by content (sparse-cmp), and our check gives the case's reference verdict.
# Four references differ from what btrfs-image restores today (6.19 wrote a
# backup superblock at 64 MiB into a file only its threads had already grown
# past it; 069's reference has one leaf rewritten): those must equal Debian's
# btrfs-image restore instead, byte for byte.  Every other dump is restored
# with -t 2 (items inflated in two threads).  Also: the btrfs-image alias,
# restore from stdin, and options not implemented yet exit 1.
. "$TOP/tests/lib/common.sh"
check_prereq fsck-images
CMP=$SHARED/tools/sparse-cmp.py
known_diff=" 008-bad-dir-index-name--default_case 014-no-extent-info--no_extent_bad_dev"
known_diff+=" 020-extent-ref-cases--no_skinny_ref 069-unknown-fs-tree-key--unknown_key_empty "
n=0 same=0 deb=0 threaded=0
for d in "$SHARED"/fsck-images/*/; do
	img=$(compgen -G "$d*.img" | head -n 1)
	[ -n "$img" ] || continue
	name=$(basename "$d")
	rm -rf "$T/c"; mkdir -p "$T/c"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/c" || _fail "cannot extract $d"
	topt=()
	[ $((n % 2)) = 0 ] || topt=(-t 2)
	threaded=$((threaded + ${#topt[@]} / 2))
	run_check "$BTRFS" image -r "${topt[@]}" "$img" "$T/c/ours.raw"
	case $known_diff in
	*" $name "*)
		if [ -x /usr/bin/btrfs-image ]; then
			debian_restore "$img" "$T/c/debian.raw"
			python3 "$CMP" "$T/c/debian.raw" "$T/c/ours.raw" > "$T/cmp" || { cat "$T/cmp"; _fail "$name: differs from Debian's restore"; }
			deb=$((deb + 1))
		fi ;;
	*)
		python3 "$CMP" "$T/c/restored.raw" "$T/c/ours.raw" > "$T/cmp" || { cat "$T/cmp"; _fail "$name: differs from restored.raw"; }
		same=$((same + 1)) ;;
	esac
	want=$(tail -n 1 "$d/check-before.txt")
	run_mayfail "$BTRFS" check "$T/c/ours.raw" > /dev/null 2>&1
	rc=$?
	[ "exit $rc" = "$want" ] || _fail "$name: our check exits $rc on the restored image, reference: $want"
	n=$((n + 1))
done
[ $n -gt 0 ] || _fail "no *.img dump in $SHARED/fsck-images"
[ $threaded -gt 0 ] || _fail "no dump restored with -t 2"
echo "$n dumps restored ($threaded with -t 2): $same equal restored.raw, $deb equal Debian's restore, check verdicts as the reference"

# The btrfs-image name, stdin, and a target that exists (truncated first).
img=$(compgen -G "$SHARED/fsck-images/012-leaf-corruption--good/*.img")
rm -rf "$T/c"; mkdir -p "$T/c"
tar -xSJf "$SHARED/fsck-images/012-leaf-corruption--good/restored.raw.tar.xz" -C "$T/c"
head -c 8M /dev/zero | tr '\0' 'x' > "$T/alias.raw"
run_check "$TOP/btrfs-image" -r - "$T/alias.raw" < "$img"
python3 "$CMP" "$T/c/restored.raw" "$T/alias.raw" > "$T/cmp" || { cat "$T/cmp"; _fail "btrfs-image -r - differs"; }
# Through a pipe (not seekable: spooled to a temporary file, then as a file).
cat "$img" | run_check "$BTRFS" image -r - "$T/pipe.raw"
python3 "$CMP" "$T/c/restored.raw" "$T/pipe.raw" > "$T/cmp" || { cat "$T/cmp"; _fail "restore from a pipe differs"; }
for opt in -c9 -w -s -d; do
	expect_exit 1 "$BTRFS" image -r $opt "$img" "$T/x.raw" 2> "$T/err"
	assert_grep "for creating a dump, not with -r" "$T/err"
done
