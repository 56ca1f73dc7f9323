// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

int recfile__write(struct recfile *r, uint32_t type, const void *data, uint32_t size)
{
	struct recfile_frame h = { type, size };

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
	    fread(&v, sizeof(v), 1, r->f) != 1 || v != RECFILE_VERSION)
		return -EINVAL;
	return 0;
}

int recfile__next(struct recfile *r, uint32_t *type, const void **data, uint32_t *size)
{
	struct recfile_frame h;
	size_t got = fread(&h, 1, sizeof(h), r->f);

	if (got == 0 && feof(r->f))
		return 0;
	if (got != sizeof(h) || h.size > RECFILE_MAX_FRAME)
		return -EIO;
	if (h.size > r->cap) {
		void *b = realloc(r->buf, h.size);

		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap = h.size;
	}
	if (h.size && fread(r->buf, h.size, 1, r->f) != 1)
		return -EIO;
	*type = h.type;
	*size = h.size;
	*data = r->buf;
	return 1;
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
