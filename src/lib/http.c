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
#include <sys/epoll.h>
#include <sys/resource.h>
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

/* A connection, from accept to close. */
struct conn {
	int fd;			/* -1: a free slot */
	enum { C_READ, C_WRITE, C_LINGER } state;
	long long accepted;	/* ms: the oldest idle one goes first when full */
	long long deadline;	/* ms: of the state it is in */
	int status;		/* what it was answered (200, 4xx) */
	size_t len;		/* C_READ: bytes of the request head */
	char *out;		/* C_WRITE: head and body, malloc'd */
	size_t outlen, outoff;
	char *buf;		/* HTTP_MAX_REQ, malloc'd from accept to close: 2048
				 * slots with their buffers in line made 8 MB of
				 * export's RSS, touched by the scans of fd */
};

struct http_server {
	int fd, ep;
	int stop[2];		/* a pipe: a byte there ends the thread */
	pthread_t thread;
	http_handler fn;
	void *ctx;
	uint64_t served, refused;
	pthread_mutex_t lock;
	struct conn *c;		/* HTTP_MAX_CONNS slots */
	int nconn;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void conn_close(struct http_server *s, struct conn *c)
{
	pthread_mutex_lock(&s->lock);
	if (c->status == 200)
		s->served++;
	else
		s->refused++;
	pthread_mutex_unlock(&s->lock);
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->out);
	c->out = NULL;
	free(c->buf);
	c->buf = NULL;
	c->fd = -1;
	s->nconn--;
}

/* A lingering close: what the client sent past the request is read and
 * dropped for a moment, or the kernel would answer it with a reset that can
 * destroy the response on its way (an oversized request). */
static void conn_linger(struct http_server *s, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };

	shutdown(c->fd, SHUT_WR);
	c->state = C_LINGER;
	c->deadline = now_ms() + HTTP_LINGER_MS;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void conn_write(struct http_server *s, struct conn *c)
{
	ssize_t w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (w < 0 && errno != EAGAIN && errno != EINTR) {
		conn_close(s, c);
		return;
	}
	if (w > 0)
		c->outoff += w;
	if (c->outoff == c->outlen)
		conn_linger(s, c);
}

/* The answer, all of it in one buffer, written as the socket takes it. */
static void conn_answer(struct http_server *s, struct conn *c, const struct http_req *r, struct http_resp *resp)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
	size_t body = resp->body && !(r && r->head) ? resp->len : 0;
	char head[512];
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
		     resp->status, reason(resp->status), resp->type ? resp->type : "text/plain; charset=utf-8",
		     resp->len, resp->status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (!(c->out = malloc(n + body))) {
		conn_close(s, c);
		return;
	}
	memcpy(c->out, head, n);
	if (body)
		memcpy(c->out + n, resp->body, body);
	c->outlen = n + body;
	c->outoff = 0;
	c->state = C_WRITE;
	c->deadline = now_ms() + HTTP_WRITE_MS;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
	conn_write(s, c);	/* most answers fit the socket's buffer at once */
}

static void conn_refuse(struct http_server *s, struct conn *c, int st)
{
	char msg[64];
	struct http_resp resp = { st, NULL, msg, 0 };

	resp.len = snprintf(msg, sizeof(msg), "%d %s\n", st, reason(st));
	c->status = st;		/* counted as refused */
	conn_answer(s, c, NULL, &resp);
}

static void conn_read(struct http_server *s, struct conn *c)
{
	struct http_resp resp = { 0 };
	struct http_req r;
	ssize_t got;
	int st;

	got = recv(c->fd, c->buf + c->len, HTTP_MAX_REQ - c->len, MSG_DONTWAIT);
	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
		c->status = 0;		/* closed before a whole request */
		conn_close(s, c);
		return;
	}
	if (got < 0)
		return;
	c->len += got;
	st = http__parse(c->buf, c->len, &r);
	if (!st)
		return;
	if (st != 200) {
		conn_refuse(s, c, st);
		return;
	}
	c->status = 200;	/* a request answered: counted as served, whatever its status */
	s->fn(s->ctx, &r, &resp);
	conn_answer(s, c, &r, &resp);
	free(resp.body);
}


static void conn_drop(struct http_server *s, struct conn *c)
{
	char buf[4096];
	ssize_t got = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
		conn_close(s, c);
}

/* Room for one more: a free slot, or the oldest connection still waiting
 * for its request (a slow or idle client) closed for it.  A scraper's
 * request is read as it is accepted (it is there by then, sent right after
 * the connection), so a scraper is not the one waiting longest. */
static struct conn *conn_slot(struct http_server *s)
{
	struct conn *oldest = NULL;

	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		if (s->c[i].fd < 0)
			return &s->c[i];
		if (s->c[i].state == C_READ && (!oldest || s->c[i].accepted < oldest->accepted))
			oldest = &s->c[i];
	}
	if (!oldest)
		return NULL;
	oldest->status = 0;
	conn_close(s, oldest);
	return oldest;
}

