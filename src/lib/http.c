// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "http.h"
#include "log.h"

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
}

int http__parse(const char *buf, size_t len, struct http_req *r)
{
	const char *end = NULL, *sp1, *sp2, *eol, *q;
	size_t n, vlen;

	memset(r, 0, sizeof(*r));
	/* the head ends at the first empty line */
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] == '\n' && buf[i + 1] == '\n') {
			end = buf + i;
			break;
		}
		if (i + 3 < len && !memcmp(buf + i, "\r\n\r\n", 4)) {
			end = buf + i;
			break;
		}
	}
	if (!end)
		return len >= HTTP_MAX_REQ ? 431 : 0;
	if (end - buf >= HTTP_MAX_REQ)
		return 431;
	eol = memchr(buf, '\n', len);	/* there is one: the head ends with it */
	if (!eol)
		return 400;
	n = eol - buf;
	if (n && buf[n - 1] == '\r')
		n--;
	/* METHOD SP TARGET SP HTTP/1.x: no NUL, no control bytes */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return 400;
	sp1 = memchr(buf, ' ', n);
	if (!sp1)
		return 400;
	sp2 = memchr(sp1 + 1, ' ', n - (sp1 + 1 - buf));
	if (!sp2 || sp2 == sp1 + 1)
		return 400;
	vlen = buf + n - (sp2 + 1);
	if (vlen < 5 || memcmp(sp2 + 1, "HTTP/", 5))
		return 400;
	if (vlen != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) || (sp2[8] != '0' && sp2[8] != '1'))
		return 505;
	if (sp1[1] != '/')
		return 400;
	q = memchr(sp1 + 1, '?', sp2 - (sp1 + 1));
	n = (q ? q : sp2) - (sp1 + 1);
	if (n >= sizeof(r->path))
		return 414;
	memcpy(r->path, sp1 + 1, n);
	r->path[n] = '\0';
	if (sp1 - buf == 3 && !memcmp(buf, "GET", 3))
		return 200;
	if (sp1 - buf == 4 && !memcmp(buf, "HEAD", 4)) {
		r->head = true;
		return 200;
	}
	return 405;
}

struct http_server {
	int fd;
	int stop[2];		/* a pipe: a byte there ends the thread */
	pthread_t thread;
	http_handler fn;
	void *ctx;
	uint64_t served, refused;
	pthread_mutex_t lock;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Writes it all before the deadline, or gives up. */
static void send_all(int fd, const char *p, size_t n, long long deadline)
{
	while (n) {
		struct pollfd pf = { fd, POLLOUT, 0 };
		long long left = deadline - now_ms();
		ssize_t w;

		if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
			return;
		w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return;
		if (w > 0) {
			p += w;
			n -= w;
		}
	}
}

static void respond(int fd, const struct http_req *r, struct http_resp *resp, long long deadline)
{
	char head[512];
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
		     resp->status, reason(resp->status), resp->type ? resp->type : "text/plain; charset=utf-8",
		     resp->len, resp->status == 405 ? "Allow: GET, HEAD\r\n" : "");
	send_all(fd, head, n, deadline);
	if (resp->body && !(r && r->head))
		send_all(fd, resp->body, resp->len, deadline);
}

static void serve(struct http_server *s, int fd)
{
	long long deadline = now_ms() + HTTP_TIMEOUT_MS;
	char buf[HTTP_MAX_REQ];
	struct http_resp resp = { 0 };
	struct http_req r;
	size_t len = 0;
	int st = 0;

	while (!st) {
		struct pollfd pf = { fd, POLLIN, 0 };
		long long left = deadline - now_ms();
		ssize_t got;

		if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
			st = 408;
			break;
		}
		got = recv(fd, buf + len, sizeof(buf) - len, MSG_DONTWAIT);
		if (got == 0)
			break;		/* closed before a whole request */
		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			break;
		}
		len += got;
		st = http__parse(buf, len, &r);
	}
	if (st == 200) {
		s->fn(s->ctx, &r, &resp);
		respond(fd, &r, &resp, deadline);
		free(resp.body);
	} else if (st) {
		char msg[64];

		resp = (struct http_resp){ st, NULL, msg, 0 };
		resp.len = snprintf(msg, sizeof(msg), "%d %s\n", st, reason(st));
		/* its own short deadline: a 408 comes when the first one is spent */
		respond(fd, NULL, &resp, now_ms() + 500);
	}
	/* a lingering close: what the client sent past the request is read and
	 * dropped for a moment, or the kernel would answer it with a reset that
	 * can destroy the response on its way (an oversized request) */
	shutdown(fd, SHUT_WR);
	for (long long until = now_ms() + 500; now_ms() < until;) {
		struct pollfd pf = { fd, POLLIN, 0 };

		if (poll(&pf, 1, (int)(until - now_ms())) <= 0 || recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
	}
	pthread_mutex_lock(&s->lock);
	if (st == 200)
		s->served++;
	else
		s->refused++;
	pthread_mutex_unlock(&s->lock);
	close(fd);
}

