/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Authentication keys for keyed checksum types, by name from the kernel
 * keyring (never as bytes on the command line).  The key is a "user" key:
 * request_key() first, then a search of the user, user-session and session
 * keyrings; its payload (binary allowed) is the key.  A "logon" key cannot
 * be read from userspace and is refused with a hint.
 */
#ifndef BTRFS_KIT_AUTH_KEY_H
#define BTRFS_KIT_AUTH_KEY_H

#include <stddef.h>
#include "kernel-shared/format/kerncompat.h"

struct auth_key {
	u8 *bytes;		/* payload, NULL when none loaded */
	size_t len;
};

/*
 * Load key @name into @key, printing why not on failure: -ENOKEY (no such
 * key), -EOPNOTSUPP (a logon key), -EACCES (found but not readable:
 * permissions, or a keyring not linked to this process), -ENODATA (empty),
 * or another negative errno from the keyring (revoked, expired).
 */
int auth_key_load(const char *name, struct auth_key *key);
/* Wipe the key bytes (explicit_bzero) and free them; @key may be empty. */
void auth_key_wipe(struct auth_key *key);

/*
 * Exit statuses of the keyed outcomes, beside 0 (valid) and 1 (damage found,
 * or the command could not run); documented in Documentation/btrfs-check.rst
 * and ch-checksumming.rst.
 */
#define AUTH_EXIT_ALTERED	3	/* a block changed by someone without the key */
#define AUTH_EXIT_WRONG_KEY	4	/* "wrong key for this filesystem" */
#define AUTH_EXIT_NO_KEY	5	/* keyed type and no usable key */

struct btrfs_open_args;
struct btrfs_fs_info;
/*
 * btrfs_open_fs() with key @name (--auth-key; NULL for none) loaded,
 * handed to the library and wiped.  Returns btrfs_open_fs()'s result, or
 * -ENOKEY when the key cannot be loaded (after auth_key_load()'s message).
 */
int auth_open_fs(const char *name, const struct btrfs_open_args *args, struct btrfs_fs_info **out);
/*
 * The exit status for a failed auth_open_fs(): AUTH_EXIT_WRONG_KEY,
 * AUTH_EXIT_NO_KEY, AUTH_EXIT_ALTERED (an authsum superblock altered
 * without the key) or 1.
 */
int auth_open_exit_status(int ret);

#endif
