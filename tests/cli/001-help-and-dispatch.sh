#!/bin/bash
# Global options, help at every level, prefix matching and exit codes.
. "$TOP/tests/lib/common.sh"

run_check "$BTRFS" --help > "$T/help"
assert_grep '^usage: btrfs' "$T/help"
assert_grep 'btrfs version' "$T/help"
run_check "$BTRFS" help > "$T/help2"
cmp -s "$T/help" "$T/help2" || _fail "btrfs help and btrfs --help differ"

run_check "$BTRFS" --version > "$T/version"
assert_grep '^btrfs-kit v[0-9]' "$T/version"
assert_grep 'CRYPTO=' "$T/version"
run_check "$BTRFS" vers > "$T/version2"
cmp -s "$T/version" "$T/version2" || _fail "prefix 'vers' did not run version"

# No command: usage on stderr, exit 1.
expect_exit 1 "$BTRFS" 2> "$T/err"
assert_grep '^usage: btrfs' "$T/err"
# Unknown command: names the token.
expect_exit 1 "$BTRFS" no-such-thing 2> "$T/err"
assert_grep "unknown token 'no-such-thing'" "$T/err"
run_mustfail "unknown global option" "$BTRFS" --no-such-option version
run_mustfail "bad --format" "$BTRFS" --format xml version
# Global options are accepted before the group.
run_check "$BTRFS" -v -q --auth-key mykey version > /dev/null
run_mustfail "json not declared by version" "$BTRFS" --format json version

# Help at the group and command level, prefixes, and ambiguous prefixes
# listing the candidates (only when a group has two with one prefix).
run_check "$BTRFS" inspect-internal --help > "$T/ii"
assert_grep '^usage: btrfs inspect-internal' "$T/ii"
run_check "$BTRFS" insp --help > "$T/insp"
cmp -s "$T/ii" "$T/insp" || _fail "prefix 'insp --help' is not inspect-internal's help"
for c in dump-super dump-tree; do
	run_check "$BTRFS" inspect-internal $c --help > "$T/$c"
	assert_grep "^usage: btrfs inspect-internal $c" "$T/$c"
done
run_check "$BTRFS" insp dump-s --help > "$T/ds"
cmp -s "$T/dump-super" "$T/ds" || _fail "prefix 'insp dump-s --help' is not dump-super's help"
expect_exit 1 "$BTRFS" inspect-internal dump 2> "$T/amb"
assert_grep "ambiguous token 'dump'" "$T/amb"
assert_grep 'dump-super' "$T/amb"
assert_grep 'dump-tree' "$T/amb"

# argv[0] dispatch: the links exist and point at one binary.
for l in mkfs.btrfs btrfs-image fsck.btrfs; do
	[ -L "$(dirname "$BTRFS")/$l" ] || [ "$(basename "$BTRFS")" != btrfs ] || _fail "$l link missing"
done
echo ok
