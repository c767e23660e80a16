// SPDX-License-Identifier: GPL-2.0
/*
 * reconcile.c - what a holder keeps for us, against what we believe it
 * keeps
 *
 * A PUT the holder stored whose PUT_REPLY was lost with the link, an
 * INVALIDATE that could not be sent (link down, no memory, a full ring):
 * the holder then keeps a page we do not know it has, an orphan, for
 * ever: it takes room, pins the holder's module, and the holder can
 * never leave.  Nothing in the normal flow of frames can find it, so the
 * owner asks: RECONCILE ("list what you hold for me after this key", only
 * to a node that offered RAMSTER_CAP_RECONCILE) pages through the
 * holder's keys in order, RAMSTER_WIRE_MAX_RECONCILE at a time, and each
 * key is judged against our tree:
 *  - the entry of that (type, offset) has that generation and names the
 *    holder: the copy we know of;
 *  - the entry has a PUT in flight (RAMSTER_ENTRY_REMOTIFYING): its reply
 *    decides, the key is left alone this time;
 *  - anything else (no entry, another generation, an entry that does not
 *    name the holder): an orphan, invalidated with exactly the
 *    generation listed, which the holder's generation rule (foreign.c)
 *    never lets remove any other version.
 *
 * Races.  The decision and the sending of the INVALIDATE are made under
 * the tree lock, and a PUT of an entry always begins under that lock
 * (ramster_entry_begin_put(), ramster_entry_begin_copy()) before it is
 * queued on the link.  So a PUT of the same version that could make the
 * key a wanted copy again (the remotification thread sending it once
 * more) begins after our INVALIDATE is queued, and the link's frames are
 * handled in order by the holder: it drops the orphan, then stores the
 * PUT and answers it.  A PUT already in flight is the REMOTIFYING case
 * above.  An entry freed meanwhile queues its own INVALIDATE (remote.c);
 * a second one of the same version finds nothing and is harmless.
 *
 * A reply that breaks the protocol's order (keys not after the cursor, not
 * increasing, more than asked) is counted (reconcile_bad_replies) and
 * ignored: it never deletes anything on our side, and an INVALIDATE only
 * ever names what the holder itself listed.
 *
 * When: each time a holder's link comes up (a lost PUT_REPLY, a lost
 * INVALIDATE, and a restart all go with a link down), and in the
 * background when the count a holder's keepalives carry has differed
 * from ours by the same number three times in a row (holders.c: traffic
 * in flight makes a gap that moves), at most once a minute per holder.
 *
 * The other way round: a copy we believe the holder keeps that it did
 * not list, in the range of keys a reply covers (after the cursor, up to
 * its last key, or to the end with RAMSTER_RECONCILE_F_END), is lost (a
 * restart, or a holder that dropped it for whatever reason).  That is
 * decided in the reply's ->done(), on the holder's receive thread, which
 * alone records the holder's copies (ramster_put_done()), one frame at a
 * time, in the order the holder sent them: so every copy recorded then
 * was acknowledged before the holder made its list (it held it), and
 * every copy acknowledged before was recorded.  No time window, no copy
 * recorded "after the reconciliation started" to tell apart.  A lost
 * copy is forgotten as a restarted holder's are (ramster_remote_drop_holder():
 * only where another copy exists; the last copy of a page stays named so
 * that its load fails loudly) and replicas.c makes it again.  A holder
 * that lies about its own copies costs us copies made again, never data:
 * nothing is forgotten that has no other copy.
 *
 * Locking: one work item (ordered workqueue) runs every reconciliation,
 * one holder after the other; tree lock -> the link's lock (the
 * INVALIDATE is queued under the tree lock, ramster_send() only takes a
 * spinlock and never sleeps).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/workqueue.h>

#include "ramster.h"
#include "holders.h"
#include "index.h"
#include "reconcile.h"
#include "remote.h"
#include "replicas.h"
#include "stats.h"
#include "transport.h"

/* How often the counts of the holders are looked at. */
#define RAMSTER_RECONCILE_CHECK		(15 * HZ)
/* A holder whose counts differ is reconciled at most this often. */
#define RAMSTER_RECONCILE_MIN_GAP	(60 * HZ)
/* A holder that was busy or did not answer is asked again after this. */
#define RAMSTER_RECONCILE_RETRY		(5 * HZ)
/*
 * Pages of keys a holder may list past what either side counts, and at
 * most this many keys in all: a holder that keeps listing (made-up keys
 * are valid as long as they increase) is stopped, not followed forever.
 */
