// SPDX-License-Identifier: GPL-2.0
/* Authentication keys from the kernel keyring (libkeyutils). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <keyutils.h>
#include "common/auth-key.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/ctree.h"

/* The serial of key @type:@name reachable by this process, or -errno. */
static key_serial_t find_key(const char *type, const char *name)
{
	static const key_serial_t rings[] = {
		KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING, KEY_SPEC_SESSION_KEYRING,
	};
	key_serial_t id;
	int first;

	id = request_key(type, name, NULL, 0);
	if (id >= 0)
		return id;
	first = errno;
	for (size_t i = 0; i < ARRAY_SIZE(rings); i++) {
		id = keyctl_search(rings[i], type, name, 0);
		if (id >= 0)
			return id;
	}
	return -first;
}

static void hint_user_key(const char *name)
{
	note("add it as a user key: keyctl add user %s DATA @s, or for a binary key: "
	     "keyctl padd user %s @s < keyfile", name, name);
}

static int not_readable(const char *name)
{
	error("key '%s' is not readable: it lacks search or read permission for this user, "
	      "or its keyring is not linked to this process (e.g. keyctl link @u @s)", name);
	return -EACCES;
}

int auth_key_load(const char *name, struct auth_key *key)
{
	key_serial_t id;
	void *buf = NULL;
	long len;

	key->bytes = NULL;
	key->len = 0;
	id = find_key("user", name);
	if (id < 0) {
		if (find_key("logon", name) >= 0) {
			error("key '%s' is a logon key: its payload cannot be read from userspace",
			      name);
			hint_user_key(name);
			return -EOPNOTSUPP;
		}
		if (id == -ENOKEY) {
			error("no user key '%s' in the keyrings of this process (session, user)",
			      name);
			hint_user_key(name);
			return -ENOKEY;
		}
		if (id == -EACCES)
			return not_readable(name);
		error_errno(-id, "key '%s'", name);
		return id;
	}
	len = keyctl_read_alloc(id, &buf);
	if (len < 0) {
		int err = errno;

		if (err == EACCES || err == EPERM)
			return not_readable(name);
		error_errno(err, "cannot read key '%s' (serial %d)", name, id);
		return -err;
	}
	if (len == 0) {
		free(buf);
		error("key '%s' is empty", name);
		return -ENODATA;
	}
	key->bytes = buf;
	key->len = (size_t)len;
	return 0;
}

void auth_key_wipe(struct auth_key *key)
{
	if (key->bytes) {
		explicit_bzero(key->bytes, key->len);
		free(key->bytes);
	}
	key->bytes = NULL;
	key->len = 0;
}

int auth_open_fs(const char *name, const struct btrfs_open_args *args, struct btrfs_fs_info **out)
{
	struct btrfs_open_args with_key = *args;
	struct auth_key key = { 0 };
	int ret;

	*out = NULL;
	if (name) {
		if (auth_key_load(name, &key) < 0)
			return -ENOKEY;
		with_key.auth_key = key.bytes;
		with_key.auth_key_len = key.len;
	}
	ret = btrfs_open_fs(&with_key, out);
	auth_key_wipe(&key);
	return ret;
}

int auth_open_exit_status(int ret)
{
	if (ret == -EKEYREJECTED)
		return AUTH_EXIT_WRONG_KEY;
	if (ret == -ENOKEY)
		return AUTH_EXIT_NO_KEY;
	if (ret == -EBADMSG)
		return AUTH_EXIT_ALTERED;
	return 1;
}
