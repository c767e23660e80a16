// SPDX-License-Identifier: GPL-2.0
/*
 * replicas.c - every remote page on `replicas` holders: the copies a lost
 * holder had are forgotten and made again from the survivors
 *
 * Remotification (remote.c) frees a page's local copy only once the
 * replicas wanted acknowledged theirs.  A holder is lost when it
 * restarted (a new instance forgot every page it held) or has been down
 * remote_lost_ms (presumed dead).  A worker then walks the trees: every
 * page of ours it held that has another copy (another holder, or the
 * local one) forgets it; a page whose only copy it was keeps naming it,
 * so that its load asks and fails loudly (or succeeds, if the holder was
 * only cut off and comes back).
 *
 * The same walk counts the remote-only pages with fewer copies than
 * wanted (under_replicated) and gives each one more: fetched from a live
 * holder and PUT to a live node with room that holds none (remote.c), the
 * copy recorded when acknowledged.  Walks run when a holder was lost,
 * again while pages stay under-replicated (every 100 ms while they make
 * progress, backing off to a minute while none can be repaired), and
 * once a minute in the background while any page is remote.
 *
 * While a lost holder's copies are forgotten, placement sends it nothing
 * (holders.c), so that no new copy is forgotten with the old ones.
 *
 * Locking: this worker is the only one to forget a lost holder's copies
 * and to add copies to remote-only entries; entries change under their
 * tree lock (index.c), a bounded batch at a time.
 * ramster_replicas_queue_lock is a leaf, taken in process context (link
 * events, reconcile, the worker): it only orders the changes of when the
 * worker runs next.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/workqueue.h>

#include "ramster.h"
#include "holders.h"
#include "index.h"
#include "remote.h"
#include "replicas.h"
#include "stats.h"
#include "transport.h"

#define RAMSTER_REPLICAS_BATCH		256	/* entries per tree lock hold */
#define RAMSTER_REPLICAS_PER_PASS	1024	/* copies made per walk */
#define RAMSTER_REPLICAS_BACKGROUND	(60 * HZ)

static struct ramster_tree **ramster_replicas_trees;
static struct workqueue_struct *ramster_replicas_wq;
static void ramster_replicas_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ramster_replicas_work, ramster_replicas_fn);
/* Orders the worker's re-queueing with the events' (a leaf lock). */
static DEFINE_SPINLOCK(ramster_replicas_queue_lock);
/* Holders that restarted: their copies are gone. */
static DECLARE_BITMAP(ramster_replicas_restarted, RAMSTER_MAX_NODES);
/* Per holder: 1 + its link epoch when its copies were last forgotten. */
static unsigned long ramster_replicas_forgot[RAMSTER_MAX_NODES];
/*
 * Delay before the next walk while pages cannot be repaired: the worker
 * doubles it, link events and reconcile.c set it back (a reset lost to
 * the worker's doubling only delays a walk their kick already ran).
 */
static unsigned long ramster_replicas_backoff = HZ;
/* The worker's page of data on its way from one holder to another. */
static void *ramster_replicas_buf;

/* Run in @delay, sooner or later than planned: an event calls for it. */
static void ramster_replicas_kick(unsigned long delay)
{
	struct workqueue_struct *wq = READ_ONCE(ramster_replicas_wq);

	if (!wq)
		return;
	spin_lock(&ramster_replicas_queue_lock);
	mod_delayed_work(wq, &ramster_replicas_work, delay);
	spin_unlock(&ramster_replicas_queue_lock);
}

/*
 * Run within @delay: sooner than planned if need be, never later.
 * queue_delayed_work() alone leaves a pending run where it is, however
 * late: a holder's down (look each second whether it is lost) then
 * waited for the background walk, a minute away.  A pending work whose
 * timer is not armed is on the worklist, due now (its timer fired, or a
 * kick(0) queued it and left the timer's expiry stale, maybe far ahead):
 * it stays.  Every arming of the timer happens under the lock.
 */
static void ramster_replicas_queue(unsigned long delay)
{
	struct workqueue_struct *wq = READ_ONCE(ramster_replicas_wq);
	unsigned long due = jiffies + delay;

	if (!wq)
		return;
	spin_lock(&ramster_replicas_queue_lock);
	if (!delayed_work_pending(&ramster_replicas_work) ||
	    (timer_pending(&ramster_replicas_work.timer) &&
	     time_after(READ_ONCE(ramster_replicas_work.timer.expires), due)))
		mod_delayed_work(wq, &ramster_replicas_work, delay);
	spin_unlock(&ramster_replicas_queue_lock);
}

