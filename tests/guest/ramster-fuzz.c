// SPDX-License-Identifier: GPL-2.0
/*
 * ramster-fuzz - send malformed frames to a ramster node
 *
 * Each case opens a new connection to the node, sends one kind of bad
 * input (before or after a valid handshake) and waits for the node to
 * close the connection.  The node must count each case (its rx_* and
 * handshake_rejects counters), close only that connection and keep
 * serving its real peers; the test checks that side.
 *
 *   ramster-fuzz -a ADDR -p PORT -s SRC_ADDR -n NODE -t TARGET -c CLUSTER
 *
 * NODE is a node of cluster.conf that is not running, with SRC_ADDR as its
 * address (the target checks that a node connects from its own address);
 * TARGET is the node at ADDR:PORT.  Output: "fuzz: CASE closed" or
 * "fuzz: CASE NOT closed" per case; exit status 0 if every connection was
 * closed by the node.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAGIC		0x54534d52u
#define HDR_SIZE	32
#define CLOSE_WAIT_MS	15000

enum { HELLO = 1, HELLO_REPLY, KEEPALIVE, PUT, PUT_REPLY, GET, GET_REPLY };

struct hdr {
	uint32_t magic;
	uint8_t version;
	uint8_t type;
	uint16_t flags;
	uint32_t plen;
	uint32_t pcrc;
	uint64_t req_id;
	uint16_t src_node;
	uint16_t rsvd0;
	uint32_t rsvd1;
} __attribute__((packed));

struct hello {
	uint8_t min_version;
	uint8_t max_version;
	uint16_t node;
	uint16_t peer_node;
	uint16_t rsvd0;
	char cluster[16];
	uint32_t capabilities;
	uint32_t instance;
} __attribute__((packed));

struct page_frame {
	uint64_t offset;
	uint64_t gen;
	uint16_t swap_type;
	uint16_t rsvd0;
	uint32_t rsvd1;
	uint32_t status;
	uint32_t clen;
	uint32_t dcrc;
	uint8_t compressor;
	uint8_t rsvd[3];
	uint8_t data[64];
} __attribute__((packed));

static struct sockaddr_in target, source;
static unsigned int my_node, target_node;
static const char *cluster = "ramster";

/* crc32c as the kernel's crc32c(0, ...): reflected, no inversions. */
static uint32_t crc32c(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = 0;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & -(crc & 1));
	}
	return crc;
}

/* This test runs on x86 guests: host order is little endian. */
static void make_hdr(struct hdr *h, uint8_t type, const void *payload,
		     uint32_t plen)
{
	memset(h, 0, sizeof(*h));
	h->magic = MAGIC;
	h->version = 1;
	h->type = type;
	h->plen = plen;
	h->pcrc = plen ? crc32c(payload, plen) : 0;
	h->src_node = my_node;
}

static int connect_node(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	if (bind(fd, (struct sockaddr *)&source, sizeof(source)) ||
	    connect(fd, (struct sockaddr *)&target, sizeof(target))) {
		perror("bind/connect");
		exit(2);
	}
	return fd;
}

static void send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n <= 0)
			return;	/* closed already: the check below sees it */
		p += n;
		len -= n;
	}
}

static void send_frame(int fd, uint8_t type, const void *payload,
		       uint32_t plen)
{
	struct hdr h;

	make_hdr(&h, type, payload, plen);
	send_all(fd, &h, sizeof(h));
	send_all(fd, payload, plen);
}

static void fill_hello(struct hello *he, uint8_t min, uint8_t max,
		       const char *name)
{
	memset(he, 0, sizeof(*he));
	he->min_version = min;
	he->max_version = max;
	he->node = my_node;
	he->peer_node = target_node;
	strncpy(he->cluster, name, sizeof(he->cluster) - 1);
	he->instance = 0x5a5a5a5a;
}

/* A connection with a completed handshake; exits if it is refused. */
static int handshaken(void)
{
	struct hello he;
	char reply[HDR_SIZE + sizeof(struct hello)];
	size_t got = 0;
	ssize_t n;
	int fd = connect_node();

	fill_hello(&he, 1, 1, cluster);
	send_frame(fd, HELLO, &he, sizeof(he));
	while (got < sizeof(reply)) {
		n = recv(fd, reply + got, sizeof(reply) - got, 0);
		if (n <= 0) {
			fprintf(stderr, "fuzz: handshake refused (is node %u in the target's cluster.conf at this address?)\n",
				my_node);
			exit(2);
		}
		got += n;
	}
	if (((struct hdr *)reply)->type != HELLO_REPLY) {
		fprintf(stderr, "fuzz: no HELLO_REPLY\n");
		exit(2);
	}
	return fd;
}

/* Did the node close the connection (EOF or reset) in time? */
static int wait_closed(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[4096];
	int waited = 0;
	ssize_t n;

	while (waited < CLOSE_WAIT_MS) {
		if (poll(&pfd, 1, 200) > 0) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n == 0 || (n < 0 && errno == ECONNRESET))
				return 1;
			continue;	/* keepalives: read on */
		}
		waited += 200;
	}
	return 0;
}

static int failures;

