// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "frames.h"
#include "hist_user.h"
#include "report.h"
#include "run.h"

void report__begin(struct report *r, bool last)
{
	r->n = 0;
	r->interval++;
	r->time = (uint64_t)time(NULL);
	r->ts_ns = run__mono_ns();
	r->last = last;
}

int report__add(struct report *r, const struct hist *h, int nlabels, ...)
{
	struct report_series *s;
	va_list ap;

	if (nlabels > REPORT_LABELS)
		return -EINVAL;
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 16;
		struct report_series *n = realloc(r->s, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->s = n;
		r->cap = cap;
	}
	s = &r->s[r->n++];
	s->h = h;
	s->kernel = s->user = NULL;
	s->nlabels = nlabels;
	va_start(ap, nlabels);
	for (int i = 0; i < nlabels; i++) {
		s->labels[i].key = va_arg(ap, const char *);
		s->labels[i].kind = va_arg(ap, int);
		snprintf(s->labels[i].value, sizeof(s->labels[i].value), "%s", va_arg(ap, const char *));
	}
	va_end(ap);
	return 0;
}

void report__stacks(struct report *r, const struct frames *kernel, const struct frames *user)
{
	if (r->n) {
		r->s[r->n - 1].kernel = kernel;
		r->s[r->n - 1].user = user;
	}
}

static void stamp_json(struct report *r)
{
	json__ku64(r->j, "interval", r->interval);
	json__ku64(r->j, "time", r->time);
	json__ku64(r->j, "ts_ns", r->ts_ns);
}

static void emit_json(struct report *r)
{
	struct json *j = r->j;

	for (int i = 0; i < r->n; i++) {
		const struct report_series *s = &r->s[i];

		json__obj_begin(j);
		json__kstr(j, "type", "hist");
		stamp_json(r);
		for (int l = 0; l < s->nlabels; l++) {
			if (s->labels[l].kind == LABEL_WORDS)
				json__kwords(j, s->labels[l].key, s->labels[l].value);
			else
				json__kstr(j, s->labels[l].key, s->labels[l].value);
		}
		if (s->kernel)
			frames__json(s->kernel, j, "kernel");
		if (s->user) {
			frames__json(s->user, j, "user");
			json__kbool(j, "user_cut_short", s->user->cut);
		}
		hist__json(s->h, j);
		json__obj_end(j);
	}
	json__obj_begin(j);
	json__kstr(j, "type", "interval_end");
	stamp_json(r);
	json__ku64(j, "histograms", r->n);
	counters__json(j, r->counters, r->ncounters, r->values, r->mode);
	json__kbool(j, "last", r->last);
	json__obj_end(j);
}

/* "disk = sda  op = write  flags = sync": the labels a reader tells series
 * apart by, except the column label and the command-wide ones. */
static void label_line(struct report *r, const struct report_series *s)
{
	const char *sep = "";

	fputc('\n', r->out);
	for (int l = 0; l < s->nlabels; l++) {
		const struct report_label *lb = &s->labels[l];

		if (lb->kind == LABEL_JSON_ONLY || (r->column && !strcmp(lb->key, r->column)) ||
		    (lb->kind == LABEL_WORDS && !lb->value[0]))
			continue;
		fprintf(r->out, "%s%s = %s", sep, lb->key, lb->value);
		sep = "  ";
	}
	if (*sep)
		fputc('\n', r->out);
}

static const char *label_of(const struct report_series *s, const char *key)
{
	for (int l = 0; l < s->nlabels; l++)
		if (!strcmp(s->labels[l].key, key))
			return s->labels[l].value;
	return "";
}

/* Same labels but the column one: one group of side-by-side columns. */
static bool same_group(const struct report *r, const struct report_series *a,
		       const struct report_series *b)
{
	if (a->nlabels != b->nlabels)
		return false;
	for (int l = 0; l < a->nlabels; l++)
		if (strcmp(a->labels[l].key, r->column) && strcmp(a->labels[l].value, b->labels[l].value))
			return false;
	return true;
}

static void emit_text(struct report *r)
{
	uint64_t unit = r->ms ? 1000000 : 1000;
	const char *uname = r->ms ? "msecs" : "usecs";

	if (r->timestamp)
		run__print_time(r->out);
	for (int i = 0; i < r->n;) {
		int g = 1;

		if (r->column)
			while (i + g < r->n && same_group(r, &r->s[i], &r->s[i + g]))
				g++;
		label_line(r, &r->s[i]);
		if (r->s[i].kernel) {
			fprintf(r->out, "  kernel stack:\n");
			frames__text(r->s[i].kernel, r->out, "    ");
		}
		if (r->s[i].user) {
			fprintf(r->out, "  user stack:\n");
			frames__text(r->s[i].user, r->out, "    ");
		}
		if (!r->column) {
			hist__print(r->s[i].h, r->out, unit, uname);
		} else {
			const struct hist *hs[g];
			const char *names[g];

			for (int c = 0; c < g; c++) {
				hs[c] = r->s[i + c].h;
				names[c] = label_of(&r->s[i + c], r->column);
			}
			hist__print_columns(hs, names, g, r->out, unit, uname);
		}
		i += g;
	}
	if (!r->n)
		fprintf(r->out, "%s%s\n", r->empty, r->per_interval ? " in this interval" : "");
	counters__lines(r->out, r->counters, r->ncounters, r->values, r->mode);
}

void report__emit(struct report *r, const void *values)
{
	r->values = values;
	if (r->json)
		emit_json(r);
	else
		emit_text(r);
}

void report__free(struct report *r)
{
	free(r->s);
	r->s = NULL;
	r->n = r->cap = 0;
}