/*
 * Forget @node's copies in one tree where another copy exists.  Returns
 * how many were forgotten.
 */
static unsigned long ramster_replicas_forget_tree(struct ramster_tree *tree,
						  u8 node)
{
	struct ramster_entry *entry;
	unsigned long forgot = 0;
	pgoff_t offset = 0;
	int batch;

	do {
		spin_lock(&tree->lock);
		entry = ramster_index_next(tree, offset);
		for (batch = 0; entry && batch < RAMSTER_REPLICAS_BATCH;
		     batch++) {
			if (ramster_entry_has_holder(entry, node) &&
			    ramster_remote_drop_holder(tree, entry, node))
				forgot++;
			offset = entry->offset + 1;
			entry = ramster_index_next(tree, offset);
		}
		spin_unlock(&tree->lock);
		cond_resched();
	} while (entry);
	return forgot;
}

/*
 * @node lost every copy it had (@why): forget those that have a twin.
 * No new copy goes to it meanwhile, or the walk would forget that too.
 */
static void ramster_replicas_forget(u8 node, const char *why)
{
	unsigned long forgot = 0;
	unsigned int type;

	ramster_holders_set_forgetting(node, true);
	for (type = 0; type < MAX_SWAPFILES; type++)
		if (ramster_replicas_trees[type])
			forgot += ramster_replicas_forget_tree(ramster_replicas_trees[type],
							       node);
	ramster_holders_set_forgetting(node, false);
	ramster_stat_add(RAMSTER_STAT_REPLICAS_LOST, forgot);
	if (forgot)
		pr_warn("node %u %s: %lu copies of our pages on it forgotten; making them again from the other replicas\n",
			node, why, forgot);
}

/* Holders lost since the last walk; true if any holder is still down. */
static bool ramster_replicas_find_lost(void)
{
	unsigned long epoch;
	bool down = false;
	unsigned int node;

	for_each_set_bit(node, ramster_replicas_restarted, RAMSTER_MAX_NODES) {
		clear_bit(node, ramster_replicas_restarted);
		ramster_replicas_forget(node, "restarted");
	}
	for (node = 0; node < RAMSTER_MAX_NODES; node++) {
		if (!ramster_holders_is_holder(node) ||
		    !ramster_holders_down_ms(node))
			continue;
		/* Once per time it is down: the epoch of its last link. */
		epoch = ramster_holders_epoch(node);
		if (ramster_replicas_forgot[node] == epoch + 1)
			continue;
		if (ramster_remote_holder_lost(node)) {
			ramster_replicas_forget(node, "presumed dead");
			ramster_replicas_forgot[node] = epoch + 1;
		} else {
			down = true;
		}
	}
	return down;
}

/* The copies wanted, read once per walk (the filter runs under a lock). */
static int ramster_replicas_want;

/* A page only on other nodes, with fewer copies there than wanted. */
static bool ramster_replicas_short(const struct ramster_entry *entry)
{
	return ramster_entry_remote_only(entry) &&
	       ramster_entry_nr_holders(entry) < ramster_replicas_want;
}

/*
 * One walk over the remote-only pages short of replicas: each gets one
 * more copy, up to a budget.  Returns how many are still short; *@made
 * receives how many copies went out.
 */
static unsigned long ramster_replicas_repair(void *buf, unsigned long *made)
{
	unsigned long shortfall = 0;
	struct ramster_entry *entry;
	struct ramster_tree *tree;
	bool stuck = false;
	unsigned int type;
	pgoff_t offset;
	int ret;

	*made = 0;
	ramster_replicas_want = ramster_remote_want();
	for (type = 0; type < MAX_SWAPFILES; type++) {
		tree = ramster_replicas_trees[type];
		offset = 0;
		while (tree &&
		       (entry = ramster_remote_next(tree, offset, RAMSTER_NO_NODE,
						    ramster_replicas_short))) {
			offset = entry->offset + 1;
			shortfall++;
			if (!stuck && *made < RAMSTER_REPLICAS_PER_PASS &&
			    ramster_holders_may_remotify() &&
			    ramster_remote_window_wait()) {
				ret = ramster_remote_add_copy(tree, entry, buf);
				if (!ret)
					(*made)++;
				/* No node with room: only count the rest. */
				stuck = ret == -ENOSPC;
			}
			spin_lock(&tree->lock);
			ramster_entry_put(tree, entry);
			spin_unlock(&tree->lock);
			cond_resched();
		}
	}
	return shortfall - *made;
}

