#!/bin/bash
# New chunks are placed as the kernel places them: copies of one mkfs'd
# filesystem are filled with metadata only (empty files with 12000-byte
# xattrs), one by engine-fill, one by the kernel, until a new metadata
# chunk exists; the first new chunk must have the same logical address,
# length, type and set of (devid, dev offset) stripes.  Stripe order is
# not compared: among equally free devices the kernel's (unstable) sort
# may pick another order, or for RAID1C3 on 4 devices of one size another
# 3 of them, so that one runs on devices of 4 sizes (3 of 4 devices, the
# most free first).  DUP on 1 device, RAID1 on 2, RAID10 on 4, RAID5 on 3,
# RAID6 on 4.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3
need_tool FILL engine-fill

# The first chunk after logical $1 of the filesystem on the other arguments:
# "logical length type devid@offset..." with the stripes sorted.
first_new_chunk() {
	local last=$1; shift
	"$BTRFS" inspect-internal dump-tree -t chunk "$@" | python3 -c '
import re, sys
last = int(sys.argv[1])
for item in re.split(r"\n\s*item \d+ ", sys.stdin.read()):
    m = re.search(r"CHUNK_ITEM (\d+)\).*?length (\d+) .*?type (\S+)", item, re.S)
    if m and int(m.group(1)) > last:
        stripes = sorted(re.findall(r"stripe \d+ devid (\d+) offset (\d+)", item))
        print(m.group(1), m.group(2), m.group(3), *("%s@%s" % s for s in stripes))
        break
' "$last"
}

run_config() { # ndev size[,size...] files mkfs-options...
	local n=$1 sizes=$2 files=$3 i opts="" last ours theirs; shift 3
	forget_devices
	mk_images "$n" "${sizes%%,*}"
	# devices of different sizes: a list, one size per device
	for ((i = 1; i <= n; i++)); do
		[[ $sizes == *,* ]] && truncate -s "$(cut -d, -f"$i" <<< "$sizes")" "$T/d$i.img"
	done
	run_check "$TOP/mkfs.btrfs" -f -q "$@" "$T"/d[1-$n].img
	for ((i = 1; i <= n; i++)); do cp --sparse=always "$T/d$i.img" "$T/e$i.img"; done
	last=$("$BTRFS" inspect-internal dump-tree -t chunk "$T"/d[1-$n].img |
	       sed -n 's/.*CHUNK_ITEM \([0-9]*\)).*/\1/p' | sort -n | tail -1)
	run_check "$FILL" -n "$files" -c 2 -X 12000 "$T"/e[1-$n].img > /dev/null
	ours=$(first_new_chunk "$last" "$T"/e[1-$n].img)
	[ -n "$ours" ] || _fail "$*: the engine made no new chunk"

	attach_images "$n"
	"$PROGS_BTRFS" device scan "${LOOPS[@]}" > /dev/null 2>&1
	opts=$(device_opts "${LOOPS[@]}")
	mount_tracked "${LOOPS[0]}" "$T/mnt" "$opts"
	python3 - "$T/mnt" "$files" <<'PY' || _fail "kernel fill failed"
import os, sys
for i in range(int(sys.argv[2])):
    p = os.path.join(sys.argv[1], "f%d" % i)
    open(p, "w").close()
    os.setxattr(p, "user.x", b"x" * 12000)
PY
	umount "$T/mnt" || _fail "umount failed"
	theirs=$(first_new_chunk "$last" "${LOOPS[@]}")
	for i in "${LOOPS[@]}"; do losetup -d "$i"; done
	echo "$*: engine: $ours"
	echo "$*: kernel: $theirs"
	[ "$ours" = "$theirs" ] || _fail "$*: first new chunk differs from the kernel's"
}

run_config 1 512M 3000 -m dup -d single
run_config 2 400M 4000 -m raid1 -d raid1
run_config 4 320M 6000 -m raid10 -d raid0
run_config 4 400M,460M,420M,440M 6000 -m raid1c3 -d single
run_config 3 400M 6000 -m raid5 -d raid5
run_config 4 400M 6000 -m raid6 -d raid6
echo ok
