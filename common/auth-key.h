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
#include "lib/format/kerncompat.h"

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

#endif
