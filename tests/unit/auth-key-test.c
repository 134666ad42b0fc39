// SPDX-License-Identifier: GPL-2.0
/*
 * common/auth-key: keys by name from a fresh anonymous session keyring
 * (joined here, so nothing leaks into the caller's keyrings): a binary user
 * key with zero bytes, a missing key, a logon key, a key without read
 * permission (a possessed searchable key stays readable: view only), each
 * with its errno; wiping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <keyutils.h>
#include "tests/unit/unit.h"
#include "common/auth-key.h"

static void test_keys(void)
{
	static const u8 bin[] = { 'k', 0, 0xff, 0, 'y' };
	struct auth_key key;
	key_serial_t id;

	id = add_key("user", "btrfs-kit-unit", bin, sizeof(bin), KEY_SPEC_SESSION_KEYRING);
	CHECK(id > 0);
	CHECK_EQ_U64(auth_key_load("btrfs-kit-unit", &key), 0);
	CHECK_EQ_U64(key.len, sizeof(bin));
	CHECK_MEM(key.bytes, bin, sizeof(bin));
	auth_key_wipe(&key);
	CHECK(key.bytes == NULL && key.len == 0);
	auth_key_wipe(&key);	/* twice is harmless */

	CHECK_EQ_U64(auth_key_load("btrfs-kit-unit-missing", &key), (u64)-ENOKEY);
	CHECK(key.bytes == NULL);

	CHECK(add_key("logon", "btrfs:unit", "secret", 6, KEY_SPEC_SESSION_KEYRING) > 0);
	CHECK_EQ_U64(auth_key_load("btrfs:unit", &key), (u64)-EOPNOTSUPP);

	id = add_key("user", "btrfs-kit-unit-noread", "x", 1, KEY_SPEC_SESSION_KEYRING);
	CHECK(id > 0);
	CHECK(keyctl_setperm(id, KEY_POS_VIEW | KEY_USR_VIEW) == 0);
	CHECK_EQ_U64(auth_key_load("btrfs-kit-unit-noread", &key), (u64)-EACCES);
	CHECK(key.bytes == NULL);
}

int main(void)
{
	if (keyctl_join_session_keyring(NULL) < 0) {
		const char *ci = getenv("CI");

		printf("SKIP: no kernel keyring: %m\n");
		return ci && !strcmp(ci, "true") ? 1 : 77;
	}
	RUN(test_keys);
	return unit_done();
}
