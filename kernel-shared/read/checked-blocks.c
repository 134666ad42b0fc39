// SPDX-License-Identifier: GPL-2.0
/*
 * The tree-checker's verdicts shared by readers: see checked-blocks.h.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/checked-blocks.h"
#include "kernel-shared/read/ctree.h"

/* 2^17 entries of 16 bytes: 2 MiB, touched only as used; about 2 GiB of 16K blocks */
#define CHECKED_SLOTS (1U << 17)

struct checked_entry {
	u64 bytenr;     /* 0 empty */
	u64 tag;        /* checksum and generation */
};

struct btrfs_checked_blocks {
	pthread_mutex_t lock;
	struct checked_entry *slot;
};

struct btrfs_checked_blocks *btrfs_checked_blocks_new(void)
{
	struct btrfs_checked_blocks *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->slot = calloc(CHECKED_SLOTS, sizeof(*c->slot));
	if (!c->slot) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void btrfs_checked_blocks_free(struct btrfs_checked_blocks *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->slot);
	free(c);
}

static u64 tag_of(const struct extent_buffer *eb)
{
	const struct btrfs_header *h = btrfs_header(eb);
	u64 a, b;

	memcpy(&a, h->csum, sizeof(a));
	memcpy(&b, h->csum + sizeof(a), sizeof(b));
	return a ^ (b * 0x9e3779b97f4a7c15ULL) ^ (btrfs_header_generation(h) * 0xff51afd7ed558ccdULL);
}

static struct checked_entry *slot_of(struct btrfs_checked_blocks *c, u64 bytenr)
{
	return &c->slot[((bytenr >> 12) * 0x9e3779b97f4a7c15ULL >> 40) & (CHECKED_SLOTS - 1)];
}

bool btrfs_checked_blocks_has(struct btrfs_checked_blocks *c, const struct extent_buffer *eb)
{
	struct checked_entry *e;
	bool hit;

	if (!c || !eb->start)
		return false;
	e = slot_of(c, eb->start);
	pthread_mutex_lock(&c->lock);
	hit = e->bytenr == eb->start && e->tag == tag_of(eb);
	pthread_mutex_unlock(&c->lock);
	return hit;
}

void btrfs_checked_blocks_add(struct btrfs_checked_blocks *c, const struct extent_buffer *eb)
{
	struct checked_entry *e;

	if (!c || !eb->start)
		return;
	e = slot_of(c, eb->start);
	pthread_mutex_lock(&c->lock);
	e->bytenr = eb->start;
	e->tag = tag_of(eb);
	pthread_mutex_unlock(&c->lock);
}
