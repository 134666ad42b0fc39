#!/bin/bash
# check --repair --force on legacy-features with the fs tree leaf's header
# generation all ones (fuzz-fields.py --more, seed 808): the salvage of the
# root tree leaf kept its pristine copy after installing the mended leaf, a
# LeakSanitizer report.  Now exit 0, then clean, no sanitizer report.
. "$TOP/tests/lib/common.sh"
check_prereq corpus
need_tool tool corrupt-block
cp --sparse=always "$(corpus_case legacy-features)/dev1.img" "$T/fs.img" || _fail "cannot copy legacy-features"
"$tool" "$T/fs.img" header 5 260,108,0 generation -1 > /dev/null || _fail "corrupt-block failed"
# the suite runs with detect_leaks=0: this one asks for the leak check
hostile_run -x 0 120 "check --repair --force" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$BTRFS" check --repair --force "$T/fs.img"
assert_grep "mended in memory" "$T/out"
hostile_run -x 0 60 "check after the repair" "$BTRFS" check "$T/fs.img"
