// SPDX-License-Identifier: GPL-2.0
/*
 * ephemeral.c - this node's ephemeral pages on other nodes: where one
 * goes, and its PUT, GET and INVALIDATE frames
 *
 * An ephemeral page is a clean page cache page (cleancache.c): its owner
 * can always read it again from its disk, so a holder may drop it at any
 * time without asking, and a GET that finds nothing is a miss, not a
 * loss.  On the wire it is a page of swap type RAMSTER_WIRE_EPHEMERAL_TYPE
 * whose offset and generation are both the owner's generation of that
 * version: generations are never reused by one instance of the module,
 * and a holder drops what an owner's previous instance stored, so a name
 * never means two contents.
 *
 * Only nodes that offered RAMSTER_CAP_EPHEMERAL in the live link's
 * handshake get any of these frames (a node of an earlier version would
 * refuse them and drop the link): ramster_send_if() checks it with the
 * link's state.  The caller (cleancache.c) decides which pages go and
 * keeps their names; this file moves frames and checks every reply: the
 * same name, the length and crc32c recorded when the page left, and a
 * keyed hash (siphash, with a key of this boot that never leaves the
 * node), so that not even a member of the cluster can forge a page that
 * passes: a page read back goes into the page cache as the file's data.
 *
 * Backing off: a node that refused a PUT (full, leaving, short of
 * memory) gets no ephemeral PUT for a while, and one that let a GET time
 * out gets no GET for a while (its pages miss at once): a page read must
 * not wait on a node that is slow now, and a refusal must not turn into
 * a stream of PUTs.  Each wait doubles, from EPH_BACKOFF_MIN_MS to
 * EPH_BACKOFF_MAX_MS, and a success ends it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/crc32c.h>
#include <linux/jiffies.h>
#include <linux/once.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>

#include "ramster.h"
#include "compress.h"
#include "ephemeral.h"
#include "holders.h"
#include "stats.h"
#include "transport.h"

/* Allocations of the page cache's read path and of a worker: no I/O. */
#define EPH_GFP		(GFP_NOIO | __GFP_NOWARN)

#define EPH_BACKOFF_MIN_MS	500
#define EPH_BACKOFF_MAX_MS	30000

/**
 * struct ramster_eph_backoff - a node we leave alone for a while
 * @until: jiffies when it ends
 * @ms: the length of the last one, 0 when there is none
 *
 * Read and written without a lock: a lost update only shortens or
 * lengthens one wait.
 */
struct ramster_eph_backoff {
	unsigned long until;
	unsigned int ms;
};

static struct ramster_eph_backoff ramster_eph_put_backoff[RAMSTER_MAX_NODES];
static struct ramster_eph_backoff ramster_eph_get_backoff[RAMSTER_MAX_NODES];
static unsigned int ramster_eph_cursor;
static siphash_key_t ramster_eph_hash_key;

static bool ramster_eph_backing_off(const struct ramster_eph_backoff *b)
{
	return READ_ONCE(b->ms) && time_before(jiffies, READ_ONCE(b->until));
}

/* Back off, or longer than last time; not again while backing off. */
static void ramster_eph_back_off(struct ramster_eph_backoff *b)
{
	unsigned int ms = READ_ONCE(b->ms);

	if (ramster_eph_backing_off(b))
		return;
	ms = ms ? min(2 * ms, EPH_BACKOFF_MAX_MS) : EPH_BACKOFF_MIN_MS;
	WRITE_ONCE(b->until, jiffies + msecs_to_jiffies(ms));
	WRITE_ONCE(b->ms, ms);
}

static void ramster_eph_succeeded(struct ramster_eph_backoff *b)
{
	if (READ_ONCE(b->ms))
		WRITE_ONCE(b->ms, 0);
}

/* The keyed hash of a page's data, as only this boot of this node knows. */
static u64 ramster_eph_hash(const void *data, u32 len)
{
	get_random_once(&ramster_eph_hash_key, sizeof(ramster_eph_hash_key));
	return siphash(data, len, &ramster_eph_hash_key);
}

static void ramster_eph_key(struct ramster_wire_key *key, u64 gen)
{
	memset(key, 0, sizeof(*key));
	key->swap_type = cpu_to_le16(RAMSTER_WIRE_EPHEMERAL_TYPE);
	key->offset = cpu_to_le64(gen);
	key->gen = cpu_to_le64(gen);
}

static bool ramster_eph_key_is(const struct ramster_wire_key *key, u64 gen)
{
	return le16_to_cpu(key->swap_type) == RAMSTER_WIRE_EPHEMERAL_TYPE &&
	       le64_to_cpu(key->offset) == gen && le64_to_cpu(key->gen) == gen;
}

