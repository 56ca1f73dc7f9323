// SPDX-License-Identifier: GPL-2.0
/* iodig snoop: every block request, with its submitter and phases (bcc's
 * biosnoop, from bio submission on).  The front end of slow.c's engine in
 * its followed mode. */
#include "cmds.h"
#include "slow.h"

int cmd_snoop(int argc, char **argv)
{
	return slow__main(argc, argv, true, "[options]",
		"One line per block request (like bcc's biosnoop), with the submitter, taken when\n"
		"the bio was queued, and the phases of the request's life (see iodig slow --help).\n");
}
