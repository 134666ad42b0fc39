#!/bin/bash
# The Debian package (slow: a whole build; runs only with BTRFS_KIT_TEST_DEB=1):
# "make deb" (dpkg-buildpackage -us -uc -b) in a copy of the tree, then the .deb unpacked with
# dpkg -x (never installed: btrfs-progs stays on the machine) and its binaries and man pages run.
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/installed-tree.sh"

[ "${BTRFS_KIT_TEST_DEB:-}" = 1 ] || _skip "slow: set BTRFS_KIT_TEST_DEB=1 to build the .deb"
command -v dpkg-buildpackage > /dev/null && command -v dh > /dev/null ||
	_fail "BTRFS_KIT_TEST_DEB=1 needs dpkg-dev and debhelper (apt-get install dpkg-dev debhelper)"

src=$T/src/btrfs-kit
mkdir -p "$src"
(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src") ||
	_fail "cannot copy the tree"
run_check make -C "$src" deb > "$T/build.log" 2>&1
debs=("$T"/src/btrfs-kit_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || _fail "expected one .deb, found: ${debs[*]}"
deb=${debs[0]}
[ "$(dpkg-deb -f "$deb" Package)" = btrfs-kit ] || _fail "package name"
[ "$(dpkg-deb -f "$deb" Conflicts)" = btrfs-progs ] || _fail "Conflicts: $(dpkg-deb -f "$deb" Conflicts)"
dpkg-deb -f "$deb" Depends > "$T/depends"
assert_grep 'libuuid1' "$T/depends"
dpkg-deb -f "$deb" Description > "$T/description"
assert_grep 'It does not replace the rest of btrfs-progs' "$T/description"

x=$T/x
dpkg -x "$deb" "$x"
for f in usr/bin/btrfs usr/bin/btrfs-image usr/sbin/mkfs.btrfs usr/sbin/fsck.btrfs \
	 usr/share/man/man8/btrfs.8.gz usr/share/man/man8/mkfs.btrfs.8.gz \
	 usr/share/man/man8/fsck.btrfs.8.gz usr/share/bash-completion/completions/btrfs; do
	[ -e "$x/$f" ] || _fail "$f missing from the package"
done
command -v man > /dev/null || _fail "man is needed to open the packaged man pages"
installed_tools_run "$x" .gz
echo ok
