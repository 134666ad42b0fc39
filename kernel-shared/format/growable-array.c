// SPDX-License-Identifier: GPL-2.0
/* Growable arrays (see growable-array.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/format/growable-array.h"

/* Capacity of a first allocation: small arrays are the common case. */
#define GROWABLE_FIRST 8

int btrfs_array_reserve(void *arrp, size_t *alloc, size_t want, size_t elem, size_t max_alloc)
{
	size_t n;
	void *old, *p;

	if (want <= *alloc)
		return 0;
	if (!elem || want > max_alloc || want > SIZE_MAX / elem)
		return -ENOMEM;
	n = *alloc ? *alloc : GROWABLE_FIRST;
	if (n > max_alloc)
		n = max_alloc;
	while (n < want)
		n = n > max_alloc / 2 ? max_alloc : n * 2;
	if (n > SIZE_MAX / elem)
		n = want;
	/* arrp may point to any object pointer type: copy it through bytes */
	memcpy(&old, arrp, sizeof(old));
	p = realloc(old, n * elem);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*alloc = n;
	return 0;
}
