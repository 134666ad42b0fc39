# Helpers for the offline balance tests on loop devices (source after mkfs-helpers.sh).  They use
# devs=(the devices), opts (their device_opts), mnt (a mount point) and $T/sums
# (tree_sums of the filesystem before).
#
# crash_fs SIZE [N]          N (3) loop devices of SIZE, our mkfs -d single -m raid1 on them,
#                            mounted on mnt (devs, opts and mnt set)
# crash_verify WHAT          our check (data checksums) and Debian's are clean, the kernel
#                            mounts it, every file's sha256 unchanged
# convert_completes ARGS...  balance start ARGS run again completes; a third run has
#                            nothing left to convert
crash_fs() {
	mk_images "${2:-3}" "$1"
	attach_images "${2:-3}"
	devs=("${LOOPS[@]}")
	run_check "$TOP/mkfs.btrfs" -q -f -d single -m raid1 "${devs[@]}" > /dev/null
	mnt=$T/mnt
	opts=$(device_opts "${devs[@]}")
	mount_tracked "${devs[0]}" "$mnt" "$opts"
}

crash_verify() {
	run_check "$BTRFS" check --check-data-csum "${devs[@]}" > "$T/check" 2>&1
	progs_check "${devs[@]}"
	mount_tracked "${devs[0]}" "$mnt" "$opts"
	(cd "$mnt" && sha256sum -c --quiet "$T/sums") || _fail "data changed ($*)"
	umount "$mnt"
}

convert_completes() {
	balance_logged "$@"
	assert_grep '^Done, had to convert' "$T/out"
	balance_logged "$@"
	assert_grep '^Done, had to convert 0 out of' "$T/out"
}

# balance start ARGS on devs, its output in $T/out and shown when it fails
balance_logged() {
	_show_cmd "$BTRFS" balance start "$@" "${devs[@]}"
	"$BTRFS" balance start "$@" "${devs[@]}" > "$T/out" 2>&1 && return 0
	local rc=$?
	tail -n 20 "$T/out"
	_fail "balance start $* failed (exit $rc)"
}
