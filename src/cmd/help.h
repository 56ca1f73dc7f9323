/* SPDX-License-Identifier: GPL-2.0 */
/* What `iodig help` makes from the commands' option tables. */
#ifndef IODIG_HELP_H
#define IODIG_HELP_H

#include "cli.h"
#include "cmds.h"

/* The command's option table (as its -h sees it), or NULL for help and
 * version, which have none.  Valid until the next call. */
const struct cli_cmd *help__table(const struct cmd *c);
/* A man page in roff on stdout: iodig(8) for name NULL or "iodig", else iodig-NAME(8),
 * with EXAMPLES from the README's section on the command when readme is
 * given.  0, or an exit status. */
int help__man(const char *name, const char *readme);
/* The completion script of shell ("bash" or "zsh") on stdout. */
int help__completion(const char *shell);

#endif
