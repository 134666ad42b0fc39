#!/bin/bash
# kernel-fixture.sh NAME DIR: make the kernel-written filesystem NAME in DIR
# (dev1.img [dev2.img], then DIR/.done), for the corruption catalogue
# (tests/tools/catalogue.py --fs NAME) and the check tests.  Debian's mkfs
# makes an empty filesystem; the kernel writes everything else, the free space
# tree too (space_cache=v2): Debian's mkfs 6.2 leaves free space tree items of
# the temporary block groups it removed, which our check reports.  Needs root,
# loop devices and btrfs in the kernel: exit 77 with a SKIP line without them.
# Holds /tmp/btrfs-kit-loop.lock while it uses loop devices and mounts.
#   kern-squota  16K nodes, DUP metadata, free space tree, simple quotas
#                (enabled by the BTRFS_IOC_QUOTA_CTL ioctl: Debian's btrfs 6.2
#                has no `quota enable --simple`), zstd compression, reflinks,
#                snapshots, xattrs, inline files
#   kern-v1-4k   4K nodes, space cache v1, qgroups, lzo compression, many
#                inline files with xattrs, hardlinks beyond the inode ref
#                (extrefs), reflinks, a snapshot, a deleted subvolume
#   kern-raid1   two devices, RAID1 metadata and data, 16K nodes, inline
#                files, xattrs, a snapshot
set -u
name=$1 dir=$2
skip() { echo "SKIP: $*"; exit 77; }
die() { echo "kernel-fixture $name: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "kernel fixture $name needs root"
grep -qw btrfs /proc/filesystems 2>/dev/null || modprobe btrfs 2>/dev/null
grep -qw btrfs /proc/filesystems 2>/dev/null || skip "no btrfs in the kernel"
losetup -f > /dev/null 2>&1 || skip "no loop devices"
case $name in
kern-squota) ndev=1 mkfs_opts="-n 16384 -m dup -d single -R ^free-space-tree"
	mount_opts=space_cache=v2,compress=zstd ;;
kern-v1-4k) ndev=1 mkfs_opts="-n 4096 -s 4096 -m dup -d single -R ^free-space-tree"
	mount_opts=space_cache=v1,compress=lzo ;;
kern-raid1) ndev=2 mkfs_opts="-n 16384 -m raid1 -d raid1 -R ^free-space-tree" mount_opts=space_cache=v2 ;;
*) die "unknown fixture (kern-squota, kern-v1-4k, kern-raid1)" ;;
esac

mkdir -p "$dir" || die "cannot make $dir"
rm -f "$dir"/dev*.img "$dir/.done"
devs=() loops=() mnt=$dir/mnt
for ((i = 1; i <= ndev; i++)); do
	truncate -s 256M "$dir/dev$i.img" || die "truncate"
	devs+=("$dir/dev$i.img")
done
exec 9> /tmp/btrfs-kit-loop.lock
flock 9
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	for l in "${loops[@]}"; do losetup -d "$l"; done
	rmdir "$mnt" 2> /dev/null
}
trap cleanup EXIT
for d in "${devs[@]}"; do
	l=$(losetup -f --show "$d") || die "losetup $d"
	loops+=("$l")
done
# shellcheck disable=SC2086
/usr/sbin/mkfs.btrfs -q -f $mkfs_opts "${loops[@]}" > "$dir/mkfs.log" 2>&1 || die "mkfs: $(cat "$dir/mkfs.log")"
opts=$mount_opts
for l in "${loops[@]}"; do opts="${opts:+$opts,}device=$l"; done
mkdir -p "$mnt"
mount -o "$opts" "${loops[0]}" "$mnt" || die "mount"
m=$mnt

