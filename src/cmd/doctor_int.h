/* SPDX-License-Identifier: GPL-2.0 */
/* iodig doctor's own parts: the front end and the printer (doctor.c), the
 * live run with the engines it feeds the rules from (doctor_live.c). */
#ifndef IODIG_DOCTOR_INT_H
#define IODIG_DOCTOR_INT_H

#include <stdbool.h>
#include "cli.h"
#include "diagnose.h"
#include "records.h"

struct doc_opts {
	struct cli_common c;
	struct cli_cmd *cmd;
	const char *disk, *cgroup, *pid, *comm, *from, *html, *record;
	unsigned long long secs, rb_bytes;
	bool no_calls;
};

/* The engines for o->secs (or until Ctrl-C), every record through pr (its
 * sink set here: the filters, then the rules); rec: also a recording of
 * what was seen.  0 or the exit status, said. */
int doctor__live(struct doc_opts *o, struct diagnose *d, struct req_printer *pr, const char *rec);

#endif
