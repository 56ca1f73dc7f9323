// SPDX-License-Identifier: GPL-2.0
/* iodig help --man: iodig(8) and iodig-COMMAND(8) in roff, from the tables. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "help.h"
#include "log.h"
#include "version.h"

/* Text as roff sees it: backslashes, a leading dot or quote, hyphens that
 * start an option, and anything past ASCII (as \[uXXXX]). */
static void esc(FILE *out, const char *s, size_t n, bool line_start)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (line_start && (ch == '.' || ch == '\''))
			fputs("\\&", out);
		line_start = false;
		if (ch == '\\') {
			fputs("\\e", out);
		} else if (ch == '-' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '-' || s[i - 1] == '['
					 || s[i - 1] == '(' || s[i - 1] == '|')) {
			fputs("\\-", out);
		} else if (ch >= 0x80) {
			unsigned int cp = 0, more = ch >= 0xf0 ? 3 : ch >= 0xe0 ? 2 : ch >= 0xc0 ? 1 : 0;

			cp = ch & (0x3f >> more);
			for (; more && i + 1 < n && ((unsigned char)s[i + 1] & 0xc0) == 0x80; more--)
				cp = cp << 6 | ((unsigned char)s[++i] & 0x3f);
			fprintf(out, "\\[u%04X]", cp);
		} else if (ch < ' ' && ch != '\t') {
			continue;
		} else {
			fputc(ch, out);
		}
	}
}

/* A paragraph of help text: lines as they are, a blank line a new
 * paragraph; lines indented in the help (a table, a list) kept as they are
 * laid out there, unfilled. */
static void text(FILE *out, const char *s)
{
	bool nf = false;

	while (s && *s) {
		size_t n = strcspn(s, "\n");
		bool indented = s[0] == ' ';

		if (indented != nf)
			fputs(indented ? ".nf\n" : ".fi\n", out);
		nf = indented;
		if (n == 0) {
			fputs(".PP\n", out);
		} else {
			esc(out, s, n, true);
			fputc('\n', out);
		}
		s += n + (s[n] == '\n');
	}
	if (nf)
		fputs(".fi\n", out);
}

static void opts(FILE *out, const struct cli_opt *t)
{
	for (; t && t->name; t++) {
		fputs(".TP\n", out);
		if (t->key > ' ' && t->key < 127)
			fprintf(out, "\\fB\\-%c\\fR, ", t->key);
		fprintf(out, "\\fB\\-\\-");
		for (const char *p = t->name; *p; p++)	/* every hyphen of a name is one */
			fputs(*p == '-' ? "\\-" : (char[2]){ *p, 0 }, out);
		fputs("\\fR", out);
		if (t->arg) {
			fputs(" \\fI", out);
			esc(out, t->arg, strlen(t->arg), false);
			fputs("\\fR", out);
		}
		fputc('\n', out);
		for (const char *h = t->help; *h;) {
			size_t n = strcspn(h, "\n");

			esc(out, h, n, true);
			fputc('\n', out);
			h += n + (h[n] == '\n');
		}
		if (t->kind == CLI_PICK) {
			fputs("One of:", out);
			for (int i = 0; i < t->nnames; i++)
				fprintf(out, " %s%s", t->names[i], i + 1 < t->nnames ? "," : ".");
			fputc('\n', out);
		}
	}
}

static void head(FILE *out, const char *title, const char *name, const char *summary)
{
	char up[64];
	size_t i;

	for (i = 0; title[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)title[i]);
	up[i] = '\0';
	fprintf(out, ".TH %s 8 \"%s\" \"iodig %s\" \"System Manager's Manual\"\n", up, IODIG_DATE,
		IODIG_VERSION);
	fprintf(out, ".SH NAME\n%s \\- ", name);
	esc(out, summary, strlen(summary), false);
	fputc('\n', out);
}

static void exit_status(FILE *out)
{
	fputs(".SH EXIT STATUS\n.TP\n0\nThe run ended as asked: its count reached, or Ctrl-C, SIGTERM or SIGHUP, "
	      "after which the summary gathered so far is printed and everything is detached.\n"
	      ".TP\n1\nA failure, said in one line on stderr (a JSON object under \\fB\\-\\-json\\fR) "
	      "that names what is wrong and what to do: a disk, binary, symbol or pid that does not "
	      "exist, a missing capability, a kernel without what the command needs, output that "
	      "cannot be written, a damaged recording.\n"
	      ".TP\n2\nA usage error: an unknown option or a value out of its range.\n", out);
}

/* The README's fenced blocks in the sections headed "### `iodig NAME ...". */
static void examples(FILE *out, const char *name, const char *readme)
{
	char line[4096], want[64];
	bool in_sec = false, in_code = false, any = false;
	FILE *f = fopen(readme, "r");

	if (!f)
		return;
	snprintf(want, sizeof(want), "### `iodig %s", name);
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		if (!in_code && !strncmp(line, "##", 2)) {
			size_t w = strlen(want);

			in_sec = !strncmp(line, want, w) && (line[w] == ' ' || line[w] == '`');
			continue;
		}
		if (!in_sec)
			continue;
		if (!strncmp(line, "```", 3)) {
			if (!in_code && !any)
				fputs(".SH EXAMPLES\n", out);
			fputs(in_code ? ".EE\n" : (any ? ".PP\n.EX\n" : ".EX\n"), out);
			in_code = !in_code;
			any = true;
			continue;
		}
		if (in_code) {
			esc(out, line, n, true);
			fputc('\n', out);
		}
	}
	if (in_code)
		fputs(".EE\n", out);
	fclose(f);
}

