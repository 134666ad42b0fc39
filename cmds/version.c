// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "cmds/commands.h"

static const char *const cmd_version_usage[] = {
	"btrfs version",
	"Display btrfs-kit version and build features",
	NULL
};

const char *btrfs_build_features(void)
{
	return ""
#ifdef HAVE_LZO
		"+LZO "
#else
		"-LZO "
#endif
#ifdef HAVE_ZSTD
		"+ZSTD "
#else
		"-ZSTD "
#endif
#if defined(__SANITIZE_ADDRESS__)
		"+ASAN "
#else
		"-ASAN "
#endif
		"CRYPTO=" CRYPTOPROVIDER;
}

static int cmd_version(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	printf("%s v%s\n%s\n", PACKAGE_NAME, PACKAGE_VERSION, btrfs_build_features());
	return 0;
}
DEFINE_COMMAND(version, "version", NULL, 0);
