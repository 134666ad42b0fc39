#!/bin/bash
# make test-s390x: btrfs-kit on a big-endian host.  Cross-builds for s390x into .obj/s390x
# (static, against the s390x libraries of a private sysroot that tests/install-deps.sh
# unpacks there; builtin crypto), then runs under qemu-user (qemu-s390x, no binfmt needed):
#   - the unit tests (crypto known-answer vectors included: crc32c, xxhash, sha256, blake2b)
#   - the golden tests: dump-super and dump-tree of ../shared's corpus byte for byte against
#     btrfs-progs 6.19's outputs (as ../shared/tools/compare-golden.sh), check of the corpus
#     and of the fsck images
#   - the cross tests (tests/cross/): sparse's proof that no on-disk field is used without
#     its little-endian accessor (static, whole tree); mkfs --rootdir on s390x, judged by the
#     native check and Debian's
# Prints SKIP and exits 0 when the cross tools cannot be installed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
obj=.obj/s390x
sysroot=$top/$obj/sysroot
t0=$SECONDS

if ! tests/install-deps.sh s390x "$sysroot"; then
	echo "SKIP test-s390x: could not install the cross tools (gcc-s390x-linux-gnu," \
		"libc6-dev-s390x-cross, qemu-user) or download the s390x libraries (uuid-dev" \
		"libblkid-dev zlib1g-dev libkeyutils-dev libzstd-dev liblzo2-dev, :s390x)"
	exit 0
fi
for tool in s390x-linux-gnu-gcc qemu-s390x; do
	command -v $tool > /dev/null || { echo "SKIP test-s390x: $tool not found"; exit 0; }
done

# Configure once (again when configure changes): its own config.h and config.mk.
if [ ! -f $obj/config.mk ] || [ configure -nt $obj/config.mk ] || [ config.mk.in -nt $obj/config.mk ]; then
	lib=$sysroot/usr/lib/s390x-linux-gnu
	(mkdir -p $obj && cd $obj &&
	 PKG_CONFIG=pkg-config PKG_CONFIG_LIBDIR=$lib/pkgconfig:$sysroot/usr/share/pkgconfig \
	 PKG_CONFIG_SYSROOT_DIR=$sysroot \
	 "$top/configure" -q --host=s390x-linux-gnu --with-crypto=builtin CFLAGS="-O2 -g" LDFLAGS=-static) ||
		{ echo "FAIL test-s390x: configure for s390x failed ($obj/config.log)"; exit 1; }
fi
make --no-print-directory D=s390x -j"${JOBS:-2}" all unit-bins > $obj/build.log 2>&1 ||
	{ tail -30 $obj/build.log; echo "FAIL test-s390x: the cross build failed ($obj/build.log)"; exit 1; }
file -L $obj/btrfs | grep -q 'MSB.*S/390' || { echo "FAIL test-s390x: $obj/btrfs is not a big-endian s390x binary"; exit 1; }
echo "built $obj/btrfs (s390x, big-endian, static) in $((SECONDS - t0))s"

# qemu wrappers: bin/btrfs (and its aliases), bin/unit/*-test, bin/tools/*, each running
# the s390x binary of the same name with the argv[0] it was called by.
bin=$top/$obj/bin
rm -rf "$bin"; mkdir -p "$bin/unit" "$bin/tools"
wrap() { # WRAPPER TARGET
	printf '#!/bin/sh\nexec qemu-s390x -0 "${0##*/}" %s "$@"\n' "$2" > "$1"
	chmod +x "$1"
}
wrap "$bin/btrfs" "$top/$obj/btrfs"
for a in mkfs.btrfs btrfs-image fsck.btrfs; do ln -s btrfs "$bin/$a"; done
for t in $obj/tests/*-test; do wrap "$bin/unit/${t##*/}" "$top/$t"; done
for t in $obj/tests/tools/*; do [ -x "$t" ] && [ "${t%.[od]}" = "$t" ] && wrap "$bin/tools/${t##*/}" "$top/$t"; done
"$bin/btrfs" --version | head -1

rc=0
JOBS=${JOBS:-2} BTRFS=$bin/btrfs NATIVE_BTRFS=$top/btrfs UNIT_DIR=$bin/unit TOOL_DIR=$bin/tools \
	tests/run.sh unit golden cross || rc=1
echo "test-s390x: $([ $rc = 0 ] && echo passed || echo FAILED) in $((SECONDS - t0))s"
exit $rc
