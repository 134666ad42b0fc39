#!/bin/bash
# dump-tree options: -t by name and number (repeatable, in order), -b, -r,
# -u, -d, --hide-names, usage errors.
. "$TOP/tests/lib/common.sh"
check_prereq corpus
dir=$(corpus_case csum-xxhash)
cd "$dir" || _fail "no case"
dt() { "$BTRFS" inspect-internal dump-tree --noscan "$@"; }
run_check dt -t csum -t 4 dev1.img > "$T/t"
grep -E '^[a-z].* tree key' "$T/t" > "$T/heads"
[ "$(sed -n 1p "$T/heads")" = "checksum tree key (CSUM_TREE ROOT_ITEM 0) " ] || _fail "-t csum first"
[ "$(sed -n 2p "$T/heads")" = "device tree key (DEV_TREE ROOT_ITEM 0) " ] || _fail "-t 4 second"
assert_grep '^total bytes' "$T/t"
run_check dt -t root dev1.img > "$T/root"
assert_grep '^root tree$' "$T/root"
assert_not_grep '^total bytes' "$T/root"
run_check dt -r dev1.img > "$T/r"
assert_grep '^root tree: [0-9]* level 0$' "$T/r"
assert_not_grep 'btrfs root backup' "$T/r"
run_check dt -u dev1.img > "$T/u"
assert_grep '^uuid tree key' "$T/u"
assert_not_grep '^fs tree key' "$T/u"
run_check dt -d dev1.img > "$T/d"
assert_grep '^device tree key' "$T/d"
assert_not_grep '^extent tree key' "$T/d"
bytenr=$(sed -n 's/^root tree: \([0-9]*\) level.*/\1/p' "$T/r")
run_check dt -b "$bytenr" dev1.img > "$T/b"
assert_grep "^leaf $bytenr items" "$T/b"
run_check dt --hide-names dev1.img > "$T/h"
assert_grep 'name: HIDDEN' "$T/h"
assert_not_grep 'name: hello.txt' "$T/h"
expect_exit 1 dt -t nosuchtree dev1.img 2> "$T/err"
assert_grep 'unrecognized tree id: nosuchtree' "$T/err"
expect_exit 1 dt 2> "$T/err"
assert_grep 'not enough arguments' "$T/err"
run_mustfail "missing device" dt /nonexistent/dev.img
