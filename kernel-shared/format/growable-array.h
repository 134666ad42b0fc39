/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growable arrays: a pointer, a count in use and a count allocated, grown
 * geometrically (doubling) by realloc.  The one way the library and the
 * tools grow an array:
 *
 *	if (ARRAY_GROW(t->items, t->nr_items, t->alloc_items))
 *		return -ENOMEM;
 *	t->items[t->nr_items++] = item;
 *
 * The counts may be of any integer type; a size that overflows size_t or the
 * allocated count's own type fails with -ENOMEM like an exhausted realloc,
 * and on failure the array and its counts are left as they were.
 */
#ifndef BTRFS_KIT_GROWABLE_ARRAY_H
#define BTRFS_KIT_GROWABLE_ARRAY_H

#include <stddef.h>

/*
 * Make *arrp (an array of elem-byte elements, *alloc of them allocated) hold
 * at least want elements, never more than max_alloc: 0 or -ENOMEM.  arrp is
 * the address of the array pointer (any object pointer type).
 */
int btrfs_array_reserve(void *arrp, size_t *alloc, size_t want, size_t elem, size_t max_alloc);

/* The largest value an integer lvalue's type holds, as a size_t. */
#define GROWABLE_TYPE_MAX(x) \
	((typeof(x))-1 > (typeof(x))0 ? (size_t)(typeof(x))-1 : \
	 (size_t)((((typeof(x))1 << (sizeof(x) * 8 - 2)) - 1) * 2 + 1))

/* Room for want elements in arr (alloc allocated): 0 or -ENOMEM. */
#define ARRAY_RESERVE(arr, alloc, want) __extension__ ({                      \
	size_t _ga_alloc = (size_t)(alloc);                                   \
	int _ga_ret = btrfs_array_reserve(&(arr), &_ga_alloc, (want),         \
					  sizeof(*(arr)), GROWABLE_TYPE_MAX(alloc)); \
	if (!_ga_ret)                                                         \
		(alloc) = _ga_alloc;                                          \
	_ga_ret;                                                              \
})

/* Room for one more element after the nr in use: 0 or -ENOMEM. */
#define ARRAY_GROW(arr, nr, alloc) ARRAY_RESERVE(arr, alloc, (size_t)(nr) + 1)

#endif