static void see_also(FILE *out, const char *self)
{
	bool first = true;

	fputs(".SH SEE ALSO\n", out);
	if (self) {
		fputs(".BR iodig (8)", out);
		first = false;
	}
	for (const struct cmd *c = cmds__all; c->name; c++) {
		if (c->run == cmd_help || c->run == cmd_version || (self && !strcmp(c->name, self)))
			continue;
		fprintf(out, "%s\n.BR iodig\\-%s (8)", first ? "" : ",", c->name);
		first = false;
	}
	fputs(",\n.BR bpftool (8),\n.BR iostat (1)\n", out);
}

static const char privs_common[] =
	"Tracing needs CAP_BPF and CAP_PERFMON (or root).  Where tracefs is mounted root's alone\n"
	"(mode 0700, the default), reading the ids of its tracepoints needs CAP_DAC_READ_SEARCH;\n"
	"where it is not mounted, mounting it needs CAP_SYS_ADMIN.  A missing capability is\n"
	"named in one line.\n";

static int page_cmd(const struct cmd *c, const char *readme)
{
	char title[64], name[64];
	const struct cli_cmd *t = help__table(c);

	if (!t)
		return fail("help", "'%s' has no man page of its own: see iodig(8)", c->name);
	snprintf(title, sizeof(title), "iodig-%s", c->name);
	snprintf(name, sizeof(name), "iodig\\-%s", c->name);
	head(stdout, title, name, c->summary);
	printf(".SH SYNOPSIS\n.B iodig %s\n", c->name);
	esc(stdout, t->synopsis ? t->synopsis : "[options]", strlen(t->synopsis ? t->synopsis : "[options]"),
	    true);
	printf("\n.SH DESCRIPTION\n");
	text(stdout, t->about);
	printf(".SH OPTIONS\n");
	opts(stdout, t->opts);
	opts(stdout, t->more);
	opts(stdout, cli__common_opts());
	if (t->notes) {
		printf(".SH NOTES\n");
		text(stdout, t->notes);
	}
	if (t->tracing || t->privileges) {
		printf(".SH PRIVILEGES\n");
		if (t->tracing)
			text(stdout, privs_common);
		if (t->tracing && t->privileges)
			printf(".PP\n");
		text(stdout, t->privileges);
	}
	exit_status(stdout);
	if (readme)
		examples(stdout, c->name, readme);
	see_also(stdout, c->name);
	return 0;
}

static int page_main(const char *readme)
{
	head(stdout, "iodig", "iodig", "why storage I/O is slow, from the system call down to the device");
	printf(".SH SYNOPSIS\n.B iodig\n\\fICOMMAND\\fR [\\fIoptions\\fR]\n.br\n.B iodig help\n"
	       "[\\fICOMMAND\\fR]\n.SH DESCRIPTION\n");
	text(stdout, "iodig is one static binary of BPF CO-RE programs that tells why storage I/O on\n"
		     "Linux is slow: block latency with percentiles, each request's life split into\n"
		     "phases with the culprit of a stall named, slow file-system calls broken down\n"
		     "from the system call to the device, function latency, stacks, per-process I/O,\n"
		     "the page cache, readahead, an iostat view, a Prometheus exporter and a flight\n"
		     "recorder.  Each command has its own page.\n");
	printf(".SH COMMANDS\n");
	for (const struct cmd *c = cmds__all; c->name; c++) {
		printf(".TP\n.B %s\n", c->name);
		esc(stdout, c->summary, strlen(c->summary), true);
		if (c->run != cmd_help && c->run != cmd_version)
			printf("; see\n.BR iodig\\-%s (8).\n", c->name);
		else
			printf(".\n");
	}
	printf(".SH COMMON OPTIONS\n");
	opts(stdout, cli__common_opts());
	printf(".SH PRIVILEGES\n");
	text(stdout, privs_common);
	exit_status(stdout);
	printf(".SH FILES\n.TP\n/sys/kernel/btf/vmlinux\nThe kernel's BTF: iodig's programs are "
	       "relocated against it (CO-RE).\n.TP\n/sys/kernel/tracing\ntracefs: the ids of "
	       "tracepoints, and the queue attribute writes watched.\n");
	if (readme)
		examples(stdout, "lat", readme);
	see_also(stdout, NULL);
	return 0;
}

int help__man(const char *name, const char *readme)
{
	const struct cmd *c;

	if (!name || !strcmp(name, "iodig"))
		return page_main(readme);
	if (!(c = cmds__find(name)))
		return usage_error("unknown command '%s'", name);
	return page_cmd(c, readme);
}