static void verdict(const char *name, int fd)
{
	int closed = wait_closed(fd);

	printf("fuzz: %s %s\n", name, closed ? "closed" : "NOT closed");
	fflush(stdout);
	failures += !closed;
	close(fd);
}

static void case_raw(const char *name, const struct hdr *h, const void *p,
		     size_t plen)
{
	int fd = connect_node();

	send_all(fd, h, sizeof(*h));
	send_all(fd, p, plen);
	verdict(name, fd);
}

static void pre_handshake_cases(void)
{
	struct hello he;
	struct page_frame pf;
	struct hdr h;
	int fd;

	fill_hello(&he, 1, 1, cluster);

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.magic = 0xdeadbeef;
	case_raw("bad_magic", &h, &he, sizeof(he));

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.version = 0;
	case_raw("bad_version", &h, &he, sizeof(he));

	make_hdr(&h, 200, &he, sizeof(he));
	case_raw("unknown_type", &h, &he, sizeof(he));

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.plen = 1 << 20;
	case_raw("oversized_length", &h, &he, sizeof(he));

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.flags = 0x8000;
	case_raw("unknown_flags", &h, &he, sizeof(he));

	memset(&pf, 0, sizeof(pf));
	pf.clen = sizeof(pf.data);
	pf.compressor = 1;
	make_hdr(&h, PUT, &pf, sizeof(pf));
	case_raw("put_before_handshake", &h, &pf, sizeof(pf));

	/* The header says 32 bytes; 10 come, then nothing. */
	make_hdr(&h, HELLO, &he, sizeof(he));
	case_raw("truncated_payload", &h, &he, 10);

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.pcrc ^= 1;
	case_raw("bad_crc_hello", &h, &he, sizeof(he));

	fill_hello(&he, 5, 9, cluster);
	fd = connect_node();
	send_frame(fd, HELLO, &he, sizeof(he));
	verdict("no_common_version", fd);

	fill_hello(&he, 1, 1, "othercluster");
	fd = connect_node();
	send_frame(fd, HELLO, &he, sizeof(he));
	verdict("wrong_cluster", fd);

	fill_hello(&he, 1, 1, cluster);
	he.node = 250;
	fd = connect_node();
	make_hdr(&h, HELLO, &he, sizeof(he));
	h.src_node = 250;
	send_all(fd, &h, sizeof(h));
	send_all(fd, &he, sizeof(he));
	verdict("unknown_node", fd);
}

static void post_handshake_cases(void)
{
	struct page_frame pf;
	struct hello he;
	uint8_t garbage[64];
	uint64_t ka[2] = { 0, 0 };
	struct hdr h;
	unsigned int i;
	int fd;

	fd = handshaken();
	make_hdr(&h, KEEPALIVE, ka, sizeof(ka));
	h.src_node = target_node == 1 ? 2 : 1;	/* forged sender */
	send_all(fd, &h, sizeof(h));
	send_all(fd, ka, sizeof(ka));
	verdict("forged_node", fd);

	fd = handshaken();
	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (uint8_t)(i * 37 + 11);
	send_all(fd, garbage, sizeof(garbage));
	verdict("garbage_after_handshake", fd);

	memset(&pf, 0x11, sizeof(pf.data));
	memset(&pf, 0, offsetof(struct page_frame, data));
	pf.clen = sizeof(pf.data);
	pf.compressor = 1;
	fd = handshaken();
	make_hdr(&h, PUT, &pf, sizeof(pf));
	h.pcrc ^= 0x10;
	send_all(fd, &h, sizeof(h));
	send_all(fd, &pf, sizeof(pf));
	verdict("bad_crc_put", fd);

	fd = handshaken();
	pf.clen = 9999;	/* disagrees with the frame length */
	send_frame(fd, PUT, &pf, sizeof(pf));
	verdict("bad_payload_put", fd);

	fd = handshaken();
	make_hdr(&h, PUT, &pf, sizeof(pf));
	h.plen = 100000;
	send_all(fd, &h, sizeof(h));
	verdict("oversized_put", fd);

	fd = handshaken();
	send_frame(fd, 77, ka, sizeof(ka));
	verdict("unknown_type_live", fd);

	fd = handshaken();
	fill_hello(&he, 1, 1, cluster);
	send_frame(fd, HELLO, &he, sizeof(he));
	verdict("hello_on_live_link", fd);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL;
	unsigned int port = 7777;
	int c;

	while ((c = getopt(argc, argv, "a:p:s:n:t:c:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 's': src = optarg; break;
		case 'n': my_node = atoi(optarg); break;
		case 't': target_node = atoi(optarg); break;
		case 'c': cluster = optarg; break;
		default: return 2;
		}
	}
	if (!addr || !src || !my_node) {
		fprintf(stderr, "usage: ramster-fuzz -a ADDR -p PORT -s SRC_ADDR -n NODE -t TARGET [-c CLUSTER]\n");
		return 2;
	}
	target.sin_family = AF_INET;
	target.sin_port = htons(port);
	source.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &target.sin_addr) != 1 ||
	    inet_pton(AF_INET, src, &source.sin_addr) != 1) {
		fprintf(stderr, "ramster-fuzz: bad address\n");
		return 2;
	}
	pre_handshake_cases();
	post_handshake_cases();
	printf("fuzz: result failures=%d\n", failures);
	return failures ? 1 : 0;
}
