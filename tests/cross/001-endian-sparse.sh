#!/bin/bash
# Every on-disk field goes through the little-endian accessors: format.h declares the
# fields __le16/__le32/__le64, which sparse (the kernel's checker) treats as types of their
# own; reading or writing one as a plain integer anywhere in btrfs-kit (every object of the
# library layers, the tools, the commands, the test tools) is a warning ("restricted __le64
# degrades to integer", "different base types"), and any such warning fails the test.
# A probe that reads sb->generation directly must be caught, so the check can fail.
# (crypto/ knows no btrfs structure; its x86 intrinsics are beyond sparse.)
. "$TOP/tests/lib/common.sh"
command -v sparse > /dev/null || _skip "sparse not installed (apt-get install sparse)"
[ -f "$TOP/config.h" ] || _skip "not configured (run make first)"
sp() { # FILE: sparse's endianness warnings on FILE
	# shellcheck disable=SC2046
	sparse -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I"$TOP" $(pkg-config --cflags uuid blkid) \
		-include "$TOP/config.h" "$1" 2>&1 | grep -E 'restricted|different base types'
}
export -f sp; export TOP

cat > "$T/probe.c" <<'C'
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/accessors.h"
unsigned long long probe(const struct btrfs_super_block *sb);
unsigned long long probe(const struct btrfs_super_block *sb)
{
	return sb->generation + btrfs_super_generation(sb);
}
C
sp "$T/probe.c" > "$T/probe.out"
assert_grep "probe.c:6:.*restricted __le64 degrades to integer" "$T/probe.out"
[ "$(wc -l < "$T/probe.out")" -eq 1 ] || _fail "the accessor call was reported too"

(cd "$TOP" && ls kernel-shared/*/*.c print/*.c mkfs/*.c check/*.c balance/*.c image/*.c common/*.c cmds/*.c \
	btrfs.c tests/tools/*.c tests/unit/*.c) > "$T/files"
n=$(wc -l < "$T/files")
[ "$n" -gt 100 ] || _fail "only $n source files found"
(cd "$TOP" && xargs -P 2 -n 8 bash -c 'for f; do sp "$f"; done; true' _ < "$T/files") > "$T/warnings"
[ ! -s "$T/warnings" ] || { cat "$T/warnings" >&2; _fail "$(grep -c 'warning:' "$T/warnings") places use an on-disk field without its accessor"; }
echo "$n files: no on-disk field read or written without its little-endian accessor"
