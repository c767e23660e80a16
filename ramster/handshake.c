// SPDX-License-Identifier: GPL-2.0
/*
 * handshake.c - opening a link, on either side
 *
 *   connecting node                      accepting node
 *   HELLO (nonce_c, caps)       ---->    vet the node, check the hello
 *                               <----    HELLO_REPLY (nonce_a, caps)
 *   check the reply
 *   AUTH (mac_c)                ---->    verify mac_c, else close
 *   verify mac_a, else close    <----    AUTH (mac_a)
 *
 * The AUTH frames are exchanged when both nodes have the cluster key
 * (RAMSTER_CAP_AUTH); a node with a key never opens a link with one
 * without (no downgrade), and a node without a key only runs if loaded
 * with insecure=1.  The accepting node proves nothing before the other
 * did.  The constructions are in wire.h, their implementation in auth.c.
 *
 * One deadline (handshake_timeout_ms from the start) bounds the whole
 * exchange, however slowly its bytes come.  Every refusal is counted
 * (handshake_rejects; auth_failures for a wrong or missing proof;
 * handshake_timeouts) and logged with its reason; the caller closes the
 * socket.  A refused handshake leaves nothing behind: no link state
 * changes until it succeeded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/string.h>
#include <net/sock.h>

#include "frame_io.h"
#include "handshake.h"
#include "stats.h"

static bool insecure;
module_param(insecure, bool, 0444);
MODULE_PARM_DESC(insecure,
		 "run without a cluster key: links unauthenticated and in clear (default N)");

static bool encrypt = true;
module_param(encrypt, bool, 0644);
MODULE_PARM_DESC(encrypt,
		 "encrypt payloads on links (default Y); N: authenticated only");

/**
 * struct ramster_hello_frame - a HELLO or HELLO_REPLY as sent
 * @hdr: its header
 * @hello: its payload
 * @room: for a tag (never used: handshake frames are not tagged)
 */
struct ramster_hello_frame {
	struct ramster_wire_hdr hdr;
	struct ramster_wire_hello hello;
	u8 room[RAMSTER_WIRE_TAG_LEN];
};

/* frame_io.c reads the payload right after the header. */
static_assert(offsetof(struct ramster_hello_frame, hello) ==
	      RAMSTER_WIRE_HDR_SIZE);

/**
 * struct ramster_auth_frame - an AUTH as sent
 * @hdr: its header
 * @auth: its payload
 * @room: see struct ramster_hello_frame
 */
struct ramster_auth_frame {
	struct ramster_wire_hdr hdr;
	struct ramster_wire_auth auth;
	u8 room[RAMSTER_WIRE_TAG_LEN];
};

static_assert(offsetof(struct ramster_auth_frame, auth) ==
	      RAMSTER_WIRE_HDR_SIZE);

static bool ramster_handshake_rule_of(u8 type, struct ramster_wire_rule *rule)
{
	static const struct ramster_wire_rule hello = RAMSTER_WIRE_RULE_HELLO;
	static const struct ramster_wire_rule auth = RAMSTER_WIRE_RULE_AUTH;

	switch (type) {
	case RAMSTER_MSG_HELLO:
	case RAMSTER_MSG_HELLO_REPLY:
		*rule = hello;
		return true;
	case RAMSTER_MSG_AUTH:
		*rule = auth;
		return true;
	}
	return false;
}

static void ramster_handshake_hdr(struct ramster_wire_hdr *hdr, u8 type,
				  u32 plen, u8 version, u16 me)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = cpu_to_le32(RAMSTER_WIRE_MAGIC);
	hdr->version = version;
	hdr->type = type;
	hdr->plen = cpu_to_le32(plen);
	hdr->src_node = cpu_to_le16(me);
}

/*
 * What this node offers: ephemeral pages, raw pages, reconciliation,
 * and from its key and encrypt=.
 */
static u32 ramster_handshake_caps(void)
{
	u32 caps = RAMSTER_CAP_EPHEMERAL | RAMSTER_CAP_RAW |
		   RAMSTER_CAP_RECONCILE;

	if (!ramster_auth_has_key())
		return caps;
	return caps | RAMSTER_CAP_AUTH |
	       (READ_ONCE(encrypt) ? RAMSTER_CAP_ENCRYPT : 0);
}

