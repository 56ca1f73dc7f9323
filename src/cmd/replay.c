// SPDX-License-Identifier: GPL-2.0
/* iodig replay: a recording of slow or snoop, printed as it was live. */
#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "log.h"
#include "recfile.h"
#include "records.h"
#include "run.h"


/* "key value" from a META frame's text, or NULL. */
static const char *meta_get(const char *meta, uint32_t len, const char *key, char *buf, size_t blen)
{
	size_t kl = strlen(key);

	for (const char *l = meta; l < meta + len;) {
		const char *nl = memchr(l, '\n', meta + len - l);
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(meta + len - l);

		if (ll > kl && !strncmp(l, key, kl) && l[kl] == ' ') {
			snprintf(buf, blen, "%.*s", (int)(ll - kl - 1), l + kl + 1);
			return buf;
		}
		l += ll + 1;
	}
	return NULL;
}

enum { OPT_PERFETTO = OPT_FIRST_CMD };

static const char *perfetto_path;

static int replay_opt(void *ctx, int opt, const char *arg)
{
	if (opt != OPT_PERFETTO)
		return -1;
	perfetto_path = arg;
	return 0;
}

/*
 * --perfetto FILE: the Chrome trace-event JSON that the Perfetto UI (and
 * chrome://tracing) opens.  Requests overlap, so each is an async slice
 * (ph b/e, its own id) on its disk's track, with its phases nested in it,
 * and again on its submitter's track; tracks are named by M events.  ts is
 * in microseconds from the recording's first request.
 */
struct perfetto {
	FILE *f;
	uint64_t t0, id;
	struct json j;
	uint32_t *pids;		/* processes named already */
	size_t npids, cap;
	uint32_t devs[256];
	int ndevs;
};

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

static void pf_request(struct perfetto *pf, const struct req_printer *pr, const struct life_req *r)
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

static int replay_args(void *ctx, int argc, char **argv, int optind)
{
	if (optind == argc)
		return usage_error("which recording?");
	if (optind < argc - 1)
		return usage_error("unexpected argument '%s'", argv[optind + 1]);
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "perfetto", OPT_PERFETTO, "OUT.json", "write a trace for the Perfetto UI instead: each request an\n"
							"async slice on its disk's and its submitter's tracks,\n"
							"its phases nested" },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "replay", .synopsis = "[--json | --perfetto OUT.json] FILE",
		.about = "Prints a recording made by iodig slow|snoop --record FILE, on this machine or\n"
			 "another, exactly as the command printed it live: the same lines, or with\n"
			 "--json the same JSON.  Disk, op and flag names come from the recording.\n",
		.opts = opts, .opt = replay_opt, .args = replay_args };
	struct cli_common c = {};
	struct req_printer pr = {};
	struct recfile r, r_err;
	bool tables = false, header = false, summary = false;
	uint64_t records = 0;
	struct perfetto pf = { 0 };
	int err = cli__prologue(&cmd, argc, argv, &c, NULL);

	if (err >= 0)
		return err;
	err = recfile__open(&r, argv[optind]);
	if (err == -EINVAL)
		err = fail("recording", "%s: not an iodig recording (or one from another version of iodig)",
			   argv[optind]);
	else if (err)
		err = fail("recording", "%s: %s", argv[optind], strerror(-err));
	if (err) {
		recfile__close(&r);
		return err;
	}
	printer__init(&pr, c.json, false);
	if (perfetto_path) {
		if (!(pf.f = fopen(perfetto_path, "w"))) {
			recfile__close(&r);
			return fail(perfetto_path, "%s", strerror(errno));
		}
		json__init(&pf.j, pf.f);
		json__obj_begin(&pf.j);		/* one object: {"displayTimeUnit", "traceEvents": [...]} */
		json__kstr(&pf.j, "displayTimeUnit", "ns");
		json__key(&pf.j, "traceEvents");
		json__arr_begin(&pf.j);
	}
	for (;;) {
		const void *data;
		uint32_t type, size;
		char v[64];

		err = recfile__next(&r, &type, &data, &size);
		if (err <= 0)
			break;
		if (type == RECF_META) {
			pr.snoop = meta_get(data, size, "command", v, sizeof(v)) && !strcmp(v, "snoop");
			pr.t0 = meta_get(data, size, "t0_ns", v, sizeof(v)) ? strtoull(v, NULL, 10) : 0;
			if (meta_get(data, size, "disk_w", v, sizeof(v)))
				pr.disk_w = atoi(v);
			if (meta_get(data, size, "sector_w", v, sizeof(v)))
				pr.sector_w = atoi(v);
			/* -K/-U: the stacks are in the recording, named */
			pr.kstack = meta_get(data, size, "kstack", v, sizeof(v)) && atoi(v);
			pr.ustack = meta_get(data, size, "ustack", v, sizeof(v)) && atoi(v);
			pr.stack_fd = -1;
			tables = true;
		} else if (type == RECF_REQFLAGS) {
			if (reqflags__from_text(&pr.rf, data, size))
				break;
		} else if (type == RECF_DISKS) {
			disks__from_text(data, size);
		} else if (type == RECF_STACK) {
			if ((err = frames__from_text(&pr.kcache, &pr.ucache, data, size)))
				break;	/* "cut short ... (Invalid argument)" */
		} else {
			if (!tables)
				break;
			if (pf.f) {
				if (type == REC_REQ && size >= sizeof(struct life_req)) {
					pf_request(&pf, &pr, data);
					records++;
				}
				summary |= type == RECF_SUMMARY;
				continue;
			}
			if (!header) {
				printer__header(&pr);
				header = true;
			}
			if (type == RECF_SUMMARY && size == sizeof(struct req_summary)) {
				printer__summary(&pr, data);
				summary = true;
			} else if (type < RECF_META) {
				printer__record(&pr, data, size);
				records++;
			}
		}
		if ((err = run__flush()))
			break;
	}
	r_err = r;	/* its offset, for the message */
	recfile__close(&r);
	printer__free(&pr);
	if (pf.f) {
		json__arr_end(&pf.j);
		json__obj_end(&pf.j);
		free(pf.pids);
		if (fclose(pf.f) && err >= 0) {
			fail(perfetto_path, "%s", strerror(errno));
			return 1;
		}
	}
	if (err == -EIO && run__stopping())	/* the output failed: said */
		return 1;
	if (err < 0) {
		char why[96];

		return fail("recording", "%s: %s: refused after %llu records, printed above", argv[optind],
			    recfile__why(&r_err, err, why, sizeof(why)), (unsigned long long)records);
	}
	if (!tables)
		return fail("recording", "%s: no tables before the records: not a recording iodig wrote",
			    argv[optind]);
	if (!summary)
		return fail("recording", "%s: ends after %llu records without a summary: the recording "
			    "iodig was stopped before it ended (SIGKILL, a crash)", argv[optind],
			    (unsigned long long)records);
	return 0;
}
