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
#include "perfetto.h"
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
	const struct life_req *rq;
	struct life_req old;
	struct req_summary sum;
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
	run__buffer_output();
	if (perfetto_path) {
		if ((err = perfetto__open(&pf, perfetto_path))) {
			recfile__close(&r);
			return fail(perfetto_path, "%s", strerror(-err));
		}
	}
	for (uint64_t nrec = 0;;) {
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
			pr.stack_fd = pr.ustack_fd = -1;
			tables = true;
		} else if (type == RECF_REQFLAGS) {
			if (reqflags__from_text(&pr.rf, data, size))
				break;
		} else if (type == RECF_DISKS) {
			disks__from_text(data, size);
		} else if (type == RECF_STACK) {
			if ((err = frames__from_text(&pr.kcache, &pr.ucache, data, size)))
				break;	/* "cut short ... (Invalid argument)" */
		} else if (type == RECF_KMEMO && size == sizeof(pr.km)) {
			memcpy(&pr.km, data, sizeof(pr.km));
			pr.kmemo = true;
		} else {
			if (!tables)
				break;
			if (pf.f) {
				if (type == REC_REQ && (rq = life_req__of(data, size, &old))) {
					perfetto__request(&pf, &pr, rq);
					records++;
				}
				summary |= type == RECF_SUMMARY;
				continue;
			}
			if (!header) {
				printer__header(&pr);
				header = true;
			}
			if (type == RECF_SUMMARY && req_summary__of(data, size, &sum)) {
				printer__summary(&pr, &sum);
				summary = true;
			} else if (type < RECF_META) {
				printer__record(&pr, data, size);
				records++;
			}
		}
		/* a failed write said within 1024 records (main flushes the rest) */
		if (++nrec % 1024 == 0 && (err = run__flush()))
			break;
	}
	r_err = r;	/* its offset, for the message */
	recfile__close(&r);
	printer__free(&pr);
	if (pf.f) {
		int cerr = perfetto__close(&pf);

		if (cerr && err >= 0) {
			fail(perfetto_path, "%s", strerror(-cerr));
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
