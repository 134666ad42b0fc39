#!/bin/bash
# mkfs --rootdir --compress for zlib (levels 1 and 9), lzo and zstd (when
# built in): btrfs-progs' check with data checksums is clean, the kernel
# mounts it and reads back every file equal (compressed regular and inline
# extents, incompressible data stored as is, holes, xattrs, modes, owners,
# times, link counts); our dump-tree shows the compression type and, added
# up like compsize, fewer bytes on disk than in the files.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/mkfs-helpers.sh"
check_prereq root loop btrfs-kernel progs python3

src=$T/src
mkdir -p "$src/text" "$src/bin" "$src/small"
for i in $(seq 1 20); do
	python3 -c "import sys; sys.stdout.write(''.join('line %d of file $i: %s\n' % (n, 'abc' * (n % 7)) for n in range(20000)))" > "$src/text/t$i"
done
head -c 3000000 /dev/urandom > "$src/bin/random"
python3 -c "import os; d = os.urandom(65536); open('$src/bin/mixed', 'wb').write((b'\0' * 200000 + d) * 4)"
for i in $(seq 1 50); do yes "small $i" | head -c $((i * 60)) > "$src/small/s$i"; done
head -c 4095 /dev/zero > "$src/small/zeros4095"
truncate -s 8M "$src/sparse"
yes sparse | head -c 100000 | dd of="$src/sparse" bs=4096 seek=1000 conv=notrunc status=none
ln "$src/text/t1" "$src/t1-link"
ln -s text/t2 "$src/sym"
chown 4321:8765 "$src/text/t3"
touch -d '2019-03-04 05:06:07.25' "$src/text/t4" "$src/text"
python3 -c "import os; os.setxattr('$src/text/t5', 'user.k', b'v' * 100)"
file_listing "$src" > "$T/src.list"

loop_images 1 300M
algos="zlib:1 zlib:9"
grep -q 'HAVE_LZO 1' "$TOP/config.h" && algos="$algos lzo"
grep -q 'HAVE_ZSTD 1' "$TOP/config.h" && algos="$algos zstd zstd:15"
for alg in $algos; do
	name=${alg%%:*}
	case $name in zlib) num=1 ;; lzo) num=2 ;; zstd) num=3 ;; esac
	run_check "$TOP/mkfs.btrfs" -q -f -r "$src" --compress "$alg" "${LOOPS[0]}"
	progs_check_data "${LOOPS[0]}" "$alg"
	"$TOP/btrfs" inspect-internal dump-tree -t fs "${LOOPS[0]}" > "$T/fs.txt"
	assert_grep "extent compression $num ($name)" "$T/fs.txt"
	assert_grep "inline extent data size [0-9]* ram_bytes [0-9]* compression $num ($name)" "$T/fs.txt"
	# compsize: disk bytes against file bytes of the compressed regular extents
	awk -v n="$num" '/extent data disk byte/ { disk = $NF }
		/extent data offset/ { ram = $NF }
		/extent compression/ { if ($3 == n) { d += disk; r += ram } }
		END { printf "%d %d\n", d, r; exit !(d > 0 && d * 2 < r) }' "$T/fs.txt" > "$T/compsize" ||
		_fail "$alg: compressed extents do not save space: $(cat "$T/compsize")"
	echo "$alg: disk/ram of compressed extents: $(cat "$T/compsize")"
	mount_tracked "${LOOPS[0]}" "$T/mnt" ro
	file_listing "$T/mnt" > "$T/dst.list"
	diff -u "$T/src.list" "$T/dst.list" >&2 || _fail "$alg: attributes differ"
	(cd "$src" && find . -type f) | while read -r f; do
		cmp "$src/$f" "$T/mnt/$f" || _fail "$alg: contents of $f differ"
	done || exit 1
	[ "$(python3 -c "import os; print(len(os.getxattr('$T/mnt/text/t5', 'user.k')))")" = 100 ] ||
		_fail "$alg: xattr lost"
	[ "$(du -k "$T/mnt/sparse" | cut -f1)" -le 200 ] || _fail "$alg: sparse file lost its holes"
	umount "$T/mnt"
done
# Still a normal filesystem afterwards.
mount_and_fill 20 "${LOOPS[0]}"
progs_check "${LOOPS[0]}"
echo ok
