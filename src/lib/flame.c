// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "flame.h"
#include "sort.h"

struct flame_node {
	char *name;
	bool kernel;
	uint64_t value;			/* this frame and everything above it */
	struct flame_node **kids;
	int nkids, cap;
};

static struct flame_node *node_new(const char *name, bool kernel)
{
	struct flame_node *n = calloc(1, sizeof(*n));

	if (n && !(n->name = strdup(name))) {
		free(n);
		return NULL;
	}
	if (n)
		n->kernel = kernel;
	return n;
}

int flame__init(struct flame *f)
{
	f->root = node_new("all", false);
	return f->root ? 0 : -ENOMEM;
}

static struct flame_node *child(struct flame_node *p, const char *name, bool kernel)
{
	for (int i = 0; i < p->nkids; i++)
		if (p->kids[i]->kernel == kernel && !strcmp(p->kids[i]->name, name))
			return p->kids[i];
	if (p->nkids == p->cap) {
		void *k = realloc(p->kids, (p->cap = p->cap ? 2 * p->cap : 4) * sizeof(*p->kids));

		if (!k)
			return NULL;
		p->kids = k;
	}
	return (p->kids[p->nkids] = node_new(name, kernel)) ? p->kids[p->nkids++] : NULL;
}

int flame__add(struct flame *f, const char *const *frames, const unsigned char *kernel, int n,
	       uint64_t value)
{
	struct flame_node *p = f->root;

	p->value += value;
	for (int i = 0; i < n; i++) {
		if (!(p = child(p, frames[i], kernel && kernel[i])))
			return -ENOMEM;
		p->value += value;
	}
	return 0;
}

static int depth_of(const struct flame_node *n)
{
	int d = 0;

	for (int i = 0; i < n->nkids; i++) {
		int k = depth_of(n->kids[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct flame_node *const *)a)->name, (*(struct flame_node *const *)b)->name);
}

static void xml(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);	/* XML 1.0 has no control characters */
		else
			fputc(c, out);
	}
}

/* A colour from the name: warm for user frames, orange-brown for the kernel's. */
static void colour(const struct flame_node *n, char *buf, size_t len)
{
	unsigned h = 2166136261u;

	for (const char *s = n->name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	if (n->kernel)
		snprintf(buf, len, "rgb(%u,%u,%u)", 200 + h % 40, 110 + (h >> 8) % 50, 40 + (h >> 16) % 30);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 35, 60 + (h >> 8) % 130, 40 + (h >> 16) % 40);
}

/* x in units of the root's value, so a zoom is a rescale in the script */
static void draw(FILE *out, const struct flame_node *n, uint64_t x, int depth, int maxd, uint64_t total,
		 const char *unit)
{
	char fill[32];
	uint64_t cx = x;

	colour(n, fill, sizeof(fill));
	fprintf(out, "<g class=\"f\" data-x=\"%llu\" data-w=\"%llu\" data-d=\"%d\"><title>",
		(unsigned long long)x, (unsigned long long)n->value, depth);
	xml(out, n->name);
	fprintf(out, "%s (%llu %s, %.2f%%)</title><rect y=\"%d\" height=\"15\" fill=\"%s\" rx=\"2\"/>"
		"<text y=\"%d\"></text></g>\n", n->kernel ? " [kernel]" : "", (unsigned long long)n->value,
		unit, total ? 100.0 * n->value / total : 0, 40 + (maxd - 1 - depth) * 16, fill,
		40 + (maxd - 1 - depth) * 16 + 11);
	sort__any(n->kids, n->nkids, sizeof(*n->kids), cmp_name);
	for (int i = 0; i < n->nkids; i++) {
		draw(out, n->kids[i], cx, depth + 1, maxd, total, unit);
		cx += n->kids[i]->value;
	}
}

static const char script[] =
	"var W=%d,T=%llu,zx=0,zw=T;\n"
	"var gs=Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"function lay(){gs.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,"
	"X=(x-zx)/zw*(W-20)+10,Wd=w/zw*(W-20),r=g.firstElementChild.nextElementSibling,"
	"t=r.nextElementSibling,n=g.firstElementChild.textContent.replace(/ \\(.*$/,'');"
	"var on=x+w>zx&&x<zx+zw&&Wd>=0.1;g.style.display=on?'':'none';if(!on)return;"
	"if(X<10){Wd-=10-X;X=10}if(X+Wd>W-10)Wd=W-10-X;"
	"r.setAttribute('x',X);r.setAttribute('width',Math.max(Wd-0.5,0.1));"
	"t.setAttribute('x',X+3);var c=Math.floor((Wd-6)/7);"
	"t.textContent=c<3?'':(n.length>c?n.slice(0,c-2)+'..':n);});}\n"
	"gs.forEach(function(g){g.addEventListener('click',function(){"
	"zx=+g.dataset.x;zw=+g.dataset.w||T;lay();});});\n"
	"document.addEventListener('keydown',function(e){if(e.key==='Escape'){zx=0;zw=T;lay();}});\n"
	"lay();\n";

int flame__svg(const struct flame *f, FILE *out, const char *title, const char *unit, int width)
{
	int maxd = depth_of(f->root);
	int height = 50 + maxd * 16;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"12\">\n"
		"<style>g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n<text x=\"10\" y=\"20\" font-size=\"15\">",
		width, height, width, height);
	xml(out, title);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"20\" text-anchor=\"end\" fill=\"#666\">click: zoom, "
		"Esc: all</text>\n", width - 10);
	draw(out, f->root, 0, 0, maxd, f->root->value, unit);
	fputs("<script><![CDATA[\n", out);
	fprintf(out, script, width, (unsigned long long)(f->root->value ? f->root->value : 1));
	fputs("]]></script>\n</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

static void node_free(struct flame_node *n)
{
	for (int i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

void flame__free(struct flame *f)
{
	if (f->root)
		node_free(f->root);
	f->root = NULL;
}
