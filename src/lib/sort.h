/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_SORT_H
#define IODIG_SORT_H

#include <stdlib.h>

/* qsort() for an array that may be empty and never allocated: qsort's
 * base must not be NULL even for no elements (C11 7.22.5; UBSan stops on
 * it, as `top` with nothing to show did under `make asan`). */
static inline void sort__any(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
