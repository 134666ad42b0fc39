#!/bin/bash
# Install the Debian packages the build, the tests and the benchmarks need (only the missing ones).
#   tests/install-deps.sh                  the native build, tests and benchmarks
#   tests/install-deps.sh s390x SYSROOT    the big-endian cross build (make test-s390x): the
#       cross compiler, qemu-user, sparse (tests/cross/001's static endianness check), and
#       the s390x libraries unpacked into SYSROOT (apt-get
#       download + dpkg -x; installing them as multiarch packages would tie them to the exact
#       versions of the host's own libraries, which security updates move apart)
set -eu
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_install() { # PACKAGE...: install those not installed yet
	local p missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "installing:$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
}

if [ "${1:-}" = s390x ]; then
	sysroot=${2:?usage: install-deps.sh s390x SYSROOT}
	apt_install gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user pkg-config autoconf sparse
	# library packages (-dev with the static library, and its runtime package for the headers'
	# companions); builtin crypto, so no crypto library
	libs="uuid-dev libuuid1 libblkid-dev libblkid1 zlib1g-dev zlib1g libkeyutils-dev libkeyutils1
	      libzstd-dev libzstd1 liblzo2-dev liblzo2-2"
	[ -f "$sysroot/.complete" ] && exit 0
	if ! dpkg --print-foreign-architectures | grep -qx s390x; then
		echo "adding the s390x architecture to dpkg (for apt-get download of s390x packages)"
		$SUDO dpkg --add-architecture s390x
		$SUDO apt-get update -qq
	fi
	apt-cache show zlib1g-dev:s390x > /dev/null 2>&1 || $SUDO apt-get update -qq
	rm -rf "$sysroot"; mkdir -p "$sysroot/debs"
	(cd "$sysroot/debs" && apt-get download -q $(printf '%s:s390x ' $libs) 2>&1 | grep -v '^Get:\|unsandboxed' || :)
	for d in "$sysroot"/debs/*.deb; do dpkg -x "$d" "$sysroot"; done
	[ -f "$sysroot/usr/lib/s390x-linux-gnu/libblkid.a" ] || { echo "s390x libraries missing in $sysroot" >&2; exit 1; }
	touch "$sysroot/.complete"
	exit 0
fi

apt_install build-essential autoconf automake pkg-config uuid-dev libblkid-dev zlib1g-dev \
	libkeyutils-dev keyutils libgcrypt20-dev libsodium-dev libssl-dev libzstd-dev liblzo2-dev \
	libisal-dev libxxhash-dev libb2-dev btrfs-progs xz-utils python3 util-linux time \
	python3-docutils