#define RAMSTER_RECONCILE_SLACK_PAGES	4
#define RAMSTER_RECONCILE_MAX_KEYS	BIT_ULL(28)
/* Entries looked at per hold of a tree lock, for lost copies. */
#define RAMSTER_RECONCILE_BATCH		256
/*
 * The owner is short of memory when it swaps: no reclaim that writes to
 * swap (to us), no warning; a failed allocation waits for the next run.
 */
#define RAMSTER_RECONCILE_GFP		(GFP_NOIO | __GFP_NOWARN)

/**
 * struct ramster_reconcile_req - one RECONCILE and its answer
 * @req: the request
 * @done: completed by ->done()
 * @rc: what was asked (the reply is checked against it)
 * @err: 0, -EAGAIN (busy), -EPROTO (a bad reply), or the link's error
 * @count: keys in @keys
 * @end: the holder has no key after these
 * @lost: copies found lost so far in this reconciliation
 * @keys: the reply's keys
 */
struct ramster_reconcile_req {
	struct ramster_req req;
	struct completion done;
	struct ramster_wire_reconcile rc;
	int err;
	u32 count;
	bool end;
	unsigned long lost;
	struct ramster_wire_key keys[RAMSTER_WIRE_MAX_RECONCILE];
};

static struct ramster_tree **ramster_reconcile_trees;
static struct workqueue_struct *ramster_reconcile_wq;
/* Set at exit: the work stops between two requests. */
static bool ramster_reconcile_stopping;
static void ramster_reconcile_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ramster_reconcile_work, ramster_reconcile_fn);
/* Holders to reconcile at the next run. */
static DECLARE_BITMAP(ramster_reconcile_wanted, RAMSTER_MAX_NODES);
/* Per holder: jiffies of its last reconciliation that ran to its end. */
static unsigned long ramster_reconcile_last[RAMSTER_MAX_NODES];

static void ramster_reconcile_kick(unsigned long delay)
{
	struct workqueue_struct *wq = READ_ONCE(ramster_reconcile_wq);

	if (wq)
		mod_delayed_work(wq, &ramster_reconcile_work, delay);
}

/**
 * ramster_reconcile_listed - did a reply list this version of a page?
 * @keys: the reply's keys, in increasing order
 * @count: how many
 * @pos: where to start looking in @keys; moved past the keys before
 *       (@type, @offset), so that pages asked for in increasing order
 *       cost one pass over @keys in all
 * @type: the page's swap type
 * @offset: its offset
 * @gen: the generation of it we believe the holder keeps
 *
 * Return: true if @keys has (@type, @offset) with generation @gen.
 */
VISIBLE_IF_KUNIT bool ramster_reconcile_listed(const struct ramster_wire_key *keys,
					       u32 count, u32 *pos,
					       unsigned int type, u64 offset,
					       u64 gen)
{
	int c = 1;

	while (*pos < count &&
	       (c = ramster_wire_key_cmp(&keys[*pos], type, offset)) < 0)
		(*pos)++;
	return *pos < count && !c && le64_to_cpu(keys[*pos].gen) == gen;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_reconcile_listed);

/**
 * ramster_reconcile_span - the keys a good reply speaks for
 * @rc: the request it answers
 * @keys: its keys, in increasing order, after @rc's cursor
 * @count: how many (at least one unless @end)
 * @end: it ends the listing
 * @span: filled with the first and last keys it covers, both included:
 *        after the cursor (from the very first with
 *        RAMSTER_RECONCILE_F_START) up to its last key, or to the last
 *        possible one if it ends the listing
 *
 * Return: false if it covers nothing (a cursor on the last possible key).
 */
