/* SPDX-License-Identifier: GPL-2.0 */
/* Strings from the kernel (task names, sysfs values) made safe to print:
 * a task can name itself anything, escape sequences included. */
#ifndef IODIG_TEXT_H
#define IODIG_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when the
 * bytes there are not one (stray continuation, overlong, surrogate, past
 * U+10FFFF, cut short). */
size_t text__utf8_len(const unsigned char *p);
/* s for a terminal: control bytes, DEL, C1 controls and bytes that are not
 * UTF-8 become \xNN, a backslash becomes \\; the rest (printable ASCII and
 * well-formed UTF-8) is kept.  Cut to fit len; returns buf. */
const char *text__safe(const char *s, char *buf, size_t len);
/* Room text__safe() needs for a string of n bytes. */
#define TEXT_SAFE_LEN(n) (4 * (n) + 1)
/* A system call's return as people read it: an errno's name (ENOENT) for
 * -4095..-1, else the number. */
const char *text__ret(int64_t ret, char *buf, size_t len);

/* v in decimal at b (room for 20 bytes), not terminated; its length.
 * printf's %llu without printf: for the printers' hot path. */
size_t text__u64(char *b, uint64_t v);

/* s is a decimal number: digits, and with fraction a dot and digits after them. */
bool text__is_decimal(const char *s, bool fraction);

#endif
