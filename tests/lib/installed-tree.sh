# Checks of an installed tree (make install DESTDIR=..., or a .deb unpacked with dpkg -x);
# source after common.sh.
#
# installed_tools_run ROOT MANEXT   under ROOT/usr: btrfs and btrfs-image --version,
#     mkfs.btrfs on a file, fsck.btrfs (check) of it, dump-super; the man pages of
#     mkfs.btrfs and fsck.btrfs (btrfs-check's) open with man -l (MANEXT: "" or ".gz");
#     without man, the man step is skipped with a line saying so
installed_tools_run() {
	local root=$1 manext=$2
	run_check "$root/usr/bin/btrfs" --version > "$T/out"
	assert_grep '^btrfs-kit v' "$T/out"
	run_check "$root/usr/bin/btrfs-image" --version > "$T/out"
	assert_grep '^btrfs-image, part of btrfs-kit v' "$T/out"
	run_check "$root/usr/sbin/mkfs.btrfs" -f -b 256M "$T/img" > "$T/out"
	assert_grep '^Number of devices:  1' "$T/out"
	run_check "$root/usr/sbin/fsck.btrfs" "$T/img" > "$T/out" 2>&1
	assert_grep 'no error found' "$T/out"
	run_check "$root/usr/bin/btrfs" inspect-internal dump-super "$T/img" > "$T/out"
	assert_grep '^magic' "$T/out"
	if ! command -v man > /dev/null; then
		echo "man missing: the man pages were not opened"
		return 0
	fi
	MANWIDTH=100 man -l "$root/usr/share/man/man8/mkfs.btrfs.8$manext" > "$T/man" 2> "$T/man.err"
	assert_grep 'runtime-features' "$T/man"
	MANWIDTH=100 man -l "$root/usr/share/man/man8/fsck.btrfs.8$manext" > "$T/man" 2> "$T/man.err"
	assert_grep 'btrfs check' "$T/man"
}
