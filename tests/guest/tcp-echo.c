// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-echo - the network's own round trip, the yardstick for remote loads
 *
 *   tcp-echo -l PORT [-r REQUEST] [-b BYTES | -s MIB]
 *   tcp-echo -c ADDR -p PORT [-n COUNT] [-r REQUEST] [-b BYTES] [-v]
 *   tcp-echo -c ADDR -p PORT -s MIB
 *
 * Each round trip sends REQUEST bytes and gets BYTES back (default 4096
 * both ways, an echo of a page; -r 64 is shaped like a remote GET: a
 * header out, a page back).  Server and client must agree on both.
 * -l serves connections one at a time.  -c measures: COUNT (default 200)
 * round trips over one connection with TCP_NODELAY, after 10 unmeasured
 * ones (connecting retries for 10 s: the server may still be starting),
 * and prints
 *
 *   tcp-echo: request=R bytes=B count=N min_us=.. p50_us=.. p99_us=.. max_us=..
 *
 * and with -v every round trip's microseconds first, one per line (the
 * benchmark's latency CDF).  The same guests and bridge as a remote GET
 * of ramster or NBD's 4 KiB read; the benchmark reports remote load
 * latency beside it.  Every read and write gives up after 10 s.
 *
 * -s MIB (on both sides) measures the link's raw throughput instead: the
 * client writes MIB MiB as fast as TCP takes them, the server reads them
 * all and answers one byte, and the client prints
 *
 *   tcp-echo: stream bytes=.. ms=.. mbit_s=.. pages_s=..
 *
 * (pages_s: 4 KiB pages per second), the ceiling the benchmark sets
 * remotification's pages per second against.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WARMUP 10
/* Below the smallest socket buffers: a round trip never waits on itself. */
#define MAX_BYTES 65536
#define IO_TIMEOUT_S 10

static void die(const char *what)
{
	fprintf(stderr, "tcp-echo: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* set_up: TCP_NODELAY and the I/O timeouts on a connected socket. */
static void set_up(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("setsockopt");
}

/* all_io: all LEN bytes read (READING) or written, or -1 (errno set). */
static int all_io(int fd, char *buf, size_t len, int reading)
{
	while (len) {
		ssize_t n = reading ? read(fd, buf, len) : write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = ECONNRESET;	/* the peer closed */
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* number: ARG as an integer in [MIN, MAX], or exit with usage. */
static int number(const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "tcp-echo: bad number '%s' (%ld to %ld)\n", arg, min, max);
		exit(2);
	}
	return (int)v;
}

/*
 * stream_io: MIB MiB read (READING) or written through BUF (MAX_BYTES),
 * then the one byte that ends a stream the other way; 0 or -1 (errno
 * set).
 */
static int stream_io(int fd, char *buf, int mib, int reading)
{
	long long left = (long long)mib << 20;

	while (left > 0) {
		size_t len = left < MAX_BYTES ? (size_t)left : MAX_BYTES;

		if (all_io(fd, buf, len, reading))
			return -1;
		left -= (long long)len;
	}
	return all_io(fd, buf, 1, !reading);
}

static void __attribute__((noreturn)) serve(int port, int request, int bytes,
					    int mib)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	static char buf[MAX_BYTES];
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
		set_up(fd);
		if (mib)
			stream_io(fd, buf, mib, 1);
		else
			while (!all_io(fd, buf, (size_t)request, 1) &&
			       !all_io(fd, buf, (size_t)bytes, 0))
				;
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

/*
 * connect_to: a connected, set-up socket to ADDR:PORT (retrying for 10 s
 * while refused: the server may still be starting), or -1 for a bad
 * address.
 */
static int connect_to(const char *addr, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	int fd, tries = 0;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "tcp-echo: bad address %s\n", addr);
		return -1;
	}
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		if (errno != ECONNREFUSED || ++tries >= 100)
			die("connect");
		close(fd);
		usleep(100000);
	}
	set_up(fd);
	return fd;
}

