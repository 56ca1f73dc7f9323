// SPDX-License-Identifier: GPL-2.0
/* iodig sysfs: every write to a block queue attribute, who made it and how
 * long it took. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "filter.h"
#include "life_user.h"
#include "log.h"
#include "records.h"
#include "run.h"


struct sysfs_ctx {
	struct req_printer p;
	char disk[32];		/* -d: the disk's own name, as sysfs spells it */
};

static int on_sysfs(void *ctx, void *data, size_t size)
{
	struct sysfs_ctx *sc = ctx;
	const struct life_sysfs *w = data;

	if (size < sizeof(*w) || w->type != REC_SYSFS_END)
		return 0;
	if (sc->disk[0] && strcmp(sc->disk, w->disk))
		return 0;
	sc->p.shown++;
	printer__sysfs(&sc->p, w);
	return 0;
}

static int sysfs_opt(void *ctx, int opt, const char *arg)
{
	if (opt != 'd')
		return -1;
	*(const char **)ctx = arg;
	return 0;
}

int cmd_sysfs(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "disk", 'd', "DISK", "only writes to this disk's attributes" }, {}
	};
	static const struct cli_cmd cmd = {
		.name = "sysfs",
		.about = "Each write to a block queue attribute in sysfs (/sys/block/DISK/queue/*:\n"
			 "scheduler, nr_requests, read_ahead_kb, max_sectors_kb, wbt_lat_usec, ...):\n"
			 "who (comm, pid, ppid), which disk and attribute, the value written, and how\n"
			 "long the write took.  Changing some of them freezes the queue: every bio\n"
			 "submitted meanwhile waits (iodig slow names such a writer).\n",
		.opts = opts, .opt = sysfs_opt, .tracing = true, .slim_btf = true,
		.privileges = "Needs CAP_DAC_READ_SEARCH where tracefs is root's alone (the write tracepoints\n"
			 "are found there).\n" };
	struct cli_common c = {};
	struct sysfs_ctx sc = {};
	struct life_cfg cfg = { .mode = LIFE_SYSFS, .sysfs = true };
	struct life l = {};
	const char *disk = NULL;
	int err = cli__prologue(&cmd, argc, argv, &c, &disk);

	if (err >= 0)
		return err;
	if (disk) {
		struct disk_sel sel;

		/* queue attributes are the whole disk's: compare by its name */
		if ((err = filter__disk(disk, &sel)))
			return err;
		snprintf(sc.disk, sizeof(sc.disk), "%s", sel.disk_name);
	}
	printer__init(&sc.p, c.json, false);
	if ((err = life__start(&l, &cfg, on_sysfs, &sc)))
		goto out;
	sc.p.t0 = run__mono_ns();
	if ((err = life__run(&l, c.ready_file, "Tracing queue attribute writes... Hit Ctrl-C to end.")))
		goto out;
	if (!c.json)
		fprintf(stderr, "\n%llu queue attribute writes\n", (unsigned long long)sc.p.shown);
out:
	life__stop(&l);
	return err;
}
