// SPDX-License-Identifier: GPL-2.0
/*
 * remote.c - the remote tier: this node's pages in other nodes' RAM
 *
 * Remotification: a thread moves the oldest compressed pages of the local
 * pool (the head of each tree's LRU) to other nodes whenever the pool is
 * above remote_local_percent of its limit: woken by the store path when
 * it crosses that mark (pressure) and every remote_interval_ms otherwise
 * (background).  The holder is the live peer that advertised the most
 * free room in its keepalives (holders.c).  Up to remote_window PUTs are
 * in flight, and a link whose queue is full (link_queue_kb, transport.c)
 * refuses more: the thread waits 10 ms for it to drain.  A raw page
 * (local.c) goes as RAMSTER_COMP_RAW, and only to nodes that offered
 * RAMSTER_CAP_RAW (an older node would refuse the frame and drop the
 * link): while not enough of them have room, raw pages stay local and
 * the compressed ones behind them still leave.
 * On a positive PUT_REPLY the entry records its holder and its local copy
 * is freed (at once if nobody else uses the entry, else by a later pass);
 * on refusal or error the page simply stays local.  Pages the pool
 * cannot take are refused by the store path and go to the swap device.
 *
 * Remote load: a page fetched ahead is taken (readahead.c); otherwise a
 * synchronous GET to the holder, bounded by the request timeout, which
 * fetches the pages after it on that holder ahead in the same burst.  A
 * link that is down is a transient: the load waits for it to come back, up
 * to remote_wait_ms after it went down, and asks again.  A transient that
 * outlasts the wait (the link still down, a request that timed out, a
 * holder or a local allocation short of memory) is never turned into a
 * loss: the load answers -EAGAIN and frontswap retries it later, leaving
 * the page in swap (the kernel series' patch 11); once a holder has been
 * away remote_wait_ms, its loads pause briefly instead of waiting again,
 * so retried faults do not spin.  A holder's answer that it does not have
 * the page, an answer that is not the page, or a holder away longer than
 * remote_lost_ms (presumed dead) is an error.  The reply must name the
 * same (type, offset, generation) and carry data of the length, kind (raw
 * or not) and crc32c recorded when the page left; only then is it
 * decompressed (or, raw, copied; remote_get.c).  Anything else is an
 * error, counted, logged, and never returned as data.  Loads leave the
 * remote copy in place.
 *
 * Invalidation: an entry's remote copies are forgotten when the entry is
 * freed, which can happen under the swap area's spinlock
 * (invalidate_page): the (node, key) pairs are pushed on a ring under a
 * spinlock and a work item sends them in INVALIDATE frames of up to
 * RAMSTER_WIRE_MAX_INVALIDATE keys.  A stale INVALIDATE cannot hurt a
 * later version of the slot: it names a generation, and holders only
 * remove that generation (foreign.c).  swapoff sends one
 * INVALIDATE_AREA per live holder instead of a key per page.
 *
 * Locking: the tree lock protects entries (index.h); the invalidation
 * ring's lock nests inside it.  The remotification thread and request
 * completions take a tree lock only for short, non-sleeping sections.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/crc32c.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/frontswap.h>
#include <linux/kthread.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "ramster.h"
#include "compress.h"
#include "holders.h"
#include "index.h"
#include "local.h"
#include "policy.h"
#include "readahead.h"
#include "remote.h"
#include "remote_get.h"
#include "stats.h"
#include "transport.h"

/*********************************
 * module parameters
 *********************************/
static unsigned int remote_local_percent = 50;
module_param(remote_local_percent, uint, 0644);
MODULE_PARM_DESC(remote_local_percent,
		 "remotify the oldest pages while the local pool is above this percent of its limit (default 50)");

static unsigned int remote_interval_ms = 1000;
static struct ramster_uint_range remote_interval_ms_range = {
	&remote_interval_ms, 10, 3600000
};
module_param_cb(remote_interval_ms, &ramster_uint_range_ops, &remote_interval_ms_range,
		0644);
MODULE_PARM_DESC(remote_interval_ms,
		 "background remotification interval (default 1000)");

static unsigned int remote_wait_ms = 5000;
static struct ramster_uint_range remote_wait_ms_range = {
	&remote_wait_ms, 0, 3600000
};
module_param_cb(remote_wait_ms, &ramster_uint_range_ops, &remote_wait_ms_range,
		0644);
MODULE_PARM_DESC(remote_wait_ms,
		 "a load waits this long for a holder's link to come back before it is deferred (default 5000)");

static unsigned int remote_lost_ms = 30000;
static struct ramster_uint_range remote_lost_ms_range = {
	&remote_lost_ms, 1000, 86400000
};
module_param_cb(remote_lost_ms, &ramster_uint_range_ops, &remote_lost_ms_range,
		0644);
MODULE_PARM_DESC(remote_lost_ms,
		 "a holder down this long is presumed dead: loads of its pages fail instead of being deferred (default 30000)");

static unsigned int replicas = 2;
static struct ramster_uint_range replicas_range = {
	&replicas, 1, RAMSTER_MAX_HOLDERS
};
module_param_cb(replicas, &ramster_uint_range_ops, &replicas_range, 0644);
MODULE_PARM_DESC(replicas,
		 "copies of each remote page, on distinct nodes, before its local copy is freed; fewer if fewer nodes may hold pages (default 2)");

static unsigned int remote_window = 32;
static struct ramster_uint_range remote_window_range = {
	&remote_window, 1, 4096
};
module_param_cb(remote_window, &ramster_uint_range_ops, &remote_window_range,
		0644);
MODULE_PARM_DESC(remote_window, "PUTs in flight at most (default 32)");

#define RAMSTER_INVAL_RING	8192	/* power of 2 */
#define RAMSTER_LRU_SCAN	64	/* entries looked at per pick */
#define RAMSTER_LAT_SAMPLES	1024

static struct ramster_tree **ramster_remote_trees;
static const struct ramster_local_limits *ramster_remote_limits;
static struct task_struct *ramster_remotify_thread;
static DECLARE_WAIT_QUEUE_HEAD(ramster_remotify_wait);
static bool ramster_remotify_kicked;
static atomic_t ramster_remote_inflight = ATOMIC_INIT(0);
static unsigned int ramster_remotify_cursor;

/*********************************
 * remote load latency samples
 *********************************/
static u32 ramster_lat_us[RAMSTER_LAT_SAMPLES];
static atomic_t ramster_lat_next = ATOMIC_INIT(0);

static void ramster_lat_record(ktime_t start)
{
	unsigned int i = (unsigned int)atomic_inc_return(&ramster_lat_next) - 1;

	WRITE_ONCE(ramster_lat_us[i % RAMSTER_LAT_SAMPLES],
		   (u32)min_t(s64, ktime_us_delta(ktime_get(), start), U32_MAX));
}