VISIBLE_IF_KUNIT bool ramster_reconcile_span(const struct ramster_wire_reconcile *rc,
					     const struct ramster_wire_key *keys,
					     u32 count, bool end,
					     struct ramster_reconcile_span *span)
{
	span->first_type = le16_to_cpu(rc->swap_type);
	span->first_offset = le64_to_cpu(rc->offset);
	if (le16_to_cpu(rc->flags) & RAMSTER_RECONCILE_F_START) {
		span->first_type = 0;
		span->first_offset = 0;
	} else if (span->first_offset == U64_MAX) {
		span->first_type++;
		span->first_offset = 0;
	} else {
		span->first_offset++;
	}
	if (end || !count) {
		span->last_type = MAX_SWAPFILES - 1;
		span->last_offset = U64_MAX;
	} else {
		span->last_type = le16_to_cpu(keys[count - 1].swap_type);
		span->last_offset = le64_to_cpu(keys[count - 1].offset);
	}
	if (span->last_type >= MAX_SWAPFILES) {
		span->last_type = MAX_SWAPFILES - 1;
		span->last_offset = U64_MAX;
	}
	return span->first_type < span->last_type ||
	       (span->first_type == span->last_type &&
		span->first_offset <= span->last_offset);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_reconcile_span);

/*
 * Copies of one tree we believe @node keeps from @offset to @last (both
 * included) that @keys (sorted) do not list, with that generation: lost.
 * From @node's receive thread (see the top of the file), which may sleep;
 * the tree lock is dropped every RAMSTER_RECONCILE_BATCH entries, which
 * lets no copy of @node be recorded meanwhile (only this thread records
 * them).  Entries with a PUT in flight are left to its reply.
 */
static unsigned long ramster_reconcile_lost_tree(struct ramster_tree *tree,
						 u8 node, u64 offset, u64 last,
						 const struct ramster_wire_key *keys,
						 u32 count)
{
	struct ramster_entry *entry;
	unsigned long lost = 0;
	bool more = true;
	int batch;
	u32 j = 0;

	while (more) {
		spin_lock(&tree->lock);
		entry = ramster_index_next(tree, offset);
		for (batch = 0; batch < RAMSTER_RECONCILE_BATCH; batch++) {
			if (!entry || entry->offset > last) {
				more = false;
				break;
			}
			/* A PUT in flight: its holders are its own (remote.c). */
			if (!(entry->flags & RAMSTER_ENTRY_REMOTIFYING) &&
			    ramster_entry_has_holder(entry, node) &&
			    !ramster_reconcile_listed(keys, count, &j, tree->type,
						      entry->offset, entry->gen) &&
			    ramster_remote_drop_holder(tree, entry, node))
				lost++;
			if (entry->offset == last) {
				more = false;
				break;
			}
			offset = entry->offset + 1;
			entry = ramster_index_next(tree, offset);
		}
		spin_unlock(&tree->lock);
		/* A last page of keys walks the rest of every tree. */
		cond_resched();
	}
	return lost;
}

/* The copies in the range a good reply covered that it did not list. */
static unsigned long ramster_reconcile_lost(u8 node,
					    const struct ramster_wire_reconcile *rc,
					    const struct ramster_wire_key *keys,
					    u32 count, bool end)
{
	struct ramster_reconcile_span span;
	struct ramster_tree *tree;
	unsigned long lost = 0;
	unsigned int type;

	if (!ramster_reconcile_span(rc, keys, count, end, &span))
		return 0;
	for (type = span.first_type; type <= span.last_type; type++) {
		/* Pairs with frontswap_init()'s release (main.c). */
		tree = smp_load_acquire(&ramster_reconcile_trees[type]);
		if (tree)
			lost += ramster_reconcile_lost_tree(tree, node,
				type == span.first_type ? span.first_offset : 0,
				type == span.last_type ? span.last_offset : U64_MAX,
				keys, count);
	}
	return lost;
}

/* From the link's receive thread: check the reply, copy its keys. */
static void ramster_reconcile_done(struct ramster_req *req, int err,
				   const struct ramster_wire_hdr *hdr,
				   const void *payload)
{
	struct ramster_reconcile_req *rreq =
		container_of(req, struct ramster_reconcile_req, req);
	const struct ramster_wire_reconcile_reply *rr = payload;
	const struct ramster_wire_key *keys = (const void *)(rr + 1);
	u32 count;

	if (err)
		goto out;
	if (le16_to_cpu(rr->status) != RAMSTER_ST_OK) {
		err = -EAGAIN;
		goto out;
	}
	count = le32_to_cpu(rr->count);
	rreq->end = le16_to_cpu(rr->flags) & RAMSTER_RECONCILE_F_END;
	/* Nothing listed and not the end would ask the same forever. */
	if (!ramster_wire_reconcile_keys_follow(&rreq->rc, keys, count) ||
	    (!count && !rreq->end)) {
		ramster_stat_inc(RAMSTER_STAT_RECONCILE_BAD_REPLIES);
		pr_warn_ratelimited("node %u: RECONCILE_REPLY out of order: ignored\n",
				    req->node);
		err = -EPROTO;
		goto out;
	}
	memcpy(rreq->keys, keys, count * sizeof(*keys));
	rreq->count = count;
	rreq->lost += ramster_reconcile_lost(req->node, &rreq->rc, keys, count,
					     rreq->end);
out:
	rreq->err = err;
	complete(&rreq->done);
}

