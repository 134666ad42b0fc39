#!/bin/bash
# The write engine on RAID5 (3 devices) and RAID6 (4 devices), metadata and
# data, made by our mkfs.  engine-fill adds files with 12000-byte xattrs
# until a new metadata chunk was made, then files with 4 MiB data extents
# until a new data chunk was made.  Every stripe row's P (and Q) must then
# be the parity of its data units (tests/lib/raid56-parity.py, which also
# shows it catches one wrong parity byte; the kernel's scrub rewrites bad
# parity without reporting it).  Our check and Debian's are clean, the
# kernel mounts it, sees the files, xattrs and data, `btrfs scrub start -B`
# finds no errors, and the kernel writes files of its own; then the engine
# writes again into the rows the kernel filled (read-modify-write: the
# kernel's data must survive, parity stay right) and the kernel reads
# everything back (its data checksummed); a commit made to fail before its
# superblock leaves all that intact.  Last, a device image zeroed (two
# for RAID6): our check on the other devices is clean and a degraded
# kernel mount reads every file right, so P (and Q) rebuild the lost units.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3
grep -qw raid56 <(ls /sys/fs/btrfs/features 2>/dev/null) || _skip "kernel without raid56"
need_tool FILL engine-fill
PARITY=$TOP/tests/lib/raid56-parity.py

count_chunks() { # type-regex image...
	local re=$1; shift
	"$BTRFS" inspect-internal dump-tree --noscan -t chunk "$@" | grep -cE "type ($re)\|"
}

our_check() { # image...
	"$BTRFS" check --noscan "$@" > "$T/ourcheck.log" 2>&1 || {
		cat "$T/ourcheck.log" >&2; _fail "our btrfs check found errors"; }
}

parity_ok() { # what image...
	local what=$1 i=1 args=() img; shift
	for img in "$@"; do args+=("$i=$img"); i=$((i + 1)); done
	"$BTRFS" inspect-internal dump-tree --noscan -t chunk "$@" > "$T/chunks"
	python3 "$PARITY" "$T/chunks" "${args[@]}" > "$T/parity.out" ||
		{ cat "$T/parity.out" >&2; _fail "$what: parity wrong"; }
	echo "$what: parity $(cat "$T/parity.out")"
}