/* The last RAMSTER_LAT_SAMPLES remote load latencies, in microseconds. */
static int ramster_lat_show(struct seq_file *m, void *v)
{
	unsigned int n = atomic_read(&ramster_lat_next), i;

	for (i = 0; i < min_t(unsigned int, n, RAMSTER_LAT_SAMPLES); i++)
		seq_printf(m, "%u\n", READ_ONCE(ramster_lat_us[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_lat);

/*********************************
 * remotification
 *********************************/
/**
 * struct ramster_put_set - the PUTs of one page to its new holders
 * @tree: the entry's tree
 * @entry: the entry, referenced, flagged RAMSTER_ENTRY_REMOTIFYING until
 *	every PUT of the set is answered or failed
 * @crc: crc32c of the data sent
 * @pending: PUTs not answered yet
 * @rereplica: a copy made again from another holder's (replica_copies)
 */
struct ramster_put_set {
	struct ramster_tree *tree;
	struct ramster_entry *entry;
	u32 crc;
	atomic_t pending;
	bool rereplica;
};

/**
 * struct ramster_put_req - one PUT in flight
 * @req: the request
 * @set: the page's set
 */
struct ramster_put_req {
	struct ramster_req req;
	struct ramster_put_set *set;
};

/**
 * ramster_remote_want - the remote copies a page needs before it leaves
 *
 * The replicas parameter, or fewer if fewer nodes may hold our pages at
 * all (a pair, one memory server).  A node that is down still counts:
 * while it is, pages stay local (or go to the swap device) rather than
 * leave with fewer copies than wanted.
 */
int ramster_remote_want(void)
{
	return min(READ_ONCE(replicas), ramster_holders_count());
}

/* Is the local pool above the mark where pages start leaving? */
bool ramster_remote_over_target(void)
{
	unsigned int percent = ramster_remote_limits->max_pool_percent;

	percent = max(1U, percent * min(remote_local_percent, 100U) / 100);
	return ramster_pool_limit_hit(ramster_local_pool_pages(),
				      totalram_pages(), percent);
}

void ramster_remote_kick(void)
{
	if (!READ_ONCE(ramster_remotify_kicked)) {
		WRITE_ONCE(ramster_remotify_kicked, true);
		wake_up(&ramster_remotify_wait);
	}
}

/* Free the local copy of an entry with a remote twin, if nobody reads it. */
static void ramster_drop_local_copy(struct ramster_tree *tree,
				    struct ramster_entry *entry, int own_refs)
{
	unsigned long handle = ramster_entry_drop_local(tree, entry, own_refs,
							ramster_remote_want());

	if (handle)
		ramster_local_release(handle);
}

/* Under the tree lock: a node acknowledged (or not) its copy. */
static void ramster_put_record(struct ramster_put_set *set, u8 node, int err,
			       u32 status)
{
	struct ramster_entry *entry = set->entry;
	struct ramster_tree *tree = set->tree;
	bool first = !ramster_entry_is_remote(entry);

	if (node == RAMSTER_NO_NODE)	/* the sender's own count */
		return;
	if (!err && status == RAMSTER_ST_OK &&
	    !ramster_entry_set_holder(tree, entry, node, set->crc)) {
		ramster_holders_held_there(node, 1);
		if (first)
			ramster_stat_inc(RAMSTER_STAT_REMOTE_PAGES);
		ramster_stat_inc(RAMSTER_STAT_REMOTE_PUTS);
		if (entry->flags & RAMSTER_ENTRY_RAW)
			ramster_stat_inc(RAMSTER_STAT_REMOTE_RAW_PUTS);
		if (set->rereplica)
			ramster_stat_inc(RAMSTER_STAT_REPLICA_COPIES);
	} else if (!err) {
		ramster_stat_inc(RAMSTER_STAT_REMOTE_PUTS_REFUSED);
	} else {
		ramster_stat_inc(RAMSTER_STAT_REMOTE_PUTS_FAILED);
	}
}

/*
 * One PUT of the set answered, failed, or never sent: record it; the
 * last one ends the set (see ramster_put_done()).
 */
static void ramster_put_finish(struct ramster_put_set *set, u8 node, int err,
			       u32 status)
{
	struct ramster_entry *entry = set->entry;
	struct ramster_tree *tree = set->tree;
	bool last;

	spin_lock(&tree->lock);
	ramster_put_record(set, node, err, status);
	last = atomic_dec_and_test(&set->pending);
	if (last) {
		ramster_entry_end_put(tree, entry);
		/*
		 * Our reference is the set's; nobody else may read the copy.
		 * It goes only once every replica wanted acknowledged it.
		 */
		ramster_drop_local_copy(tree, entry, 1);
		ramster_entry_put(tree, entry);
	}
	spin_unlock(&tree->lock);
	if (last)
		kfree(set);
}

static void ramster_put_done(struct ramster_req *req, int err,
			     const struct ramster_wire_hdr *hdr,
			     const void *payload)
{
	struct ramster_put_req *preq = container_of(req, struct ramster_put_req,
						    req);
	struct ramster_put_set *set = preq->set;
	const struct ramster_wire_status *st = payload;
	u32 status = RAMSTER_ST_OK;

	if (!err && !ramster_keys_match(&st->key, set->tree, set->entry)) {
		ramster_stat_inc(RAMSTER_STAT_PROTOCOL_ERRORS);
		pr_warn_ratelimited("node %u: PUT_REPLY for another page\n",
				    req->node);
		err = -EPROTO;
	}
	if (!err) {
		status = le32_to_cpu(st->status);
		ramster_holders_note_rtt(req->node, req->sent, false);
	}

	ramster_put_finish(set, req->node, err, status);
	kfree(preq);
	atomic_dec(&ramster_remote_inflight);
	wake_up(&ramster_remotify_wait);
}

/*
 * The oldest entry of @tree that needs more remote copies, referenced
 * and flagged REMOTIFYING, its current holders in @holders; NULL if
 * none.  Raw entries only if @raw_ok.  Stale local copies met on the way
 * are dropped.
 */
static struct ramster_entry *ramster_remotify_pick(struct ramster_tree *tree,
						   u8 holders[RAMSTER_MAX_HOLDERS],
						   bool raw_ok)
{
	struct ramster_entry *entry, *next, *found = NULL;
	int scanned = 0;

	spin_lock(&tree->lock);
	list_for_each_entry_safe(entry, next, &tree->lru, lru) {
		if (++scanned > RAMSTER_LRU_SCAN)
			break;
		if (entry->flags & RAMSTER_ENTRY_REMOTIFYING)
			continue;
		/*
		 * No node that takes raw pages has room: it stays here, at
		 * the young end, so that raw pages cannot fill the scanned
		 * head of the LRU and stop the compressed ones leaving.
		 */
		if ((entry->flags & RAMSTER_ENTRY_RAW) && !raw_ok) {
			list_move_tail(&entry->lru, &tree->lru);
			continue;
		}
		/* Enough copies elsewhere: the local one is stale. */
		if (ramster_entry_nr_holders(entry) >= ramster_remote_want()) {
			ramster_drop_local_copy(tree, entry, 0);
			continue;
		}
		found = entry;
		memcpy(holders, entry->holders, sizeof(entry->holders));
		ramster_entry_begin_put(tree, found);
		break;
	}
	spin_unlock(&tree->lock);
	return found;
}

/* Undo a pick whose PUT could not be sent. */
static void ramster_remotify_unpick(struct ramster_tree *tree,
				    struct ramster_entry *entry)
{
	spin_lock(&tree->lock);
	ramster_entry_end_put(tree, entry);
	ramster_entry_put(tree, entry);
	spin_unlock(&tree->lock);
}

/*
 * Choose @want distinct live nodes with room (placement, holders.c) into
 * @nodes, all or none: -ENOSPC, with any room taken given back.  Nodes in
 * @exclude are not chosen, nor any outside @allowed (unless NULL).
 */
static int ramster_remotify_targets(u8 nodes[RAMSTER_MAX_HOLDERS], int want,
				    const u8 exclude[RAMSTER_MAX_HOLDERS],
				    const unsigned long *allowed)
{
	u8 taken[RAMSTER_MAX_HOLDERS], *slot;
	int k, ret = 0;

	memcpy(taken, exclude, sizeof(taken));
	memset(nodes, RAMSTER_NO_NODE, RAMSTER_MAX_HOLDERS);
	for (k = 0; k < want; k++) {
		ret = ramster_holders_pick(&nodes[k], taken, allowed);
		if (ret)
			break;
		/* A free slot exists: want + holders <= RAMSTER_MAX_HOLDERS. */
		slot = memchr(taken, RAMSTER_NO_NODE, sizeof(taken));
		if (slot)
			*slot = nodes[k];
	}
	if (ret) {
		while (k--) {
			ramster_holders_unpick(nodes[k]);
			nodes[k] = RAMSTER_NO_NODE;
		}
	}
	return ret;
}

/*
 * The nodes a raw page may go to: live links whose node offered
 * RAMSTER_CAP_RAW.  None where a page is not the wire's raw length.
 */
static void ramster_remote_raw_nodes(unsigned long *nodes)
{
	unsigned int i;

	bitmap_zero(nodes, RAMSTER_MAX_NODES);
	if (PAGE_SIZE != RAMSTER_WIRE_RAW_LEN)
		return;
	for (i = 0; i < RAMSTER_MAX_NODES; i++)
		if (ramster_holders_is_holder(i) &&
		    ramster_link_has_cap(i, RAMSTER_CAP_RAW))
			__set_bit(i, nodes);
}

/* Where an entry's copies may go: anywhere, or (raw) @raw_nodes only. */
static const unsigned long *
ramster_remote_allowed(const struct ramster_entry *entry,
		       const unsigned long *raw_nodes)
{
	return entry->flags & RAMSTER_ENTRY_RAW ? raw_nodes : NULL;
}

/* A PUT of @set's page to @node, the page in @data; 0 when in flight. */
static int ramster_put_send(struct ramster_put_set *set, u8 node,
			    struct ramster_msg *msg)
{
	struct ramster_put_req *preq;
	int ret;

	preq = kzalloc(sizeof(*preq), GFP_NOIO | __GFP_NOWARN);
	if (!preq) {
		ramster_msg_free(msg);
		return -ENOMEM;
	}
	preq->set = set;
	preq->req.reply_type = RAMSTER_MSG_PUT_REPLY;
	preq->req.done = ramster_put_done;
	atomic_inc(&ramster_remote_inflight);
	/*
	 * A raw page only on a link whose handshake offered RAMSTER_CAP_RAW,
	 * checked with the link's state: the node may have come back, older,
	 * since it was picked.
	 */
	ret = ramster_send_if(node, set->entry->flags & RAMSTER_ENTRY_RAW ?
			      RAMSTER_CAP_RAW : 0, msg, &preq->req);
	if (ret) {
		atomic_dec(&ramster_remote_inflight);
		kfree(preq);
	}
	return ret;
}

/* The PUT frame of an entry, its data filled in from the local copy. */
static struct ramster_msg *ramster_put_msg(struct ramster_tree *tree,
					   struct ramster_entry *entry,
					   const void *data, u32 crc)
{
	struct ramster_wire_page *wp;
	struct ramster_msg *msg;

	msg = ramster_msg_alloc(RAMSTER_MSG_PUT, sizeof(*wp) + entry->length,
				GFP_NOIO | __GFP_NOWARN);
	if (!msg)
		return NULL;
	msg->flags = RAMSTER_MSG_F_BOUNDED;
	wp = (void *)msg->payload;
	memset(wp, 0, sizeof(*wp));
	ramster_key_fill(&wp->key, tree, entry);
	wp->clen = cpu_to_le32(entry->length);
	wp->compressor = entry->flags & RAMSTER_ENTRY_RAW ? RAMSTER_COMP_RAW :
			 ramster_comp_wire_id();
	wp->dcrc = cpu_to_le32(crc);
	if (data)
		memcpy(wp + 1, data, entry->length);
	return msg;
}

/* The oldest entry of any tree that needs more copies (see the pick). */
static struct ramster_entry *ramster_remotify_pick_any(struct ramster_tree **treep,
						       u8 holders[RAMSTER_MAX_HOLDERS],
						       bool raw_ok)
{
	struct ramster_entry *entry = NULL;
	unsigned int i, type = 0;

	for (i = 0; i < MAX_SWAPFILES && !entry; i++) {
		type = (ramster_remotify_cursor + i) % MAX_SWAPFILES;
		*treep = ramster_remote_trees[type];
		if (*treep)
			entry = ramster_remotify_pick(*treep, holders, raw_ok);
	}
	if (entry)
		ramster_remotify_cursor = (type + 1) % MAX_SWAPFILES;
	return entry;
}

/*
 * Send one page away, to as many new holders as it lacks replicas.
 * Returns 0 when its PUTs are in flight, -ENOSPC when not enough live
 * nodes have room (the page stays local), -ENOENT when there is nothing
 * to send, or another error.
 */
static int ramster_remotify_one(void)
{
	DECLARE_BITMAP(raw_nodes, RAMSTER_MAX_NODES);
	struct ramster_msg *msgs[RAMSTER_MAX_HOLDERS] = { };
	u8 holders[RAMSTER_MAX_HOLDERS], nodes[RAMSTER_MAX_HOLDERS];
	u8 none[RAMSTER_MAX_HOLDERS];
	int want = ramster_remote_want();
	struct ramster_tree *tree = NULL;
	struct ramster_entry *entry;
	struct ramster_put_set *set;
	struct ramster_wire_page *wp;
	int k, need, ret, sent;
	bool raw_ok;
	u32 crc;

	/* Room for a whole new page first: no entry is touched without. */
	memset(none, RAMSTER_NO_NODE, sizeof(none));
	if (want < 1)
		return -ENOSPC;
	ret = ramster_remotify_targets(nodes, want, none, NULL);
	if (ret)
		return ret;
	for (k = 0; k < want; k++)
		ramster_holders_unpick(nodes[k]);
	/* And for a whole raw page among the nodes that take them. */
	ramster_remote_raw_nodes(raw_nodes);
	raw_ok = !ramster_remotify_targets(nodes, want, none, raw_nodes);
	if (raw_ok)
		for (k = 0; k < want; k++)
			ramster_holders_unpick(nodes[k]);

	entry = ramster_remotify_pick_any(&tree, holders, raw_ok);
	if (!entry)
		return -ENOENT;
	need = want - ramster_entry_nr_holders(entry);
	ret = need > 0 ? ramster_remotify_targets(nodes, need, holders,
						  ramster_remote_allowed(entry, raw_nodes)) :
			 -ENOENT;
	if (ret)
		goto err_unpick_entry;
	set = kzalloc(sizeof(*set), GFP_NOIO | __GFP_NOWARN);
	if (!set)
		goto err_nomem;

	/* Our reference keeps the local copy: nobody frees it meanwhile. */
	msgs[0] = ramster_put_msg(tree, entry, NULL, 0);
	if (!msgs[0])
		goto err_nomem;
	wp = (void *)msgs[0]->payload;
	ramster_local_copy(entry, wp + 1);
	crc = crc32c(0, wp + 1, entry->length);
	wp->dcrc = cpu_to_le32(crc);
	for (k = 1; k < need; k++) {
		msgs[k] = ramster_put_msg(tree, entry, wp + 1, crc);
		if (!msgs[k])
			goto err_nomem;
	}

	/* Once acknowledged, the local copy goes: these free memory. */
	for (k = 0; k < need; k++)
		msgs[k]->flags |= RAMSTER_MSG_F_FREES_MEMORY;
	set->tree = tree;
	set->entry = entry;
	set->crc = crc;
	/* One count of our own: the set outlives the loop whatever the sends. */
	atomic_set(&set->pending, need + 1);
	for (k = 0, sent = 0; k < need; k++) {
		ret = ramster_put_send(set, nodes[k], msgs[k]);
		if (ret) {
			ramster_holders_unpick(nodes[k]);
			ramster_put_finish(set, nodes[k], ret, 0);
		} else {
			sent++;
		}
	}
	/* The set ends itself; a partial one leaves the page local. */
	ramster_put_finish(set, RAMSTER_NO_NODE, -ECANCELED, 0);
	return sent ? 0 : ret;

err_nomem:
	for (k = 0; k < need; k++) {
		if (msgs[k])
			ramster_msg_free(msgs[k]);
		ramster_holders_unpick(nodes[k]);
	}
	kfree(set);
	ret = -ENOMEM;
err_unpick_entry:
	ramster_remotify_unpick(tree, entry);
	return ret;
}

static bool ramster_remotify_window_open(void)
{
	return atomic_read(&ramster_remote_inflight) <
	       max(1U, READ_ONCE(remote_window));
}

static int ramster_remotify_fn(void *arg)
{
	/* It frees memory: it may use reserves, it must not reclaim. */
	unsigned int noreclaim = memalloc_noreclaim_save();
	int ret;

	while (!kthread_should_stop()) {
		wait_event_timeout(ramster_remotify_wait,
				   READ_ONCE(ramster_remotify_kicked) ||
				   kthread_should_stop(),
				   msecs_to_jiffies(remote_interval_ms));
		WRITE_ONCE(ramster_remotify_kicked, false);
		ramster_ra_expire();
		if (!ramster_holders_may_remotify() ||
		    !ramster_comp_wire_id())
			continue;
		while (!kthread_should_stop() && ramster_remote_over_target()) {
			wait_event_timeout(ramster_remotify_wait,
					   ramster_remotify_window_open() ||
					   kthread_should_stop(), HZ);
			if (!ramster_remotify_window_open())
				continue;
			ramster_ra_expire();
			ret = ramster_remotify_one();
			if (ret == -ENOBUFS) {
				/* A link's queue is full: let it drain. */
				ramster_stat_inc(RAMSTER_STAT_REMOTE_PUT_BACKPRESSURE);
				wait_event_timeout(ramster_remotify_wait,
						   kthread_should_stop(),
						   msecs_to_jiffies(10));
				continue;
			}
			if (ret)
				break;
			cond_resched();
		}
	}
	/* Let the PUTs in flight finish or fail before the trees go. */
	wait_event_timeout(ramster_remotify_wait,
			   !atomic_read(&ramster_remote_inflight), 30 * HZ);
	memalloc_noreclaim_restore(noreclaim);
	return 0;
}

/*********************************
 * remote load
 *********************************/
/**
 * struct ramster_get_req - a GET waited for by a load
 * @req: the request
 * @done: completed by ramster_get_done()
 * @tree: the entry's tree
 * @entry: the entry, referenced by the load
 * @buf: receives entry->length bytes of data
 * @err: 0 or why the reply is not the page
 */
struct ramster_get_req {
	struct ramster_req req;
	struct completion done;
	struct ramster_tree *tree;
	struct ramster_entry *entry;
	void *buf;
	int err;
};

static void ramster_get_done(struct ramster_req *req, int err,
			     const struct ramster_wire_hdr *hdr,
			     const void *payload)
{
	struct ramster_get_req *greq = container_of(req, struct ramster_get_req,
						    req);

	if (!err) {
		ramster_holders_note_rtt(req->node, req->sent, true);
		err = ramster_get_check(req->node, greq->tree, greq->entry,
					payload, greq->buf);
	}
	greq->err = err;
	complete(&greq->done);
}

/*
 * One GET of an entry's data from @holder into @buf (entry->length
 * bytes), verified (remote_get.c).  With @ahead, the pages after it that
 * @holder keeps are asked for right behind it (readahead.c).  @needed: a
 * load waits for it, the GET comes from the reserve; else it is sent
 * only if memory is at hand (-ENOMEM).  Returns 0, -EIO for an answer
 * that is not the page, -ESTALE if @holder no longer keeps it for us,
 * -ENOTCONN when the link is or went down, or another errno.
 */
static int ramster_remote_get_once(struct ramster_tree *tree,
				   struct ramster_entry *entry, u8 holder,
				   void *buf, bool ahead, bool needed)
{
	struct ramster_get_req greq = {
		.tree = tree,
		.entry = entry,
		.buf = buf,
		.req.reply_type = RAMSTER_MSG_GET_REPLY,
		.req.done = ramster_get_done,
	};
	unsigned long timeout;
	struct ramster_msg *msg;
	int ret;

	init_completion(&greq.done);
	msg = ramster_get_msg(tree, entry, needed);
	if (!msg)
		return -ENOMEM;
	ret = ramster_send(holder, msg, &greq.req);
	if (ret)
		return ret;
	if (ahead)
		ramster_ra_issue(tree, entry, holder);
	/* The link's own request timeout answers first; this is a backstop. */
	timeout = msecs_to_jiffies(ramster_transport_request_timeout_ms() + 2000);
	ret = ramster_req_wait(&greq.req, &greq.done, timeout);
	return ret ?: greq.err;
}

/* The page is still where it was, only out of reach for now. */
static bool ramster_remote_transient(int err)
{
	return err == -ENOTCONN || err == -ETIMEDOUT || err == -ENOMEM ||
	       err == -EAGAIN;
}

/**
 * ramster_remote_holder_lost - is a holder presumed dead?
 * @node: the holder
 *
 * Down remote_lost_ms or longer: loads of its pages fail rather than
 * wait, and the pages with another copy forget its copy (replicas.c).
 */
bool ramster_remote_holder_lost(u8 node)
{
	return ramster_holders_down_ms(node) >= READ_ONCE(remote_lost_ms);
}

/* A holder that says "not now" is asked again this often, 1-2 ms apart. */
#define RAMSTER_BUSY_RETRIES	20

/* How long a load that cannot wait any more pauses before -EAGAIN. */
#define RAMSTER_DEFER_PAUSE_MS	100

/*
 * GET an entry's data from one holder, asking again a few times when it
 * says "not now" (its link to us is full, or it is short of memory).
 */
static int ramster_remote_get_busy(struct ramster_tree *tree,
				   struct ramster_entry *entry, u8 holder,
				   void *buf, bool ahead, bool needed)
{
	unsigned int busy = 0;
	int ret;

	while ((ret = ramster_remote_get_once(tree, entry, holder, buf,
					      ahead && !busy,
					      needed)) == -EAGAIN &&
	       busy++ < RAMSTER_BUSY_RETRIES) {
		ramster_stat_inc(RAMSTER_STAT_REMOTE_GETS_BUSY);
		usleep_range(1000, 2000);
	}
	return ret;
}

/*
 * GET an entry's data from one holder, waiting out its link being down
 * if @may_wait (see the file comment); fetching the next pages ahead on
 * the first try if @ahead.  A transient that outlasts remote_lost_ms is
 * -EHOSTDOWN: the holder is presumed dead.
 */
static int ramster_remote_get_holder(struct ramster_tree *tree,
				     struct ramster_entry *entry, u8 holder,
				     void *buf, bool may_wait, bool ahead,
				     bool *waitedp)
{
	unsigned long epoch;
	bool waited = false;
	int ret;

	for (;;) {
		epoch = ramster_holders_epoch(holder);
		ret = ramster_remote_get_busy(tree, entry, holder, buf,
					      ahead && !waited, true);
		if (ret != -ENOTCONN || !may_wait ||
		    !ramster_holders_wait_live(holder, epoch,
					       READ_ONCE(remote_wait_ms)))
			break;
		waited = true;
	}
	if (waited)
		ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_WAITED);
	*waitedp |= waited;
	if (ret == -ETIMEDOUT)
		ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_TIMEOUT);
	/*
	 * A holder away longer than remote_lost_ms is presumed dead (killed,
	 * not coming back): its pages fail loudly rather than leave their
	 * processes faulting forever.
	 */
	if (ramster_remote_transient(ret) && ramster_remote_holder_lost(holder)) {
		pr_err_ratelimited("node %u down for over %u ms: its pages are presumed lost\n",
				   holder, remote_lost_ms);
		ret = -EHOSTDOWN;
	}
	return ret;
}

/*
 * The nodes holding @entry, read under the tree lock (fetch-home and a
 * lost holder change them), live ones first.  Returns how many.
 */
static int ramster_remote_holders(struct ramster_tree *tree,
				  struct ramster_entry *entry,
				  u8 order[RAMSTER_MAX_HOLDERS])
{
	DECLARE_BITMAP(live, RAMSTER_MAX_NODES);
	u8 holders[RAMSTER_MAX_HOLDERS];
	int i, n = 0, pass;

	spin_lock(&tree->lock);
	memcpy(holders, entry->holders, sizeof(holders));
	spin_unlock(&tree->lock);
	ramster_holders_live(live);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < RAMSTER_MAX_HOLDERS; i++)
			if (holders[i] < RAMSTER_MAX_NODES &&
			    test_bit(holders[i], live) == !pass)
				order[n++] = holders[i];
	return n;
}