/* Send @rreq->rc to @node and wait for the answer. */
static int ramster_reconcile_ask(struct ramster_reconcile_req *rreq, u8 node)
{
	struct ramster_msg *msg;
	unsigned long timeout;
	int ret;

	msg = ramster_msg_alloc(RAMSTER_MSG_RECONCILE, sizeof(rreq->rc),
				RAMSTER_RECONCILE_GFP);
	if (!msg)
		return -ENOMEM;
	memcpy(msg->payload, &rreq->rc, sizeof(rreq->rc));
	init_completion(&rreq->done);
	rreq->req.reply_type = RAMSTER_MSG_RECONCILE_REPLY;
	rreq->req.done = ramster_reconcile_done;
	rreq->count = 0;
	rreq->end = false;
	ret = ramster_send_if(node, RAMSTER_CAP_RECONCILE, msg, &rreq->req);
	if (ret)
		return ret;
	timeout = msecs_to_jiffies(ramster_transport_request_timeout_ms() + 2000);
	ret = ramster_req_wait(&rreq->req, &rreq->done, timeout);
	return ret ?: rreq->err;
}

/**
 * ramster_reconcile_is_orphan - is a copy a holder listed unknown to us?
 * @tree: the tree of the key's swap type, its lock held; NULL if there is
 *        none (the swap area is gone)
 * @node: the holder that listed it
 * @key: what it listed
 *
 * See the top of the file: a PUT in flight decides for itself.
 *
 * Return: true if it is to be invalidated.
 */
VISIBLE_IF_KUNIT bool ramster_reconcile_is_orphan(struct ramster_tree *tree,
						  u8 node,
						  const struct ramster_wire_key *key)
{
	struct ramster_entry *entry;

	if (!tree)
		return true;
	lockdep_assert_held(&tree->lock);
	entry = ramster_index_lookup(tree, le64_to_cpu(key->offset));
	if (!entry || entry->gen != le64_to_cpu(key->gen))
		return true;
	if (entry->flags & RAMSTER_ENTRY_REMOTIFYING)
		return false;
	return !ramster_entry_has_holder(entry, node);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_reconcile_is_orphan);

/*
 * The keys of one swap type listed by @node: invalidate the orphans, in
 * one frame queued under the tree lock.  No memory: they wait for the
 * next reconciliation.
 */
static void ramster_reconcile_type(u8 node, u16 type,
				   const struct ramster_wire_key *keys, u32 n)
{
	struct ramster_tree *tree = NULL;
	struct ramster_wire_invalidate *inv;
	struct ramster_wire_key *out;
	struct ramster_msg *msg;
	u32 i, orphans = 0;

	if (type < MAX_SWAPFILES)
		/* Pairs with frontswap_init()'s release (main.c). */
		tree = smp_load_acquire(&ramster_reconcile_trees[type]);
	msg = ramster_msg_alloc(RAMSTER_MSG_INVALIDATE,
				sizeof(*inv) + n * sizeof(*out),
				RAMSTER_RECONCILE_GFP);
	if (!msg)
		return;
	inv = (void *)msg->payload;
	out = (void *)(inv + 1);
	if (tree)
		spin_lock(&tree->lock);
	for (i = 0; i < n; i++)
		if (ramster_reconcile_is_orphan(tree, node, &keys[i]))
			out[orphans++] = keys[i];
	if (orphans) {
		inv->count = cpu_to_le32(orphans);
		inv->rsvd = 0;
		msg->hdr.plen = cpu_to_le32(sizeof(*inv) +
					    orphans * sizeof(*out));
		if (ramster_send(node, msg, NULL))
			orphans = 0;
	} else {
		ramster_msg_free(msg);
	}
	if (tree)
		spin_unlock(&tree->lock);
	if (orphans) {
		ramster_stat_add(RAMSTER_STAT_RECONCILE_ORPHANS_FREED, orphans);
		pr_info_ratelimited("node %u: %u orphan pages of swap type %u invalidated\n",
				    node, orphans, type);
	}
}