/* Key both directions: the connecting node sends with k_ca. */
static int ramster_handshake_keys(struct ramster_handshake *hs,
				  const struct ramster_auth_secrets *secrets,
				  bool connecting)
{
	int ret;

	ret = ramster_aead_init(&hs->tx, connecting ? secrets->k_ca :
				secrets->k_ac, hs->encrypt);
	if (ret)
		return ret;
	ret = ramster_aead_init(&hs->rx, connecting ? secrets->k_ac :
				secrets->k_ca, hs->encrypt);
	if (ret)
		ramster_aead_destroy(&hs->tx);
	return ret;
}

/*
 * Send within what is left of the handshake's deadline: sk_sndtimeo
 * becomes the rest of it, so a peer that stops reading cannot stretch
 * the handshake either.  The transport sets the link's timeouts after.
 */
static unsigned long
ramster_handshake_deadline(const struct ramster_handshake_side *side)
{
	return side->start + msecs_to_jiffies(side->timeout_ms);
}

static int ramster_handshake_send(const struct ramster_handshake_side *side,
				  struct socket *sock,
				  struct ramster_wire_hdr *hdr)
{
	long left = (long)(ramster_handshake_deadline(side) - jiffies);

	if (left <= 0)
		return -ETIMEDOUT;
	sock->sk->sk_sndtimeo = left;
	return ramster_frame_send(sock, hdr, NULL);
}

static int ramster_handshake_send_auth(const struct ramster_handshake_side *side,
				       struct socket *sock, u8 version,
				       const u8 *mac)
{
	struct ramster_auth_frame f;

	ramster_handshake_hdr(&f.hdr, RAMSTER_MSG_AUTH, sizeof(f.auth),
			      version, side->me.node);
	memcpy(f.auth.mac, mac, sizeof(f.auth.mac));
	return ramster_handshake_send(side, sock, &f.hdr);
}

/* Read the other side's AUTH and check its proof against @want. */
static int ramster_handshake_recv_auth(struct ramster_frame_reader *r,
				       const u8 *want, const char **why)
{
	const struct ramster_wire_hdr *hdr = (void *)r->buf;
	const struct ramster_wire_auth *auth = (void *)(hdr + 1);
	int ret;

	ret = ramster_frame_recv(r);
	if (ret == -ECONNRESET || ret == -EPIPE) {
		/*
		 * It refused our proof, or its own deadline passed first
		 * (a slow machine): only its log tells which.
		 */
		*why = "it hung up at the proof (another key, or its deadline passed: see its log)";
		return -EKEYREJECTED;
	}
	if (ret)
		return ret;
	if (hdr->type != RAMSTER_MSG_AUTH) {
		*why = "no proof where one was due";
		return -EKEYREJECTED;
	}
	if (!ramster_auth_mac_equal(auth->mac, want)) {
		*why = "its proof does not verify (another cluster key?)";
		return -EKEYREJECTED;
	}
	return 0;
}

/* Count and log a failed handshake; returns its errno for the caller. */
static int ramster_handshake_failed(const struct ramster_handshake_side *side,
				    int ret, const char *why)
{
	if (ret == -ETIMEDOUT || ret == -EAGAIN) {
		ramster_stat_inc(RAMSTER_STAT_HANDSHAKE_TIMEOUTS);
		why = "it did not complete in time";
	} else if (ret == -EKEYREJECTED) {
		ramster_stat_inc(RAMSTER_STAT_AUTH_FAILURES);
	} else if (!why) {
		why = ret == -EPROTO ? "malformed frame" : "connection failed";
	}
	ramster_stat_inc(RAMSTER_STAT_HANDSHAKE_REJECTS);
	pr_warn_ratelimited("%s: handshake refused: %s (%d)\n", side->who, why,
			    ret);
	return ret;
}

static void ramster_handshake_reader(struct ramster_frame_reader *r,
				     struct socket *sock,
				     const struct ramster_handshake_side *side)
{
	memset(r, 0, sizeof(*r));
	r->sock = sock;
	r->buf = side->buf;
	r->rule_of = ramster_handshake_rule_of;
	r->deadline = ramster_handshake_deadline(side);
	r->who = side->who;
}