/*
 * Without waiting for a link: GET an entry's data from its live holders
 * in turn, uncounted (fetching pages home, making a replica, writing one
 * back: a page that cannot come now stays where it is); @patient: ask
 * again when a holder says "not now" (a write-back, one page with its
 * swap cache page waiting; walks over many pages move on instead).
 * Returns 0 or the last error.
 */
static int ramster_remote_get_now(struct ramster_tree *tree,
				  struct ramster_entry *entry, void *buf,
				  bool patient)
{
	DECLARE_BITMAP(live, RAMSTER_MAX_NODES);
	u8 order[RAMSTER_MAX_HOLDERS];
	int i, n, ret = -ENOTCONN;

	n = ramster_remote_holders(tree, entry, order);
	ramster_holders_live(live);
	for (i = 0; i < n && ret; i++)
		if (test_bit(order[i], live))
			ret = patient ?
			      ramster_remote_get_busy(tree, entry, order[i], buf,
						      false, false) :
			      ramster_remote_get_once(tree, entry, order[i], buf,
						      false, false);
	return ret;
}

/**
 * ramster_remote_read_now - an entry's data from a live holder, now
 * @tree: the entry's tree
 * @entry: the entry, referenced by the caller
 * @page: the page to fill
 *
 * Uncounted and without waiting for a link, as fetching home (a page
 * written back for a recall: writeback.c).  The copy is verified as a
 * load's is.
 *
 * Return: 0 with the page filled, or a negative errno.
 */
