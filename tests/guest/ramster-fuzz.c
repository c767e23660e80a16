// SPDX-License-Identifier: GPL-2.0
/*
 * ramster-fuzz - attack a ramster node with bad frames (protocol version 2)
 *
 * Each case opens a new connection to the node, sends one kind of bad
 * input (before, during or after a valid handshake) and waits for the
 * node to close the connection.  The node must count each case (its rx_*,
 * handshake_rejects, auth_failures, ... counters), close only that
 * connection and keep serving its real peers; the test checks that side.
 *
 *   ramster-fuzz -a ADDR [-p PORT] -s SRC_ADDR -n NODE -t TARGET
 *                [-c CLUSTER] [-k KEYFILE [-K]] [-E] [-M MODES] [-P PAGES]
 *                [GROUP...]
 *   ramster-fuzz --selftest
 *
 * NODE is a node of cluster.conf that is not running, with SRC_ADDR as its
 * address (the target checks that a node connects from its own address);
 * TARGET is the node at ADDR:PORT.  KEYFILE is the cluster key (64 hex
 * digits); -K makes it wrong on purpose (one bit flipped); -E does not ask
 * for encryption (the link is encrypted anyway if the node asks).
 *
 * Groups (default: pre keyless wrongkey, and with a key also live
 * integrity malformed):
 *   pre        bad headers and hellos before any handshake, a version 1
 *              hello, a connection from an unreserved port
 *   keyless    what an attacker without the key can try: a hello without
 *              the AUTH capability, frames instead of the proof, no proof
 *              at all (the node's handshake deadline), a proof of zeros
 *   wrongkey   a proof under a wrong key (alone, and followed at once by
 *              PUT, GET and INVALIDATE under the session keys that key
 *              would give): the node must close without its own proof
 *   live       a full authenticated handshake and a GET answered: the
 *              node accepts our frames and we verify its tags (a check of
 *              this program, not a closing case); the same with a
 *              capability bit this version does not know
 *   integrity  after an authenticated handshake: a frame replayed on its
 *              link, one from another session, a replayed handshake, one
 *              bit flipped in the header, payload or tag, reordered and
 *              skipped sequence numbers, a frame without RAMSTER_F_AUTH,
 *              a downgrade to authentication only, a crc where none may be
 *              and a truncated tag
 *   malformed  correctly tagged frames of every message type (and unknown
 *              types) with bad lengths, reserved fields or contents
 *   slowloris  -L N connections (default 20), each sending one byte of a
 *              hello per second for -S seconds (default 30); each
 *              connection the node closes is opened again
 *   handshake  time -L handshakes (default 20) up to a working link:
 *              authenticated with a key (if the node has one), plain
 *              hellos with an insecure node; a measurement
 *   acceptor   a fake acceptor: listen on SRC_ADDR:PORT (as node NODE,
 *              which must not be running), and answer the next -S seconds'
 *              connections of TARGET without the key: a wrong proof, a
 *              frame instead of the proof, a reply without the AUTH
 *              capability; TARGET must close each
 *   holder     a hostile holder: connect as node NODE (a holder of
 *              TARGET's pages in cluster.conf, not running) for -S
 *              seconds, offer -P pages of room (default 2048), keep the
 *              pages TARGET puts and answer its GETs wrongly, in the
 *              rotation of modes -M gives (see holder() below); TARGET
 *              must count each wrong answer and never use it as data
 *
 * Output: "fuzz: CASE closed" or "fuzz: CASE NOT closed" per case, then
 * "fuzz-info: CASE COUNTER MS" (the counter the node should have
 * incremented, and how long it took to close), and at the end
 * "fuzz: result failures=N"; exit status 0 if every case went as it must.
 *
 * The cryptography is the kernel's, through AF_ALG ("sha256",
 * "hmac(sha256)", "rfc7539(chacha20,poly1305)"): no library in the guest.
 * --selftest checks it against the protocol's test vectors (the module's
 * KUnit suite has the same ones).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define MAGIC		0x54534d52u
#define VERSION		2
#define HDR_SIZE	32
#define HELLO_LEN	64
#define HELLO_V1_LEN	32
#define KEY_LEN		32
#define NONCE_LEN	32
#define MAC_LEN		32
#define TAG_LEN		16
#define MAX_DATA	4096
#define MAX_INVAL	128
#define MAX_FRAME	(HDR_SIZE + 8192 + TAG_LEN)

/* How long a node may take to close a connection after a bad frame. */
#define CLOSE_MS	2000
/* Cases that close by a deadline: handshake (3 s), link timeout (5 s). */
#define DEADLINE_MS	12000
#define REPLY_MS	5000

enum { HELLO = 1, HELLO_REPLY, KEEPALIVE, PUT, PUT_REPLY, GET, GET_REPLY,
	INVALIDATE, INVALIDATE_AREA, RECALL, GOODBYE, AUTH, RECONCILE,
	RECONCILE_REPLY };

#define F_AUTH		1
#define F_ENCRYPTED	2
#define CAP_AUTH	1
#define CAP_ENCRYPT	2

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
	uint32_t seq;
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
	uint8_t nonce[NONCE_LEN];
} __attribute__((packed));

struct wkey {
	uint64_t offset;
	uint64_t gen;
	uint16_t swap_type;
	uint16_t rsvd0;
	uint32_t rsvd1;
} __attribute__((packed));

struct page_frame {
	struct wkey key;
	uint32_t status;
	uint32_t clen;
	uint32_t dcrc;
	uint8_t compressor;
	uint8_t rsvd[3];
	uint8_t data[64];
} __attribute__((packed));

struct status_frame {
	struct wkey key;
	uint32_t status;
	uint32_t rsvd;
} __attribute__((packed));

struct area_frame {
	uint16_t swap_type;
	uint16_t rsvd0;
	uint32_t rsvd1;
	uint64_t pages;
} __attribute__((packed));

/* RECONCILE: list what you hold for me after (swap_type, offset). */
struct reconcile_frame {
	uint16_t swap_type;
	uint16_t flags;		/* 1: from the start (a zero cursor) */
	uint32_t max_keys;	/* 1..MAX_RECONCILE */
	uint64_t offset;
} __attribute__((packed));

/* RECONCILE_REPLY with room for two keys. */
struct reconcile_reply_frame {
	uint32_t count;
	uint16_t flags;		/* 1: the end of the listing */
	uint16_t status;
	struct wkey keys[2];
} __attribute__((packed));

#define MAX_RECONCILE	128

_Static_assert(sizeof(struct hdr) == HDR_SIZE, "header");
_Static_assert(sizeof(struct hello) == HELLO_LEN, "hello");
_Static_assert(sizeof(struct wkey) == 24, "key");

/* A connection, and once authenticated, its session state. */
struct link {
	int fd;
	uint8_t hello[HELLO_LEN];	/* the connector's, as sent */
	uint8_t reply[HELLO_LEN];	/* the acceptor's */
	uint32_t peer_caps;
	int auth, encrypt;
	int tx, rx;			/* AF_ALG AEAD operation sockets */
	uint64_t tx_seq, rx_seq;
};

static struct sockaddr_in target, source;
static unsigned int my_node, target_node;
static const char *cluster = "ramster";
static uint8_t key[KEY_LEN];
static int have_key, want_encrypt = 1;
static int loris_conns = 20, loris_secs = 30;
static int failures;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ramster-fuzz: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void random_bytes(void *buf, size_t len)
{
	if (getrandom(buf, len, 0) != (ssize_t)len)
		die("getrandom: %s", strerror(errno));
}

/*********************************************************************
 * The kernel's cryptography, through AF_ALG
 *********************************************************************/
static int alg_open(const char *type, const char *name, const void *k,
		    size_t klen, unsigned int authsize)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int tfm, op;

	strncpy((char *)sa.salg_type, type, sizeof(sa.salg_type) - 1);
	strncpy((char *)sa.salg_name, name, sizeof(sa.salg_name) - 1);
	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfm < 0)
		die("AF_ALG socket: %s (a kernel without CONFIG_CRYPTO_USER_API_HASH/AEAD?)",
		    strerror(errno));
	if (bind(tfm, (struct sockaddr *)&sa, sizeof(sa)))
		die("AF_ALG %s \"%s\": %s", type, name, strerror(errno));
	if (k && setsockopt(tfm, SOL_ALG, ALG_SET_KEY, k, klen))
		die("AF_ALG %s: key: %s", name, strerror(errno));
	if (authsize &&
	    setsockopt(tfm, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, authsize))
		die("AF_ALG %s: tag size: %s", name, strerror(errno));
	op = accept(tfm, NULL, 0);
	if (op < 0)
		die("AF_ALG %s: accept: %s", name, strerror(errno));
	close(tfm);
	return op;
}

struct part {
	const void *p;
	size_t len;
};

/* A digest of the concatenated parts: sha256, or hmac(sha256) with k. */
static void digest(const char *name, const void *k, size_t klen,
		   const struct part *parts, int n, uint8_t out[32])
{
	int op = alg_open("hash", name, k, klen, 0), i;

	for (i = 0; i < n; i++)
		if (send(op, parts[i].p, parts[i].len,
			 i + 1 < n ? MSG_MORE : 0) != (ssize_t)parts[i].len)
			die("AF_ALG %s: %s", name, strerror(errno));
	if (read(op, out, 32) != 32)
		die("AF_ALG %s: read: %s", name, strerror(errno));
	close(op);
}

static void hmac(const void *k, size_t klen, const char *label,
		 const void *msg, size_t len, const void *tail, size_t tlen,
		 uint8_t out[32])
{
	struct part parts[3] = {
		{ label, label ? strlen(label) : 0 }, { msg, len }, { tail, tlen },
	};

	digest("hmac(sha256)", k, klen, parts, 3, out);
}

static int aead_open(const uint8_t k[32])
{
	return alg_open("aead", "rfc7539(chacha20,poly1305)", k, 32, TAG_LEN);
}

/*
 * One AEAD operation: in = plaintext (encrypt) or ciphertext || tag
 * (decrypt); out gets aad || result.  Returns the bytes read, or -errno
 * (-EBADMSG: the tag does not verify).
 */
