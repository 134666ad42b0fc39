# Helper for the btrfs image -d tests (source after common.sh and mkfs-helpers.sh).
#
# fill_data_kinds DIR   write every kind of file data below the mounted DIR:
#                       inline files, random data, zstd (mount it with
#                       compress=zstd) and zlib (property) compressed files,
#                       a reflinked copy, a preallocated file, a sparse one,
#                       a snapshot; then sync

fill_data_kinds() {
	local mnt=$1 i
	mkdir -p "$mnt/inline"
	for i in $(seq 1 200); do echo "inline file $i $RANDOM" > "$mnt/inline/f$i"; done
	head -c 3000 /dev/urandom > "$mnt/inline/random-inline"
	dd if=/dev/urandom of="$mnt/random" bs=1M count=6 status=none || _fail "write to $mnt failed"
	yes compressible | head -c 5000000 > "$mnt/zstd"
	touch "$mnt/zlib"
	"$PROGS_BTRFS" property set "$mnt/zlib" compression zlib || _fail "property set failed"
	yes zlib-compressible | head -c 3000000 > "$mnt/zlib"
	cp --reflink=always "$mnt/random" "$mnt/random-reflink" || _fail "reflink failed"
	fallocate -l 3M "$mnt/prealloc" || _fail "fallocate failed"
	echo tail >> "$mnt/prealloc"
	truncate -s 20M "$mnt/sparse"
	echo middle | dd of="$mnt/sparse" bs=1 seek=10000000 conv=notrunc status=none
	"$PROGS_BTRFS" subvolume snapshot "$mnt" "$mnt/snap" > /dev/null || _fail "snapshot failed"
	echo changed > "$mnt/inline/f1"
	sync
}
