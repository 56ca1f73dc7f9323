// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "rows.h"

void *rows__get(void **rows, size_t *n, size_t *cap, size_t row_size, const void *key, size_t key_size)
{
	char *r = *rows;

	for (size_t i = 0; i < *n; i++)
		if (!memcmp(r + i * row_size, key, key_size))
			return r + i * row_size;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;

		if (!(r = realloc(r, c * row_size)))
			return NULL;
		*rows = r;
		*cap = c;
	}
	r += (*n)++ * row_size;
	memset(r, 0, row_size);
	memcpy(r, key, key_size);
	return r;
}