# quotas first, so the data written below is accounted
case $name in
kern-squota) python3 - "$m" << 'EOF' || die "simple quota ioctl"
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
# BTRFS_IOC_QUOTA_CTL = _IOWR(0x94, 40, struct btrfs_ioctl_quota_ctl_args{u64 cmd, status})
# cmd 4 = BTRFS_QUOTA_CTL_ENABLE_SIMPLE_QUOTA
fcntl.ioctl(fd, 0xC0109428, struct.pack('<QQ', 4, 0))
EOF
	;;
kern-v1-4k) /usr/bin/btrfs quota enable "$m" || die "quota enable" ;;
esac

python3 - "$m" "$name" << 'EOF' || die "fill"
import os, sys
m, name = sys.argv[1], sys.argv[2]
def write(p, data):
    with open(p, 'wb') as f:
        f.write(data)
os.makedirs(m + '/inline/deep/er', exist_ok=True)
n = 300 if name == 'kern-v1-4k' else 120
for i in range(n):
    p = '%s/inline/%s/f%03d' % (m, ['.', 'deep', 'deep/er'][i % 3], i)
    write(p, ('inline %d\n' % i).encode() * (1 + i % 40))
    os.setxattr(p, 'user.idx', str(i).encode())
    if i % 5 == 0:
        os.setxattr(p, 'user.long', b'x' * (100 + i))
        os.setxattr(p, 'trusted.k%d' % i, b'v')
os.makedirs(m + '/data', exist_ok=True)
write(m + '/data/big', bytes(range(256)) * 4096 * 3)
write(m + '/data/text', b'compressible text line\n' * 40000)
write(m + '/data/random', os.urandom(600 * 1024))
with open(m + '/data/sparse', 'wb') as f:
    f.seek(1 << 20)
    f.write(b'after a hole')
os.symlink('data/text', m + '/link')
os.mkfifo(m + '/fifo')
# hardlinks: in one directory with long names, beyond what fits in one inode ref item
if name == 'kern-v1-4k':
    os.makedirs(m + '/links', exist_ok=True)
    for i in range(60):
        os.link(m + '/data/text', m + '/links/' + ('hardlink-with-a-long-name-%03d-' % i) + 'y' * 150)
else:
    for i in range(5):
        os.link(m + '/data/big', m + '/data/big.link%d' % i)
os.setxattr(m + '/data', 'user.dir', b'a directory xattr')
EOF
cp --reflink=always "$m/data/big" "$m/data/big.reflink" || die "reflink"
cp --reflink=always "$m/data/random" "$m/random.reflink" || die "reflink"
/usr/bin/btrfs -q subvolume create "$m/sub" > /dev/null || die "subvolume"
cp -a "$m/inline" "$m/sub/" && cp --reflink=always "$m/data/big" "$m/sub/big" || die "fill sub"
/usr/bin/btrfs -q subvolume snapshot "$m/sub" "$m/snap" > /dev/null || die "snapshot"
/usr/bin/btrfs -q subvolume snapshot -r "$m" "$m/top-ro" > /dev/null || die "snapshot"
echo changed > "$m/snap/inline/f000"
rm -f "$m/sub/inline/f003"
if [ "$name" = kern-v1-4k ]; then
	/usr/bin/btrfs -q subvolume create "$m/gone" > /dev/null && cp -a "$m/inline" "$m/gone/" || die "subvolume"
	/usr/bin/btrfs -q subvolume delete "$m/gone" > /dev/null || die "subvolume delete"
fi
sync
umount "$m" || die "umount"
cleanup
trap - EXIT
# the catalogue and the tests copy the images: keep them small (unused space sparse)
# (Debian's 6.2 cannot open a filesystem with simple quotas, nor assemble one from files)
/usr/bin/btrfs check "${devs[0]}" > "$dir/check.log" 2>&1 || [ "$ndev" -gt 1 ] || [ "$name" = kern-squota ] ||
	die "Debian's check is not clean on the new filesystem: $(cat "$dir/check.log")"
touch "$dir/.done"
echo "kernel fixture $name in $dir"