static void accept_all(struct http_server *s)
{
	for (;;) {
		int fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
		struct conn *c;

		if (fd < 0)
			return;
		if (!(c = conn_slot(s))) {
			close(fd);	/* every slot busy, none idle long: the client retries */
			continue;
		}
		if (!c->buf && !(c->buf = malloc(HTTP_MAX_REQ))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->state = C_READ;
		c->accepted = now_ms();
		c->deadline = c->accepted + HTTP_TIMEOUT_MS;
		c->len = 0;
		c->status = 0;
		ev.data.ptr = c;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			c->fd = -1;
			continue;
		}
		s->nconn++;
		conn_read(s, c);	/* a request already in: answered now */
	}
}

/* Deadlines: a request not whole in time gets 408, an answer not taken in
 * time or a linger that is over is closed. */
static void expire(struct http_server *s)
{
	long long now = now_ms();

	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct conn *c = &s->c[i];

		if (c->fd < 0 || now < c->deadline)
			continue;
		if (c->state == C_READ)
			conn_refuse(s, c, 408);
		else
			conn_close(s, c);
	}
}

static void *loop(void *arg)
{
	struct http_server *s = arg;
	struct epoll_event ev[64];

	for (;;) {
		int n = epoll_wait(s->ep, ev, 64, 100);

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			struct conn *c = ev[i].data.ptr;

			if (c == (void *)&s->fd) {
				accept_all(s);
				continue;
			}
			if (c == (void *)&s->stop[0])
				return NULL;
			if (c->fd < 0)
				continue;	/* closed earlier in this batch */
			if (c->state == C_READ)
				conn_read(s, c);
			else if (c->state == C_WRITE)
				conn_write(s, c);
			else
				conn_drop(s, c);
		}
		expire(s);
	}
	return NULL;
}

/* ADDR:PORT into host (its [brackets] gone) and the port, which is
 * returned (a pointer into host's buffer), or NULL without a ':'. */
static char *split_addr(const char *addr, char *host, size_t len)
{
	char *port;
	size_t n;

	snprintf(host, len, "%s", addr);
	if (!(port = strrchr(host, ':')))
		return NULL;
	*port++ = '\0';
	n = strlen(host);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host[n - 1] = '\0';
		memmove(host, host + 1, n - 1);
	}
	return port;
}

bool http__remote(const char *addr)
{
	char host[256], *port;
	struct in_addr a4;
	struct in6_addr a6;

	if (!(port = split_addr(addr, host, sizeof(host))))
		return false;	/* not ADDR:PORT: http__start says so */
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
	port = split_addr(addr, host, sizeof(host));
	if (!port || !port[0])
		return usage_error("--listen '%s': ADDRESS:PORT (127.0.0.1:9436, [::1]:9436, :9436)", addr);
	pn = strtoul(port, &end, 10);
	if (*end || !pn || pn > 65535)
		return usage_error("--listen '%s': the port is a number from 1 to 65535", addr);
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
	{	/* room for every connection's fd, as far as the hard limit lets */
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < HTTP_MAX_CONNS + 256) {
			rl.rlim_cur = rl.rlim_max < HTTP_MAX_CONNS + 256 ? rl.rlim_max : HTTP_MAX_CONNS + 256;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (!(s = calloc(1, sizeof(*s))))
		return fail("listening", "out of memory");
	s->fn = fn;
	s->ctx = ctx;
	s->stop[0] = s->stop[1] = -1;
	s->ep = -1;
	pthread_mutex_init(&s->lock, NULL);
	if (!(s->c = calloc(HTTP_MAX_CONNS, sizeof(*s->c)))) {
		http__stop(s);
		return fail("listening", "out of memory");
	}
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		s->c[i].fd = -1;
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&ss, sl) || listen(s->fd, HTTP_BACKLOG) || pipe(s->stop) ||
	    (s->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		err = errno;
		http__stop(s);
		return fail(addr, "cannot listen: %s", strerror(err));
	}
	{
		struct epoll_event l = { .events = EPOLLIN, .data.ptr = &s->fd },
				   st = { .events = EPOLLIN, .data.ptr = &s->stop[0] };

		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd, &l) || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->stop[0], &st)) {
			err = errno;
			http__stop(s);
			return fail(addr, "cannot listen: %s", strerror(err));
		}
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
	for (int i = 0; s->c && i < HTTP_MAX_CONNS; i++) {
		if (s->c[i].fd >= 0) {
			close(s->c[i].fd);
			free(s->c[i].out);
		}
		free(s->c[i].buf);
	}
	free(s->c);
	if (s->ep >= 0)
		close(s->ep);
	if (s->fd >= 0)
		close(s->fd);
	if (s->stop[0] >= 0)
		close(s->stop[0]);
	if (s->stop[1] >= 0)
		close(s->stop[1]);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
