#!/bin/bash
# btrfs check on every restored image of ../shared/fsck-images: our verdict
# (exit code) equals the reference's in check-before.txt, and the check of a
# corrupted image names what is wrong (an ERROR line).  Never a crash.
# --repair --force on a copy of each corrupted image: either it repairs
# (exit 0) and then our check and Debian's pass, or it refuses (exit 1) and
# the image is as it was (the superblock; byte for byte up to 2 GiB).
. "$TOP/tests/lib/common.sh"
check_prereq fsck-images
# cases our --repair mends: a refusal there is a regression
must_repair=" 005-bad-item-offset 007-bad-offset-snapshots 008-bad-dir-index-name 011-no-inode-item
	014-no-extent-info 017-missing-all-file-extent 026-bad-dir-item-name
	028-unaligned-super-dev-sizes 032-corrupted-qgroup 038-missing-one-file-extent
	041-invalid-root-generation 043-bad-inode-generation 044-invalid-extent-item-generation
	051-invalid-super-bytes-used 055-super-num-devs-mismatch 058-bad-free-space-tree-entry
	068-orphan-dev-extent "
n=0 repaired=0 must_done=""
for d in "$SHARED"/fsck-images/*/; do
	[ -f "$d/restored.raw.tar.xz" ] || continue
	c=$(basename "$d")
	rm -rf "$T/img"; mkdir -p "$T/img"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/img" || _fail "cannot extract $c"
	want=$(tail -n 1 "$d/check-before.txt" | sed -n 's/^exit //p')
	timeout 120 "$BTRFS" check --noscan "$T/img/restored.raw" > "$T/out" 2>&1
	rc=$?
	[ $rc -lt 124 ] || { tail -n 20 "$T/out" >&2; _fail "$c: exit $rc (crash or hang)"; }
	[ "$rc" = "$want" ] || { grep -m 10 ERROR "$T/out" >&2; _fail "$c: exit $rc, the reference says $want"; }
	if [ "$want" = 1 ]; then
		grep -q -e '^ERROR: ' -e '^Counts for qgroup' "$T/out" || _fail "$c: exit 1 without naming the problem"
		cp --sparse=always "$T/img/restored.raw" "$T/copy"
		timeout 120 "$BTRFS" check --repair --force --noscan "$T/copy" > "$T/rep" 2>&1
		rrc=$?
		case $rrc in
		0)	expect_exit 0 "$BTRFS" check --noscan "$T/copy" > "$T/out" 2>&1
			if [ -x /usr/bin/btrfs ]; then
				/usr/bin/btrfs check "$T/copy" > "$T/out" 2>&1 ||
					{ cat "$T/out" >&2; _fail "$c: Debian's check finds errors after our repair"; }
			fi
			case $must_repair in *[[:space:]]"${c%%--*}"[[:space:]]*) must_done+=" ${c%%--*}" ;; esac
			repaired=$((repaired + 1)); echo "ok $c repaired" ;;
		1)	case $must_repair in *[[:space:]]"${c%%--*}"[[:space:]]*)
				cat "$T/rep" >&2; _fail "$c: repair refused, it used to be repaired" ;;
			esac
			# unchanged: the superblock copy and every allocated extent of the file
			cmp -s -i 65536 -n 4096 "$T/img/restored.raw" "$T/copy" ||
				_fail "$c: repair refused but changed the superblock"
			if [ "$(stat -c %s "$T/copy")" -le $((2 << 30)) ]; then
				cmp -s "$T/img/restored.raw" "$T/copy" || _fail "$c: repair refused but changed the image"
			fi ;;
		*)	cat "$T/rep" >&2; _fail "$c: repair exit $rrc" ;;
		esac
		rm -f "$T/copy"
	fi
	n=$((n + 1))
	echo "ok $c exit $rc"
done
[ $n -gt 0 ] || _fail "no restored image in $SHARED/fsck-images"
# every case of the list was there and repaired (a renamed or lost image is not a pass)
for m in $must_repair; do
	case "$must_done " in *" $m "*) ;; *) _fail "$m: in the must-repair list but not repaired (no such image?)" ;; esac
done
echo "$n fsck images: verdicts equal the reference; $repaired repaired by us, checked clean by us and Debian"
