// SPDX-License-Identifier: GPL-2.0
/* iodig replay: a recording of slow or snoop, printed as it was live. */
#include <errno.h>
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
	static const struct cli_cmd cmd = {
		.name = "replay", .synopsis = "[--json] FILE",
		.about = "Prints a recording made by iodig slow|snoop --record FILE, on this machine or\n"
			 "another, exactly as the command printed it live: the same lines, or with\n"
			 "--json the same JSON.  Disk, op and flag names come from the recording.\n",
		.args = replay_args };
	struct cli_common c = {};
	struct req_printer pr = {};
	struct recfile r;
	bool tables = false, header = false, summary = false;
	uint64_t records = 0;
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
			tables = true;
		} else if (type == RECF_REQFLAGS) {
			if (reqflags__from_text(&pr.rf, data, size))
				break;
		} else if (type == RECF_DISKS) {
			disks__from_text(data, size);
		} else {
			if (!tables)
				break;
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
	recfile__close(&r);
	reqflags__free(&pr.rf);
	if (err == -EIO && run__stopping())	/* the output failed: said */
		return 1;
	if (err < 0)
		return fail("recording", "%s: cut short after %llu records (%s)", argv[optind],
			    (unsigned long long)records, strerror(-err));
	if (!tables)
		return fail("recording", "%s: no tables before the records: not a recording iodig wrote",
			    argv[optind]);
	if (!summary)
		return fail("recording", "%s: ends after %llu records without a summary: the recording "
			    "iodig was stopped before it ended (SIGKILL, a crash)", argv[optind],
			    (unsigned long long)records);
	return 0;
}