static ssize_t aead(int op, int encrypt, uint64_t seq, const void *aad,
		    size_t alen, const void *in, size_t inlen, void *out,
		    size_t outlen)
{
	char cbuf[CMSG_SPACE(sizeof(uint32_t)) * 2 +
		  CMSG_SPACE(sizeof(struct af_alg_iv) + 12)] = { 0 };
	struct iovec iov[2] = {
		{ (void *)aad, alen }, { (void *)in, inlen },
	};
	struct msghdr msg = {
		.msg_iov = iov, .msg_iovlen = 2,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct af_alg_iv *iv;
	struct cmsghdr *c;
	size_t want;
	uint32_t v;
	ssize_t n;

	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	v = encrypt ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(*iv) + 12);
	iv = (struct af_alg_iv *)CMSG_DATA(c);
	iv->ivlen = 12;
	memset(iv->iv, 0, 12);
	memcpy(iv->iv, &seq, 8);	/* le64(seq) || 4 zero bytes (x86) */
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	v = alen;
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	if (sendmsg(op, &msg, 0) != (ssize_t)(alen + inlen))
		die("AF_ALG aead sendmsg: %s", strerror(errno));
	/*
	 * Exactly the result's size: algif_aead goes on reading (and waits
	 * for more data to process) while the buffer has room.
	 */
	want = alen + (encrypt ? inlen + TAG_LEN : inlen - TAG_LEN);
	if (want > outlen || (!encrypt && inlen < TAG_LEN))
		die("aead: no room for the result");
	n = read(op, out, want);
	return n < 0 ? -errno : n;
}

/* The handshake's derivations (ramster/wire.h). */
struct session_keys {
	uint8_t t[32], mac_c[32], mac_a[32], k_ca[32], k_ac[32];
};

static void derive(const uint8_t *k, const uint8_t *hello,
		   const uint8_t *reply, const uint8_t *nonce_c,
		   const uint8_t *nonce_a, struct session_keys *s)
{
	struct part parts[2] = { { hello, HELLO_LEN }, { reply, HELLO_LEN } };
	uint8_t nonces[2 * NONCE_LEN], prk[32], one = 1;

	digest("sha256", NULL, 0, parts, 2, s->t);
	hmac(k, KEY_LEN, "ramster v2 proof c", s->t, 32, NULL, 0, s->mac_c);
	hmac(k, KEY_LEN, "ramster v2 proof a", s->t, 32, NULL, 0, s->mac_a);
	memcpy(nonces, nonce_c, NONCE_LEN);
	memcpy(nonces + NONCE_LEN, nonce_a, NONCE_LEN);
	hmac(nonces, sizeof(nonces), NULL, k, KEY_LEN, NULL, 0, prk);
	hmac(prk, 32, "ramster v2 key c>a", s->t, 32, &one, 1, s->k_ca);
	hmac(prk, 32, "ramster v2 key a>c", s->t, 32, &one, 1, s->k_ac);
}

