/* SPDX-License-Identifier: GPL-2.0 */
/* Rows a command keeps from report to report (running totals and their
 * last values), found by their key: the first key_size bytes of a row. */
#ifndef IODIG_ROWS_H
#define IODIG_ROWS_H

#include <stddef.h>

/* The row with this key, or a new one (zeroed, the key copied in); NULL
 * when out of memory.  *rows may move: pointers into it do not last. */
void *rows__get(void **rows, size_t *n, size_t *cap, size_t row_size, const void *key, size_t key_size);

#endif
