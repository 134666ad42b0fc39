#!/bin/bash
# Install the Debian packages the build, the tests and the benchmarks need (only the missing ones).
set -eu
pkgs="build-essential autoconf automake pkg-config uuid-dev libblkid-dev zlib1g-dev
      libkeyutils-dev keyutils libgcrypt20-dev libsodium-dev libssl-dev libzstd-dev liblzo2-dev
      libisal-dev libxxhash-dev libb2-dev btrfs-progs xz-utils python3 util-linux time
      python3-docutils"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