static void hex(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static int expect_hex(const char *what, const uint8_t *p, size_t n,
		      const char *want)
{
	char got[2 * 256 + 1];

	hex(p, n, got);
	if (!strcmp(got, want)) {
		printf("selftest: %s ok\n", what);
		return 0;
	}
	printf("selftest: %s WRONG: %s, want %s\n", what, got, want);
	return 1;
}

/* The test vectors of the protocol (the KUnit suite has the same). */
static int selftest(void)
{
	static const char pt[] = "page data 0123456789abcdef";
	uint8_t k[32], nc[32], na[32], hello[64], reply[64], aad[32];
	uint8_t out[32 + 64 + TAG_LEN], back[32 + 64];
	struct session_keys s;
	size_t plen = strlen(pt);
	ssize_t n;
	int i, bad = 0, op;

	for (i = 0; i < 32; i++) {
		k[i] = i;
		aad[i] = i;
		nc[i] = 0xa0 + i % 16;
		na[i] = 0x50 + i % 16;
	}
	for (i = 0; i < 64; i++) {
		hello[i] = i;
		reply[i] = 64 + i;
	}
	derive(k, hello, reply, nc, na, &s);
	bad += expect_hex("T", s.t, 32, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5");
	bad += expect_hex("mac_c", s.mac_c, 32, "9e2df148b4e1c3482d298998337174922fa04b4988a5ed76c171d1cb85ca7f48");
	bad += expect_hex("mac_a", s.mac_a, 32, "f1961af5eca59e8995bed18390d3f6b2d8f2e34733bf37c79680316ba9f22b32");
	bad += expect_hex("k_ca", s.k_ca, 32, "5ddb87cf18e27a9050fbcbc77ddaa93745b195e84e24ae5e1702f33e081c0fd7");
	bad += expect_hex("k_ac", s.k_ac, 32, "3c659bb36d71c846ebfdebade0fc28b87d031cfea6518b2effab302488c89600");

	op = aead_open(s.k_ca);
	n = aead(op, 1, 5, aad, 32, pt, plen, out, sizeof(out));
	if (n != (ssize_t)(32 + plen + TAG_LEN)) {
		printf("selftest: encrypt: %zd bytes\n", n);
		return 1;
	}
	bad += expect_hex("encrypted frame", out + 32, plen + TAG_LEN,
			  "4dfdd45e39b1ced3ae10cc5384a08902c13c37c5dc71884da35997ac4b8c06375307cde893414fe0cf0d");
	n = aead(op, 0, 5, aad, 32, out + 32, plen + TAG_LEN, back, sizeof(back));
	if (n != (ssize_t)(32 + plen) || memcmp(back + 32, pt, plen)) {
		printf("selftest: decrypt WRONG (%zd)\n", n);
		bad++;
	}
	out[32 + 3] ^= 0x10;
	n = aead(op, 0, 5, aad, 32, out + 32, plen + TAG_LEN, back, sizeof(back));
	if (n != -EBADMSG) {
		printf("selftest: a flipped bit was not refused (%zd)\n", n);
		bad++;
	}
	n = aead(op, 0, 6, aad, 32, out + 32, plen + TAG_LEN, back, sizeof(back));
	if (n != -EBADMSG) {
		printf("selftest: another sequence number was not refused (%zd)\n", n);
		bad++;
	}
	/* Authentication only: the payload is associated data. */
	memcpy(back, aad, 32);
	memcpy(back + 32, pt, plen);
	n = aead(op, 1, 5, back, 32 + plen, NULL, 0, out, sizeof(out));
	if (n != (ssize_t)(32 + plen + TAG_LEN)) {
		printf("selftest: auth-only: %zd bytes\n", n);
		return 1;
	}
	bad += expect_hex("auth-only tag", out + 32 + plen, TAG_LEN,
			  "5ce526c1d116d3c0ddc7f3f5e2cff404");
	close(op);
	printf("selftest: %s\n", bad ? "FAILED" : "passed");
	return bad ? 1 : 0;
}

/*********************************************************************
 * Frames
 *********************************************************************/
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
	h->version = VERSION;
	h->type = type;
	h->plen = plen;
	h->pcrc = plen ? crc32c(payload, plen) : 0;
	h->src_node = my_node;
}

/*
 * Nodes accept connections only from a reserved source port (below 1024,
 * which only root can bind), as NFS servers do: bind the first free one
 * from 1023 down, as the kernel's connecting side does.
 */
static void bind_reserved(int fd)
{
	struct sockaddr_in sin = source;
	int port;

	for (port = 1023; port >= 512; port--) {
		sin.sin_port = htons(port);
		if (!bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
			return;
		if (errno != EADDRINUSE)
			break;
	}
	die("bind a reserved port on the source address: %s",
	    strerror(errno));
}

/* A connection from a reserved port; -1 (errno set) if refused. */
static int try_connect_node(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	bind_reserved(fd);
	if (connect(fd, (struct sockaddr *)&target, sizeof(target))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int connect_node(void)
{
	int fd = try_connect_node();

	if (fd < 0)
		die("connect: %s", strerror(errno));
	return fd;
}

/* A connection from the source address and any port the kernel picks. */
static int connect_unreserved(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&source, sizeof(source)) ||
	    connect(fd, (struct sockaddr *)&target, sizeof(target)))
		die("bind/connect: %s", strerror(errno));
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

/* A plain frame (handshake frames, and frames a node must refuse). */
static void send_plain(int fd, uint8_t type, const void *payload,
		       uint32_t plen)
{
	struct hdr h;

	make_hdr(&h, type, payload, plen);
	send_all(fd, &h, sizeof(h));
	send_all(fd, payload, plen);
}

/* Read exactly len bytes within ms; 0 if they came. */
static int recv_exact(int fd, void *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t end = now_ms() + ms;
	char *p = buf;
	ssize_t n;
	int64_t left;

	while (len) {
		left = (int64_t)(end - now_ms());
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return -1;
		n = recv(fd, p, len, 0);
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * seal: the whole frame (header, payload, tag) in out, under the link's
 * sending key with sequence number seq (h->seq gets its low 32 bits).
 * The flags are h's own: a caller may lie about them.
 */
static size_t seal(struct link *l, struct hdr *h, uint64_t seq,
		   const void *payload, uint32_t plen, uint8_t *out)
{
	uint8_t buf[MAX_FRAME + HDR_SIZE];
	ssize_t n;

	h->seq = (uint32_t)seq;
	h->pcrc = 0;
	if (l->encrypt) {
		n = aead(l->tx, 1, seq, h, HDR_SIZE, payload, plen, buf,
			 sizeof(buf));
		if (n != (ssize_t)(HDR_SIZE + plen + TAG_LEN))
			die("seal: %zd", n);
		memcpy(out, buf, n);
		memcpy(out, h, HDR_SIZE);
		return n;
	}
	memcpy(buf, h, HDR_SIZE);
	memcpy(buf + HDR_SIZE, payload, plen);
	n = aead(l->tx, 1, seq, buf, HDR_SIZE + plen, NULL, 0, out,
		 MAX_FRAME);
	if (n != (ssize_t)(HDR_SIZE + plen + TAG_LEN))
		die("seal (auth only): %zd", n);
	return n;
}

/* A correctly tagged frame, with the link's next sequence number. */
static size_t sealed(struct link *l, uint8_t type, uint64_t req_id,
		     const void *payload, uint32_t plen, uint8_t *out)
{
	struct hdr h;

	make_hdr(&h, type, payload, plen);
	h.req_id = req_id;
	h.flags = F_AUTH | (l->encrypt ? F_ENCRYPTED : 0);
	return seal(l, &h, l->tx_seq++, payload, plen, out);
}

static void send_sealed(struct link *l, uint8_t type, uint64_t req_id,
			const void *payload, uint32_t plen)
{
	uint8_t frame[MAX_FRAME];

	send_all(l->fd, frame, sealed(l, type, req_id, payload, plen, frame));
}

/*
 * Receive one frame of an authenticated link and check its tag and
 * sequence number: 0 and the header and (decrypted) payload, or -1 with
 * *why set.
 */
static int recv_sealed(struct link *l, struct hdr *h, uint8_t *payload,
		       int ms, const char **why)
{
	uint8_t body[MAX_FRAME], buf[MAX_FRAME + HDR_SIZE];
	ssize_t n;

	if (recv_exact(l->fd, h, HDR_SIZE, ms)) {
		*why = "closed or silent";
		return -1;
	}
	if (h->magic != MAGIC || h->plen > 8192 || !(h->flags & F_AUTH) ||
	    !!(h->flags & F_ENCRYPTED) != l->encrypt) {
		*why = "a frame that is not a tagged frame of this link";
		return -1;
	}
	if (recv_exact(l->fd, body, h->plen + TAG_LEN, ms)) {
		*why = "closed in a frame";
		return -1;
	}
	if (h->seq != (uint32_t)l->rx_seq) {
		*why = "the node's frame has the wrong sequence number";
		return -1;
	}
	if (l->encrypt) {
		n = aead(l->rx, 0, l->rx_seq, h, HDR_SIZE, body,
			 h->plen + TAG_LEN, buf, sizeof(buf));
		if (n == (ssize_t)(HDR_SIZE + h->plen))
			memcpy(payload, buf + HDR_SIZE, h->plen);
	} else {
		memcpy(buf, h, HDR_SIZE);
		memcpy(buf + HDR_SIZE, body, h->plen);
		n = aead(l->rx, 0, l->rx_seq, buf, HDR_SIZE + h->plen,
			 body + h->plen, TAG_LEN, buf, sizeof(buf));
		if (n == (ssize_t)(HDR_SIZE + h->plen))
			memcpy(payload, body, h->plen);
	}
	if (n != (ssize_t)(HDR_SIZE + h->plen)) {
		*why = "the node's tag does not verify";
		return -1;
	}
	l->rx_seq++;
	return 0;
}

/*********************************************************************
 * Handshakes
 *********************************************************************/
/* Not 0: the instance of every hello (the holder's reconnects). */
static uint32_t fixed_instance;

static void fill_hello(struct hello *he, uint8_t min, uint8_t max,
		       const char *name, uint32_t caps)
{
	memset(he, 0, sizeof(*he));
	he->min_version = min;
	he->max_version = max;
	he->node = my_node;
	he->peer_node = target_node;
	strncpy(he->cluster, name, sizeof(he->cluster) - 1);
	he->capabilities = caps;
	random_bytes(&he->instance, sizeof(he->instance));
	he->instance |= 1;
	if (fixed_instance)
		he->instance = fixed_instance;
	random_bytes(he->nonce, sizeof(he->nonce));
}

/* Capability bits this version does not know, offered anyway. */
static uint32_t extra_caps;

static uint32_t my_caps(void)
{
	return CAP_AUTH | (want_encrypt ? CAP_ENCRYPT : 0) | extra_caps;
}

/*
 * hello: connect, say HELLO (with caps), read HELLO_REPLY.  0 on success;
 * -1 if the node closed or said something else.
 */
static int hello(struct link *l, uint32_t caps)
{
	struct hello he;
	struct hdr h;

	memset(l, 0, sizeof(*l));
	l->tx = l->rx = -1;
	l->fd = fixed_instance ? try_connect_node() : connect_node();
	if (l->fd < 0)
		return -1;
	fill_hello(&he, VERSION, VERSION, cluster, caps);
	memcpy(l->hello, &he, HELLO_LEN);
	send_plain(l->fd, HELLO, &he, HELLO_LEN);
	if (recv_exact(l->fd, &h, HDR_SIZE, REPLY_MS) ||
	    h.type != HELLO_REPLY || h.plen != HELLO_LEN ||
	    recv_exact(l->fd, l->reply, HELLO_LEN, REPLY_MS))
		return -1;
	memcpy(&l->peer_caps, l->reply + offsetof(struct hello, capabilities),
	       4);
	return 0;
}

static void link_keys(struct link *l, const struct session_keys *s,
		      int connector)
{
	l->auth = 1;
	l->encrypt = !!((((struct hello *)l->hello)->capabilities |
			 ((struct hello *)l->reply)->capabilities) &
			CAP_ENCRYPT);
	l->tx = aead_open(connector ? s->k_ca : s->k_ac);
	l->rx = aead_open(connector ? s->k_ac : s->k_ca);
	l->tx_seq = l->rx_seq = 0;
}

/*
 * prove: send our AUTH under key k (the session keys are set from k
 * whatever happens next) and, if wait_proof, read the node's and check
 * it.  0 if the node proved it holds k.
 */
static int prove(struct link *l, const uint8_t *k, int wait_proof,
		 struct session_keys *s)
{
	const struct hello *rep = (const void *)l->reply;
	const struct hello *he = (const void *)l->hello;
	uint8_t mac[MAC_LEN];
	struct hdr h;

	derive(k, l->hello, l->reply, he->nonce, rep->nonce, s);
	send_plain(l->fd, AUTH, s->mac_c, MAC_LEN);
	link_keys(l, s, 1);
	if (!wait_proof)
		return 0;
	if (recv_exact(l->fd, &h, HDR_SIZE, REPLY_MS) || h.type != AUTH ||
	    h.plen != MAC_LEN || recv_exact(l->fd, mac, MAC_LEN, REPLY_MS))
		return -1;
	return memcmp(mac, s->mac_a, MAC_LEN) ? -2 : 0;
}

static void link_close(struct link *l)
{
	if (l->tx >= 0)
		close(l->tx);
	if (l->rx >= 0)
		close(l->rx);
	if (l->fd >= 0)
		close(l->fd);
	l->fd = l->tx = l->rx = -1;
}

static uint64_t next_req = 0x1000;

/*
 * probe: a GET of a key nobody stored must come back NOT_FOUND, in a
 * frame whose tag we verify: the node accepts our frames and we read
 * its own.  Keepalives on the way are checked too.
 */
static int probe(struct link *l, const char **why)
{
	uint8_t payload[MAX_FRAME];
	struct status_frame *st;
	struct wkey k = { 0 };
	uint64_t req = next_req++, end = now_ms() + REPLY_MS;
	struct hdr h;

	random_bytes(&k.offset, sizeof(k.offset));
	k.offset &= 0xffffffffffULL;
	k.gen = 1;
	send_sealed(l, GET, req, &k, sizeof(k));
	while (now_ms() < end) {
		if (recv_sealed(l, &h, payload, REPLY_MS, why))
			return -1;
		if (h.type != GET_REPLY)
			continue;
		st = (void *)payload;
		if (h.req_id != req || h.plen < sizeof(*st) ||
		    st->status != 2) {
			*why = "GET_REPLY is not the NOT_FOUND of our GET";
			return -1;
		}
		return 0;
	}
	*why = "no GET_REPLY";
	return -1;
}

/*
 * A link with an authenticated handshake that carried one GET both ways;
 * exits if the node refuses it (the node's key is not ours?).
 */
static void live_link(struct link *l)
{
	struct session_keys s;
	const char *why = "";
	int r;

	if (!have_key)
		die("this group needs the cluster key (-k KEYFILE)");
	if (hello(l, my_caps()))
		die("handshake refused at HELLO (is node %u in the target's cluster.conf at this address?)",
		    my_node);
	if (!(l->peer_caps & CAP_AUTH))
		die("the node has no key (insecure=1): no authenticated link");
	r = prove(l, key, 1, &s);
	if (r)
		die(r == -2 ? "the node's proof is wrong: another key?" :
		    "the node closed after our proof: another key?");
	if (probe(l, &why))
		die("authenticated link does not work: %s", why);
}

/*********************************************************************
 * Verdicts
 *********************************************************************/
/*
 * Did the node close the connection (EOF or reset) within ms?  *bytes:
 * what it sent meanwhile (keepalives of a live link are normal).
 */
static int wait_closed(int fd, int ms, size_t *bytes, uint64_t *took)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t start = now_ms(), end = start + ms;
	char buf[4096];
	int64_t left;
	ssize_t n;

	*bytes = 0;
	while ((left = (int64_t)(end - now_ms())) > 0) {
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			*took = now_ms() - start;
			return 1;
		}
		if (n > 0)
			*bytes += n;
	}
	return 0;
}

/*
 * verdict CASE FD MS COUNTER SILENT: the node must close within MS; with
 * SILENT it must not have said anything either (no proof to a node that
 * has not proved, no frame to an unauthenticated one).
 */
static void verdict(const char *name, int fd, int ms, const char *counter,
		    int silent)
{
	size_t bytes;
	uint64_t took = 0;
	int closed = wait_closed(fd, ms, &bytes, &took);

	printf("fuzz: %s %s\n", name, closed ? "closed" : "NOT closed");
	if (closed && silent && bytes) {
		printf("fuzz: %s: the node sent %zu bytes before closing\n",
		       name, bytes);
		failures++;
	}
	printf("fuzz-info: %s %s %llu\n", name, counter,
	       (unsigned long long)took);
	fflush(stdout);
	failures += !closed;
	close(fd);
}

static void link_verdict(struct link *l, const char *name, int ms,
			 const char *counter, int silent)
{
	verdict(name, l->fd, ms, counter, silent);
	l->fd = -1;
	link_close(l);
}

static void case_raw(const char *name, const struct hdr *h, const void *p,
		     size_t plen, int ms, const char *counter)
{
	int fd = connect_node();

	send_all(fd, h, sizeof(*h));
	send_all(fd, p, plen);
	verdict(name, fd, ms, counter, 1);
}

/*********************************************************************
 * Before the handshake
 *********************************************************************/
static void pre_handshake_cases(void)
{
	struct hello he;
	struct page_frame pf;
	struct hdr h;
	int fd;

	fill_hello(&he, VERSION, VERSION, cluster, my_caps());

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.magic = 0xdeadbeef;
	case_raw("bad_magic", &h, &he, sizeof(he), CLOSE_MS, "rx_bad_magic");

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.version = 0;
	case_raw("bad_version", &h, &he, sizeof(he), CLOSE_MS, "rx_bad_version");

	make_hdr(&h, 200, &he, sizeof(he));
	case_raw("unknown_type", &h, &he, sizeof(he), CLOSE_MS, "rx_unknown_type");

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.plen = 1 << 20;
	case_raw("oversized_length", &h, &he, sizeof(he), CLOSE_MS, "rx_bad_length");

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.flags = 0x8000;
	case_raw("unknown_flags", &h, &he, sizeof(he), CLOSE_MS, "rx_bad_flags");

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.flags = F_AUTH;
	case_raw("auth_flag_in_hello", &h, &he, sizeof(he), CLOSE_MS, "rx_bad_flags");

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.seq = 7;
	case_raw("seq_in_hello", &h, &he, sizeof(he), CLOSE_MS, "rx_bad_reserved");

	memset(&pf, 0, sizeof(pf));
	pf.clen = sizeof(pf.data);
	pf.compressor = 1;
	make_hdr(&h, PUT, &pf, sizeof(pf));
	case_raw("put_before_handshake", &h, &pf, sizeof(pf), CLOSE_MS,
		 "rx_before_handshake");

	/* The header says 64 bytes; 10 come, then nothing. */
	make_hdr(&h, HELLO, &he, sizeof(he));
	case_raw("truncated_payload", &h, &he, 10, DEADLINE_MS,
		 "handshake_timeouts");

	make_hdr(&h, HELLO, &he, sizeof(he));
	h.pcrc ^= 1;
	case_raw("bad_crc_hello", &h, &he, sizeof(he), CLOSE_MS, "rx_bad_crc");

	/* Version 1's hello: 32 bytes, versions 1..1, no nonce. */
	fill_hello(&he, 1, 1, cluster, 0);
	make_hdr(&h, HELLO, &he, HELLO_V1_LEN);
	h.version = 1;
	case_raw("v1_hello", &h, &he, HELLO_V1_LEN, CLOSE_MS, "handshake_rejects");

	fill_hello(&he, 5, 9, cluster, my_caps());
	fd = connect_node();
	send_plain(fd, HELLO, &he, sizeof(he));
	verdict("no_common_version", fd, CLOSE_MS, "handshake_rejects", 1);

	fill_hello(&he, VERSION, VERSION, "othercluster", my_caps());
	fd = connect_node();
	send_plain(fd, HELLO, &he, sizeof(he));
	verdict("wrong_cluster", fd, CLOSE_MS, "handshake_rejects", 1);

	/* A valid hello, from a port above 1023 (any user's): unread. */
	fill_hello(&he, VERSION, VERSION, cluster, my_caps());
	fd = connect_unreserved();
	send_plain(fd, HELLO, &he, sizeof(he));
	verdict("unreserved_port", fd, CLOSE_MS, "accept_refused_address", 1);

	fill_hello(&he, VERSION, VERSION, cluster, my_caps());
	he.node = 250;
	fd = connect_node();
	make_hdr(&h, HELLO, &he, sizeof(he));
	h.src_node = 250;
	send_all(fd, &h, sizeof(h));
	send_all(fd, &he, sizeof(he));
	verdict("unknown_node", fd, CLOSE_MS, "handshake_rejects", 1);
}

/*********************************************************************
 * Without the key
 *********************************************************************/
static void keyless_cases(void)
{
	struct page_frame pf;
	uint8_t zeros[MAC_LEN] = { 0 }, frame[HDR_SIZE + sizeof(pf) + TAG_LEN];
	struct link l;
	struct hdr h;

	/* No downgrade: a node with a key never talks to one without. */
	if (hello(&l, 0) == 0)
		printf("fuzz: hello_without_auth: the node answered a HELLO without CAP_AUTH\n");
	link_verdict(&l, "hello_without_auth", CLOSE_MS, "handshake_rejects", 1);

	if (hello(&l, my_caps()))
		printf("fuzz: no_proof: no HELLO_REPLY\n");
	link_verdict(&l, "no_proof", DEADLINE_MS, "handshake_timeouts", 1);

	memset(&pf, 0, sizeof(pf));
	pf.clen = sizeof(pf.data);
	pf.compressor = 1;
	memset(pf.data, 0x42, sizeof(pf.data));
	hello(&l, my_caps());
	send_plain(l.fd, PUT, &pf, sizeof(pf));
	link_verdict(&l, "put_instead_of_proof", CLOSE_MS, "rx_before_handshake", 1);

	/* A "tagged" PUT with a made-up tag, where the proof should be. */
	hello(&l, my_caps());
	make_hdr(&h, PUT, &pf, sizeof(pf));
	h.flags = F_AUTH | F_ENCRYPTED;
	h.pcrc = 0;
	memcpy(frame, &h, HDR_SIZE);
	memcpy(frame + HDR_SIZE, &pf, sizeof(pf));
	random_bytes(frame + HDR_SIZE + sizeof(pf), TAG_LEN);
	send_all(l.fd, frame, HDR_SIZE + sizeof(pf) + TAG_LEN);
	link_verdict(&l, "tagged_put_instead_of_proof", CLOSE_MS,
		     "rx_before_handshake", 1);

	hello(&l, my_caps());
	send_plain(l.fd, AUTH, zeros, MAC_LEN);
	link_verdict(&l, "proof_of_zeros", CLOSE_MS, "auth_failures", 1);

	/* A proof of the wrong length. */
	hello(&l, my_caps());
	send_plain(l.fd, AUTH, zeros, MAC_LEN - 1);
	link_verdict(&l, "short_proof", CLOSE_MS, "rx_bad_length", 1);

	/* The acceptor's AUTH before the connector's. */
	hello(&l, my_caps());
	send_plain(l.fd, HELLO_REPLY, l.reply, HELLO_LEN);
	link_verdict(&l, "hello_reply_instead_of_proof", CLOSE_MS,
		     "auth_failures", 1);
}

/*********************************************************************
 * A wrong key
 *********************************************************************/
static void wrong_key_of(uint8_t *wrong)
{
	if (have_key) {
		memcpy(wrong, key, KEY_LEN);
		wrong[KEY_LEN - 1] ^= 0x01;	/* as close as it gets */
	} else {
		random_bytes(wrong, KEY_LEN);
	}
}

static void wrong_key_cases(void)
{
	uint8_t wrong[KEY_LEN], frame[MAX_FRAME];
	struct session_keys s;
	struct page_frame pf;
	uint8_t inv[8 + 24] = { 0 };
	struct wkey k = { .offset = 1, .gen = 1 };
	struct link l;
	size_t n;

	wrong_key_of(wrong);
	if (hello(&l, my_caps()))
		printf("fuzz: wrong_key: no HELLO_REPLY\n");
	prove(&l, wrong, 0, &s);
	verdict("wrong_key", l.fd, CLOSE_MS, "auth_failures", 1);
	l.fd = -1;
	link_close(&l);

	/*
	 * The same, with page frames right behind the proof (under the
	 * session keys the wrong key gives): none may be processed.
	 */
	memset(&pf, 0, sizeof(pf));
	pf.key.offset = 7;
	pf.key.gen = 1;
	pf.clen = sizeof(pf.data);
	pf.compressor = 1;
	memset(pf.data, 0x42, sizeof(pf.data));
	*(uint32_t *)inv = 1;
	memcpy(inv + 8, &k, sizeof(k));
	if (hello(&l, my_caps()))
		printf("fuzz: wrong_key_then_frames: no HELLO_REPLY\n");
	prove(&l, wrong, 0, &s);
	n = sealed(&l, PUT, next_req++, &pf, sizeof(pf), frame);
	n += sealed(&l, GET, next_req++, &k, sizeof(k), frame + n);
	n += sealed(&l, INVALIDATE, 0, inv, sizeof(inv), frame + n);
	send_all(l.fd, frame, n);
	verdict("wrong_key_then_frames", l.fd, CLOSE_MS, "auth_failures", 1);
	l.fd = -1;
	link_close(&l);
}

/*********************************************************************
 * Integrity: replays, bit flips, reordering, downgrades
 *********************************************************************/
static void flip_case(const char *name, size_t at_from_end, size_t at)
{
	uint8_t frame[MAX_FRAME];
	uint64_t ka[2] = { 12345, 0 };
	struct wkey k = { .offset = 99, .gen = 1 };
	struct link l;
	size_t n;

	live_link(&l);
	if (at == offsetof(struct hdr, req_id)) /* a request: req_id is free */
		n = sealed(&l, GET, next_req++, &k, sizeof(k), frame);
	else
		n = sealed(&l, KEEPALIVE, 0, ka, sizeof(ka), frame);
	if (at_from_end)
		at = n - at_from_end;
	frame[at] ^= 0x04;
	send_all(l.fd, frame, n);
	link_verdict(&l, name, CLOSE_MS, "rx_bad_tag", 0);
}

static void integrity_cases(void)
{
	uint8_t frame[MAX_FRAME], frame2[MAX_FRAME], hs[2][HDR_SIZE + HELLO_LEN];
	uint64_t ka[2] = { 0, 0 };
	struct session_keys s;
	struct link l, m;
	struct hdr h;
	size_t n, n2;

	/* The same frame twice on its link. */
	live_link(&l);
	n = sealed(&l, KEEPALIVE, 0, ka, sizeof(ka), frame);
	send_all(l.fd, frame, n);
	send_all(l.fd, frame, n);
	link_verdict(&l, "replay_same_link", CLOSE_MS, "rx_bad_seq", 0);

	/*
	 * A frame of one session into another, where its sequence number is
	 * the one expected: other keys, so its tag fails.
	 */
	live_link(&l);
	n = sealed(&l, KEEPALIVE, 0, ka, sizeof(ka), frame);
	live_link(&m);
	link_close(&l);
	send_all(m.fd, frame, n);
	link_verdict(&m, "replay_other_session", CLOSE_MS, "rx_bad_tag", 0);

	/*
	 * A whole recorded handshake (HELLO, then our proof) replayed: the
	 * node's new nonce makes the old proof worthless.
	 */
	live_link(&l);
	make_hdr(&h, HELLO, l.hello, HELLO_LEN);
	memcpy(hs[0], &h, HDR_SIZE);
	memcpy(hs[0] + HDR_SIZE, l.hello, HELLO_LEN);
	derive(key, l.hello, l.reply, ((struct hello *)l.hello)->nonce,
	       ((struct hello *)l.reply)->nonce, &s);
	make_hdr(&h, AUTH, s.mac_c, MAC_LEN);
	memcpy(hs[1], &h, HDR_SIZE);
	memcpy(hs[1] + HDR_SIZE, s.mac_c, MAC_LEN);
	link_close(&l);
	m.fd = connect_node();
	m.tx = m.rx = -1;
	send_all(m.fd, hs[0], HDR_SIZE + HELLO_LEN);
	if (recv_exact(m.fd, &h, HDR_SIZE, REPLY_MS) ||
	    recv_exact(m.fd, frame, HELLO_LEN, REPLY_MS))
		printf("fuzz: replay_handshake: no HELLO_REPLY\n");
	send_all(m.fd, hs[1], HDR_SIZE + MAC_LEN);
	verdict("replay_handshake", m.fd, CLOSE_MS, "auth_failures", 1);

	flip_case("flip_header_bit", 0, offsetof(struct hdr, req_id));
	flip_case("flip_payload_bit", 0, HDR_SIZE + 3);
	flip_case("flip_tag_bit", TAG_LEN - 5, 0);

	/* seq 2 before seq 1. */
	live_link(&l);
	n = sealed(&l, KEEPALIVE, 0, ka, sizeof(ka), frame);
	n2 = sealed(&l, KEEPALIVE, 0, ka, sizeof(ka), frame2);
	send_all(l.fd, frame2, n2);
	send_all(l.fd, frame, n);
	link_verdict(&l, "reordered", CLOSE_MS, "rx_bad_seq", 0);

	/* A frame lost on the way: seq skips one. */
	live_link(&l);
	l.tx_seq++;
	send_sealed(&l, KEEPALIVE, 0, ka, sizeof(ka));
	link_verdict(&l, "skipped_seq", CLOSE_MS, "rx_bad_seq", 0);

	/* A plain frame, crc and all, on an authenticated link. */
	live_link(&l);
	send_plain(l.fd, KEEPALIVE, ka, sizeof(ka));
	link_verdict(&l, "no_auth_flag", CLOSE_MS, "rx_bad_flags", 0);

	/* A correct tag, but the other mode's flags (a downgrade). */
	live_link(&l);
	make_hdr(&h, KEEPALIVE, ka, sizeof(ka));
	h.flags = l.encrypt ? F_AUTH : F_AUTH | F_ENCRYPTED;
	n = seal(&l, &h, l.tx_seq++, ka, sizeof(ka), frame);
	send_all(l.fd, frame, n);
	link_verdict(&l, "other_mode_flags", CLOSE_MS, "rx_bad_flags", 0);

	/* A crc beside the tag (it would leak a page's checksum). */
	live_link(&l);
	make_hdr(&h, KEEPALIVE, ka, sizeof(ka));
	h.flags = F_AUTH | (l.encrypt ? F_ENCRYPTED : 0);
	n = seal(&l, &h, l.tx_seq++, ka, sizeof(ka), frame);
	((struct hdr *)frame)->pcrc = 1;
	send_all(l.fd, frame, n);
	link_verdict(&l, "crc_beside_tag", CLOSE_MS, "rx_bad_reserved", 0);

	/* Half a tag, then silence: the link's timeout. */
	live_link(&l);
	n = sealed(&l, KEEPALIVE, 0, ka, sizeof(ka), frame);
	send_all(l.fd, frame, n - TAG_LEN / 2);
	link_verdict(&l, "truncated_tag", DEADLINE_MS, "link_timeouts", 0);

	/* Garbage where a header should be. */
	live_link(&l);
	for (n = 0; n < 64; n++)
		frame[n] = (uint8_t)(n * 37 + 11);
	send_all(l.fd, frame, 64);
	link_verdict(&l, "garbage_after_handshake", CLOSE_MS, "rx_bad_magic", 0);
}

/*********************************************************************
 * Malformed frames, correctly tagged, of every type
 *********************************************************************/
/* One case: a live link, then the frame (type, header tweak, payload). */
static void malformed(const char *name, uint8_t type, const void *payload,
		      uint32_t plen, const char *counter, int hdr_tweak)
{
	uint8_t frame[MAX_FRAME];
	struct link l;
	struct hdr h;

	live_link(&l);
	make_hdr(&h, type, payload, plen);
	h.flags = F_AUTH | (l.encrypt ? F_ENCRYPTED : 0);
	h.req_id = next_req++;
	switch (hdr_tweak) {
	case 1:
		h.rsvd0 = 1;
		break;
	case 2:
		h.version = 1;
		break;
	case 3:
		h.src_node = target_node == 1 ? 2 : 1;
		break;
	case 4:	/* a length that is never read */
		h.plen = 100000;
		break;
	}
	if (hdr_tweak == 4) {
		h.seq = (uint32_t)l.tx_seq;
		h.pcrc = 0;
		send_all(l.fd, &h, sizeof(h));
	} else {
		send_all(l.fd, frame, seal(&l, &h, l.tx_seq++, payload, plen,
					   frame));
	}
	link_verdict(&l, name, CLOSE_MS, counter, 0);
}

/*
 * RECONCILE and its reply: lengths, cursors, page sizes, keys that are
 * not swap keys.  @buf: at least 8 + 24 * (MAX_RECONCILE + 1) bytes.
 */
static void reconcile_malformed_cases(uint8_t *buf)
{
	struct reconcile_reply_frame rr;
	struct reconcile_frame rc;
	uint32_t *count = (uint32_t *)buf;

	memset(&rc, 0, sizeof(rc));
	rc.flags = 1;
	rc.max_keys = MAX_RECONCILE;
	malformed("reconcile_short", RECONCILE, &rc, sizeof(rc) - 8,
		  "rx_bad_length", 0);
	malformed("reconcile_long", RECONCILE, buf, sizeof(rc) + 8,
		  "rx_bad_length", 0);
	rc.offset = 5;
	malformed("reconcile_start_with_cursor", RECONCILE, &rc, sizeof(rc),
		  "rx_bad_payload", 0);
	rc.offset = 0;
	rc.flags = 0x8000;
	malformed("reconcile_flags", RECONCILE, &rc, sizeof(rc),
		  "rx_bad_payload", 0);
	rc.flags = 0;
	rc.max_keys = 0;
	malformed("reconcile_no_keys", RECONCILE, &rc, sizeof(rc),
		  "rx_bad_payload", 0);
	rc.max_keys = MAX_RECONCILE + 1;
	malformed("reconcile_too_many_keys", RECONCILE, &rc, sizeof(rc),
		  "rx_bad_payload", 0);
	rc.max_keys = MAX_RECONCILE;
	rc.swap_type = 0x8000;	/* ephemeral pages are never listed */
	malformed("reconcile_ephemeral", RECONCILE, &rc, sizeof(rc),
		  "rx_bad_payload", 0);

	memset(&rr, 0, sizeof(rr));
	rr.count = 2;
	rr.keys[0].offset = 10;
	rr.keys[1].offset = 20;
	malformed("reconcile_reply_count_disagrees", RECONCILE_REPLY, &rr,
		  sizeof(rr) - sizeof(rr.keys[1]), "rx_bad_payload", 0);
	rr.keys[1].swap_type = 0x8000;
	malformed("reconcile_reply_ephemeral_key", RECONCILE_REPLY, &rr,
		  sizeof(rr), "rx_bad_payload", 0);
	rr.keys[1].swap_type = 0;
	rr.keys[0].rsvd1 = 1;
	malformed("reconcile_reply_key_reserved", RECONCILE_REPLY, &rr,
		  sizeof(rr), "rx_bad_payload", 0);
	rr.keys[0].rsvd1 = 0;
	rr.status = 4;	/* busy (NO_MEMORY), with keys */
	malformed("reconcile_reply_busy_with_keys", RECONCILE_REPLY, &rr,
		  sizeof(rr), "rx_bad_payload", 0);
	rr.status = 0;
	rr.flags = 2;
	malformed("reconcile_reply_flags", RECONCILE_REPLY, &rr, sizeof(rr),
		  "rx_bad_payload", 0);
	memset(buf, 0, 8 + 24 * (MAX_RECONCILE + 1));
	*count = MAX_RECONCILE + 1;
	malformed("reconcile_reply_too_many", RECONCILE_REPLY, buf,
		  8 + 24 * (MAX_RECONCILE + 1), "rx_bad_length", 0);
	malformed("reconcile_reply_short", RECONCILE_REPLY, buf, 4,
		  "rx_bad_length", 0);
}

static void malformed_cases(void)
{
	uint8_t buf[8 + 24 * (MAX_INVAL + 1) + 64] = { 0 };
	struct page_frame pf;
	struct status_frame st;
	struct area_frame ar;
	struct wkey k;
	struct hello he;
	uint64_t ka[2] = { 0, 0 };
	uint32_t *count = (uint32_t *)buf;

	fill_hello(&he, VERSION, VERSION, cluster, my_caps());
	malformed("hello_on_live_link", HELLO, &he, sizeof(he), "protocol_errors", 0);
	malformed("hello_reply_on_live_link", HELLO_REPLY, &he, sizeof(he),
		  "protocol_errors", 0);
	malformed("auth_on_live_link", AUTH, buf, MAC_LEN, "protocol_errors", 0);

	malformed("keepalive_short", KEEPALIVE, ka, sizeof(ka) - 1, "rx_bad_length", 0);
	malformed("keepalive_long", KEEPALIVE, buf, sizeof(ka) + 8, "rx_bad_length", 0);

	memset(&pf, 0, sizeof(pf));
	pf.key.offset = 5;
	pf.key.gen = 1;
	pf.clen = sizeof(pf.data);
	pf.compressor = 1;
	memset(pf.data, 0x5a, sizeof(pf.data));
	malformed("put_no_data", PUT, &pf, offsetof(struct page_frame, data),
		  "rx_bad_length", 0);
	malformed("put_oversized", PUT, &pf, 0, "rx_bad_length", 4);
	pf.clen = 9999;
	malformed("put_clen_disagrees", PUT, &pf, sizeof(pf), "rx_bad_payload", 0);
	pf.clen = sizeof(pf.data);
	pf.key.rsvd1 = 1;
	malformed("put_key_reserved", PUT, &pf, sizeof(pf), "rx_bad_payload", 0);
	pf.key.rsvd1 = 0;
	pf.key.swap_type = 32;
	malformed("put_swap_type", PUT, &pf, sizeof(pf), "rx_bad_payload", 0);
	pf.key.swap_type = 0;
	pf.compressor = 9;
	malformed("put_compressor", PUT, &pf, sizeof(pf), "rx_bad_payload", 0);
	pf.compressor = 1;
	pf.status = 2;
	malformed("put_status", PUT, &pf, sizeof(pf), "rx_bad_payload", 0);
	pf.status = 0;
	pf.rsvd[1] = 1;
	malformed("put_reserved", PUT, &pf, sizeof(pf), "rx_bad_payload", 0);
	pf.rsvd[1] = 0;

	memset(&st, 0, sizeof(st));
	st.rsvd = 1;
	malformed("put_reply_reserved", PUT_REPLY, &st, sizeof(st), "rx_bad_payload", 0);
	st.rsvd = 0;
	st.status = 77;
	malformed("put_reply_status", PUT_REPLY, &st, sizeof(st), "rx_bad_payload", 0);
	malformed("put_reply_long", PUT_REPLY, buf, sizeof(st) + 1, "rx_bad_length", 0);

	memset(&k, 0, sizeof(k));
	malformed("get_long", GET, buf, sizeof(k) + 1, "rx_bad_length", 0);
	malformed("get_short", GET, &k, sizeof(k) - 1, "rx_bad_length", 0);
	k.rsvd0 = 1;
	malformed("get_key_reserved", GET, &k, sizeof(k), "rx_bad_payload", 0);
	k.rsvd0 = 0;
	k.swap_type = 1000;
	malformed("get_swap_type", GET, &k, sizeof(k), "rx_bad_payload", 0);

	pf.status = 9;
	malformed("get_reply_status", GET_REPLY, &pf, sizeof(pf), "rx_bad_payload", 0);
	pf.status = 2;	/* NOT_FOUND with data */
	malformed("get_reply_not_found_with_data", GET_REPLY, &pf, sizeof(pf),
		  "rx_bad_payload", 0);
	pf.status = 0;
	malformed("get_reply_short", GET_REPLY, &pf,
		  offsetof(struct page_frame, data) - 1, "rx_bad_length", 0);

	memset(buf, 0, sizeof(buf));
	*count = 0;
	malformed("invalidate_count_zero", INVALIDATE, buf, 8 + 24, "rx_bad_payload", 0);
	*count = 2;
	malformed("invalidate_count_disagrees", INVALIDATE, buf, 8 + 24,
		  "rx_bad_payload", 0);
	*count = MAX_INVAL + 1;
	malformed("invalidate_too_many", INVALIDATE, buf, 8 + 24 * (MAX_INVAL + 1),
		  "rx_bad_length", 0);
	*count = 1;
	buf[8 + 20] = 1;	/* the key's rsvd1 */
	malformed("invalidate_key_reserved", INVALIDATE, buf, 8 + 24,
		  "rx_bad_payload", 0);
	buf[8 + 20] = 0;
	buf[4] = 1;	/* the frame's rsvd */
	malformed("invalidate_reserved", INVALIDATE, buf, 8 + 24, "rx_bad_payload", 0);
	buf[4] = 0;
	malformed("invalidate_short", INVALIDATE, buf, 8, "rx_bad_length", 0);

	memset(&ar, 0, sizeof(ar));
	ar.swap_type = 40;
	malformed("invalidate_area_swap_type", INVALIDATE_AREA, &ar, sizeof(ar),
		  "rx_bad_payload", 0);
	ar.swap_type = 0;
	ar.rsvd1 = 1;
	malformed("invalidate_area_reserved", INVALIDATE_AREA, &ar, sizeof(ar),
		  "rx_bad_payload", 0);
	ar.rsvd1 = 0;
	malformed("invalidate_area_long", INVALIDATE_AREA, buf, sizeof(ar) + 4,
		  "rx_bad_length", 0);

	ar.swap_type = 1;
	malformed("recall_swap_type", RECALL, &ar, sizeof(ar), "rx_bad_payload", 0);
	ar.swap_type = 0;
	ar.rsvd0 = 1;
	malformed("recall_reserved", RECALL, &ar, sizeof(ar), "rx_bad_payload", 0);
	malformed("recall_short", RECALL, &ar, sizeof(ar) - 8, "rx_bad_length", 0);

	malformed("goodbye_with_payload", GOODBYE, buf, 8, "rx_bad_length", 0);

	reconcile_malformed_cases(buf);

	malformed("type_zero", 0, ka, sizeof(ka), "rx_unknown_type", 0);
	malformed("unknown_type_15", RECONCILE_REPLY + 1, ka, sizeof(ka),
		  "rx_unknown_type", 0);
	malformed("unknown_type_200", 200, ka, sizeof(ka), "rx_unknown_type", 0);

	malformed("header_reserved", KEEPALIVE, ka, sizeof(ka), "rx_bad_reserved", 1);
	malformed("header_version_1", KEEPALIVE, ka, sizeof(ka), "rx_bad_version", 2);
	malformed("forged_sender", KEEPALIVE, ka, sizeof(ka), "rx_bad_node", 3);
}

/*
 * Ask the node, as an owner, what it holds for us: nothing (we never
 * stored a page), so one empty page of keys that ends the listing.
 */
static int reconcile_probe(struct link *l, const char **why)
{
	struct reconcile_frame rc = { .flags = 1, .max_keys = MAX_RECONCILE };
	uint8_t payload[MAX_FRAME];
	struct reconcile_reply_frame *rr = (void *)payload;
	uint64_t req = next_req++, end = now_ms() + REPLY_MS;
	struct hdr h;

	send_sealed(l, RECONCILE, req, &rc, sizeof(rc));
	while (now_ms() < end) {
		if (recv_sealed(l, &h, payload, REPLY_MS, why))
			return -1;
		if (h.type != RECONCILE_REPLY)
			continue;
		if (h.req_id != req || h.plen != 8 || rr->count ||
		    rr->status || rr->flags != 1) {
			*why = "RECONCILE_REPLY is not an empty, complete listing";
			return -1;
		}
		return 0;
	}
	*why = "no RECONCILE_REPLY";
	return -1;
}

/*
 * A well-formed RECONCILE_REPLY nobody asked for (a hostile or confused
 * peer): dropped as a late reply, it touches nothing, the link stays.
 */
static int reconcile_unasked(struct link *l, const char **why)
{
	struct reconcile_reply_frame rr;

	memset(&rr, 0, sizeof(rr));
	rr.count = 2;
	rr.flags = 1;
	rr.keys[0].offset = 10;
	rr.keys[0].gen = 1;
	rr.keys[1].offset = 20;
	rr.keys[1].gen = 1;
	send_sealed(l, RECONCILE_REPLY, next_req++ + (1ULL << 40), &rr,
		    sizeof(rr));
	return probe(l, why);
}

static void live_cases(void)
{
	struct link l;
	const char *why = "";
	int i, ok = 1;

	live_link(&l);
	/* A few seconds of the node's keepalives, each tag checked. */
	for (i = 0; i < 3 && ok; i++)
		ok = !probe(&l, &why);
	if (ok)
		printf("fuzz: authenticated link works (%s)\n",
		       l.encrypt ? "encrypted" : "authenticated only");
	else
		printf("fuzz: authenticated link FAILED: %s\n", why);
	failures += !ok;
	link_close(&l);

	/*
	 * A later version's capability bits are ignored, not refused (the
	 * proofs cover them, so none can be stripped): the link works.
	 */
	extra_caps = 0x100;
	live_link(&l);
	extra_caps = 0;
	ok = !probe(&l, &why);
	printf("fuzz: unknown capability %s\n", ok ? "ignored" : "FAILED");
	failures += !ok;
	link_close(&l);

	live_link(&l);
	ok = !reconcile_probe(&l, &why);
	printf("fuzz: reconcile from a node with no pages here %s%s\n",
	       ok ? "listed nothing" : "FAILED: ", ok ? "" : why);
	failures += !ok;
	if (ok) {
		ok = !reconcile_unasked(&l, &why);
		printf("fuzz: unasked RECONCILE_REPLY %s%s\n",
		       ok ? "dropped, link kept" : "FAILED: ", ok ? "" : why);
		failures += !ok;
		if (ok)
			printf("fuzz-info: reconcile_reply_unasked late_replies 0\n");
	}
	link_close(&l);
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* How long a handshake takes, from connect to a link both sides trust. */
static void handshake_times(void)
{
	uint64_t *t = calloc(loris_conns, sizeof(*t)), start;
	struct session_keys s;
	const char *mode = "insecure";
	struct link l;
	int i, n = 0;

	if (!t)
		die("out of memory");
	for (i = 0; i < loris_conns; i++) {
		start = now_ms();
		if (hello(&l, have_key ? my_caps() : 0)) {
			printf("fuzz: handshake refused at HELLO\n");
			failures++;
			link_close(&l);
			break;
		}
		if (l.peer_caps & CAP_AUTH) {
			if (!have_key || prove(&l, key, 1, &s)) {
				printf("fuzz: handshake: the node refused our proof\n");
				failures++;
				link_close(&l);
				break;
			}
			mode = l.encrypt ? "encrypted" : "authenticated";
		}
		t[n++] = now_ms() - start;
		link_close(&l);
	}
	if (n) {
		qsort(t, n, sizeof(*t), cmp_u64);
		printf("fuzz: handshake %d times (%s): min %llu median %llu max %llu ms\n",
		       n, mode, (unsigned long long)t[0],
		       (unsigned long long)t[n / 2],
		       (unsigned long long)t[n - 1]);
	}
	free(t);
}

/*********************************************************************
 * Slow loris
 *********************************************************************/
static int loris_open(void)
{
	int fd = connect_node();

	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static void slowloris(void)
{
	uint8_t frame[HDR_SIZE + HELLO_LEN];
	struct hello he;
	struct hdr h;
	int *fds = calloc(loris_conns, sizeof(int));
	size_t *sent = calloc(loris_conns, sizeof(size_t));
	uint64_t start = now_ms(), first_close = 0;
	long closed = 0, reopened = 0, bytes = 0;
	char c;
	int i;

	if (!fds || !sent)
		die("out of memory");
	fill_hello(&he, VERSION, VERSION, cluster, my_caps());
	make_hdr(&h, HELLO, &he, sizeof(he));
	memcpy(frame, &h, HDR_SIZE);
	memcpy(frame + HDR_SIZE, &he, HELLO_LEN);
	for (i = 0; i < loris_conns; i++)
		fds[i] = loris_open();
	printf("fuzz: slowloris: %d connections open\n", loris_conns);
	fflush(stdout);
	while (now_ms() - start < (uint64_t)loris_secs * 1000) {
		for (i = 0; i < loris_conns; i++) {
			/* Closed by the node? Open another. */
			if (recv(fds[i], &c, 1, 0) == 0 ||
			    send(fds[i], frame + sent[i] % sizeof(frame), 1,
				 MSG_NOSIGNAL) < 0) {
				if (!first_close)
					first_close = now_ms() - start;
				closed++;
				close(fds[i]);
				fds[i] = loris_open();
				sent[i] = 0;
				reopened++;
				continue;
			}
			sent[i]++;
			bytes++;
		}
		sleep(1);
	}
	for (i = 0; i < loris_conns; i++)
		close(fds[i]);
	printf("fuzz: slowloris: %d connections for %d s, %ld bytes sent, %ld closed by the node (first after %llu ms), %ld opened again\n",
	       loris_conns, loris_secs, bytes, closed,
	       (unsigned long long)first_close, reopened);
	free(fds);
	free(sent);
}

/*********************************************************************
 * A fake acceptor
 *********************************************************************/
/*
 * Wait for the target node to connect to us (posing as node my_node at
 * its address), read its HELLO and answer with caps; the link's state in
 * l.  -1 if nobody came.
 */
static int fake_accept(int lfd, struct link *l, uint32_t caps, int ms)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	struct hello he;
	struct hdr h;

	memset(l, 0, sizeof(*l));
	l->tx = l->rx = -1;
	l->fd = -1;
	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	l->fd = accept(lfd, NULL, NULL);
	if (l->fd < 0)
		return -1;
	if (recv_exact(l->fd, &h, HDR_SIZE, REPLY_MS) || h.type != HELLO ||
	    h.plen != HELLO_LEN ||
	    recv_exact(l->fd, l->hello, HELLO_LEN, REPLY_MS)) {
		printf("fuzz: fake acceptor: no v2 HELLO from the node\n");
		return -1;
	}
	memcpy(&he, l->hello, HELLO_LEN);
	fill_hello(&he, VERSION, VERSION, cluster, caps);
	he.peer_node = ((struct hello *)l->hello)->node;
	memcpy(l->reply, &he, HELLO_LEN);
	send_plain(l->fd, HELLO_REPLY, &he, HELLO_LEN);
	return 0;
}

static void acceptor_cases(void)
{
	struct sockaddr_in me = source;
	uint8_t wrong[KEY_LEN], mac[MAC_LEN];
	uint64_t ka[2] = { 1 << 20, 0 };
	struct session_keys s;
	struct link l;
	struct hdr h;
	int lfd, one = 1, ms = loris_secs * 1000;

	wrong_key_of(wrong);
	me.sin_port = target.sin_port;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&me, sizeof(me)) ||
	    listen(lfd, 4))
		die("fake acceptor: cannot listen on the address: %s",
		    strerror(errno));

	/* A wrong proof after the node's. */
	if (fake_accept(lfd, &l, my_caps(), ms)) {
		printf("fuzz: fake_acceptor_wrong_proof NOT closed (nobody connected)\n");
		failures++;
	} else {
		if (recv_exact(l.fd, &h, HDR_SIZE, REPLY_MS) || h.type != AUTH ||
		    recv_exact(l.fd, mac, MAC_LEN, REPLY_MS))
			printf("fuzz: fake_acceptor_wrong_proof: no proof from the node\n");
		derive(wrong, l.hello, l.reply, ((struct hello *)l.hello)->nonce,
		       ((struct hello *)l.reply)->nonce, &s);
		send_plain(l.fd, AUTH, s.mac_a, MAC_LEN);
		verdict("fake_acceptor_wrong_proof", l.fd, CLOSE_MS, "auth_failures", 1);
	}

	/* A keepalive offering room, instead of a proof. */
	if (fake_accept(lfd, &l, my_caps(), ms)) {
		printf("fuzz: fake_acceptor_no_proof NOT closed (nobody connected)\n");
		failures++;
	} else {
		recv_exact(l.fd, &h, HDR_SIZE, REPLY_MS);
		recv_exact(l.fd, mac, MAC_LEN, REPLY_MS);
		send_plain(l.fd, KEEPALIVE, ka, sizeof(ka));
		verdict("fake_acceptor_no_proof", l.fd, CLOSE_MS, "rx_before_handshake", 1);
	}

	/* A downgrade: an acceptor without the key. */
	if (fake_accept(lfd, &l, 0, ms)) {
		printf("fuzz: fake_acceptor_no_auth NOT closed (nobody connected)\n");
		failures++;
	} else {
		verdict("fake_acceptor_no_auth", l.fd, CLOSE_MS, "handshake_rejects", 1);
	}
	close(lfd);
}

/*********************************************************************
 * A hostile holder
 *********************************************************************/
/*
 * Node my_node as a holder of the target's pages: it connects and
 * authenticates as that node, advertises room in its keepalives, keeps
 * every page the target PUTs (key, generation, compressor, length, crc
 * and data) and answers PUT_REPLY OK (FULL past its room), applies
 * INVALIDATE and INVALIDATE_AREA, and answers each GET of a page it
 * holds in the next mode of its rotation (-M, comma separated):
 *
 *   ok           the page, as a real holder would
 *   gen          the page, under another generation (gen + 1)
 *   key          another page it holds (its key, data and crc), or this
 *                page's data under the next offset
 *   short        the page less its last byte (clen one less), its crc
 *   crc          the page with one bit flipped, the original crc
 *   unsolicited  a GET_REPLY for a request nobody made (the page with a
 *                bit flipped and a crc that fits), then the page
 *   type         a PUT_REPLY to the GET (the target closes the link; the
 *                holder connects again, as the same instance); at most
 *                HOLDER_TYPE_MAX times a run, then the mode is skipped.
 *                GETs after it on that link go unanswered: the target
 *                reads nothing past the PUT_REPLY
 *   notfound     NOT_FOUND
 *
 * A GET of a page it does not hold gets an honest NOT_FOUND (counted
 * apart).  It runs -S seconds or until SIGTERM, then prints
 * "fuzz-holder: puts N gets N answered-bad N ..." and, per mode, the
 * answers sent and the target's counter each must have moved:
 * "fuzz-holder: mode MODE answered N counter COUNTER".
 */
enum { HM_OK, HM_GEN, HM_KEY, HM_SHORT, HM_CRC, HM_UNSOLICITED, HM_TYPE,
	HM_NOTFOUND, HM_NR };

static const char *const hm_names[HM_NR] = {
	"ok", "gen", "key", "short", "crc", "unsolicited", "type", "notfound",
};

/* The target's counter that each bad answer must move. */
static const char *const hm_counters[HM_NR] = {
	"-", "remote_gets_bad", "remote_gets_bad", "remote_gets_bad",
	"remote_gets_bad", "late_replies", "protocol_errors", "remote_gets_bad",
};

#define HOLDER_TYPE_MAX		5
#define HOLDER_BUCKETS		4096
#define HOLDER_KEEPALIVE_MS	1000
#define ST_OK			0
#define ST_FULL			1
#define ST_NOT_FOUND		2
#define COMP_RAW		4

/* PUT and GET_REPLY without their data. */
struct wpage {
	struct wkey key;
	uint32_t status;
	uint32_t clen;
	uint32_t dcrc;
	uint8_t compressor;
	uint8_t rsvd[3];
} __attribute__((packed));

_Static_assert(sizeof(struct wpage) == 40, "page");

struct held {
	struct held *next;
	struct wkey key;
	uint32_t clen, dcrc;
	uint8_t compressor;
	uint8_t data[];
};

static struct held *held_table[HOLDER_BUCKETS];
static unsigned long held_count, holder_room = 2048;
static int hm_rotation[64], hm_nr, hm_next;
static unsigned long hm_sent[HM_NR];
static unsigned long h_puts, h_full, h_gets, h_unknown, h_invalidated,
		     h_links, h_unread;
/*
 * A "type" answer was sent on this link: the target closes it when it
 * reads that frame, and never reads what follows, so later GETs (the
 * target sends several at once: a load's and those it fetches ahead)
 * are left unanswered and uncounted until the next link.
 */
static int h_doomed;
static volatile sig_atomic_t holder_stop;

static void holder_on_signal(int sig)
{
	(void)sig;
	holder_stop = 1;
}

static struct held **held_slot(uint16_t type, uint64_t offset)
{
	struct held **p = &held_table[(offset ^ (uint64_t)type << 20) %
				      HOLDER_BUCKETS];

	while (*p && ((*p)->key.swap_type != type || (*p)->key.offset != offset))
		p = &(*p)->next;
	return p;
}

static void held_remove(struct held **p)
{
	struct held *h = *p;

	*p = h->next;
	free(h);
	held_count--;
}

/* Any page held other than (type, offset), or NULL. */
static struct held *held_other(uint16_t type, uint64_t offset)
{
	struct held *h;
	int i;

	for (i = 0; i < HOLDER_BUCKETS; i++)
		for (h = held_table[i]; h; h = h->next)
			if (h->key.swap_type != type || h->key.offset != offset)
				return h;
	return NULL;
}

static void holder_modes(const char *list)
{
	char buf[256], *tok, *save = NULL;
	int m;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (m = 0; m < HM_NR && strcmp(tok, hm_names[m]); m++)
			;
		if (m == HM_NR || hm_nr == (int)(sizeof(hm_rotation) /
						 sizeof(hm_rotation[0])))
			die("-M: unknown mode \"%s\" (or too many)", tok);
		hm_rotation[hm_nr++] = m;
	}
}

/* The next mode of the rotation (wrong types only HOLDER_TYPE_MAX times). */
static int holder_next_mode(void)
{
	int i, m;

	for (i = 0; i < hm_nr; i++) {
		m = hm_rotation[hm_next++ % hm_nr];
		if (m != HM_TYPE || hm_sent[HM_TYPE] < HOLDER_TYPE_MAX)
			return m;
	}
	return HM_OK;
}

static void holder_keepalive(struct link *l)
{
	uint64_t ka[2];

	ka[0] = held_count < holder_room ? holder_room - held_count : 0;
	ka[1] = held_count;
	send_sealed(l, KEEPALIVE, 0, ka, sizeof(ka));
}

static void holder_put(struct link *l, const struct hdr *h,
		       const uint8_t *payload)
{
	const struct wpage *wp = (const void *)payload;
	struct status_frame st;
	struct held **p, *n;

	memset(&st, 0, sizeof(st));
	st.key = wp->key;
	st.status = ST_OK;
	h_puts++;
	p = held_slot(wp->key.swap_type, wp->key.offset);
	if (h->plen != sizeof(*wp) + wp->clen || wp->clen > MAX_DATA) {
		st.status = ST_FULL;	/* the node checks its own frames */
	} else if (!*p && held_count >= holder_room) {
		st.status = ST_FULL;
		h_full++;
	} else {
		n = malloc(sizeof(*n) + wp->clen);
		if (!n)
			die("out of memory");
		n->key = wp->key;
		n->clen = wp->clen;
		n->dcrc = wp->dcrc;
		n->compressor = wp->compressor;
		memcpy(n->data, wp + 1, wp->clen);
		/* A new version of the slot replaces the old one. */
		if (*p)
			held_remove(p);
		n->next = *p;
		*p = n;
		held_count++;
	}
	send_sealed(l, PUT_REPLY, h->req_id, &st, sizeof(st));
}

static void holder_invalidate(const struct hdr *h, const uint8_t *payload)
{
	const struct wkey *k = (const void *)(payload + 8);
	uint32_t count, i;
	struct held **p;

	memcpy(&count, payload, sizeof(count));
	for (i = 0; i < count && 8 + (i + 1) * sizeof(*k) <= h->plen; i++) {
		p = held_slot(k[i].swap_type, k[i].offset);
		/* Only that generation: a later one stays. */
		if (*p && (*p)->key.gen == k[i].gen) {
			held_remove(p);
			h_invalidated++;
		}
	}
}

static void holder_invalidate_area(const uint8_t *payload)
{
	const struct area_frame *ar = (const void *)payload;
	struct held **p;
	int i;

	for (i = 0; i < HOLDER_BUCKETS; i++) {
		p = &held_table[i];
		while (*p) {
			if ((*p)->key.swap_type == ar->swap_type) {
				held_remove(p);
				h_invalidated++;
			} else {
				p = &(*p)->next;
			}
		}
	}
}

/* A GET_REPLY: key, status, and clen bytes of data with crc dcrc. */
static void holder_reply(struct link *l, uint64_t req_id,
			 const struct wkey *key, uint32_t status,
			 const struct held *pg, uint32_t clen, uint32_t dcrc,
			 int flip)
{
	uint8_t buf[sizeof(struct wpage) + MAX_DATA];
	struct wpage *wp = (void *)buf;

	memset(wp, 0, sizeof(*wp));
	wp->key = *key;
	wp->status = status;
	if (pg) {
		wp->clen = clen;
		wp->dcrc = dcrc;
		wp->compressor = pg->compressor;
		memcpy(wp + 1, pg->data, clen);
		if (flip)
			buf[sizeof(*wp) + clen / 2] ^= 0x10;
	}
	send_sealed(l, GET_REPLY, req_id, buf, sizeof(*wp) + wp->clen);
}

static void holder_get(struct link *l, const struct hdr *h,
		       const uint8_t *payload)
{
	const struct wkey *k = (const void *)payload;
	struct held *pg = *held_slot(k->swap_type, k->offset), *other;
	struct status_frame st;
	struct wkey wk;
	uint8_t tmp[MAX_DATA];
	int mode;

	if (h_doomed) {
		h_unread++;
		return;
	}
	h_gets++;
	if (!pg || pg->key.gen != k->gen) {
		h_unknown++;
		holder_reply(l, h->req_id, k, ST_NOT_FOUND, NULL, 0, 0, 0);
		return;
	}
	mode = holder_next_mode();
	hm_sent[mode]++;
	wk = pg->key;
	switch (mode) {
	case HM_OK:
		holder_reply(l, h->req_id, &wk, ST_OK, pg, pg->clen, pg->dcrc, 0);
		break;
	case HM_GEN:
		wk.gen++;
		holder_reply(l, h->req_id, &wk, ST_OK, pg, pg->clen, pg->dcrc, 0);
		break;
	case HM_KEY:
		other = held_other(wk.swap_type, wk.offset);
		if (other)
			holder_reply(l, h->req_id, &other->key, ST_OK, other,
				     other->clen, other->dcrc, 0);
		else {
			wk.offset++;
			holder_reply(l, h->req_id, &wk, ST_OK, pg, pg->clen,
				     pg->dcrc, 0);
		}
		break;
	case HM_SHORT:
		holder_reply(l, h->req_id, &wk, ST_OK, pg,
			     pg->clen ? pg->clen - 1 : 0, pg->dcrc, 0);
		break;
	case HM_CRC:
		holder_reply(l, h->req_id, &wk, ST_OK, pg, pg->clen, pg->dcrc, 1);
		break;
	case HM_UNSOLICITED:
		/* Altered data whose crc fits: only the request id can tell. */
		memcpy(tmp, pg->data, pg->clen);
		tmp[pg->clen / 2] ^= 0x10;
		holder_reply(l, h->req_id + (1ULL << 40), &wk, ST_OK, pg,
			     pg->clen, crc32c(tmp, pg->clen), 1);
		holder_reply(l, h->req_id, &wk, ST_OK, pg, pg->clen, pg->dcrc, 0);
		break;
	case HM_TYPE:
		memset(&st, 0, sizeof(st));
		st.key = wk;
		send_sealed(l, PUT_REPLY, h->req_id, &st, sizeof(st));
		h_doomed = 1;
		break;
	case HM_NOTFOUND:
		holder_reply(l, h->req_id, &wk, ST_NOT_FOUND, NULL, 0, 0, 0);
		break;
	}
}

/* Connect and authenticate as my_node; 0 once the link is up. */
static int holder_link(struct link *l)
{
	struct session_keys s;

	if (hello(l, my_caps()) || !(l->peer_caps & CAP_AUTH) ||
	    prove(l, key, 1, &s)) {
		link_close(l);
		return -1;
	}
	h_links++;
	h_doomed = 0;
	holder_keepalive(l);
	return 0;
}

static void holder(void)
{
	uint8_t payload[MAX_FRAME];
	uint64_t end = now_ms() + (uint64_t)loris_secs * 1000, last_ka = 0;
	unsigned long bad = 0;
	struct pollfd pfd;
	const char *why = "";
	struct link l = { .fd = -1, .tx = -1, .rx = -1 };
	struct hdr h;
	int m;

	if (!have_key)
		die("holder needs the cluster key (-k KEYFILE)");
	if (!hm_nr)
		holder_modes("gen,key,short,crc,unsolicited,type,notfound");
	signal(SIGTERM, holder_on_signal);
	signal(SIGINT, holder_on_signal);
	random_bytes(&fixed_instance, sizeof(fixed_instance));
	fixed_instance |= 1;
	printf("fuzz-holder: node %u, room %lu pages, modes", my_node,
	       holder_room);
	for (m = 0; m < hm_nr; m++)
		printf("%c%s", m ? ',' : ' ', hm_names[hm_rotation[m]]);
	printf(", %d s\n", loris_secs);
	while (!holder_stop && now_ms() < end) {
		if (l.fd < 0) {
			if (holder_link(&l)) {
				sleep(1);
				continue;
			}
			printf("fuzz-holder: link %lu up\n", h_links);
			last_ka = now_ms();
		}
		if (now_ms() - last_ka >= HOLDER_KEEPALIVE_MS) {
			holder_keepalive(&l);
			last_ka = now_ms();
		}
		pfd.fd = l.fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if (recv_sealed(&l, &h, payload, REPLY_MS, &why)) {
			printf("fuzz-holder: link %lu down: %s\n", h_links, why);
			link_close(&l);
			continue;
		}
		switch (h.type) {
		case PUT:
			holder_put(&l, &h, payload);
			break;
		case GET:
			if (h.plen == sizeof(struct wkey))
				holder_get(&l, &h, payload);
			break;
		case INVALIDATE:
			if (h.plen >= 8)
				holder_invalidate(&h, payload);
			break;
		case INVALIDATE_AREA:
			if (h.plen == sizeof(struct area_frame))
				holder_invalidate_area(payload);
			break;
		default:	/* keepalives, and nothing else is asked of us */
			break;
		}
	}
	link_close(&l);
	for (m = HM_OK + 1; m < HM_NR; m++)
		bad += hm_sent[m];
	printf("fuzz-holder: puts %lu gets %lu answered-bad %lu\n", h_puts,
	       h_gets, bad);
	printf("fuzz-holder: links %lu, refused full %lu, unknown gets %lu, unanswered after a type answer %lu, invalidated %lu, held at the end %lu\n",
	       h_links, h_full, h_unknown, h_unread, h_invalidated, held_count);
	for (m = 0; m < HM_NR; m++)
		printf("fuzz-holder: mode %s answered %lu counter %s\n",
		       hm_names[m], hm_sent[m], hm_counters[m]);
}

/*********************************************************************
 * main
 *********************************************************************/
static void read_key(const char *file)
{
	char buf[80];
	int fd = open(file, O_RDONLY), i, hi, lo;
	ssize_t n;

	if (fd < 0)
		die("%s: %s", file, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 64 || (n > 64 && buf[64] != '\n'))
		die("%s: not a cluster key (64 hex digits)", file);
	for (i = 0; i < KEY_LEN; i++) {
		if (sscanf(buf + 2 * i, "%1x%1x", &hi, &lo) != 2)
			die("%s: not a cluster key (64 hex digits)", file);
		key[i] = hi << 4 | lo;
	}
	memset(buf, 0, sizeof(buf));
	have_key = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: ramster-fuzz -a ADDR [-p PORT] -s SRC_ADDR -n NODE -t TARGET [-c CLUSTER]\n"
		"                    [-k KEYFILE [-K]] [-E] [-L CONNS] [-S SECONDS] [GROUP...]\n"
		"       ramster-fuzz --selftest\n"
		"                    [-M MODE,...] [-P PAGES]\n"
		"groups: pre keyless wrongkey live integrity malformed slowloris handshake acceptor holder\n");
	exit(2);
}

