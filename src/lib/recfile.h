/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording (iodig slow|snoop --record FILE, read by iodig replay): the raw
 * records as the BPF side wrote them, plus what decoding them needs on
 * another machine.  A file is "IODIGREC" and a version, then frames:
 *
 *   struct recfile_frame { u32 type; u32 size; u32 crc; } then size bytes
 *
 * crc is zlib's crc32 of type, size and the payload: a reader refuses a
 * frame whose bytes changed, and says at which offset (version 3; a
 * version 2 file, with no crc, is still read).  Every reader stops at the
 * first damaged or cut frame, prints what came before, and exits 1.
 *
 * A frame's type is a BPF record type (REC_REQ, REC_SYSFS_*: life.h), whose
 * payload is that record as it came from the ring buffer, or one of the
 * RECF_* tables below.  The tables are text, "key value" lines, so a reader
 * needs no struct layout for them; the records and the summary are the
 * structs of this version of iodig (the version says which).
 */
#ifndef IODIG_RECFILE_H
#define IODIG_RECFILE_H

#include <stdint.h>
#include <stdio.h>

#define RECFILE_MAGIC "IODIGREC"
#define RECFILE_VERSION 3	/* 2: request records carry stack ids; 3: frames carry a crc32 */
#define RECFILE_MAX_FRAME (1U << 20)

enum recfile_type {
	RECF_META = 0x10000,	/* command, clocks, column widths, kernel */
	RECF_REQFLAGS,		/* op and flag names, from the recording kernel's BTF */
	RECF_DISKS,		/* device number and name of every disk */
	RECF_SUMMARY,		/* the command's end-of-run counters */
	RECF_STACK,		/* -K/-U: a stack as named when recorded (frames__to_text),
				 * before the first request that carries its id */
	RECF_KMEMO,		/* -K: how the kernel stacks were taken (struct kmemo_stats),
				 * before the summary */
};

struct recfile_frame {
	uint32_t type;
	uint32_t size;
	uint32_t crc;		/* version 3 */
};

struct recfile {
	FILE *f;
	void *buf;		/* reading: the last frame's payload */
	uint32_t cap;
	int writing;
	uint32_t version;	/* reading: the file's */
	uint64_t off;		/* reading: where the last frame (or the damage) began */
};

/* Writing.  Each returns 0 or -errno. */
int recfile__create(struct recfile *r, const char *path);
int recfile__write(struct recfile *r, uint32_t type, const void *data, uint32_t size);
/* Reading: 0 or -errno (-EINVAL: not an iodig recording, or another version). */
int recfile__open(struct recfile *r, const char *path);
/* 1 and the next frame (data valid until the next call), 0 at the end,
 * -EIO for a frame cut short (a recording whose writer was killed), or
 * -EBADMSG for a damaged one (its crc, or a size no writer makes). */
int recfile__next(struct recfile *r, uint32_t *type, const void **data, uint32_t *size);
/* What a reader says about an error of recfile__next: "cut short at byte N",
 * "damaged at byte N (...)", else strerror. */
const char *recfile__why(const struct recfile *r, int err, char *buf, size_t len);
/* 0, or -EIO when what was written could not all reach the file. */
int recfile__close(struct recfile *r);

#endif
