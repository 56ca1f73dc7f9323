// SPDX-License-Identifier: GPL-2.0
/* iodig: why is storage I/O slow?  One binary, a table of commands. */
#include <stdio.h>
#include <string.h>
#include "bpfenv.h"
#include "btfslim.h"
#include "cmds.h"
#include "costmeter.h"
#include "log.h"
#include "run.h"

int main(int argc, char **argv)
{
	const struct cmd *c;
	int rc;

	run__hold_signals();	/* before anything: a SIGINT during set-up is kept */
	bpfenv__btf_roots(btf_roots, btf_roots_n);
	if (argc < 2) {
		cmds__usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(0, NULL);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	c = cmds__find(argv[1]);
	if (!c) {
		fprintf(stderr, "iodig: unknown command '%s' (see 'iodig help')\n", argv[1]);
		return EXIT_USAGE;
	}
	log__init(c->name, false, false);
	rc = c->run(argc - 1, argv + 1);
	costmeter__print();	/* --stats */
	/* Output that did not reach its file (a full disk, /dev/full) is a
	 * failure, said once, whatever the command printed. */
	if (rc == 0 && run__flush())
		rc = 1;
	return rc;
}
