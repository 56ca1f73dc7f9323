/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flame graph written by iodig itself: stacks merged into a tree (root
 * first), drawn as one self-contained SVG (no network, no external script):
 * hover names a frame with its count and share, click zooms into it, click
 * the root (or Escape) zooms out.  Written from scratch; flamegraph.pl is
 * CDDL.
 */
#ifndef IODIG_FLAME_H
#define IODIG_FLAME_H

#include <stdint.h>
#include <stdio.h>

struct flame_node;

struct flame {
	struct flame_node *root;
};

int flame__init(struct flame *f);
/* One stack, root first (frames[0] is the outermost), seen value times.
 * kernel[i]: frame i is the kernel's (drawn in another colour).  0 or -ENOMEM. */
int flame__add(struct flame *f, const char *const *frames, const unsigned char *kernel, int n,
	       uint64_t value);
/* The SVG, width px wide; title on top, unit names the values ("bios"). */
int flame__svg(const struct flame *f, FILE *out, const char *title, const char *unit, int width);
void flame__free(struct flame *f);

#endif