/* One page of listed keys, sorted: one pass per swap type in it. */
static void ramster_reconcile_keys(u8 node, const struct ramster_wire_key *keys,
				   u32 count)
{
	u32 i, j;
	u16 type;

	for (i = 0; i < count; i = j) {
		type = le16_to_cpu(keys[i].swap_type);
		for (j = i; j < count && le16_to_cpu(keys[j].swap_type) == type;
		     j++)
			;
		ramster_reconcile_type(node, type, keys + i, j - i);
	}
}

/* Copies found lost are made again, whether the listing ended or not. */
static void ramster_reconcile_report_lost(u8 node, unsigned long lost)
{
	if (!lost)
		return;
	ramster_stat_add(RAMSTER_STAT_RECONCILE_COPIES_LOST, lost);
	pr_warn("node %u: %lu copies of our pages it should keep are gone; making them again from the other replicas\n",
		node, lost);
	ramster_replicas_repair_soon();
}

/*
 * Page through everything @node holds for us.  Returns 0 when done (or
 * when it cannot reconcile: an older node), an errno to try again later.
 */
static int ramster_reconcile_holder(struct ramster_reconcile_req *rreq,
				    u8 node)
{
	const struct ramster_wire_key *last;
	u64 listed = 0, limit;
	bool first = true;
	int ret;

	memset(&rreq->rc, 0, sizeof(rreq->rc));
	rreq->lost = 0;
	rreq->rc.flags = cpu_to_le16(RAMSTER_RECONCILE_F_START);
	rreq->rc.max_keys = cpu_to_le32(RAMSTER_WIRE_MAX_RECONCILE);
	limit = min(max(ramster_holders_held_there_count(node),
			ramster_holders_held_for_us(node)),
		    RAMSTER_RECONCILE_MAX_KEYS) +
		RAMSTER_RECONCILE_SLACK_PAGES * RAMSTER_WIRE_MAX_RECONCILE;
	ramster_stat_inc(RAMSTER_STAT_RECONCILE_RUNS);
	for (;; first = false) {
		ret = ramster_reconcile_ask(rreq, node);
		/*
		 * An older node cannot list: nothing to page through.  A link
		 * that came back without the capability midway did not finish.
		 */
		if (ret == -EOPNOTSUPP) {
			ret = first ? 0 : -EAGAIN;
			break;
		}
		if (ret)
			break;
		ramster_reconcile_keys(node, rreq->keys, rreq->count);
		if (rreq->end)
			break;
		if (READ_ONCE(ramster_reconcile_stopping)) {
			ret = -ESHUTDOWN;
			break;
		}
		listed += rreq->count;
		if (listed > limit) {
			ramster_stat_inc(RAMSTER_STAT_RECONCILE_BAD_REPLIES);
			pr_warn_ratelimited("node %u: listed over %llu keys, more than it holds for us: reconciliation stopped\n",
					    node, limit);
			ret = -EPROTO;
			break;
		}
		last = &rreq->keys[rreq->count - 1];
		rreq->rc.flags = 0;
		rreq->rc.swap_type = last->swap_type;
		rreq->rc.offset = last->offset;
		cond_resched();
	}
	/* ->done() forgot them as each page of keys came. */
	ramster_reconcile_report_lost(node, rreq->lost);
	return ret;
}

/* Holders whose counts disagree, and not reconciled for a while. */
static void ramster_reconcile_find_drift(void)
{
	unsigned int node;

	for (node = 0; node < RAMSTER_MAX_NODES; node++)
		if (ramster_holders_counts_differ(node) &&
		    time_after(jiffies, ramster_reconcile_last[node] +
				       RAMSTER_RECONCILE_MIN_GAP))
			set_bit(node, ramster_reconcile_wanted);
}

