// SPDX-License-Identifier: GPL-2.0
/* The exporter's request parser and its Prometheus text, no socket needed:
 * known requests, then a million random and mutated ones (a fuzz loop the
 * parser must survive, under ASan when built with it, answering each with a
 * status it knows). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "hist_user.h"
#include "http.h"
#include "prom.h"

static int parse(const char *s, struct http_req *r)
{
	return http__parse(s, strlen(s), r);
}

static int known_status(int st)
{
	return st == 0 || st == 200 || st == 400 || st == 405 || st == 414 || st == 431 || st == 505;
}

int main(void)
{
	struct http_req r;
	char big[HTTP_MAX_REQ + 64];

	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) == 200 && !r.head && !strcmp(r.path, "/metrics"),
	      "GET: %s", r.path);
	CHECK(parse("HEAD /metrics?x=1 HTTP/1.0\r\n\r\n", &r) == 200 && r.head && !strcmp(r.path, "/metrics"),
	      "HEAD, query cut: %s", r.path);
	CHECK(parse("GET /metrics HTTP/1.1\n\n", &r) == 200, "bare newlines");
	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r) == 0, "incomplete: more bytes");
	CHECK(parse("POST /metrics HTTP/1.1\r\n\r\n", &r) == 405, "POST");
	CHECK(parse("GET metrics HTTP/1.1\r\n\r\n", &r) == 400, "target without /");
	CHECK(parse("GET /metrics HTTP/2.0\r\n\r\n", &r) == 505, "HTTP/2");
	CHECK(parse("GET /metrics FOO/1.1\r\n\r\n", &r) == 400, "not HTTP");
	CHECK(parse("GET  HTTP/1.1\r\n\r\n", &r) == 400, "no target");
	CHECK(parse("GET /a\x01 HTTP/1.1\r\n\r\n", &r) == 400, "control byte");
	CHECK(http__parse("GET /\0 HTTP/1.1\r\n\r\n", 20, &r) == 400, "NUL");
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	CHECK(http__parse(big, HTTP_MAX_REQ, &r) == 431, "no end within HTTP_MAX_REQ");
	snprintf(big, sizeof(big), "GET /%0300d HTTP/1.1\r\n\r\n", 0);
	CHECK(parse(big, &r) == 414, "target too long");

	/* fuzz: random bytes, and valid requests with bytes flipped or cut */
	srand(7);
	for (int i = 0; i < 1000000; i++) {
		static const char base[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n";
		char buf[256];
		size_t n;

		if (i & 1) {
			n = rand() % sizeof(buf);
			for (size_t k = 0; k < n; k++)
				buf[k] = (char)(rand() % 4 ? "GET /HTP1.\r\n :?"[rand() % 16] : rand());
		} else {
			n = sizeof(base) - 1;
			memcpy(buf, base, n);
			for (int f = rand() % 4; f >= 0; f--)
				buf[rand() % n] = (char)rand();
			n = rand() % (n + 1);
		}
		int st = http__parse(buf, n, &r);

		if (!known_status(st) || strlen(r.path) >= sizeof(r.path)) {
			CHECK(0, "fuzz case %d: status %d", i, st);
			break;
		}
	}
	CHECK(1, "a million fuzzed requests");

	/* Prometheus: cumulative buckets, each an exact sum of iodig's slots */
	{
		struct hist h = { 0 };
		struct prom p = { 0 };
		const uint64_t *b;
		int nb = prom__bounds(&b);
		char lb[128] = "";

		hist__add(&h, 1000);		/* below the first bound (1024) */
		hist__add(&h, 1024);		/* the bound itself: the next bucket (le is exclusive by 1 ns) */
		hist__add(&h, 1535);
		hist__add(&h, 3000000);		/* 3 ms */
		hist__add(&h, 100000000000ULL);	/* 100 s: past the last bound, only in +Inf */
		prom__label(lb, sizeof(lb), "disk", "sd\"a\\\n");
		prom__hist(&p, "x_seconds", lb, &h);
		CHECK(nb == 49 && b[0] == 1024 && b[1] == 1536 && b[2] == 2048 && b[nb - 1] == 1ULL << 34, "bounds");
		CHECK(!strcmp(lb, "disk=\"sd\\\"a\\\\\\n\""), "label escaped: %s", lb);
		CHECK(strstr(p.buf, "x_seconds_bucket{disk=\"sd\\\"a\\\\\\n\",le=\"1.024e-06\"} 1\n") != NULL, "le 1.024us: %.200s", p.buf);
		CHECK(strstr(p.buf, "le=\"1.536e-06\"} 3\n") != NULL, "le 1.536us");
		CHECK(strstr(p.buf, "le=\"0.002097152\"} 3\n") != NULL, "le 2.1ms");
		CHECK(strstr(p.buf, "le=\"0.003145728\"} 4\n") != NULL, "le 3.1ms");
		CHECK(strstr(p.buf, "le=\"17.179869184\"} 4\n") != NULL, "last bound");
		CHECK(strstr(p.buf, "le=\"+Inf\"} 5\n") != NULL, "+Inf");
		CHECK(strstr(p.buf, "x_seconds_count{disk=\"sd\\\"a\\\\\\n\"} 5\n") != NULL, "count");
		prom__free(&p);
	}
	CHECK_DONE();
}
