// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "recfile.h"
#include "run.h"

int recfile__create(struct recfile *r, const char *path)
{
	uint32_t v = RECFILE_VERSION;

	*r = (struct recfile){ .f = fopen(path, "wb") };
	if (!r->f)
		return -errno;
	if (fwrite(RECFILE_MAGIC, 1, 8, r->f) != 8 || fwrite(&v, sizeof(v), 1, r->f) != 1)
		return -errno;
	/* flushed with stdout after each drain: on disk within the drain period */
	run__add_output(r->f, path);
	r->writing = 1;
	return 0;
}

/* A frame's crc: of its type and size, then its payload. */
static uint32_t frame_crc(uint32_t type, uint32_t size, const void *data)
{
	uint32_t ts[2] = { type, size };
	uLong c = crc32(0L, (const Bytef *)ts, sizeof(ts));

	return (uint32_t)(size ? crc32(c, data, size) : c);
}

int recfile__write(struct recfile *r, uint32_t type, const void *data, uint32_t size)
{
	struct recfile_frame h = { type, size, frame_crc(type, size, data) };

	if (fwrite(&h, sizeof(h), 1, r->f) != 1 || (size && fwrite(data, size, 1, r->f) != 1))
		return -EIO;
	return 0;
}

int recfile__open(struct recfile *r, const char *path)
{
	char magic[8];
	uint32_t v;

	*r = (struct recfile){ .f = fopen(path, "rb") };
	if (!r->f)
		return -errno;
	if (fread(magic, 1, 8, r->f) != 8 || memcmp(magic, RECFILE_MAGIC, 8) ||
	    fread(&v, sizeof(v), 1, r->f) != 1 || (v != RECFILE_VERSION && v != 2))
		return -EINVAL;
	r->version = v;
	r->off = 12;
	return 0;
}

int recfile__next(struct recfile *r, uint32_t *type, const void **data, uint32_t *size)
{
	struct recfile_frame h = {};
	size_t hs = r->version >= 3 ? sizeof(h) : 2 * sizeof(uint32_t);
	size_t got = fread(&h, 1, hs, r->f);

	if (got == 0 && feof(r->f))
		return 0;
	if (got != hs)
		return -EIO;
	if (h.size > RECFILE_MAX_FRAME)
		return -EBADMSG;	/* no writer makes one: a size damaged */
	if (h.size > r->cap) {
		void *b = realloc(r->buf, h.size);

		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap = h.size;
	}
	if (h.size && fread(r->buf, h.size, 1, r->f) != 1)
		return -EIO;
	if (r->version >= 3 && h.crc != frame_crc(h.type, h.size, r->buf))
		return -EBADMSG;
	r->off += hs + h.size;
	*type = h.type;
	*size = h.size;
	*data = r->buf;
	return 1;
}

const char *recfile__why(const struct recfile *r, int err, char *buf, size_t len)
{
	if (err == -EIO)
		snprintf(buf, len, "cut short at byte %llu", (unsigned long long)r->off);
	else if (err == -EBADMSG)
		snprintf(buf, len, "damaged at byte %llu (a frame whose checksum or size is wrong)",
			 (unsigned long long)r->off);
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

int recfile__close(struct recfile *r)
{
	int err = 0;

	if (r->f && r->writing)
		run__remove_output(r->f);
	if (r->f && (ferror(r->f) | fclose(r->f)) && r->writing)
		err = -EIO;
	free(r->buf);
	*r = (struct recfile){};
	return err;
}
