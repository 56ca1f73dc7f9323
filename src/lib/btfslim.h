/* SPDX-License-Identifier: GPL-2.0 */
/* vmlinux BTF cut down to what iodig asks of it, every type ID kept
 * (btfslim.c says what is kept and why). */
#ifndef IODIG_BTFSLIM_H
#define IODIG_BTFSLIM_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/* The names iodig's BPF objects give types, sorted: written by the build
 * (scripts/btf-roots) into the binary, not into src/lib. */
extern const char *const btf_roots[];
extern const unsigned int btf_roots_n;

struct btfslim_stats {
	uint32_t types, kept;	/* IDs in all, and kept whole */
	uint32_t ids;		/* IDs in the BTF made: to the last kept or referred to */
	size_t kept_bytes;	/* the kept types' own, without their names */
	size_t bytes;		/* the BTF made, its strings included */
};

/* From raw vmlinux BTF of size bytes, mapped at map or else read from fd,
 * a BTF of its own that keeps the types named in roots (sorted by strcmp)
 * and what btfslim.c says; NULL with errno set when the data is not BTF
 * this code reads (then use the whole). */
struct btf *btfslim__new(const void *map, int fd, size_t size, const char *const *roots, unsigned int nroots,
			 struct btfslim_stats *st);

/* The offsets in DATASEC sec (".data..percpu") of the variables names[0..n)
 * (n <= BTFSLIM_VARS; -1: not there), from the same raw BTF, streamed: the
 * slim BTF keeps no variables.  0, or -errno. */
#define BTFSLIM_VARS 4
int btfslim__var_offs(const void *map, int fd, size_t size, const char *sec, const char *const *names,
		      unsigned int n, long long *offs);

#endif