int ramster_remote_read_now(struct ramster_tree *tree,
			    struct ramster_entry *entry, struct page *page)
{
	void *buf;
	int ret;

	if (entry->length > PAGE_SIZE)
		return -EINVAL;
	/* Not a fault: short of memory, the page stays where it is. */
	buf = kmalloc(entry->length, GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	ret = ramster_remote_get_now(tree, entry, buf, true);
	if (!ret)
		ret = ramster_local_unpack(entry, buf, page);
	kfree(buf);
	return ret;
}

/*
 * A load: GET an entry's data from its holders in turn, live ones first;
 * only the last one asked may wait for its link.  Counts and logs
 * failures: a transient one (some holder may still have the page) is
 * -EAGAIN; a page that no holder could produce is an error.  @asked: the
 * node a GET fetched ahead went to without result (RAMSTER_NO_NODE if
 * none): served by another, the load failed over.
 */
static int ramster_remote_get(struct ramster_tree *tree,
			      struct ramster_entry *entry, void *buf, u8 asked)
{
	u8 order[RAMSTER_MAX_HOLDERS];
	bool transient = false, bad = false, waited = false, stale, local;
	int i, n, ret, tries = 0;

again:
	ret = -ENOENT;
	stale = false;
	n = ramster_remote_holders(tree, entry, order);
	for (i = 0; i < n; i++) {
		ret = ramster_remote_get_holder(tree, entry, order[i], buf,
						i == n - 1,
						!tries && !i,
						&waited);
		if (!ret) {
			if (i || (asked != RAMSTER_NO_NODE &&
				  asked != order[i]))
				ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_FAILOVER);
			return 0;
		}
		stale |= ret == -ESTALE;
		transient |= ramster_remote_transient(ret);
		bad |= ret == -EIO;
		if (i < n - 1 && ret != -ESTALE)
			pr_warn_ratelimited("swap type %u offset %lu: node %u could not serve it (%d): asking node %u\n",
					    tree->type, entry->offset, order[i],
					    ret, order[i + 1]);
	}
	/* A copy was forgotten under us (fetched home, dropped): look again. */
	if (stale && ++tries < 3)
		goto again;
	/* Still moving after that: not a loss, the fault comes back. */
	transient |= stale;
	if (!n) {
		/* Fetched home since the load looked: main.c loads it. */
		spin_lock(&tree->lock);
		local = entry->flags & RAMSTER_ENTRY_LOCAL;
		spin_unlock(&tree->lock);
		if (local)
			return -ESTALE;
	}
	if (transient) {
		ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_DEFERRED);
		pr_warn_ratelimited("swap type %u offset %lu: no holder in reach (%d): load deferred\n",
				    tree->type, entry->offset, ret);
		/* Retried faults must not spin on a holder that is away. */
		if (!waited)
			schedule_timeout_killable(msecs_to_jiffies(RAMSTER_DEFER_PAUSE_MS));
		/*
		 * Deferred loads of a task on its way out (frontswap.h): the
		 * kernel gives up on them rather than retry (patch 0019), so
		 * its exit does not wait for a holder out of reach.  Asked
		 * last, right before the answer, not when the load began: a
		 * task killed while it waited for a link (remote_wait_ms) or
		 * in the pause above (where a kill most often lands) is one.
		 * In do_exit(), where its SIGKILL is no longer pending, a
		 * load still waits as any other before it is deferred;
		 * nothing is fetched ahead for it (ramster_ra_issue()).
		 */
		if (frontswap_task_leaving())
			ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_DEFERRED_DYING);
		return -EAGAIN;
	}
	if (bad)
		ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_BAD);
	else
		ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_FAILED);
	pr_err_ratelimited("swap type %u offset %lu: no holder of %d can produce it (%d)\n",
			   tree->type, entry->offset, n, ret);
	return bad ? -EIO : ret;
}

