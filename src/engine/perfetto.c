// SPDX-License-Identifier: GPL-2.0
/* replay --perfetto: requests of a recording as Chrome trace events. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "disks.h"
#include "fields.h"
#include "perfetto.h"

#define PF_DISK_PID 0x40000000u	/* disk tracks' pids, above any process's */

/* ---- Perfetto's trace events, declared once (fields.h) ---- */

/* one slice's begin or end ("b", "e"), or a process's name ("M") */
struct pf_view {
	const char *name, *cat, *ph;
	uint64_t id;
	uint32_t pid;
	int64_t ts_ns;		/* since the recording's start */
	bool has_args;
	/* a request's begin on its disk's track: what it was */
	uint64_t sector;
	uint32_t rpid;
	const char *comm;
	__u64 phase[PH_NR];
	const char *track;	/* "M": the track's name */
};

#define PV(f) offsetof(struct pf_view, f)

static void g_args(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct pf_view *)row)->has_args)
		v->k = V_BOOL;
}

static const struct field pf_args_fields[] = {
	{ "sector", FS_U64, PV(sector), .flags = FL_MAX_NULL },
	{ "pid", FS_U32, PV(rpid) },
	{ "comm", FS_PSTR, PV(comm) },
	{ "q2g_ns", FS_U64, PV(phase[PH_Q2G]) },
	{ "g2i_ns", FS_U64, PV(phase[PH_G2I]) },
	{ "i2d_ns", FS_U64, PV(phase[PH_I2D]) },
	{ "d2c_ns", FS_U64, PV(phase[PH_D2C]) },
	{ "q2c_ns", FS_U64, PV(phase[PH_Q2C]) },
};
static const struct rec pf_args_rec = REC(NULL, NULL, NULL, pf_args_fields);

static const struct field pf_event_fields[] = {
	{ "name", FS_PSTR, PV(name) },
	{ "cat", FS_PSTR, PV(cat) },
	{ "ph", FS_PSTR, PV(ph) },
	{ "id", FS_U64, PV(id) },
	{ "pid", FS_U32, PV(pid) },
	{ "tid", FS_U32, PV(pid) },
	{ "ts", FS_I64, PV(ts_ns), .flags = FL_MICROS },
	{ "args", FS_OBJ, .get = g_args, .sub = &pf_args_rec, .flags = FL_OMIT_NULL },
};
static const struct rec pf_event_rec = REC(NULL, NULL, NULL, pf_event_fields);

static const struct field pf_track_fields[] = {
	{ "name", FS_PSTR, PV(track) },
};
static const struct rec pf_track_rec = REC(NULL, NULL, NULL, pf_track_fields);

static const struct field pf_name_fields[] = {
	{ "name", FS_PSTR, PV(name) },
	{ "ph", FS_PSTR, PV(ph) },
	{ "pid", FS_U32, PV(pid) },
	{ "args", FS_OBJ, .sub = &pf_track_rec },
};
static const struct rec pf_name_rec = REC(NULL, NULL, NULL, pf_name_fields);

static void pf_event(struct perfetto *pf, struct pf_view *v, const char *name, const char *ph, uint32_t pid,
		     uint64_t ts_ns)
{
	struct fctx c = {};

	v->name = name;
	v->cat = "request";
	v->ph = ph;
	v->id = pf->id;
	v->pid = pid;
	v->ts_ns = (int64_t)(ts_ns - pf->t0);
	fields__json(&pf->j, &pf_event_rec, v, &c);
}

static void pf_name(struct perfetto *pf, uint32_t pid, const char *name)
{
	struct pf_view v = { .name = "process_name", .ph = "M", .pid = pid, .track = name };
	struct fctx c = {};

	fields__json(&pf->j, &pf_name_rec, &v, &c);
}

void perfetto__request(struct perfetto *pf, const struct req_printer *pr, const struct life_req *r)
{
	struct pf_view v = { .sector = r->sector, .rpid = r->pid, .comm = r->comm }, plain = {};
	__u64 t, at;
	uint32_t disk_pid;
	char op[32], name[64], track[64];
	int d;
	size_t k;

	life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, v.phase);
	t = r->c - v.phase[PH_Q2C];
	if (!pf->t0)
		pf->t0 = pr->t0 ? pr->t0 : t;	/* the recording's start */
	for (d = 0; d < pf->ndevs && pf->devs[d] != r->dev; d++)
		;
	if (d == pf->ndevs && d < 256) {
		pf->devs[pf->ndevs++] = r->dev;
		snprintf(track, sizeof(track), "disk %s", disks__name(r->dev));
		pf_name(pf, PF_DISK_PID + d, track);
	}
	disk_pid = PF_DISK_PID + d;
	for (k = 0; k < pf->npids && pf->pids[k] != r->pid; k++)
		;
	if (k == pf->npids) {
		if (pf->npids == pf->cap) {
			void *p = realloc(pf->pids, (pf->cap = pf->cap ? 2 * pf->cap : 64) * sizeof(*pf->pids));

			if (!p)
				return;
			pf->pids = p;
		}
		pf->pids[pf->npids++] = r->pid;
		snprintf(track, sizeof(track), "%.16s [%u]", r->comm[0] ? r->comm : "?", r->pid);
		pf_name(pf, r->pid, track);
	}
	snprintf(name, sizeof(name), "%s %u", reqflags__op_name(&pr->rf, r->cmd_flags, op, sizeof(op)), r->bytes);
	pf->id++;
	v.has_args = true;
	pf_event(pf, &v, name, "b", disk_pid, t);
	at = t;
	for (int p = PH_Q2G; p <= PH_D2C; p++) {	/* the phases, nested */
		if (!v.phase[p])
			continue;
		pf_event(pf, &plain, life__phase_name(p), "b", disk_pid, at);
		pf_event(pf, &plain, life__phase_name(p), "e", disk_pid, at + v.phase[p]);
		at += v.phase[p];
	}
	pf_event(pf, &plain, name, "e", disk_pid, r->c);
	pf->id++;
	pf_event(pf, &plain, name, "b", r->pid, t);
	pf_event(pf, &plain, name, "e", r->pid, r->c);
}


int perfetto__open(struct perfetto *pf, const char *path)
{
	memset(pf, 0, sizeof(*pf));
	if (!(pf->f = fopen(path, "w")))
		return -errno;
	json__init(&pf->j, pf->f);
	json__obj_begin(&pf->j);	/* one object: {"displayTimeUnit", "traceEvents": [...]} */
	json__kstr(&pf->j, "displayTimeUnit", "ns");
	json__key(&pf->j, "traceEvents");
	json__arr_begin(&pf->j);
	return 0;
}

int perfetto__close(struct perfetto *pf)
{
	int err = 0;

	json__arr_end(&pf->j);
	json__obj_end(&pf->j);
	free(pf->pids);
	if (ferror(pf->f))
		err = -EIO;
	if (fclose(pf->f) && !err)
		err = -errno;
	pf->f = NULL;
	return err;
}
