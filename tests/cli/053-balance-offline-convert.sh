#!/bin/bash
# Offline balance (issue 21), the convert on image files without a kernel: a chain of
# conversions over every target profile on a filesystem filled by mkfs --rootdir; after
# each our check (with data checksums) is clean, dump-tree -t chunk shows only the target
# profiles and the incompat bits follow (RAID56, RAID1C34 set and cleared).  A rerun
# converts nothing.  A bad mirror of a tree block is replaced from the good one; a block
# with no good copy stops the convert naming it, with nothing switched.
. "$TOP/tests/lib/common.sh"
need_corrupt_block

mkdir -p "$T/root/sub"
head -c 20M /dev/urandom > "$T/root/big"
for i in $(seq 1 200); do head -c $((i * 97)) /dev/urandom > "$T/root/sub/f$i"; done
imgs=()
for i in 1 2 3 4; do truncate -s 512M "$T/d$i.img"; imgs+=("$T/d$i.img"); done
run_check "$TOP/mkfs.btrfs" -q -f -d single -m raid1 -r "$T/root" "${imgs[@]}"

profiles() { # the chunk tree's profiles per type, sorted: "DATA|RAID6 METADATA|RAID6 SYSTEM|RAID6"
	"$BTRFS" inspect-internal dump-tree -t chunk "${imgs[@]}" > "$T/chunks" || _fail "dump-tree -t chunk"
	grep -o 'type [A-Z]*|[A-Za-z0-9]*' "$T/chunks" | sed 's/type //' | sort -u | tr '\n' ' '
}
incompat() {
	"$BTRFS" inspect-internal dump-super "${imgs[0]}" > "$T/super" || _fail "dump-super"
	sed -n '/^incompat_flags/,/)/p' "$T/super" | grep -o 'RAID56\|RAID1C34' | tr '\n' ' '
}
convert() { # expected-profiles expected-incompat args...
	local want=$1 bits=$2; shift 2
	run_check "$BTRFS" balance start "$@" "${imgs[@]}" > "$T/out"
	assert_grep '^Done, had to convert' "$T/out"
	run_check "$BTRFS" check --check-data-csum "${imgs[@]}" > "$T/check" 2>&1
	[ "$(profiles)" = "$want" ] || _fail "after $*: profiles '$(profiles)', want '$want'"
	[ "$(incompat)" = "$bits" ] || _fail "after $*: incompat '$(incompat)', want '$bits'"
}
convert 'DATA|RAID1C3 METADATA|RAID1C4 SYSTEM|RAID1C4 ' 'RAID1C34 ' -dconvert=raid1c3 -mconvert=raid1c4
assert_grep '^chunk 1 of [0-9]*: .* single -> RAID1C3, .*/s, ETA' "$T/out"
convert 'DATA|RAID6 METADATA|RAID6 SYSTEM|RAID6 ' 'RAID56 ' -f -dconvert=raid6 -mconvert=raid6
convert 'DATA|RAID10 METADATA|RAID1 SYSTEM|RAID1 ' '' -f -dconvert=raid10 -mconvert=raid1
convert 'DATA|RAID5 METADATA|RAID1 SYSTEM|RAID1 ' 'RAID56 ' -dconvert=raid5
convert 'DATA|RAID0 METADATA|DUP SYSTEM|DUP ' '' -f -dconvert=raid0 -mconvert=dup
convert 'DATA|DUP METADATA|single SYSTEM|single ' '' -f -dconvert=dup -mconvert=single
convert 'DATA|single METADATA|RAID1 SYSTEM|RAID1 ' '' -dconvert=single -mconvert=raid1
# a rerun finds nothing to do and writes nothing
for i in 1 2 3 4; do cp --sparse=always "${imgs[i-1]}" "$T/c$i.img"; done
run_check "$BTRFS" balance start -dconvert=single -mconvert=raid1 "${imgs[@]}" > "$T/out"
assert_grep '^Done, had to convert 0 out of' "$T/out"
for i in 1 2 3 4; do cmp "${imgs[i-1]}" "$T/c$i.img" || _fail "rerun changed d$i.img"; done

# One mirror of a tree block damaged (checksum; a block of the fs tree, which no commit
# of the convert rewrites): the convert takes the good copy; the filesystem is clean.
devs=$(IFS=,; echo "${imgs[*]}")
fs_tree_block() { "$BTRFS" inspect-internal dump-tree -t 5 "${imgs[@]}" | awk '/^(leaf|node) / { print $2; exit }'; }
root=$(fs_tree_block)
[ -n "$root" ] || _fail "no fs tree block in dump-tree -t 5"
run_check "$CB" --mirror 1 --no-csum "$devs" block "$root" generation +1 > /dev/null
run_check "$BTRFS" balance start -mconvert=raid1c3 "${imgs[@]}" > "$T/out" 2> "$T/err"
assert_grep "tree block $root: mirror 1 bad (checksum mismatch" "$T/err"
run_check "$BTRFS" check --check-data-csum "${imgs[@]}" > "$T/check" 2>&1
# Both copies of a raid1 tree block bad: the convert stops naming it, its chunk keeps
# its layout.
run_check "$BTRFS" balance start -f -mconvert=raid1 "${imgs[@]}" > /dev/null
root=$(fs_tree_block)
run_check "$CB" --no-csum "$devs" block "$root" generation +1 > /dev/null
expect_exit 1 "$BTRFS" balance start -mconvert=raid1c3 "${imgs[@]}" > "$T/out" 2> "$T/err"
assert_grep "tree block $root: no good copy" "$T/err"
assert_grep 'run the same command again to continue' "$T/err"
# the system chunk before it was converted; the metadata chunk was not switched
[ "$(profiles)" = 'DATA|single METADATA|RAID1 SYSTEM|RAID1C3 ' ] || _fail "after the failed convert: $(profiles)"
echo ok