# The checker must be able to fail: one byte of a P unit with data in it flipped.
parity_selftest() { # image...
	local i=1 args=() img dev off
	for img in "$@"; do args+=("$i=$img"); i=$((i + 1)); done
	# row 0 of the first METADATA chunk: P on stripe nr_data
	read -r dev off < <(python3 - "$T/chunks" "$#" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for item in re.split(r"\n\s*item \d+ ", text):
    m = re.search(r"CHUNK_ITEM \d+\).*?type METADATA\|RAID(\d)", item, re.S)
    if m:
        s = re.findall(r"stripe \d+ devid (\d+) offset (\d+)", item)
        ndata = len(s) - (2 if m.group(1) == "6" else 1)
        print(s[ndata][0], int(s[ndata][1]) + 4000)
        break
PY
)
	[ -n "$dev" ] || _fail "no RAID5/6 metadata chunk found"
	img=${args[dev - 1]#*=}
	cp "$img" "$T/saved.img"
	printf '\x5a\x5a\x5a\x5a' | dd of="$img" bs=1 seek="$off" conv=notrunc status=none
	python3 "$PARITY" "$T/chunks" "${args[@]}" > "$T/parity.out" &&
		_fail "parity checker missed a changed P byte (devid $dev at $off)"
	assert_grep "P wrong" "$T/parity.out"
	mv "$T/saved.img" "$img"
}

mount_devs() { # opts loop...
	local opts=$1 d; shift
	for d in "$@"; do opts="${opts:+$opts,}device=$d"; done
	forget_devices
	mount_tracked "$1" "$T/mnt" "$opts"
}

# Every engine file (xattr or data) and every kernel file has its content.
verify_files() { # what expected-count
	python3 "$TOP/tests/lib/engine-files.py" "$T/mnt" --count "$2" --xattr m:12000 --data d:4096 \
		--data d_small_:64 --sums "k:$T/kernel.sums" || _fail "$1: file content differs"
}

# engine-fill ARGS (-p last, a round number is added) until a new chunk of TYPE appears
fill_until_new_chunk() { # type max-rounds engine-fill-args...
	local type=$1 max=$2 i before nfiles; shift 2
	nfiles=$2
	before=$(count_chunks "$type" "${imgs[@]}")
	for ((i = 0; i < max; i++)); do
		run_check "$FILL" "$@${i}_" "${imgs[@]}" > /dev/null
		files=$((files + nfiles))
		[ "$(count_chunks "$type" "${imgs[@]}")" -gt "$before" ] && return 0
	done
	_fail "$prof: no new $type chunk after $max rounds of engine-fill $*"
}

run_config() { # ndev size profile devices-to-zero...
	local n=$1 size=$2 prof=$3 i meta0 data0 meta data imgs ok=() d; shift 3
	files=0
	forget_devices
	mk_images "$n" "$size"
	rm -f "$T/kernel.sums"
	imgs=("$T"/d[1-"$n"].img)
	run_check "$TOP/mkfs.btrfs" -f -q -m "$prof" -d "$prof" "${imgs[@]}"
	meta0=$(count_chunks METADATA "${imgs[@]}")
	data0=$(count_chunks DATA "${imgs[@]}")
	fill_until_new_chunk METADATA 20 -n 1500 -c 3 -X 12000 -p m
	meta=$(count_chunks METADATA "${imgs[@]}")
	fill_until_new_chunk DATA 40 -n 16 -c 2 -D 4096 -p d
	data=$(count_chunks DATA "${imgs[@]}")
	"$BTRFS" inspect-internal dump-tree --noscan -t chunk "${imgs[@]}" | grep -E "type (METADATA|DATA|SYSTEM)\|" |
		grep -vqE "\|$(echo "$prof" | tr a-z A-Z)$" && _fail "$prof: a chunk of another profile"
	echo "$prof: metadata chunks $meta0 -> $meta, data chunks $data0 -> $data, $files files"
	parity_ok "$prof after the engine" "${imgs[@]}"
	parity_selftest "${imgs[@]}"
	our_check "${imgs[@]}"
	attach_images "$n"
	progs_check "${LOOPS[0]}"

	# the kernel reads what the engine wrote and adds files of its own
	mount_devs "" "${LOOPS[@]}"
	verify_files "$prof: kernel after the engine" "$files"
	/usr/bin/btrfs scrub start -B "$T/mnt" > "$T/scrub.log" 2>&1 ||
		{ cat "$T/scrub.log" >&2; _fail "$prof: scrub failed"; }
	assert_grep "no errors found" "$T/scrub.log"
	dd if=/dev/urandom of="$T/mnt/k-big" bs=1M count=24 status=none || _fail "kernel write failed"
	for i in $(seq 1 300); do head -c $((i * 331)) /dev/urandom > "$T/mnt/k$i"; done
	(cd "$T/mnt" && sha256sum k*) > "$T/kernel.sums"
	umount "$T/mnt" || _fail "umount failed"
	for d in "${LOOPS[@]}"; do losetup -d "$d"; done
	files=$((files + 301))

	# the engine again, into the rows the kernel filled
	run_check "$FILL" -n 400 -c 2 -x -p "e_" "${imgs[@]}" > /dev/null
	run_check "$FILL" -n 40 -c 2 -D 64 -p "d_small_" "${imgs[@]}" > /dev/null
	files=$((files + 440))
	# a commit that fails before its superblock: its rows went out whole, the old generation stands
	expect_exit 3 "$FILL" -n 3000 -c 1 -X 3000 -p lost_ -F "${imgs[@]}" > /dev/null
	parity_ok "$prof after kernel and engine" "${imgs[@]}"
	our_check "${imgs[@]}"
	"$BTRFS" check --noscan --check-data-csum "${imgs[@]}" > "$T/csum.log" 2>&1 ||
		{ cat "$T/csum.log" >&2; _fail "$prof: data checksums of the kernel's files"; }
	attach_images "$n"
	progs_check "${LOOPS[0]}"
	mount_devs "" "${LOOPS[@]}"
	verify_files "$prof: kernel after kernel and engine" "$files"
	umount "$T/mnt" || _fail "umount failed"
	for d in "${LOOPS[@]}"; do losetup -d "$d"; done

	# lose devices: the parity rebuilds them
	for i in "$@"; do
		truncate -s 0 "$T/d$i.img" && truncate -s "$size" "$T/d$i.img"
	done
	for ((i = 1; i <= n; i++)); do
		[[ " $* " == *" $i "* ]] || ok+=("$T/d$i.img")
	done
	our_check "${ok[@]}"
	LOOPS=()
	for d in "${ok[@]}"; do
		LOOPS+=("$(setup_loopdev "$d")")
		track_loopdev "${LOOPS[-1]}"
	done
	mount_devs "degraded,ro" "${LOOPS[@]}"
	verify_files "$prof: degraded without device(s) $*" "$files"
	umount "$T/mnt" || _fail "umount failed"
	for d in "${LOOPS[@]}"; do losetup -d "$d"; done
	echo "$prof: files read right without device(s) $*"
}

# scrub runs before the kernel's writes: it needs free space to set each
# block group read-only, and the kernel makes new data chunks for its files
run_config 3 512M raid5 2
run_config 4 768M raid6 2 3
echo ok
