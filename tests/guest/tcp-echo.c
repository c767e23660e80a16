// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-echo - the network's own round trip, the yardstick for remote loads
 *
 *   tcp-echo -l PORT
 *   tcp-echo -c ADDR -p PORT [-n COUNT] [-b BYTES] [-v]
 *
 * -l serves: every connection (one at a time) gets back each byte it
 * sends.  -c measures: COUNT (default 200) round trips of BYTES (default
 * 4096, a page) over one connection with TCP_NODELAY, after 10 unmeasured
 * ones, and prints
 *
 *   tcp-echo: bytes=B count=N min_us=.. p50_us=.. p99_us=.. max_us=..
 *
 * and with -v every round trip's microseconds first, one per line (the
 * benchmark's latency CDF).  The same guests and bridge as a remote GET
 * of ramster (a header out, a page back) or NBD's 4 KiB read; the
 * benchmark reports remote load latency beside it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 10
#define MAX_BYTES (1 << 20)

static void die(const char *what)
{
	fprintf(stderr, "tcp-echo: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* all_io: all LEN bytes read (READING) or written, or -1. */
static int all_io(int fd, char *buf, size_t len, int reading)
{
	while (len) {
		ssize_t n = reading ? read(fd, buf, len) : write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void __attribute__((noreturn)) serve(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	static char buf[65536];
	int one = 1, ls, fd;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		die("socket");
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 4))
		die("bind/listen");
	for (;;) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		nodelay(fd);
		for (;;) {
			ssize_t n = read(fd, buf, sizeof(buf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 || all_io(fd, buf, (size_t)n, 0))
				break;
		}
		close(fd);
	}
}

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int measure(const char *addr, int port, int count, int bytes, int verbose)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	long long *us, t;
	char *buf;
	int fd, i;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "tcp-echo: bad address %s\n", addr);
		return 2;
	}
	us = calloc((size_t)count, sizeof(*us));
	buf = malloc((size_t)bytes);
	if (!us || !buf)
		die("malloc");
	memset(buf, 0x5a, (size_t)bytes);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	nodelay(fd);
	for (i = -WARMUP; i < count; i++) {
		t = now_us();
		if (all_io(fd, buf, (size_t)bytes, 0) ||
		    all_io(fd, buf, (size_t)bytes, 1))
			die("echo");
		if (i >= 0)
			us[i] = now_us() - t;
	}
	close(fd);
	if (verbose)
		for (i = 0; i < count; i++)
			printf("%lld\n", us[i]);
	qsort(us, (size_t)count, sizeof(*us), cmp_ll);
	printf("tcp-echo: bytes=%d count=%d min_us=%lld p50_us=%lld p99_us=%lld max_us=%lld\n",
	       bytes, count, us[0], us[(count - 1) / 2],
	       us[(count * 99 + 99) / 100 - 1], us[count - 1]);
	free(us);
	free(buf);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tcp-echo -l PORT | -c ADDR -p PORT [-n COUNT] [-b BYTES] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	int port = 0, listen_port = 0, count = 200, bytes = 4096, verbose = 0, c;
	const char *addr = NULL;

	while ((c = getopt(argc, argv, "l:c:p:n:b:v")) != -1) {
		switch (c) {
		case 'l': listen_port = atoi(optarg); break;
		case 'c': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'b': bytes = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default: return usage();
		}
	}
	if (listen_port > 0 && listen_port < 65536)
		serve(listen_port);
	if (!addr || port <= 0 || port > 65535 || count < 1 || count > 1000000 ||
	    bytes < 1 || bytes > MAX_BYTES)
		return usage();
	return measure(addr, port, count, bytes, verbose);
}
