#!/usr/bin/env python3
"""One line per entry under DIR with everything mkfs --rootdir must keep.

usage: tree-listing.py [--no-atime] DIR

Path, type and mode bits, owner, mtime and ctime (and atime unless
--no-atime) in nanoseconds, every extended attribute (name and value), and
for what is not a directory: link count, size, device numbers, symlink
target, and for regular files the data/hole map (SEEK_DATA/SEEK_HOLE).
Directories' link counts and sizes are the filesystem's own, not listed.

The tree is walked first and stat'ed afterwards: reading a directory may
update its atime (relatime), so the listing shows the value after that, as
mkfs sees it when it reads the tree later.
"""
import errno
import hashlib
import os
import stat
import sys


def data_map(path, size):
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    runs, pos = [], 0
    try:
        while pos < size:
            try:
                data = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as e:
                if e.errno != errno.ENXIO:
                    raise
                break
            hole = os.lseek(fd, data, os.SEEK_HOLE)
            runs.append("%d-%d" % (data, hole))
            pos = hole
    finally:
        os.close(fd)
    return ",".join(runs) or "-"


def xattrs(path):
    out = []
    for name in sorted(os.listxattr(path, follow_symlinks=False)):
        value = os.getxattr(path, name, follow_symlinks=False)
        out.append("%s=%s" % (name, value.hex() if len(value) <= 64 else
                                 "%d:sha256:%s" % (len(value), hashlib.sha256(value).hexdigest())))
    return " ".join(out)


def entry(root, rel, atime):
    path = os.path.join(root, rel)
    st = os.lstat(path)
    f = [rel, "mode=%o" % st.st_mode, "owner=%d:%d" % (st.st_uid, st.st_gid),
         "mtime=%d" % st.st_mtime_ns, "ctime=%d" % st.st_ctime_ns]
    if atime:
        f.append("atime=%d" % st.st_atime_ns)
    if not stat.S_ISDIR(st.st_mode):
        f += ["links=%d" % st.st_nlink, "size=%d" % st.st_size]
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        f.append("rdev=%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)))
    if stat.S_ISLNK(st.st_mode):
        f.append("target=" + os.readlink(path))
    if stat.S_ISREG(st.st_mode):
        f.append("map=" + data_map(path, st.st_size))
    x = xattrs(path)
    if x:
        f.append("xattrs: " + x)
    return " ".join(f)


def main():
    args = sys.argv[1:]
    atime = "--no-atime" not in args
    args = [a for a in args if a != "--no-atime"]
    if len(args) != 1:
        sys.exit(__doc__)
    root = args[0]
    rels = ["."]
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            rels.append(os.path.relpath(os.path.join(d, n), root))
    for rel in sorted(rels):
        print(entry(root, rel, atime))


main()