static void *loop(void *arg)
{
	struct http_server *s = arg;

	for (;;) {
		struct pollfd pf[2] = { { s->fd, POLLIN, 0 }, { s->stop[0], POLLIN, 0 } };
		int c;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents)
			break;
		c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0)
			serve(s, c);
	}
	return NULL;
}

bool http__remote(const char *addr)
{
	char host[256], *port;
	struct in_addr a4;
	struct in6_addr a6;

	snprintf(host, sizeof(host), "%s", addr);
	if (!(port = strrchr(host, ':')))
		return false;	/* not ADDR:PORT: http__start says so */
	*port = '\0';
	if (host[0] == '[' && port > host + 1 && port[-1] == ']') {
		port[-1] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	if (!host[0])
		return true;	/* every address */
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) != 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return !IN6_IS_ADDR_LOOPBACK(&a6) &&
		       !(IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;	/* no address: http__start says so */
}

int http__start(struct http_server **out, const char *addr, http_handler fn, void *ctx)
{
	char host[256], *port, *end;
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *v4 = (void *)&ss;
	struct sockaddr_in6 *v6 = (void *)&ss;
	struct http_server *s;
	unsigned long pn;
	socklen_t sl;
	int one = 1, err;

	/* numeric addresses only: no resolver (and no NSS in a static binary) */
	snprintf(host, sizeof(host), "%s", addr);
	port = strrchr(host, ':');
	if (!port || !port[1])
		return usage_error("--listen '%s': ADDRESS:PORT (127.0.0.1:9436, [::1]:9436, :9436)", addr);
	*port++ = '\0';
	pn = strtoul(port, &end, 10);
	if (*end || !pn || pn > 65535)
		return usage_error("--listen '%s': the port is a number from 1 to 65535", addr);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if (!host[0] || inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(pn);
		sl = sizeof(*v4);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(pn);
		sl = sizeof(*v6);
	} else {
		return usage_error("--listen '%s': '%s' is not a numeric IPv4 or IPv6 address", addr, host);
	}
	if (!(s = calloc(1, sizeof(*s))))
		return fail("listening", "out of memory");
	s->fn = fn;
	s->ctx = ctx;
	s->stop[0] = s->stop[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&ss, sl) || listen(s->fd, 16) || pipe(s->stop)) {
		err = errno;
		http__stop(s);
		return fail(addr, "cannot listen: %s", strerror(err));
	}
	if ((err = pthread_create(&s->thread, NULL, loop, s))) {
		s->thread = 0;
		http__stop(s);
		return fail("listening", "no thread: %s", strerror(err));
	}
	*out = s;
	return 0;
}

void http__counts(struct http_server *s, uint64_t *served, uint64_t *refused)
{
	pthread_mutex_lock(&s->lock);
	*served = s->served;
	*refused = s->refused;
	pthread_mutex_unlock(&s->lock);
}

void http__stop(struct http_server *s)
{
	if (!s)
		return;
	if (s->thread) {
		if (write(s->stop[1], "x", 1) == 1)
			pthread_join(s->thread, NULL);
	}
	if (s->fd >= 0)
		close(s->fd);
	if (s->stop[0] >= 0)
		close(s->stop[0]);
	if (s->stop[1] >= 0)
		close(s->stop[1]);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
