# Helpers for the mkfs tests (source after common.sh).
#
# mk_images N SIZE           sparse files $T/d1.img .. $T/dN.img
# attach_images N            loop devices for them: LOOPS=(...) (detached at exit)
# loop_images N SIZE         both: N new images of SIZE on loop devices LOOPS=(...)
# mkfs_mounted SIZE MOUNT-OPTS MKFS-OPTION...   one loop device (LOOPS[0]) of SIZE, our
#                            mkfs.btrfs -f with those options on it, mounted at $T/mnt
# mkfs_fill_check N WANT MKFS-OPTION...   our mkfs on the first N of LOOPS, Debian's check
#                            clean, its dump-super ($T/super) says WANT (- for nothing),
#                            mount_and_fill 16, Debian's check clean again
# progs_check DEV            Debian's btrfs check on a (scanned) device, must be clean
# progs_check_data DEV [WHAT]   Debian's btrfs check --check-data-csum on DEV, must be clean
# file_listing DIR [FORMAT]  every entry below DIR: path, type, mode, owners, mtime, link
#                            target; then of each non-directory FORMAT (find -printf,
#                            default '%p size=%s links=%n\n'), sorted
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

loop_images() {
	mk_images "$1" "$2"
	attach_images "$1"
}

mkfs_mounted() {
	local size=$1 opts=$2
	shift 2
	loop_images 1 "$size"
	run_check "$TOP/mkfs.btrfs" -f "$@" "${LOOPS[0]}" > /dev/null
	mount_tracked "${LOOPS[0]}" "$T/mnt" "$opts"
}

mkfs_fill_check() {
	local n=$1 want=$2 devs
	shift 2
	devs=("${LOOPS[@]:0:$n}")
	echo "== $* on $n devices" >&2
	run_check "$TOP/mkfs.btrfs" -q -f "$@" "${devs[@]}"
	progs_check "${devs[@]}"
	"$PROGS_BTRFS" inspect-internal dump-super "${devs[0]}" > "$T/super"
	[ "$want" = - ] || assert_grep "$want" "$T/super"
	mount_and_fill 16 "${devs[@]}"
	progs_check "${devs[@]}"
	forget_devices
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

progs_check_data() {
	"$PROGS_BTRFS" check --check-data-csum "$1" > "$T/check.log" 2>&1 || {
		cat "$T/check.log" >&2; _fail "${2:+$2: }btrfs check --check-data-csum found errors on $1"; }
	assert_grep 'no error found' "$T/check.log"
}

file_listing() {
	(cd "$1" && find . -printf '%p %y %m %U %G %T@ %l\n' | sort) || _fail "cannot list $1"
	(cd "$1" && find . ! -type d -printf "${2:-%p size=%s links=%n\n}" | sort) || _fail "cannot list $1"
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

# kernel_base FILL IMG ORIG: a kernel-made filesystem in IMG (kernel_new_fs), filled by the
# function FILL in $T/mnt, unmounted (kernel_umount), and its files as Debian's restore reads
# them in ORIG: the originals a repaired copy of IMG must read back.
kernel_base() {
	local fill=$1 img=$2 orig=$3
	kernel_new_fs "$img"
	"$fill"
	kernel_umount
	restored_files "$img" "$orig"
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