/* stream: MIB MiB written to ADDR:PORT, timed up to the server's byte. */
static int stream(const char *addr, int port, int mib)
{
	static char buf[MAX_BYTES];
	long long t, us;
	int fd;

	fd = connect_to(addr, port);
	if (fd < 0)
		return 2;
	memset(buf, 0x5a, sizeof(buf));
	t = now_us();
	if (stream_io(fd, buf, mib, 0))
		die("stream");
	us = now_us() - t;
	close(fd);
	if (us < 1)
		us = 1;
	printf("tcp-echo: stream bytes=%lld ms=%lld mbit_s=%lld pages_s=%lld\n",
	       (long long)mib << 20, us / 1000,
	       ((long long)mib << 23) / us, ((long long)mib << 8) * 1000000 / us);
	return 0;
}

static int measure(const char *addr, int port, int count, int request,
		   int bytes, int verbose)
{
	long long *us, t;
	char *buf;
	int fd, i;

	fd = connect_to(addr, port);
	if (fd < 0)
		return 2;
	us = calloc((size_t)count, sizeof(*us));
	buf = malloc(MAX_BYTES);
	if (!us || !buf)
		die("malloc");
	memset(buf, 0x5a, MAX_BYTES);
	for (i = -WARMUP; i < count; i++) {
		t = now_us();
		if (all_io(fd, buf, (size_t)request, 0) ||
		    all_io(fd, buf, (size_t)bytes, 1))
			die("round trip");
		if (i >= 0)
			us[i] = now_us() - t;
	}
	close(fd);
	if (verbose)
		for (i = 0; i < count; i++)
			printf("%lld\n", us[i]);
	qsort(us, (size_t)count, sizeof(*us), cmp_ll);
	printf("tcp-echo: request=%d bytes=%d count=%d min_us=%lld p50_us=%lld p99_us=%lld max_us=%lld\n",
	       request, bytes, count, us[0], us[(count - 1) / 2],
	       us[(count * 99 + 99) / 100 - 1], us[count - 1]);
	free(us);
	free(buf);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tcp-echo -l PORT [-r REQUEST] [-b BYTES | -s MIB]\n"
		"       tcp-echo -c ADDR -p PORT [-n COUNT] [-r REQUEST] [-b BYTES] [-v]\n"
		"       tcp-echo -c ADDR -p PORT -s MIB\n");
	return 2;
}

int main(int argc, char **argv)
{
	int port = 0, listen_port = 0, count = 200, bytes = 4096, request = -1;
	int verbose = 0, mib = 0, echo_opts = 0, c;
	const char *addr = NULL;

	while ((c = getopt(argc, argv, "l:c:p:n:r:b:s:v")) != -1) {
		switch (c) {
		case 'l': listen_port = number(optarg, 1, 65535); break;
		case 'c': addr = optarg; break;
		case 'p': port = number(optarg, 1, 65535); break;
		case 'n': count = number(optarg, 1, 1000000); echo_opts = 1; break;
		case 'r': request = number(optarg, 1, MAX_BYTES); echo_opts = 1; break;
		case 'b': bytes = number(optarg, 1, MAX_BYTES); echo_opts = 1; break;
		case 's': mib = number(optarg, 1, 65536); break;
		case 'v': verbose = 1; echo_opts = 1; break;
		default: return usage();
		}
	}
	/* -s streams: the echo's options would be silently ignored. */
	if (mib && echo_opts)
		return usage();
	/* A peer gone mid-write is an error to report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	if (request < 0)
		request = bytes;
	if (listen_port && !addr && !port)
		serve(listen_port, request, bytes, mib);
	if (listen_port || !addr || !port)
		return usage();
	if (mib)
		return stream(addr, port, mib);
	return measure(addr, port, count, request, bytes, verbose);
}
