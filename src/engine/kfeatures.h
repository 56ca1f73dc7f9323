/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's BPF features as iodig uses them: probed once, cached. */
#ifndef IODIG_KFEATURES_H
#define IODIG_KFEATURES_H

#include <stdbool.h>

struct features {
	bool btf, fentry, kprobe, kprobe_multi, uprobe, ringbuf, cookie, bpf_stats, tp_btf;
	char why_fentry[160], why_kprobe[160], why_kprobe_multi[160], why_uprobe[160];
};

/* Each mechanism tried for real (loads and attaches a tiny program), the
 * first time only: the answer is kept for the process. */
const struct features *features__get(void);

#endif
