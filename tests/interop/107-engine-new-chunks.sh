#!/bin/bash
# New chunks made by the write engine, per metadata profile: single and DUP
# on one device, RAID1 on 2, RAID10 on 4, RAID1C3 on 4 (3 of 4 devices per
# chunk: those with the most unallocated space).  engine-fill adds files
# with 12000-byte xattrs (one leaf each) until at least two new metadata
# chunks were made, then files with 4 MiB data extents until a new data
# chunk was made.  Each new chunk must follow the kernel's size rule, its
# dev extents and dev items must add up; Debian's btrfs check and ours are
# clean, the kernel mounts it, sees the files, their xattrs and data,
# writes more; after the unmount both checks are still clean.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
. "$TOP/tests/lib/engine-helpers.sh"
check_prereq root loop btrfs-kernel progs python3
need_tool FILL engine-fill

count_chunks() { # type-regex dev...
	local re=$1; shift
	"$BTRFS" inspect-internal dump-tree -t chunk "$@" | grep -cE "type ($re)\|"
}

our_check() {
	"$BTRFS" check "$@" > "$T/ourcheck.log" 2>&1 || {
		cat "$T/ourcheck.log" >&2; _fail "our btrfs check found errors"; }
}

# Every dev extent's device: dev item bytes_used = sum of its dev extents;
# every new chunk (logical > mkfs's last) no bigger than the kernel allows.
check_layout() { # max-chunk-bytes dev...
	local max=$1; shift
	"$BTRFS" inspect-internal dump-tree -t chunk -t dev "$@" > "$T/layout"
	python3 - "$T/layout" "$max" "$mkfs_last" <<'PY' || _fail "device accounting or chunk size wrong"
import re, sys
text = open(sys.argv[1]).read()
maxc, last = int(sys.argv[2]), int(sys.argv[3])
used = {int(d): int(u) for d, u in re.findall(r"devid (\d+) total_bytes \d+ bytes_used (\d+)", text)}
ext = {}
for devid, length in re.findall(r"key \((\d+) DEV_EXTENT \d+\).*?length (\d+)", text, re.S):
    ext[int(devid)] = ext.get(int(devid), 0) + int(length)
bad = 0
for d in used:
    if used[d] != ext.get(d, 0):
        print("devid %d: dev item bytes_used %d, dev extents %d" % (d, used[d], ext.get(d, 0)))
        bad = 1
new = 0
for item in re.split(r"\n\s*item \d+ ", text):
    m = re.search(r"CHUNK_ITEM (\d+)\).*?length (\d+) .*?type (\S+)", item, re.S)
    if not m or int(m.group(1)) <= last:
        continue
    new += 1
    logical, length, ctype = int(m.group(1)), int(m.group(2)), m.group(3)
    devs = re.findall(r"stripe \d+ devid (\d+) offset (\d+)", item)
    if length > maxc:
        print("new chunk %d: %d bytes, kernel limit %d" % (logical, length, maxc))
        bad = 1
    # one stripe per device but for DUP; dev extents 1 MiB on, 64 KiB aligned
    if "DUP" not in ctype and len(set(d for d, _ in devs)) != len(devs):
        print("new chunk %d (%s): two stripes on one device: %s" % (logical, ctype, devs))
        bad = 1
    if any(int(o) < (1 << 20) or int(o) % 65536 for _, o in devs):
        print("new chunk %d: dev extent offsets %s" % (logical, devs))
        bad = 1
if not used or new < 3:
    print("%d dev items, %d new chunks found" % (len(used), new))
    bad = 1
sys.exit(bad)
PY
}

run_config() { # ndev size max-new-meta-chunk mkfs-options...
	local n=$1 size=$2 maxc=$3 i opts="" meta0 data0 meta data files=0 dfiles=0 imgs; shift 3
	forget_devices
	mk_images "$n" "$size"
	# our tools work on the image files; loop devices only for the kernel and Debian's check
	imgs=("$T"/d[1-"$n"].img)
	run_check "$TOP/mkfs.btrfs" -f -q "$@" "${imgs[@]}"
	meta0=$(count_chunks METADATA "${imgs[@]}")
	data0=$(count_chunks DATA "${imgs[@]}")
	mkfs_last=$("$BTRFS" inspect-internal dump-tree -t chunk "${imgs[@]}" |
		    sed -n 's/.*CHUNK_ITEM \([0-9]*\)).*/\1/p' | sort -n | tail -1)
	meta=$meta0
	for ((i = 0; i < 30 && meta < meta0 + 2; i++)); do
		run_check "$FILL" -n 1500 -c 3 -X 12000 -p "m${i}_" "${imgs[@]}" > /dev/null
		files=$((files + 1500))
		meta=$(count_chunks METADATA "${imgs[@]}")
	done
	[ "$meta" -ge $((meta0 + 2)) ] || _fail "$*: $meta metadata chunks after $files files (mkfs made $meta0)"
	data=$data0
	for ((i = 0; i < 30 && data == data0; i++)); do
		run_check "$FILL" -n 16 -c 2 -D 4096 -p "d${i}_" "${imgs[@]}" > /dev/null
		dfiles=$((dfiles + 16))
		data=$(count_chunks DATA "${imgs[@]}")
	done
	[ "$data" -gt "$data0" ] || _fail "$*: no new data chunk after $dfiles data files"
	echo "$*: metadata chunks $meta0 -> $meta ($files files), data chunks $data0 -> $data ($dfiles files)"
	check_layout "$maxc" "${imgs[@]}"
	our_check "${imgs[@]}"
	attach_images "$n"
	progs_check "${LOOPS[0]}"

	opts=$(device_opts "${LOOPS[@]}")
	mount_tracked "${LOOPS[0]}" "$T/mnt" "$opts"
	entries_seen $((files + dfiles)) "$T/mnt" "$*"
	python3 "$TOP/tests/lib/engine-files.py" "$T/mnt" --every 97 --xattr m:12000 --data d:4096 ||
		_fail "$*: xattr or data content differs"
	dd if=/dev/urandom of="$T/mnt/kernel-big" bs=1M count=40 status=none || _fail "kernel write failed"
	for i in $(seq 1 200); do echo "kernel $i" > "$T/mnt/k$i"; done
	rm "$T/mnt/m0_7" || _fail "kernel cannot delete an engine-made file"
	sync
	umount "$T/mnt" || _fail "umount failed"
	progs_check "${LOOPS[0]}"
	for d in "${LOOPS[@]}"; do losetup -d "$d"; done
	our_check "${imgs[@]}"
}

# max new metadata chunk: 10% of the filesystem rounded up to 16 MiB (256 MiB at most)
run_config 1 512M $((64 << 20)) -m single -d single
run_config 1 512M $((64 << 20)) -m dup -d single
run_config 2 320M $((64 << 20)) -m raid1 -d raid1
run_config 4 320M $((128 << 20)) -m raid10 -d raid0
run_config 4 400M $((160 << 20)) -m raid1c3 -d single
echo ok