/**
 * ramster_eph_pick - choose the node the next ephemeral page goes to
 * @node: the chosen node
 *
 * The live holders that offered RAMSTER_CAP_EPHEMERAL, in turn, but those
 * backing off.  Room is not asked: a full holder drops an older ephemeral
 * page for it, or refuses it (and is left alone for a while).
 *
 * Return: 0, or -ENOSPC if there is none (or this node may not send).
 */
int ramster_eph_pick(u8 *node)
{
	DECLARE_BITMAP(live, RAMSTER_MAX_NODES);
	unsigned int i, n, start;

	if (!ramster_holders_may_remotify() || !ramster_comp_wire_id())
		return -ENOSPC;
	ramster_holders_live(live);
	start = READ_ONCE(ramster_eph_cursor);
	for (i = 1; i <= RAMSTER_MAX_NODES; i++) {
		n = (start + i) % RAMSTER_MAX_NODES;
		if (test_bit(n, live) &&
		    !ramster_eph_backing_off(&ramster_eph_put_backoff[n]) &&
		    ramster_link_has_cap(n, RAMSTER_CAP_EPHEMERAL)) {
			WRITE_ONCE(ramster_eph_cursor, n);
			*node = n;
			return 0;
		}
	}
	return -ENOSPC;
}

static void ramster_eph_put_done(struct ramster_req *req, int err,
				 const struct ramster_wire_hdr *hdr,
				 const void *payload)
{
	struct ramster_eph_put *put = container_of(req, struct ramster_eph_put,
						   req);
	const struct ramster_wire_status *st = payload;

	if (!err && !ramster_eph_key_is(&st->key, put->gen)) {
		pr_err_ratelimited("node %u: PUT_REPLY names another ephemeral page\n",
				   req->node);
		err = -EIO;
	} else if (!err && le32_to_cpu(st->status) != RAMSTER_ST_OK) {
		err = le32_to_cpu(st->status) == RAMSTER_ST_NO_MEMORY ?
		      -ENOMEM : -ENOSPC;
	}
	if (err)
		ramster_eph_back_off(&ramster_eph_put_backoff[req->node]);
	else
		ramster_eph_succeeded(&ramster_eph_put_backoff[req->node]);
	put->done(put, err);
}

/**
 * ramster_eph_put - send an ephemeral page to @node
 * @node: from ramster_eph_pick()
 * @put: names the page (@put->gen) and says who hears the reply; its
 *	@crc and @hash are set here, for ramster_eph_get()
 * @data: the compressed page, left untouched until this returns
 * @len: its length, 1 to RAMSTER_WIRE_MAX_DATA
 *
 * Return: 0 when the PUT is on its way (@put->done will be called), or
 * a negative errno (it will not).
 */
int ramster_eph_put(u8 node, struct ramster_eph_put *put, const void *data,
		    u32 len)
{
	struct ramster_wire_page *wp;
	struct ramster_msg *msg;

	if (!len || len > RAMSTER_WIRE_MAX_DATA)
		return -EINVAL;
	msg = ramster_msg_alloc(RAMSTER_MSG_PUT, sizeof(*wp) + len, EPH_GFP);
	if (!msg)
		return -ENOMEM;
	msg->flags = RAMSTER_MSG_F_BOUNDED;
	wp = (void *)msg->payload;
	memset(wp, 0, sizeof(*wp));
	ramster_eph_key(&wp->key, put->gen);
	wp->clen = cpu_to_le32(len);
	wp->compressor = ramster_comp_wire_id();
	memcpy(wp + 1, data, len);
	put->crc = crc32c(0, wp + 1, len);
	put->hash = ramster_eph_hash(wp + 1, len);
	wp->dcrc = cpu_to_le32(put->crc);
	put->req.reply_type = RAMSTER_MSG_PUT_REPLY;
	put->req.done = ramster_eph_put_done;
	return ramster_send_if(node, RAMSTER_CAP_EPHEMERAL, msg, &put->req);
}

/**
 * struct ramster_eph_get_req - a GET waited for by ramster_eph_get()
 * @req: the request
 * @done: completed by ramster_eph_get_done()
 * @gen: the page asked for
 * @buf: receives @len bytes
 * @len: the length recorded when the page left
 * @crc: its crc32c
 * @hash: its keyed hash
 * @err: 0, or why the reply is not the page
 */
struct ramster_eph_get_req {
	struct ramster_req req;
	struct completion done;
	u64 gen;
	void *buf;
	u32 len;
	u32 crc;
	u64 hash;
	int err;
};