/**
 * ramster_handshake_connect - open a link on a connected socket
 * @sock: connected to @peer's address
 * @side: this node
 * @peer: the node we believe we talk to
 * @hs: what was agreed, on success (release with
 *	ramster_handshake_release())
 *
 * Return: 0, or a negative errno (counted and logged).
 */
int ramster_handshake_connect(struct socket *sock,
			      struct ramster_handshake_side *side, u16 peer,
			      struct ramster_handshake *hs)
{
	const struct ramster_wire_hdr *hdr = (void *)side->buf;
	const struct ramster_wire_hello *reply = (void *)(hdr + 1);
	struct ramster_auth_secrets secrets;
	struct ramster_hello_frame hello;
	struct ramster_frame_reader r;
	u8 nonce[RAMSTER_WIRE_NONCE_LEN];
	const char *why = NULL;
	int ret;

	memset(hs, 0, sizeof(*hs));
	ramster_handshake_reader(&r, sock, side);
	side->me.capabilities = ramster_handshake_caps();
	ret = get_random_bytes_wait(nonce, sizeof(nonce));
	if (ret)
		return ramster_handshake_failed(side, ret, why);
	ramster_handshake_hdr(&hello.hdr, RAMSTER_MSG_HELLO,
			      sizeof(hello.hello), RAMSTER_WIRE_VERSION,
			      side->me.node);
	ramster_wire_hello_fill(&hello.hello, &side->me, peer, nonce);
	ret = ramster_handshake_send(side, sock, &hello.hdr);
	if (ret)
		return ramster_handshake_failed(side, ret, why);

	ret = ramster_frame_recv(&r);
	if (ret)
		return ramster_handshake_failed(side, ret, why);
	ret = -EPROTO;
	if (hdr->type != RAMSTER_MSG_HELLO_REPLY) {
		why = "answered a hello with something else";
		return ramster_handshake_failed(side, ret, why);
	}
	hs->version = ramster_wire_hello_check(hdr, reply, &side->me, &why);
	if (!hs->version)
		return ramster_handshake_failed(side, ret, why);
	if (le32_to_cpu(hdr->plen) != sizeof(*reply)) {
		why = "a hello of another length";
		return ramster_handshake_failed(side, ret, why);
	}
	if (le16_to_cpu(reply->node) != peer) {
		why = "another node answered at its address";
		return ramster_handshake_failed(side, ret, why);
	}
	why = ramster_wire_link_mode(side->me.capabilities,
				     le32_to_cpu(reply->capabilities),
				     &hs->auth, &hs->encrypt);
	if (why)
		return ramster_handshake_failed(side, ret, why);
	hs->node = peer;
	hs->instance = le32_to_cpu(reply->instance);
	hs->caps = le32_to_cpu(reply->capabilities);
	if (!hs->auth)
		return 0;

	ret = ramster_auth_derive(nonce, reply->nonce, &hello.hello,
				  sizeof(hello.hello), reply, sizeof(*reply),
				  &secrets);
	if (!ret)
		ret = ramster_handshake_send_auth(side, sock, hs->version,
						  secrets.mac_c);
	if (!ret)
		ret = ramster_handshake_recv_auth(&r, secrets.mac_a, &why);
	if (!ret)
		ret = ramster_handshake_keys(hs, &secrets, true);
	ramster_auth_secrets_wipe(&secrets);
	if (ret)
		return ramster_handshake_failed(side, ret, why);
	return 0;
}

/**
 * ramster_handshake_accept - answer a link opened by another node
 * @sock: the accepted connection
 * @side: this node, with its @vet
 * @hs: see ramster_handshake_connect()
 *
 * Return: 0, or a negative errno (counted and logged).
 */
int ramster_handshake_accept(struct socket *sock,
			     struct ramster_handshake_side *side,
			     struct ramster_handshake *hs)
{
	const struct ramster_wire_hdr *hdr = (void *)side->buf;
	struct ramster_wire_hello *got = (void *)(hdr + 1);
	struct ramster_auth_secrets secrets;
	struct ramster_wire_hello hello;
	struct ramster_hello_frame reply;
	struct ramster_frame_reader r;
	u8 nonce[RAMSTER_WIRE_NONCE_LEN];
	const char *why = NULL;
	u32 plen;
	int ret;

