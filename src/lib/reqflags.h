/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Request operations and flags (the cmd_flags of struct request and the
 * bi_opf of struct bio), decoded from the running kernel's BTF: enum req_op
 * (enum req_opf before 6.0) and enum req_flag_bits.  A copied table goes
 * wrong silently when the kernel renumbers them (REQ_OP_WRITE_ZEROES,
 * REQ_OP_ZONE_* and __REQ_* have all moved over the years).
 */
#ifndef IODIG_REQFLAGS_H
#define IODIG_REQFLAGS_H

#include <stddef.h>
#include <stdint.h>

struct btf;

#define REQ_MAX_OPS 256
#define REQ_MAX_FLAGS 32

struct reqflags {
	unsigned int op_bits;
	char *ops[REQ_MAX_OPS];		/* "read", "write", "write-zeroes", ... */
	char *flags[REQ_MAX_FLAGS];	/* by bit: "sync", "meta", "fua", ... */
};

/* btf NULL: the running kernel's (/sys/kernel/btf/vmlinux). */
int reqflags__load(struct reqflags *rf, const struct btf *btf);
void reqflags__free(struct reqflags *rf);
uint32_t reqflags__op(const struct reqflags *rf, uint32_t cmd_flags);
const char *reqflags__op_name(const struct reqflags *rf, uint32_t cmd_flags, char *buf, size_t len);
/* The flags, space-separated ("sync fua"), "" for none. */
const char *reqflags__flags_str(const struct reqflags *rf, uint32_t cmd_flags, char *buf, size_t len);
/* The names as text ("op 1 write", "flag 11 sync" lines), for a recording;
 * malloc'd.  And back: 0 or -EINVAL. */
char *reqflags__to_text(const struct reqflags *rf);
int reqflags__from_text(struct reqflags *rf, const char *text, size_t len);
/* Bit number of a flag by name ("preflush"), or -1. */
int reqflags__bit(const struct reqflags *rf, const char *name);

/*
 * A request's blk_status_t by name: "ok", "ioerr", "nospc", ...  blk_status_t
 * is a set of #defines, not an enum, so BTF does not carry it.  Values 0 to
 * 13 have kept their numbers since 4.19 (BLK_STS_DEV_RESOURCE); those above
 * were renumbered when BLK_STS_ZONE_RESOURCE was removed (6.10) and are
 * shown as "status-N" rather than guessed.
 */
const char *reqflags__status(int status, char *buf, size_t len);

#endif
