#!/bin/bash
# Crypto providers: btrfs --version names the configured one; then every
# provider whose library is installed (libgcrypt, libsodium, openssl and
# builtin) is configured in a scratch copy of the sources (the real
# ./configure, so its summary and config.h are what a user gets) and the
# crypto unit test is built against it and run: vectors, keyed forms and the
# cross-check against the reference, through the library implementation.
. "$TOP/tests/lib/common.sh"

[ -x "$TOP/configure" ] || _skip "no ./configure (run ./autogen.sh)"
configured=$(sed -n 's/^#define CRYPTOPROVIDER "\(.*\)"/\1/p' "$TOP/config.h")
[ -n "$configured" ] || _fail "config.h has no CRYPTOPROVIDER"
"$BTRFS" --version > "$T/version"
assert_grep "CRYPTO=$configured\$" "$T/version"

src=$T/src
mkdir -p "$src/tests"
cp -r "$TOP/configure" "$TOP/config.h.in" "$TOP/config.mk.in" "$TOP/btrfs.c" "$TOP/crypto" "$src/"
cp -r "$TOP/tests/unit" "$src/tests/"
built=0
for p in builtin libgcrypt libsodium openssl; do
	case $p in
	libgcrypt) mod=libgcrypt ;;
	libsodium) mod=libsodium ;;
	openssl) mod=libcrypto ;;
	*) mod= ;;
	esac
	if [ -n "$mod" ] && ! pkg-config --exists "$mod"; then
		echo "provider $p: $mod not installed, not built"
		continue
	fi
	(cd "$src" && ./configure --with-crypto=$p > "$T/configure-$p.log" 2>&1) ||
		{ cat "$T/configure-$p.log"; _fail "configure --with-crypto=$p"; }
	assert_grep "crypto provider: *$p" "$T/configure-$p.log"
	if [ $p = openssl ]; then
		assert_grep "unkeyed blake2b: builtin" "$T/configure-$p.log"
	fi
	libs=$(sed -n 's/^CONFIG_LIBS = //p' "$src/config.mk" | grep -o -- '-l\(gcrypt\|sodium\|crypto\)' || true)
	flags=$(sed -n 's/^CONFIG_CFLAGS = //p' "$src/config.mk")
	(cd "$src" && ${CC:-gcc} -std=gnu11 -O1 -D_GNU_SOURCE -I. -include config.h -Wall -Wextra \
		-Wno-unused-parameter -Wno-missing-field-initializers -Werror $flags \
		-o "$T/hash-test-$p" crypto/*.c tests/unit/crypto-hash-test.c $libs) ||
		_fail "build of the crypto unit test with --with-crypto=$p"
	"$T/hash-test-$p" > "$T/test-$p.log" 2>&1 || { tail -20 "$T/test-$p.log"; _fail "crypto unit test with $p"; }
	assert_grep "provider=$p" "$T/test-$p.log"
	case $p in
	libgcrypt) assert_grep "sha256=lib-gcrypt .*blake2b=lib-gcrypt hmac-sha256=lib-gcrypt blake2b-keyed=lib-gcrypt" "$T/test-$p.log" ;;
	libsodium) assert_grep "sha256=lib-sodium .*blake2b=lib-sodium hmac-sha256=lib-sodium blake2b-keyed=lib-sodium" "$T/test-$p.log" ;;
	openssl) assert_grep "sha256=lib-openssl blake2b=simd-avx2\|sha256=lib-openssl blake2b=ref\|sha256=lib-openssl blake2b=simd-avx512vl" "$T/test-$p.log"
		 assert_grep "hmac-sha256=lib-openssl blake2b-keyed=lib-openssl" "$T/test-$p.log" ;;
	esac
	echo "provider $p: $(grep -m1 'default impls' "$T/test-$p.log" | sed 's/^ *//')"
	built=$((built + 1))
done
[ $built -ge 2 ] || _skip "fewer than two crypto providers installed"
exit 0
