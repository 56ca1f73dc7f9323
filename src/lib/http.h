/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.x responder for the exporter: GET and HEAD, one request a
 * connection (Connection: close), requests of at most HTTP_MAX_REQ bytes.
 * One thread of its own serves every connection at once (epoll, non-blocking
 * sockets), so no client can hold up another's scrape, nor the tracing: a
 * request must be whole HTTP_TIMEOUT_MS after the connection (else 408), an
 * answer taken within HTTP_WRITE_MS; at most HTTP_MAX_CONNS connections, and
 * past that the oldest one still waiting for its request is closed for the
 * newcomer, so idle or slow clients never fill the listen queue; a request
 * already there when its connection is accepted is answered at once.  Debian's libmicrohttpd cannot be linked statically
 * (its GnuTLS needs p11-kit, which ships no .a): docs/DESIGN.md.
 */
#ifndef IODIG_HTTP_H
#define IODIG_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_MAX_REQ	8192
#define HTTP_TIMEOUT_MS	2000	/* the whole request, from the connection */
#define HTTP_WRITE_MS	5000	/* the whole answer taken */
#define HTTP_LINGER_MS	500	/* after the answer, what the client still sends is dropped */
#define HTTP_MAX_CONNS	2048	/* RLIMIT_NOFILE raised for them, within the hard limit */
#define HTTP_BACKLOG	1024	/* the kernel caps it at net.core.somaxconn */

struct http_req {
	bool head;		/* HEAD: headers only */
	char path[256];		/* without the query */
};

/*
 * Parses a request head in buf[0..len).  Returns 0 when more bytes are
 * needed, 200 when *r holds a GET or HEAD to answer, or the status to
 * answer the client with instead: 400 (malformed), 405 (another method),
 * 414 (target too long), 431 (head larger than HTTP_MAX_REQ), 505 (not
 * HTTP/1.x).  Any bytes at all are safe to hand it (tests/unit/test_http.c
 * feeds it random ones).
 */
int http__parse(const char *buf, size_t len, struct http_req *r);

/* What a handler answers: status, content type and body (malloc'd, or
 * NULL); the server frees the body. */
struct http_resp {
	int status;
	const char *type;
	char *body;
	size_t len;
};

typedef void (*http_handler)(void *ctx, const struct http_req *r, struct http_resp *out);

struct http_server;

/* Listens on addr ("127.0.0.1:9436", "[::1]:9436", ":9436" for every
 * address) and serves in a thread of its own.  0, or an exit status after
 * saying why. */
int http__start(struct http_server **s, const char *addr, http_handler fn, void *ctx);
/* ADDR:PORT is an address other machines reach (not 127.0.0.0/8 or ::1;
 * ":PORT" is every address): anyone who reaches it reads what is served.
 * false for what is no numeric address (http__start refuses it). */
bool http__remote(const char *addr);
/* Connections served and refused (malformed, too large, timed out). */
void http__counts(struct http_server *s, uint64_t *served, uint64_t *refused);
void http__stop(struct http_server *s);

#endif
