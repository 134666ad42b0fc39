#!/bin/bash
# make install / make uninstall into a scratch DESTDIR: the installed binary, its aliases
# (mkfs.btrfs and fsck.btrfs in sbin), man pages and bash completion work where they land,
# and uninstall leaves no file behind.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/installed-tree.sh"

if ! command -v rst2man > /dev/null && ! command -v rst2man.py > /dev/null; then
	[ "${CI:-}" = true ] && _fail "rst2man missing (apt-get install python3-docutils)"
	_skip "rst2man missing (apt-get install python3-docutils)"
fi
cd "$TOP"
# Without rst2man a man page is refused with a message naming the package.
expect_exit 2 make -s RST2MAN= -W Documentation/btrfs.rst Documentation/man/btrfs.8 > "$T/out" 2> "$T/err"
assert_grep 'rst2man not found: man pages need it, apt-get install python3-docutils' "$T/err"

root=$T/root
run_check make -s install DESTDIR="$root" prefix=/usr > "$T/install.log" 2>&1
(cd "$root" && find . ! -type d | sort) > "$T/files"
cat > "$T/expect" <<'LIST'
./usr/bin/btrfs
./usr/bin/btrfs-image
./usr/sbin/fsck.btrfs
./usr/sbin/mkfs.btrfs
./usr/share/bash-completion/completions/btrfs
./usr/share/bash-completion/completions/btrfs-image
./usr/share/bash-completion/completions/fsck.btrfs
./usr/share/bash-completion/completions/mkfs.btrfs
./usr/share/man/man8/btrfs-balance.8
./usr/share/man/man8/btrfs-check.8
./usr/share/man/man8/btrfs-image.8
./usr/share/man/man8/btrfs-inspect-internal.8
./usr/share/man/man8/btrfs.8
./usr/share/man/man8/fsck.btrfs.8
./usr/share/man/man8/mkfs.btrfs.8
LIST
diff -u "$T/expect" "$T/files" || _fail "installed files differ from the expected list"
[ "$(readlink "$root/usr/sbin/mkfs.btrfs")" = ../bin/btrfs ] || _fail "mkfs.btrfs is not a relative link to ../bin/btrfs"
[ "$(readlink "$root/usr/bin/btrfs-image")" = btrfs ] || _fail "btrfs-image is not a link to btrfs"

# The installed binaries run, by their own names; the man pages open.
installed_tools_run "$root" ""
# fsck(8) at boot (-a) does nothing and succeeds
run_check "$root/usr/sbin/fsck.btrfs" -a "$T/img" 2> "$T/err"
assert_grep 'nothing to do in automatic mode' "$T/err"
# The completion loads and answers for btrfs and the aliases.
bash -c '. "$1" && complete -p btrfs mkfs.btrfs fsck.btrfs btrfs-image' _ \
	"$root/usr/share/bash-completion/completions/btrfs" > "$T/complete" || _fail "completion does not load"
assert_grep '^complete -F _btrfs_kit mkfs.btrfs$' "$T/complete"

run_check make -s uninstall DESTDIR="$root" prefix=/usr > /dev/null
(cd "$root" && find . ! -type d) > "$T/left"
[ ! -s "$T/left" ] || _fail "uninstall left: $(cat "$T/left")"

# bindir and sbindir the same folder: the aliases link to btrfs beside them.
run_check make -s install DESTDIR="$root" prefix=/opt/kit sbindir=/opt/kit/bin > /dev/null 2>&1
[ "$(readlink "$root/opt/kit/bin/mkfs.btrfs")" = btrfs ] || _fail "mkfs.btrfs beside btrfs is not a link to btrfs"
run_check "$root/opt/kit/bin/mkfs.btrfs" --version > /dev/null
[ -f "$root/opt/kit/share/man/man8/btrfs.8" ] || _fail "man pages not under prefix"
run_check make -s uninstall DESTDIR="$root" prefix=/opt/kit sbindir=/opt/kit/bin > /dev/null
(cd "$root" && find . ! -type d) > "$T/left"
[ ! -s "$T/left" ] || _fail "uninstall left: $(cat "$T/left")"
echo ok
