// SPDX-License-Identifier: GPL-2.0
/*
 * nbd-attach: connect a kernel NBD device to an nbd-server export, for
 * the benchmark's "swap over NBD to a peer's RAM" configuration
 * (tests/bench.sh).  Debian's nbd-client would do, but it links GnuTLS
 * and a dozen libraries the static initramfs does not carry; this is
 * the part of it a swap device needs: the fixed-newstyle handshake with
 * NBD_OPT_EXPORT_NAME, then the ioctls that hand the socket to the
 * kernel, and a child that stays in NBD_DO_IT for as long as the device
 * lives (as nbd-client does).
 *
 *   nbd-attach ADDRESS PORT EXPORT DEVICE [TIMEOUT_S]
 *
 * Prints "nbd-attach: DEVICE: N bytes, flags 0x..." once the device is
 * usable and exits 0; the child keeps the device.  Any failure: a
 * message and exit 1.  TIMEOUT_S is the kernel's per-request timeout, 0
 * (the default) for none: with one connection a timeout fails the I/O,
 * and a swap device must rather wait out a slow (emulated) peer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nbd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NBD_INIT_MAGIC		0x4e42444d41474943ULL	/* "NBDMAGIC" */
#define NBD_OPTS_MAGIC		0x49484156454F5054ULL	/* "IHAVEOPT" */
#define NBD_FLAG_FIXED_NEWSTYLE	(1 << 0)
#define NBD_FLAG_NO_ZEROES	(1 << 1)
#define NBD_OPT_EXPORT_NAME	1

static void die(const char *what)
{
	fprintf(stderr, "nbd-attach: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "nbd-attach: %s\n", what);
	exit(1);
}

static void read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read from the server");
		if (n == 0)
			fail("the server closed the connection during the handshake");
		p += n;
		len -= n;
	}
}

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("write to the server");
		p += n;
		len -= n;
	}
}

static int connect_to(const char *address, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	/* A server that accepts and never answers fails the handshake. */
	struct timeval tv = { .tv_sec = 10 };
	int fd, one = 1;

	sin.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, address, &sin.sin_addr) != 1)
		fail("ADDRESS: not an IPv4 address");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* The fixed-newstyle handshake; the export's size and transmission flags. */
static void handshake(int fd, const char *name, uint64_t *size,
		      uint16_t *flags)
{
	uint64_t magic, opts;
	uint16_t hflags;
	uint32_t cflags, opt[2];
	char zeroes[124];
	struct {
		uint64_t magic;
		uint32_t option;
		uint32_t length;
	} __attribute__((packed)) req;

	read_all(fd, &magic, sizeof(magic));
	read_all(fd, &opts, sizeof(opts));
	if (be64toh(magic) != NBD_INIT_MAGIC || be64toh(opts) != NBD_OPTS_MAGIC)
		fail("not a newstyle NBD server");
	read_all(fd, &hflags, sizeof(hflags));
	hflags = be16toh(hflags);
	if (!(hflags & NBD_FLAG_FIXED_NEWSTYLE))
		fail("the server does not speak fixed newstyle");
	cflags = NBD_FLAG_FIXED_NEWSTYLE | (hflags & NBD_FLAG_NO_ZEROES);
	opt[0] = htobe32(cflags);
	write_all(fd, opt, sizeof(opt[0]));
	req.magic = htobe64(NBD_OPTS_MAGIC);
	req.option = htobe32(NBD_OPT_EXPORT_NAME);
	req.length = htobe32(strlen(name));
	write_all(fd, &req, sizeof(req));
	write_all(fd, name, strlen(name));
	/* A server without the export closes the connection here. */
	read_all(fd, size, sizeof(*size));
	read_all(fd, flags, sizeof(*flags));
	*size = be64toh(*size);
	*flags = be16toh(*flags);
	if (!(cflags & NBD_FLAG_NO_ZEROES))
		read_all(fd, zeroes, sizeof(zeroes));
}

int main(int argc, char **argv)
{
	unsigned long timeout = argc > 5 ? strtoul(argv[5], NULL, 0) : 0;
	struct timeval no_timeout = { 0 };
	uint64_t size;
	uint16_t flags;
	int sock, dev, status;
	char path[64];
	pid_t pid;

	if (argc < 5)
		fail("usage: nbd-attach ADDRESS PORT EXPORT DEVICE [TIMEOUT_S]");
	sock = connect_to(argv[1], argv[2]);
	handshake(sock, argv[3], &size, &flags);
	/*
	 * The kernel's receive thread reads replies with this socket's
	 * timeout: ours was for the handshake only (a quiet stretch of 10 s
	 * would kill the device).
	 */
	if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &no_timeout,
		       sizeof(no_timeout)))
		die("clearing the receive timeout");
	if (size < 4096)
		fail("the export is smaller than a page");
	dev = open(argv[4], O_RDWR);
	if (dev < 0)
		die(argv[4]);
	ioctl(dev, NBD_CLEAR_SOCK);
	if (ioctl(dev, NBD_SET_BLKSIZE, 4096UL) ||
	    ioctl(dev, NBD_SET_SIZE_BLOCKS, (unsigned long)(size / 4096)) ||
	    ioctl(dev, NBD_SET_FLAGS, (unsigned long)flags) ||
	    ioctl(dev, NBD_SET_TIMEOUT, timeout) ||
	    ioctl(dev, NBD_SET_SOCK, (unsigned long)sock))
		die("NBD ioctls");

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		/* It only waits in the kernel: keep it resident and alive. */
		int oom = open("/proc/self/oom_score_adj", O_WRONLY);
		int log = open("/dev/kmsg", O_WRONLY);
		int null = open("/dev/null", O_RDWR);

		/* Not the caller's output, which outlives the call. */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		if (log >= 0 || null >= 0)
			dup2(log >= 0 ? log : null, STDERR_FILENO);

		if (oom >= 0) {
			write_all(oom, "-1000", 5);
			close(oom);
		}
		mlockall(MCL_CURRENT | MCL_FUTURE);
		if (ioctl(dev, NBD_DO_IT))
			die("NBD_DO_IT");
		ioctl(dev, NBD_CLEAR_QUE);
		ioctl(dev, NBD_CLEAR_SOCK);
		_exit(0);
	}
	/* Usable once the kernel has the socket: sysfs shows the task. */
	snprintf(path, sizeof(path), "/sys/block/%s/pid",
		 strrchr(argv[4], '/') ? strrchr(argv[4], '/') + 1 : argv[4]);
	for (int i = 0; i < 1000; i++) {
		if (!access(path, F_OK)) {
			printf("nbd-attach: %s: %llu bytes, flags 0x%x\n", argv[4],
			       (unsigned long long)size, flags);
			return 0;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			fail("NBD_DO_IT ended at once");
		usleep(10000);
	}
	fail("the device did not come up within 10 s");
	return 1;
}