/*
 * The loads' receive buffers.  A load must make progress on a node short
 * of memory: a GFP_NOIO allocation there retries in reclaim for as long
 * as memory stays short (it never calls the OOM killer), and the
 * faulting task with it.  mempool_alloc() tries without reclaim, then
 * takes a reserved buffer; with the reserve empty it makes one light
 * (__GFP_NORETRY) reclaim pass and sleeps (uninterruptibly, up to 5 s)
 * until a load gives one back, and tries again: bounded reclaim passes,
 * never an endless one.  A load keeps its buffer for its whole course,
 * waits for a down link (remote_wait_ms) and failovers included: with
 * more loads than the reserve waiting on a down holder and no memory at
 * hand, the others wait for them.
 */
#define RAMSTER_LOAD_RESERVE	64
static mempool_t *ramster_load_bufs;

/**
 * ramster_remote_load - fetch a page from the node that holds it
 * @tree: the entry's tree
 * @entry: the entry, referenced by the caller, with a remote copy
 * @page: the page to fill
 *
 * Return: 0 with the page filled; -EAGAIN if the page is out of reach for
 * now (frontswap retries); another negative errno if it is lost.  The
 * page's contents are undefined on error.
 */
int ramster_remote_load(struct ramster_tree *tree, struct ramster_entry *entry,
			struct page *page)
{
	ktime_t start = ktime_get();
	u8 asked;
	void *buf;
	int ret;

