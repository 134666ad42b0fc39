#!/bin/bash
# Every test that uses a ../shared fixture (corpus case, fsck image, fuzz image, shared tool)
# asks for it with check_prereq before, so a clone with no ../shared beside it skips the
# test and says why (tests/tools/fixture-prereqs.py); and the lint itself catches one that
# does not (the sample is spelled in pieces, so the lint does not see it here).
. "$TOP/tests/lib/common.sh"
check_prereq python3
cd "$TOP" || exit 1
run_check python3 tests/tools/fixture-prereqs.py > "$T/out"
assert_grep '^fixture prereqs ok ([0-9]* tests)$' "$T/out"

printf '%s\n' '. "$TOP/tests/lib/common.sh"' 'check_prereq progs' 'img=$(corpus''_case default-rich)/dev1.img' \
	'check_prereq corpus' 'ls "$SHARED/fsck''-images"' > "$T/bad.sh"
run_mustfail python3 tests/tools/fixture-prereqs.py "$T/bad.sh" > "$T/out"
assert_grep "bad.sh:3: uses corpus before check_prereq corpus" "$T/out"
assert_grep "bad.sh:5: uses fsck-images before check_prereq fsck-images" "$T/out"