static void ramster_replicas_fn(struct work_struct *work)
{
	unsigned long shortfall, made, delay;
	bool down;

	down = ramster_replicas_find_lost();
	shortfall = ramster_replicas_repair(ramster_replicas_buf, &made);
	ramster_stat_set(RAMSTER_STAT_UNDER_REPLICATED, shortfall);

	if (!shortfall) {
		WRITE_ONCE(ramster_replicas_backoff, HZ);
		delay = RAMSTER_REPLICAS_BACKGROUND;
	} else if (made) {
		WRITE_ONCE(ramster_replicas_backoff, HZ);
		delay = HZ / 10;
	} else {
		delay = READ_ONCE(ramster_replicas_backoff);
		WRITE_ONCE(ramster_replicas_backoff,
			   min_t(unsigned long, 2 * delay,
				 RAMSTER_REPLICAS_BACKGROUND));
	}
	/* A holder down: look again each second whether it is lost. */
	if (down)
		delay = min_t(unsigned long, delay, HZ);
	/* A kick that came meanwhile keeps its sooner time. */
	ramster_replicas_queue(delay);
}

/* Copies were found lost (reconcile.c): make them again now. */
void ramster_replicas_repair_soon(void)
{
	WRITE_ONCE(ramster_replicas_backoff, HZ);
	ramster_replicas_kick(0);
}

/*********************************
 * link events
 *********************************/
static void ramster_replicas_restarted_event(void *ctx, u8 node)
{
	if (!ramster_holders_is_holder(node))
		return;
	/* Before its link is up: no copy goes there until it is forgotten. */
	ramster_holders_set_forgetting(node, true);
	set_bit(node, ramster_replicas_restarted);
	ramster_replicas_kick(0);
}

/* Down: the worker watches it until it is back or presumed dead. */
static void ramster_replicas_down(void *ctx, u8 node)
{
	if (ramster_holders_is_holder(node))
		ramster_replicas_queue(HZ);
}

/*
 * Up: a node that may be where the missing copies go.  Its room is
 * known at its first keepalive: the walk runs after that.
 */
static void ramster_replicas_up(void *ctx, u8 node)
{
	if (!ramster_holders_is_holder(node))
		return;
	WRITE_ONCE(ramster_replicas_backoff, HZ);
	/* Sooner than a backed-off walk would be. */
	ramster_replicas_kick(2 * HZ);
}

static const struct ramster_link_events ramster_replicas_events = {
	.up = ramster_replicas_up,
	.down = ramster_replicas_down,
	.restarted = ramster_replicas_restarted_event,
};

static struct ramster_service ramster_replicas_service = {
	.name = "replicas",
	.events = &ramster_replicas_events,
};

int ramster_replicas_init(struct ramster_tree **trees)
{
	int ret;

	ramster_replicas_trees = trees;
	ramster_replicas_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!ramster_replicas_buf)
		return -ENOMEM;
	ramster_replicas_wq = alloc_ordered_workqueue("ramster-replicas", 0);
	if (!ramster_replicas_wq) {
		ret = -ENOMEM;
		goto err_free_buf;
	}
	ret = ramster_transport_register(&ramster_replicas_service);
	if (ret)
		goto err_destroy_wq;
	ramster_replicas_queue(RAMSTER_REPLICAS_BACKGROUND);
	return 0;

err_destroy_wq:
	destroy_workqueue(ramster_replicas_wq);
	ramster_replicas_wq = NULL;
err_free_buf:
	kfree(ramster_replicas_buf);
	return ret;
}

/* Before remote.c's exit: the worker sends through it. */
void ramster_replicas_exit(void)
{
	struct workqueue_struct *wq = ramster_replicas_wq;

	ramster_transport_unregister(&ramster_replicas_service);
	WRITE_ONCE(ramster_replicas_wq, NULL);
	cancel_delayed_work_sync(&ramster_replicas_work);
	destroy_workqueue(wq);
	kfree(ramster_replicas_buf);
}