	/* Never so (local.c): a lost page is an I/O error. */
	if (WARN_ON_ONCE(entry->length > PAGE_SIZE))
		return -EIO;
	/* Sleeps, never fails (GFP_NOIO), no endless reclaim: see above. */
	buf = mempool_alloc(ramster_load_bufs, GFP_NOIO);
	ret = ramster_ra_take(tree, entry, buf, &asked);
	if (ret)
		ret = ramster_remote_get(tree, entry, buf, asked);
	if (!ret) {
		ret = ramster_local_unpack(entry, buf, page);
		if (ret)
			ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS_BAD);
	}
	if (!ret) {
		ramster_lat_record(start);
		ramster_stat_inc(RAMSTER_STAT_REMOTE_LOADS);
		if (entry->flags & RAMSTER_ENTRY_RAW)
			ramster_stat_inc(RAMSTER_STAT_REMOTE_RAW_LOADS);
	}
	mempool_free(buf, ramster_load_bufs);
	return ret;
}

/* Entries looked at per hold of a tree lock by ramster_remote_next(). */
#define RAMSTER_NEXT_SCAN	256

/*
 * The first entry of @tree at or after @offset that @want accepts (NULL:
 * that lives only on other nodes) and that @holder holds (unless that is
 * RAMSTER_NO_NODE), referenced; NULL if none.  @want runs under the tree
 * lock, which is dropped every RAMSTER_NEXT_SCAN entries: a long run of
 * entries that do not match holds off no store or load for long.
 */
struct ramster_entry *
ramster_remote_next(struct ramster_tree *tree, pgoff_t offset, u8 holder,
		    bool (*want)(const struct ramster_entry *entry))
{
	struct ramster_entry *entry;
	int scanned;

	for (;;) {
		spin_lock(&tree->lock);
		entry = ramster_index_next(tree, offset);
		for (scanned = 0; entry && scanned < RAMSTER_NEXT_SCAN;
		     scanned++) {
			if ((want ? want(entry) :
				    ramster_entry_remote_only(entry)) &&
			    (holder == RAMSTER_NO_NODE ||
			     ramster_entry_has_holder(entry, holder))) {
				ramster_entry_get(entry);
				spin_unlock(&tree->lock);
				return entry;
			}
			offset = entry->offset + 1;
			entry = ramster_index_after(tree, entry);
		}
		spin_unlock(&tree->lock);
		if (!entry)
			return NULL;
		cond_resched();
	}
}

/*
 * Fetching home: a remote-only page comes back; a page that kept its
 * local copy (short of replicas, or a stale local copy) only forgets its
 * remote ones.
 */
static bool ramster_fetch_candidate(const struct ramster_entry *entry)
{
	return ramster_entry_is_remote(entry) &&
	       !(entry->flags & RAMSTER_ENTRY_REMOTIFYING);
}

/* With no room in the pool, only those that need none. */
static bool ramster_forget_candidate(const struct ramster_entry *entry)
{
	return ramster_fetch_candidate(entry) &&
	       (entry->flags & RAMSTER_ENTRY_LOCAL);
}

/* May the local pool take one more page home? */
static bool ramster_fetch_room(bool to_limit)
{
	if (to_limit)
		return !ramster_local_full(ramster_remote_limits);
	return !ramster_remote_over_target();
}

/**
 * ramster_remote_fetch_home - bring remote pages back into the local pool
 * @holder: only pages this node holds; RAMSTER_NO_NODE for any
 * @max: most pages to bring
 * @to_limit: fill the pool up to its limit (a recall, leaving) rather
 *	than up to the mark where remotification would send the pages away
 *	again (suction)
 *
 * Pages are fetched (verified as loads are) and kept compressed here
 * again; the remote copies are then invalidated.  A page that cannot be
 * fetched stays where it is.  Pages that kept a local copy only forget
 * their remote ones, which takes no room: for a recall or leaving
 * (@to_limit) with the pool full, only they.  (Suction stops at its mark:
 * forgetting copies remotification just made would only make it PUT
 * them again.)
 *
 * Return: how many pages came home.
 */
