#!/bin/bash
# RAID6 metadata read with two units of a row gone, on the corpus case
# raid5-raid6 (-d raid5 -m raid6, 4 devices): dump-tree must print exactly
# the btrfs-progs 6.19 reference
#   1. with only two of the four devices named (every pair): rows whose data
#      unit is missing are rebuilt from P or Q, or from P+Q when both data
#      units are missing;
#   2. with all four devices, two of them wiped but for their superblocks:
#      the blocks read back as zeros, fail their checksum, and are rebuilt
#      the same way (mirror 3: Q, mirror 4: P+Q).
. "$TOP/tests/lib/common.sh"
check_prereq python3 corpus
dir=$(corpus_case raid5-raid6)

compare() { # what devices...
	local what=$1; shift
	(cd "$T" && "$BTRFS" inspect-internal dump-tree --noscan "$@") > "$T/out" 2> "$T/err"
	local rc=$?
	[ $rc -eq 0 ] || { cat "$T/err" >&2; _fail "$what: exit $rc"; }
	# btrfs-progs' lines for missing devices ("warning, device N is missing") come first
	grep -v '^warning, device [0-9]* is missing$' "$T/out" > "$T/trees"
	check_golden "$SHARED/corpus/raid5-raid6/dump-tree.txt" "$T/trees" "$what"
	assert_not_grep "ERROR" "$T/err"
	echo "ok $what"
}

for i in 1 2 3 4; do cp --sparse=always "$dir/dev$i.img" "$T/dev$i.img"; done
for pair in "1 2" "1 3" "1 4" "2 3" "2 4" "3 4"; do
	set -- $pair
	compare "devices $1+$2 only" "dev$1.img" "dev$2.img"
	assert_grep "^warning, device [0-9]* is missing$" "$T/out"
done

# Wipe two devices except their superblocks (64 KiB and 64 MiB copies).
python3 - "$T/dev2.img" "$T/dev3.img" <<'PY'
import os, sys
for path in sys.argv[1:]:
    size = os.path.getsize(path)
    keep = []
    with open(path, 'rb') as f:
        for off in (65536, 64 << 20):
            if off + 4096 <= size:
                f.seek(off)
                keep.append((off, f.read(4096)))
    with open(path, 'r+b') as f:
        f.truncate(0)
        f.truncate(size)
        for off, data in keep:
            f.seek(off)
            f.write(data)
PY
compare "devices 2+3 wiped" dev1.img dev2.img dev3.img dev4.img