static void ramster_reconcile_fn(struct work_struct *work)
{
	struct ramster_reconcile_req *rreq;
	unsigned long delay = RAMSTER_RECONCILE_CHECK;
	struct workqueue_struct *wq;
	unsigned int node;
	int ret;

	ramster_reconcile_find_drift();
	if (bitmap_empty(ramster_reconcile_wanted, RAMSTER_MAX_NODES))
		goto out;
	rreq = kmalloc(sizeof(*rreq), RAMSTER_RECONCILE_GFP);
	if (!rreq) {
		delay = RAMSTER_RECONCILE_RETRY;
		goto out;
	}
	for_each_set_bit(node, ramster_reconcile_wanted, RAMSTER_MAX_NODES) {
		if (READ_ONCE(ramster_reconcile_stopping))
			break;
		clear_bit(node, ramster_reconcile_wanted);
		ret = ramster_reconcile_holder(rreq, node);
		if (!ret) {
			ramster_reconcile_last[node] = jiffies;
			ramster_holders_counts_settled(node);
		} else if (ret == -EPROTO) {
			/* A listing out of order: not again before the gap. */
			ramster_reconcile_last[node] = jiffies;
		} else if (ret != -ENOTCONN && ret != -ENOENT) {
			/* Busy or no answer: again soon.  Down: at its up. */
			set_bit(node, ramster_reconcile_wanted);
			delay = RAMSTER_RECONCILE_RETRY;
		}
	}
	kfree(rreq);
out:
	/* A kick that came meanwhile keeps its sooner time. */
	wq = READ_ONCE(ramster_reconcile_wq);
	if (wq)
		queue_delayed_work(wq, &ramster_reconcile_work, delay);
}

/*********************************
 * link events
 *********************************/
/* Up (after its handshake, so its capabilities are known): reconcile. */
static void ramster_reconcile_up(void *ctx, u8 node)
{
	if (!ramster_holders_is_holder(node))
		return;
	set_bit(node, ramster_reconcile_wanted);
	ramster_reconcile_kick(0);
}

/* The answers go to the requests waiting for them. */
static const struct ramster_handler ramster_reconcile_handlers[] = {
	{ RAMSTER_MSG_RECONCILE_REPLY, RAMSTER_WIRE_RULE_RECONCILE_REPLY, NULL },
};

static const struct ramster_link_events ramster_reconcile_events = {
	.up = ramster_reconcile_up,
};

static struct ramster_service ramster_reconcile_service = {
	.name = "reconcile",
	.handlers = ramster_reconcile_handlers,
	.nr_handlers = ARRAY_SIZE(ramster_reconcile_handlers),
	.events = &ramster_reconcile_events,
};

int ramster_reconcile_init(struct ramster_tree **trees)
{
	unsigned int node;
	int ret;

	ramster_reconcile_trees = trees;
	/* jiffies starts near its wrap: "never" must be long enough ago. */
	for (node = 0; node < RAMSTER_MAX_NODES; node++)
		ramster_reconcile_last[node] = jiffies - RAMSTER_RECONCILE_MIN_GAP;
	ramster_reconcile_wq = alloc_ordered_workqueue("ramster-reconcile", 0);
	if (!ramster_reconcile_wq)
		return -ENOMEM;
	ret = ramster_transport_register(&ramster_reconcile_service);
	if (ret)
		goto err_destroy_wq;
	queue_delayed_work(ramster_reconcile_wq, &ramster_reconcile_work,
			   RAMSTER_RECONCILE_CHECK);
	return 0;

err_destroy_wq:
	destroy_workqueue(ramster_reconcile_wq);
	ramster_reconcile_wq = NULL;
	return ret;
}

/*
 * Before the links stop: the work sends through them.  The reply row stays
 * registered until the work is gone (a RECONCILE_REPLY in flight must
 * find its request, not close the link as an unknown type); link events
 * are waited out before the work is cancelled, so none can queue it again
 * on a destroyed work queue.
 */
void ramster_reconcile_exit(void)
{
	struct workqueue_struct *wq = ramster_reconcile_wq;

	WRITE_ONCE(ramster_reconcile_stopping, true);
	WRITE_ONCE(ramster_reconcile_wq, NULL);
	ramster_transport_sync_events();
	cancel_delayed_work_sync(&ramster_reconcile_work);
	destroy_workqueue(wq);
	ramster_transport_unregister(&ramster_reconcile_service);
}