unsigned long ramster_remote_fetch_home(u8 holder, unsigned long max,
					bool to_limit)
{
	struct ramster_tree *tree;
	struct ramster_entry *entry;
	unsigned long done = 0, handle;
	unsigned int type;
	pgoff_t offset;
	bool room;
	void *buf;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return 0;
	for (type = 0; type < MAX_SWAPFILES; type++) {
		tree = ramster_remote_trees[type];
		offset = 0;
		while (tree && done < max && !ramster_should_stop()) {
			room = ramster_fetch_room(to_limit);
			if (!room && !to_limit)
				break;
			entry = ramster_remote_next(tree, offset, holder,
						    room ? ramster_fetch_candidate :
						    ramster_forget_candidate);
			if (!entry)
				break;
			offset = entry->offset + 1;
			handle = 0;
			/* A holder out of reach keeps its copy for later. */
			if (!(READ_ONCE(entry->flags) & RAMSTER_ENTRY_LOCAL) &&
			    entry->length <= PAGE_SIZE &&
			    !ramster_remote_get_now(tree, entry, buf, false))
				handle = ramster_local_adopt(buf, entry->length);
			spin_lock(&tree->lock);
			if (handle &&
			    !ramster_entry_adopt_local(tree, entry, handle)) {
				ramster_local_release(handle);
				handle = 0;
			}
			if ((entry->flags & RAMSTER_ENTRY_LOCAL) &&
			    ramster_fetch_candidate(entry) &&
			    !RB_EMPTY_NODE(&entry->rbnode)) {
				ramster_remote_forget(tree, entry);
				done++;
			}
			ramster_entry_put(tree, entry);
			spin_unlock(&tree->lock);
			cond_resched();
		}
	}
	kfree(buf);
	return done;
}

/**
 * ramster_remote_add_copy - one more replica of a remote-only page
 * @tree: the entry's tree
 * @entry: the entry, referenced by the caller
 * @buf: PAGE_SIZE bytes to fetch the data into
 *
 * Re-replication (replicas.c): the data is fetched from a live holder
 * (verified as loads are) and PUT to a live node with room that holds no
 * copy yet; the copy is recorded when that node acknowledges it.
 *
 * Return: 0 with the PUT in flight; -ENOSPC if no node can take it;
 * -EBUSY if the entry is no longer remote-only (came home, left the
 * tree, or is being sent); another errno if no holder could produce it.
 */
int ramster_remote_add_copy(struct ramster_tree *tree,
			    struct ramster_entry *entry, void *buf)
{
	u8 holders[RAMSTER_MAX_HOLDERS], node[RAMSTER_MAX_HOLDERS];
	DECLARE_BITMAP(raw_nodes, RAMSTER_MAX_NODES);
	struct ramster_put_set *set;
	struct ramster_msg *msg;
	int ret = 0;

	if (entry->length > PAGE_SIZE)
		return -EINVAL;
	/* Flagged first: its holders cannot change until the PUT ends. */
	spin_lock(&tree->lock);
	if (ramster_entry_begin_copy(tree, entry))
		memcpy(holders, entry->holders, sizeof(holders));
	else
		ret = -EBUSY;
	spin_unlock(&tree->lock);
	if (ret)
		return ret;
	ramster_remote_raw_nodes(raw_nodes);
	ret = ramster_remotify_targets(node, 1, holders,
				       ramster_remote_allowed(entry, raw_nodes));
	if (ret)
		goto err_unpick_entry;
	ret = ramster_remote_get_now(tree, entry, buf, false);
	if (ret)
		goto err_unpick_node;

	set = kzalloc(sizeof(*set), GFP_NOIO | __GFP_NOWARN);
	msg = ramster_put_msg(tree, entry, buf, entry->crc);
	if (!set || !msg) {
		kfree(set);
		if (msg)
			ramster_msg_free(msg);
		ret = -ENOMEM;
		goto err_unpick_node;
	}
	set->tree = tree;
	set->entry = entry;
	set->crc = entry->crc;
	set->rereplica = true;
	atomic_set(&set->pending, 1);
	ret = ramster_put_send(set, node[0], msg);
	if (ret) {
		ramster_holders_unpick(node[0]);
		ramster_put_finish(set, node[0], ret, 0);
	}
	return ret;

err_unpick_node:
	ramster_holders_unpick(node[0]);
err_unpick_entry:
	ramster_remotify_unpick(tree, entry);
	return ret;
}

/**
 * ramster_remote_drop_holder - a lost holder's copy of an entry is gone
 * @tree: the entry's tree, locked
 * @entry: the entry
 * @node: the lost holder
 *
 * Only where another copy exists (ramster_entry_drop_holder()); the
 * counts follow: pages held there, and remote_pages if that was the
 * entry's last remote copy (its local one remains).
 *
 * Return: true if the copy was forgotten.
 */
bool ramster_remote_drop_holder(struct ramster_tree *tree,
				struct ramster_entry *entry, u8 node)
{
	lockdep_assert_held(&tree->lock);
	if (!ramster_entry_drop_holder(tree, entry, node))
		return false;
	ramster_holders_held_there(node, -1);
	if (!ramster_entry_is_remote(entry))
		ramster_stat_dec(RAMSTER_STAT_REMOTE_PAGES);
	return true;
}

/* Wait (up to a second) until another PUT may be in flight. */
bool ramster_remote_window_wait(void)
{
	wait_event_timeout(ramster_remotify_wait,
			   ramster_remotify_window_open(), HZ);
	return ramster_remotify_window_open();
}

/*********************************
 * invalidation
 *********************************/
struct ramster_inval {
	u8 node;
	u16 type;
	pgoff_t offset;
	u64 gen;
};

static DEFINE_SPINLOCK(ramster_inval_lock);	/* protects the ring */
static struct ramster_inval *ramster_inval_ring;
static unsigned int ramster_inval_head, ramster_inval_tail;
static struct ramster_msg *ramster_inval_batch[RAMSTER_MAX_NODES];
static void ramster_inval_work_fn(struct work_struct *work);
static DECLARE_WORK(ramster_inval_work, ramster_inval_work_fn);

/**
 * ramster_remote_forget - an entry with remote copies is being freed
 * @tree: its tree, locked
 * @entry: the entry
 *
 * Queues an INVALIDATE of each copy, unless the whole area is being
 * invalidated.  Called under the tree lock, maybe under the swap area's
 * lock: it only takes a spinlock and queues work.
 */
void ramster_remote_forget(struct ramster_tree *tree,
			   struct ramster_entry *entry)
{
	u8 holders[RAMSTER_MAX_HOLDERS];
	struct ramster_inval *iv;
	int i, n;

