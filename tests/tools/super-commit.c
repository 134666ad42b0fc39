// SPDX-License-Identifier: GPL-2.0
/*
 * Commit transactions that change nothing in any tree: only the superblock
 * label (with -L), or nothing at all.  For testing that such a commit still
 * leaves a valid generation (a root tree block of it).
 *
 *   super-commit [-L LABEL] [-c COMMITS] DEVICE
 *
 *   -L  set the label in the superblock in each commit
 *   -c  commits, one after the other (default 1)
 *
 * Prints "generation G blocks B" after each commit (B tree blocks written).
 * Exit 0, 1 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

int main(int argc, char **argv)
{
	struct btrfs_open_args args = { 0 };
	struct btrfs_commit_stats st;
	struct btrfs_fs_info *fs;
	const char *label = NULL;
	long commits = 1;
	int opt, ret = 0;

	while ((opt = getopt(argc, argv, "L:c:")) != -1) {
		switch (opt) {
		case 'L': label = optarg; break;
		case 'c': commits = atol(optarg); break;
		default: ret = 1; break;
		}
	}
	if (ret || optind != argc - 1 || commits < 1 ||
	    (label && strlen(label) >= BTRFS_LABEL_SIZE)) {
		fprintf(stderr, "usage: super-commit [-L LABEL] [-c COMMITS] DEVICE\n");
		return 1;
	}
	args.devices = argv + optind;
	args.ndevices = 1;
	args.writable = true;
	if (btrfs_open_fs(&args, &fs) < 0)
		return 1;
	for (long c = 0; c < commits && ret == 0; c++) {
		struct btrfs_trans *t;

		ret = btrfs_start_transaction(fs, &t);
		if (ret)
			break;
		/* the commit writes fs->super with its own changes added */
		if (label) {
			memset(fs->super->label, 0, BTRFS_LABEL_SIZE);
			memcpy(fs->super->label, label, strlen(label));
		}
		ret = btrfs_commit_transaction_stats(t, &st);
		if (ret == 0)
			printf("generation %llu blocks %llu\n", btrfs_super_generation(fs->super),
			       st.blocks_written);
	}
	btrfs_close_fs(fs);
	return ret ? 1 : 0;
}