static int run_group(const char *g)
{
	if (!strcmp(g, "pre"))
		pre_handshake_cases();
	else if (!strcmp(g, "keyless"))
		keyless_cases();
	else if (!strcmp(g, "wrongkey"))
		wrong_key_cases();
	else if (!strcmp(g, "live"))
		live_cases();
	else if (!strcmp(g, "integrity"))
		integrity_cases();
	else if (!strcmp(g, "malformed"))
		malformed_cases();
	else if (!strcmp(g, "slowloris"))
		slowloris();
	else if (!strcmp(g, "handshake"))
		handshake_times();
	else if (!strcmp(g, "acceptor"))
		acceptor_cases();
	else if (!strcmp(g, "holder"))
		holder();
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "pre", "keyless", "wrongkey",
						"live", "integrity", "malformed" };
	const char *addr = NULL, *src = NULL, *keyfile = NULL;
	unsigned int port = 7777;
	int c, i, flip = 0;

	if (argc == 2 && !strcmp(argv[1], "--selftest"))
		return selftest();
	while ((c = getopt(argc, argv, "a:p:s:n:t:c:k:KEL:S:M:P:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 's': src = optarg; break;
		case 'n': my_node = atoi(optarg); break;
		case 't': target_node = atoi(optarg); break;
		case 'c': cluster = optarg; break;
		case 'k': keyfile = optarg; break;
		case 'K': flip = 1; break;
		case 'E': want_encrypt = 0; break;
		case 'L': loris_conns = atoi(optarg); break;
		case 'S': loris_secs = atoi(optarg); break;
		case 'M': holder_modes(optarg); break;
		case 'P': holder_room = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!addr || !src || !my_node || loris_conns < 1 || loris_secs < 1)
		usage();
	if (keyfile)
		read_key(keyfile);
	if (flip) {
		if (!have_key)
			die("-K needs -k");
		key[0] ^= 0x80;
	}
	target.sin_family = AF_INET;
	target.sin_port = htons(port);
	source.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &target.sin_addr) != 1 ||
	    inet_pton(AF_INET, src, &source.sin_addr) != 1)
		die("bad address");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (optind == argc) {
		for (i = 0; i < 6; i++)
			if (i < 3 || have_key)
				run_group(defaults[i]);
	}
	for (i = optind; i < argc; i++)
		if (run_group(argv[i]))
			usage();
	printf("fuzz: result failures=%d\n", failures);
	return failures ? 1 : 0;
}