	lockdep_assert_held(&tree->lock);
	n = ramster_entry_forget_remote(tree, entry, holders);
	for (i = 0; i < n; i++) {
		u8 node = holders[i];

		ramster_holders_held_there(node, -1);
		if (tree->dropping)
			continue;
		spin_lock(&ramster_inval_lock);
		if (ramster_inval_head - ramster_inval_tail < RAMSTER_INVAL_RING) {
			iv = &ramster_inval_ring[ramster_inval_head++ %
						 RAMSTER_INVAL_RING];
			iv->node = node;
			iv->type = tree->type;
			iv->offset = entry->offset;
			iv->gen = entry->gen;
		} else {
			/* The holder keeps a copy nobody will ask for. */
			ramster_stat_inc(RAMSTER_STAT_REMOTE_INVALIDATES_LOST);
		}
		spin_unlock(&ramster_inval_lock);
	}
	ramster_stat_dec(RAMSTER_STAT_REMOTE_PAGES);
	queue_work(system_unbound_wq, &ramster_inval_work);
}

static void ramster_inval_send(u8 node)
{
	struct ramster_msg *msg = ramster_inval_batch[node];
	struct ramster_wire_invalidate *inv = (void *)msg->payload;
	u32 count = le32_to_cpu(inv->count);

	ramster_inval_batch[node] = NULL;
	msg->hdr.plen = cpu_to_le32(sizeof(*inv) +
				    count * sizeof(struct ramster_wire_key));
	if (ramster_send(node, msg, NULL))
		ramster_stat_add(RAMSTER_STAT_REMOTE_INVALIDATES_LOST, count);
	else
		ramster_stat_add(RAMSTER_STAT_REMOTE_INVALIDATES, count);
}

/* Add one key to its node's INVALIDATE frame; send the frame when full. */
static void ramster_inval_add(const struct ramster_inval *iv)
{
	struct ramster_wire_invalidate *inv;
	struct ramster_wire_key *key;
	struct ramster_msg *msg = ramster_inval_batch[iv->node];
	u32 count;

	if (!msg) {
		msg = ramster_msg_alloc(RAMSTER_MSG_INVALIDATE,
					sizeof(*inv) + RAMSTER_WIRE_MAX_INVALIDATE *
					sizeof(*key), GFP_NOIO | __GFP_NOWARN);
		if (!msg) {
			ramster_stat_inc(RAMSTER_STAT_REMOTE_INVALIDATES_LOST);
			return;
		}
		inv = (void *)msg->payload;
		inv->count = 0;
		inv->rsvd = 0;
		ramster_inval_batch[iv->node] = msg;
	}
	inv = (void *)msg->payload;
	count = le32_to_cpu(inv->count);
	key = (struct ramster_wire_key *)(inv + 1) + count;
	memset(key, 0, sizeof(*key));
	key->swap_type = cpu_to_le16(iv->type);
	key->offset = cpu_to_le64(iv->offset);
	key->gen = cpu_to_le64(iv->gen);
	inv->count = cpu_to_le32(count + 1);
	if (count + 1 == RAMSTER_WIRE_MAX_INVALIDATE)
		ramster_inval_send(iv->node);
}

/* Drain the ring into INVALIDATE frames (one work item: no concurrency). */
static void ramster_inval_work_fn(struct work_struct *work)
{
	struct ramster_inval iv;
	int node;

	for (;;) {
		spin_lock(&ramster_inval_lock);
		if (ramster_inval_tail == ramster_inval_head) {
			spin_unlock(&ramster_inval_lock);
			break;
		}
		iv = ramster_inval_ring[ramster_inval_tail++ % RAMSTER_INVAL_RING];
		spin_unlock(&ramster_inval_lock);
		ramster_inval_add(&iv);
	}
	for (node = 0; node < RAMSTER_MAX_NODES; node++)
		if (ramster_inval_batch[node])
			ramster_inval_send(node);
}

/* swapoff: every holder drops the area's pages (after the queued keys). */
void ramster_remote_invalidate_area(unsigned int type)
{
	DECLARE_BITMAP(nodes, RAMSTER_MAX_NODES);
	struct ramster_wire_area *area;
	struct ramster_msg *msg;
	unsigned int node;

	flush_work(&ramster_inval_work);
	ramster_holders_live(nodes);
	for_each_set_bit(node, nodes, RAMSTER_MAX_NODES) {
		msg = ramster_msg_alloc(RAMSTER_MSG_INVALIDATE_AREA,
					sizeof(*area), GFP_KERNEL);
		if (!msg)
			return;
		area = (void *)msg->payload;
		memset(area, 0, sizeof(*area));
		area->swap_type = cpu_to_le16(type);
		if (!ramster_send(node, msg, NULL))
			ramster_stat_inc(RAMSTER_STAT_REMOTE_INVALIDATE_AREAS);
	}
}

/*********************************
 * init and exit
 *********************************/
/* The answers to our PUTs and GETs go to the requests waiting for them. */
static const struct ramster_handler ramster_remote_handlers[] = {
	{ RAMSTER_MSG_PUT_REPLY, RAMSTER_WIRE_RULE_PUT_REPLY, NULL },
	{ RAMSTER_MSG_GET_REPLY, RAMSTER_WIRE_RULE_GET_REPLY, NULL },
};

static struct ramster_service ramster_remote_service = {
	.name = "remote",
	.handlers = ramster_remote_handlers,
	.nr_handlers = ARRAY_SIZE(ramster_remote_handlers),
};

int ramster_remote_init(struct ramster_tree **trees,
			const struct ramster_local_limits *limits,
			struct dentry *debugfs_root)
{
	int ret;

	ramster_remote_trees = trees;
	ramster_remote_limits = limits;
	ramster_load_bufs = mempool_create_kmalloc_pool(RAMSTER_LOAD_RESERVE,
							PAGE_SIZE);
	if (!ramster_load_bufs)
		return -ENOMEM;
	ramster_inval_ring = vmalloc(RAMSTER_INVAL_RING *
				     sizeof(*ramster_inval_ring));
	if (!ramster_inval_ring) {
		ret = -ENOMEM;
		goto err_free_bufs;
	}
	ret = ramster_ra_init();
	if (ret)
		goto err_free_ring;
	ret = ramster_transport_register(&ramster_remote_service);
	if (ret)
		goto err_exit_ra;
	ramster_remotify_thread = kthread_run(ramster_remotify_fn, NULL,
					      "ramster-remotify");
	if (IS_ERR(ramster_remotify_thread)) {
		ret = PTR_ERR(ramster_remotify_thread);
		goto err_unregister;
	}
	debugfs_create_file("remote_load_latency_us", 0444, debugfs_root, NULL,
			    &ramster_lat_fops);
	return 0;

err_unregister:
	ramster_transport_unregister(&ramster_remote_service);
err_exit_ra:
	ramster_ra_exit();
err_free_ring:
	vfree(ramster_inval_ring);
err_free_bufs:
	mempool_destroy(ramster_load_bufs);
	ramster_load_bufs = NULL;
	return ret;
}

/* After the PUTs in flight ended (the thread waits for them). */
void ramster_remote_exit(void)
{
	kthread_stop(ramster_remotify_thread);
	flush_work(&ramster_inval_work);
	ramster_transport_unregister(&ramster_remote_service);
	ramster_ra_exit();
	vfree(ramster_inval_ring);
	/* No load runs: ramster_exit() unregistered frontswap's ops first. */
	mempool_destroy(ramster_load_bufs);
	ramster_load_bufs = NULL;
}