static void ramster_eph_get_done(struct ramster_req *req, int err,
				 const struct ramster_wire_hdr *hdr,
				 const void *payload)
{
	struct ramster_eph_get_req *greq =
		container_of(req, struct ramster_eph_get_req, req);
	const struct ramster_wire_page *wp = payload;

	if (err)
		goto out;
	err = -EIO;
	if (!ramster_eph_key_is(&wp->key, greq->gen)) {
		pr_err_ratelimited("node %u: GET_REPLY names another ephemeral page\n",
				   req->node);
		goto out;
	}
	if (le32_to_cpu(wp->status) != RAMSTER_ST_OK) {
		err = -ENOENT;		/* dropped: its right */
		goto out;
	}
	if (le32_to_cpu(wp->clen) != greq->len ||
	    le32_to_cpu(wp->dcrc) != greq->crc ||
	    crc32c(0, wp + 1, greq->len) != greq->crc ||
	    ramster_eph_hash(wp + 1, greq->len) != greq->hash) {
		pr_err_ratelimited("node %u: ephemeral page %llu: data differs from what was sent\n",
				   req->node, greq->gen);
		goto out;
	}
	memcpy(greq->buf, wp + 1, greq->len);
	err = 0;
out:
	greq->err = err;
	complete(&greq->done);
}

/**
 * ramster_eph_get - fetch an ephemeral page back, and check it
 * @node: where it went
 * @gen: its name
 * @buf: receives @len bytes of compressed data
 * @len: the length it had
 * @crc: the crc32c it had (struct ramster_eph_put)
 * @hash: the keyed hash it had (struct ramster_eph_put)
 * @timeout_ms: how long to wait: a miss is cheap, a long wait is not
 *
 * Sleeps.  Return: 0 with the data in @buf; -ENOENT if @node no longer
 * has it, -EIO for a reply that is not the page, -ETIMEDOUT, -EAGAIN
 * (@node let a GET time out lately), -ENOTCONN, -EOPNOTSUPP or -ENOMEM.
 */
int ramster_eph_get(u8 node, u64 gen, void *buf, u32 len, u32 crc, u64 hash,
		    unsigned int timeout_ms)
{
	struct ramster_eph_get_req greq = {
		.req.reply_type = RAMSTER_MSG_GET_REPLY,
		.req.done = ramster_eph_get_done,
		.gen = gen,
		.buf = buf,
		.len = len,
		.crc = crc,
		.hash = hash,
	};
	struct ramster_wire_key *key;
	struct ramster_msg *msg;
	int ret;

	if (node >= RAMSTER_MAX_NODES)
		return -ENOENT;
	if (ramster_eph_backing_off(&ramster_eph_get_backoff[node]))
		return -EAGAIN;
	init_completion(&greq.done);
	msg = ramster_msg_alloc(RAMSTER_MSG_GET, sizeof(*key), EPH_GFP);
	if (!msg)
		return -ENOMEM;
	key = (void *)msg->payload;
	ramster_eph_key(key, gen);
	ret = ramster_send_if(node, RAMSTER_CAP_EPHEMERAL, msg, &greq.req);
	if (ret)
		return ret;
	if (ramster_req_wait(&greq.req, &greq.done,
			     msecs_to_jiffies(timeout_ms))) {
		ramster_eph_back_off(&ramster_eph_get_backoff[node]);
		return -ETIMEDOUT;
	}
	if (!greq.err)
		ramster_eph_succeeded(&ramster_eph_get_backoff[node]);
	return greq.err;
}

/**
 * ramster_eph_invalidate - tell @node it may drop these pages now
 * @node: where they went
 * @gens: their names
 * @count: 1 to RAMSTER_WIRE_MAX_INVALIDATE
 *
 * One-way: if it is lost, the pages wait on @node to be dropped there
 * some day (a name is never used again, so they are never returned).
 *
 * Return: 0 if the frame is queued, or a negative errno.
 */
int ramster_eph_invalidate(u8 node, const u64 *gens, unsigned int count)
{
	struct ramster_wire_invalidate *inv;
	struct ramster_wire_key *keys;
	struct ramster_msg *msg;
	unsigned int i;

	if (!count || count > RAMSTER_WIRE_MAX_INVALIDATE)
		return -EINVAL;
	msg = ramster_msg_alloc(RAMSTER_MSG_INVALIDATE,
				sizeof(*inv) + count * sizeof(*keys), EPH_GFP);
	if (!msg)
		return -ENOMEM;
	inv = (void *)msg->payload;
	inv->count = cpu_to_le32(count);
	inv->rsvd = 0;
	keys = (void *)(inv + 1);
	for (i = 0; i < count; i++)
		ramster_eph_key(&keys[i], gens[i]);
	return ramster_send_if(node, RAMSTER_CAP_EPHEMERAL, msg, NULL);
}
