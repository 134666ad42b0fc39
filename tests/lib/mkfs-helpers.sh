# Helpers for the mkfs tests (source after common.sh).
#
# mk_images N SIZE           sparse files $T/d1.img .. $T/dN.img
# attach_images N            loop devices for them: LOOPS=(...) (detached at exit)
# progs_check DEV            Debian's btrfs check on a (scanned) device, must be clean
# device_opts DEV...         the mount options naming every device: device=A,device=B
#                            (no udev here to register them)
# mount_and_fill MB DEV...   mount DEV[0] with device= for all, write MB MiB and files,
#                            read them back, unmount
# tree_sums DIR              sha256 of every file below DIR, sorted by path
# forget_devices             drop the kernel's registrations of stale loop devices
# file_sums FILES...         sha256 of each file (to prove nothing was written)
PROGS_BTRFS=/usr/bin/btrfs

mk_images() {
	local n=$1 size=$2 i
	for ((i = 1; i <= n; i++)); do
		rm -f "$T/d$i.img"
		truncate -s "$size" "$T/d$i.img" || _fail "truncate $T/d$i.img"
	done
}

attach_images() {
	local n=$1 i dev
	LOOPS=()
	for ((i = 1; i <= n; i++)); do
		dev=$(setup_loopdev "$T/d$i.img")
		track_loopdev "$dev"
		LOOPS+=("$dev")
	done
}

progs_check() {
	"$PROGS_BTRFS" device scan "$@" > /dev/null 2>&1
	"$PROGS_BTRFS" check "$1" > "$T/check.log" 2>&1 || {
		cat "$T/check.log" >&2; _fail "btrfs check (btrfs-progs) found errors on $1"; }
	assert_grep 'no error found' "$T/check.log"
}

device_opts() {
	local opts="" d
	for d in "$@"; do opts="${opts:+$opts,}device=$d"; done
	echo "$opts"
}

tree_sums() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

mount_and_fill() {
	local mb=$1 opts d; shift
	opts=$(device_opts "$@")
	mount_tracked "$1" "$T/mnt" "$opts"
	dd if=/dev/urandom of="$T/mnt/big" bs=1M count="$mb" status=none || _fail "write to $T/mnt failed"
	mkdir -p "$T/mnt/dir"
	for d in $(seq 1 500); do echo "file $d" > "$T/mnt/dir/f$d"; done
	ln -s dir/f1 "$T/mnt/link"
	sync
	sha256sum "$T/mnt/big" > "$T/big.sum"
	umount "$T/mnt" || _fail "umount failed"
	mount ${opts:+-o "$opts"} "$1" "$T/mnt" || _fail "remount failed"
	(cd "$T/mnt" && sha256sum -c --quiet "$T/big.sum") || _fail "data read back differs"
	[ "$(cat "$T/mnt/dir/f500")" = "file 500" ] || _fail "small file content differs"
	umount "$T/mnt" || _fail "umount failed"
}

forget_devices() {
	"$PROGS_BTRFS" device scan --forget > /dev/null 2>&1 || true
}

file_sums() {
	sha256sum "$@"
}

# kernel_mount IMG: IMG on a loop device mounted at $T/mnt (both undone on exit);
# kernel_umount: unmount it, detach the loop device, forget the devices.
kernel_mount() {
	mkdir -p "$T/mnt"
	_kernel_dev=$(setup_loopdev "$1")
	track_loopdev "$_kernel_dev"
	mount_tracked "$_kernel_dev" "$T/mnt"
}
kernel_umount() {
	umount "$T/mnt" || _fail "umount $T/mnt"
	losetup -d "$_kernel_dev"
	forget_devices
}
# kernel_new_fs IMG: a new 256M filesystem of 4K nodes (Debian's mkfs) mounted by kernel_mount.
kernel_new_fs() {
	truncate -s 256M "$1"
	run_check /usr/sbin/mkfs.btrfs -q -f -n 4096 "$1"
	kernel_mount "$1"
}