	memset(hs, 0, sizeof(*hs));
	ramster_handshake_reader(&r, sock, side);
	side->me.capabilities = ramster_handshake_caps();
	ret = ramster_frame_recv(&r);
	if (ret)
		return ramster_handshake_failed(side, ret, why);
	ret = -EPROTO;
	if (hdr->type != RAMSTER_MSG_HELLO) {
		why = "the first frame must be a HELLO";
		return ramster_handshake_failed(side, ret, why);
	}
	hs->version = ramster_wire_hello_check(hdr, got, &side->me, &why);
	if (!hs->version)
		return ramster_handshake_failed(side, ret, why);
	why = side->vet(side->ctx, le16_to_cpu(got->node));
	if (!why)
		why = ramster_wire_link_mode(side->me.capabilities,
					     le32_to_cpu(got->capabilities),
					     &hs->auth, &hs->encrypt);
	if (why)
		return ramster_handshake_failed(side, ret, why);
	/* What the proofs cover is exactly the 64 bytes received. */
	plen = le32_to_cpu(hdr->plen);
	if (plen != sizeof(hello)) {
		why = "a hello of another length";
		return ramster_handshake_failed(side, ret, why);
	}
	memcpy(&hello, got, sizeof(hello));
	hs->node = le16_to_cpu(hello.node);
	hs->instance = le32_to_cpu(hello.instance);
	hs->caps = le32_to_cpu(hello.capabilities);

	ret = get_random_bytes_wait(nonce, sizeof(nonce));
	if (ret)
		return ramster_handshake_failed(side, ret, why);
	ramster_handshake_hdr(&reply.hdr, RAMSTER_MSG_HELLO_REPLY,
			      sizeof(reply.hello), hs->version, side->me.node);
	ramster_wire_hello_fill(&reply.hello, &side->me, hs->node, nonce);
	ret = ramster_handshake_send(side, sock, &reply.hdr);
	if (ret || !hs->auth)
		return ret ? ramster_handshake_failed(side, ret, why) : 0;

	ret = ramster_auth_derive(hello.nonce, nonce, &hello, sizeof(hello),
				  &reply.hello, sizeof(reply.hello), &secrets);
	if (!ret)
		ret = ramster_handshake_recv_auth(&r, secrets.mac_c, &why);
	/* Keyed before our proof: once it is sent, the other side is live. */
	if (!ret)
		ret = ramster_handshake_keys(hs, &secrets, false);
	if (!ret) {
		ret = ramster_handshake_send_auth(side, sock, hs->version,
						  secrets.mac_a);
		if (ret)
			ramster_handshake_release(hs);
	}
	ramster_auth_secrets_wipe(&secrets);
	if (ret)
		return ramster_handshake_failed(side, ret, why);
	return 0;
}

/* Forget what a handshake agreed on (its keys first of all). */
void ramster_handshake_release(struct ramster_handshake *hs)
{
	if (hs->auth) {
		ramster_aead_destroy(&hs->tx);
		ramster_aead_destroy(&hs->rx);
	}
	memset(hs, 0, sizeof(*hs));
}

/**
 * ramster_handshake_may_start - may this node open links at all?
 *
 * Return: 0 with a cluster key, or without one if loaded with
 * insecure=1; -ENOKEY otherwise (logged).
 */
int ramster_handshake_may_start(void)
{
	if (ramster_auth_has_key())
		return 0;
	if (insecure) {
		pr_warn("no cluster key and insecure=1: links will be neither authenticated nor encrypted\n");
		return 0;
	}
	pr_err("no cluster key: write one to /sys/kernel/config/%s/key (ramster-conf keygen), or load with insecure=1\n",
	       KBUILD_MODNAME);
	return -ENOKEY;
}

/* For messages and debugfs. */
const char *ramster_handshake_security(const struct ramster_handshake *hs)
{
	if (!hs->auth)
		return "insecure";
	return hs->encrypt ? "encrypted" : "authenticated";
}
