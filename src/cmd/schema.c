// SPDX-License-Identifier: GPL-2.0
/*
 * iodig schema: the JSON schema of each record type declared with a field
 * table (fields.h), as tests/schema holds them.  `iodig schema --check DIR`
 * fails when a file there and its table disagree (run by the unit tests);
 * `iodig schema --write DIR` makes the files.
 */
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "cli.h"
#include "fields.h"
#include "log.h"
#include "recs.h"

/* Every record type printed through a table, with the modes it is printed in. */
static const struct {
	const struct rec *r;
	unsigned modes;
} all[] = {
	{ &top_rec, TOP_MODES },
	{ &top_end_rec, TOP_MODES },
	{ &exec_rec, 1 },
	{ &exec_summary_rec, 0 },
	{ &iostat_rec, 0 },
	{ &ra_rec, RA_MODES },
	{ &ra_end_rec, RA_MODES },
	{ &cache_rec, CACHE_MODES },
	{ &cache_end_rec, CACHE_MODES },
	{ &snap_rec, 0 },
	{ &size_rec, 0 },
	{ &size_end_rec, 0 },
	{ &throttle_rec, 0 },
	{ &throttle_end_rec, 0 },
	{ &layer_rec, 0 },
	{ &bpf_stats_rec, 0 },
	{ &request_rec, REQUEST_MODES },
	{ &queue_write_rec, 0 },
	{ &bio_rec, 0 },
	{ &stack_summary_rec, 0 },
	{ &summary_rec, SUMMARY_MODES },
	{ &why_call_rec, WHY_CALL_MODES },
	{ &why_summary_rec, 0 },
	{ &probe_rec, 0 },
	{ &finding_rec, 0 },
	{ &stack_rec, STACKS_MODES },
	{ &stacks_summary_rec, STACKS_MODES },
};

#define NALL (sizeof(all) / sizeof(all[0]))

static char *schema_of(size_t i, size_t *len)
{
	char *s = NULL;
	FILE *f = open_memstream(&s, len);

	if (!f)
		return NULL;
	fields__schema(f, all[i].r, all[i].modes);
	fclose(f);
	return s;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc(n + 1);
	if (s && fread(s, 1, n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(f);
	if (s)
		s[*len = n] = '\0';
	return s;
}

/* --check (write false) or --write every schema in dir: 0, or the number of files that differ. */
static int each(const char *dir, bool write)
{
	int bad = 0;

	for (size_t i = 0; i < NALL; i++) {
		char path[4096], *want, *have;
		size_t wl, hl = 0;

		const char *lint = fields__lint(all[i].r);

		if (lint) {
			fprintf(stderr, "schema: the table of '%s' records: %s\n", all[i].r->schema, lint);
			bad++;
		}
		snprintf(path, sizeof(path), "%s/%s.json", dir, all[i].r->schema);
		if (!(want = schema_of(i, &wl)))
			return fail("schema", "out of memory");
		if (write) {
			FILE *f = fopen(path, "w");

			if (!f || fwrite(want, 1, wl, f) != wl || fclose(f))
				return fail("schema", "cannot write %s", path);
			printf("wrote %s\n", path);
		} else if (!(have = read_file(path, &hl)) || hl != wl || memcmp(have, want, wl)) {
			fprintf(stderr, "schema: %s differs from the table of '%s' records; the table says:\n%s",
				path, all[i].r->type, want);
			bad++;
			free(have);
		} else {
			printf("ok: %s\n", path);
			free(have);
		}
		free(want);
	}
	return bad ? 1 : 0;
}

struct schema_opts {
	struct cli_common c;
	const char *check, *write, *name;
};

static int schema_args(void *ctx, int argc, char **argv, int optind)
{
	struct schema_opts *o = ctx;

	if (optind < argc && !o->check && !o->write)
		o->name = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->check && o->write)
		return usage_error("--check or --write, not both");
	return 0;
}

int cmd_schema(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "check", OPT_FIRST_CMD, "DIR", "compare each schema with DIR/NAME.json; exit 1 if one differs",
		  CLI_STR_AT(struct schema_opts, check) },
		{ "write", OPT_FIRST_CMD + 1, "DIR", "write each schema to DIR/NAME.json",
		  CLI_STR_AT(struct schema_opts, write) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "schema", .synopsis = "[NAME | --check DIR | --write DIR]",
		.about = "The JSON schema of each record type, from the field table its command prints\n"
			 "it with: the names alone, one by name, or every one checked against (or\n"
			 "written to) DIR/NAME.json.\n",
		.opts = opts, .args = schema_args };
	struct schema_opts o = {};
	int err;

	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	if (o.check || o.write)
		return each(o.check ? o.check : o.write, o.write != NULL);
	if (o.name) {
		for (size_t i = 0; i < NALL; i++) {
			if (!strcmp(all[i].r->schema, o.name)) {
				fields__schema(stdout, all[i].r, all[i].modes);
				return 0;
			}
		}
		return usage_error("no record type '%s' (iodig schema lists them)", o.name);
	}
	for (size_t i = 0; i < NALL; i++)
		printf("%s\n", all[i].r->schema);
	return 0;
}
