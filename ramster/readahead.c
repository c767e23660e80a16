// SPDX-License-Identifier: GPL-2.0
/*
 * readahead.c - remote pages fetched ahead of their loads
 *
 * A load that must GET its page also asks the same holder, in the same
 * burst and right behind the faulting page's GET, for the remote-only
 * pages it holds at the next remote_readahead - 1 offsets of that swap
 * type.  Those are the slots swap readahead asks for next (in ascending
 * order: swap_cluster_readahead()), and the ones a process walking its
 * memory faults on next.  Their loads then find the data here, or wait
 * for an answer already on its way, instead of paying a round trip each:
 * a cluster of slots costs one round trip, not one per page.  A load
 * that takes a staged page fetches ahead from there in turn (the pages
 * staged already are skipped), so a sequential reader keeps a window of
 * GETs in flight ahead of it.
 *
 * Staged pages: RAMSTER_RA_SLOTS slots, each with a PAGE_SIZE buffer,
 * allocated at init (nothing is allocated on the load path but the GET
 * frames).  A slot names an entry, which is one stored version of a swap
 * slot (a rewritten page is a new entry), and holds a reference on it.
 * It is filled only with data that passed the same check as a load's
 * GET (remote_get.c: key, generation, length, kind, crc32c), so a staged
 * page is the entry's page: it cannot be stale.  A slot is consumed by
 * its entry's load; freed after RAMSTER_RA_AGE_MS unused, or when a
 * newer fetch needs a slot (counted in remote_readahead_wasted); and
 * dropped before its swap area's entries are (swapoff).  A slot whose
 * GET is in flight is never reused: its ->done() completes it, and a
 * load may be waiting for it.
 *
 * Pacing: every staged page consumed earns a credit, every one wasted
 * or fetched for nothing (a holder busy or out of reach) costs one.
 * Without credit (an access pattern readahead does not fit: random
 * faults, a holder that cannot keep up) only one load in
 * RAMSTER_RA_PROBE fetches ahead, as a probe, so that costs the holder
 * little.
 *
 * Locking: ramster_ra_lock protects the slots' fields except ->buf (owned
 * by the GET while in flight, then by whoever takes the slot).  It is
 * never held together with a tree lock: references are dropped after it
 * is released.  ramster_ra_drop_mutex serializes the drops (swapoff's of
 * one tree, a drain's of all): one never skips a slot the other claimed
 * and is still releasing.  It is taken outside ramster_ra_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/frontswap.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include "index.h"
#include "ramster.h"
#include "readahead.h"
#include "remote_get.h"
#include "stats.h"
#include "transport.h"

#define RAMSTER_RA_MAX		32	/* most pages per load, the faulting one included */
#define RAMSTER_RA_SLOTS	64	/* staged pages at most */
#define RAMSTER_RA_AGE_MS	2000	/* an unused staged page goes after this */
#define RAMSTER_RA_CREDIT_MAX	64
#define RAMSTER_RA_PROBE	16

static unsigned int remote_readahead = 8;
static struct ramster_uint_range remote_readahead_range = {
	&remote_readahead, 0, RAMSTER_RA_MAX
};
module_param_cb(remote_readahead, &ramster_uint_range_ops,
		&remote_readahead_range, 0644);
MODULE_PARM_DESC(remote_readahead,
		 "a remote load also fetches the pages its holder keeps at the next offsets, this many pages in all; 0 or 1: off (default 8)");

/**
 * enum ramster_ra_state - where a slot is
 * @RAMSTER_RA_FREE: unused
 * @RAMSTER_RA_INFLIGHT: its GET is on the link
 * @RAMSTER_RA_READY: ->buf has the entry's data, checked
 * @RAMSTER_RA_FAILED: the GET brought nothing usable (link down, holder
 *	busy, a wrong answer): the load asks for itself
 */
enum ramster_ra_state {
	RAMSTER_RA_FREE,
	RAMSTER_RA_INFLIGHT,
	RAMSTER_RA_READY,
	RAMSTER_RA_FAILED,
};

/**
 * struct ramster_ra_slot - one page fetched ahead of its load
 * @req: the GET, while in flight
 * @tree: the entry's tree
 * @entry: the entry, referenced while the slot is not free
 * @stamp: when the GET left or its answer came (jiffies)
 * @state: enum ramster_ra_state
 * @claimed: a load is taking it: nobody else reuses or frees it
 * @buf: PAGE_SIZE bytes: the entry's data once READY
 */
struct ramster_ra_slot {
	struct ramster_req req;
	struct ramster_tree *tree;
	struct ramster_entry *entry;
	unsigned long stamp;
	enum ramster_ra_state state;
	bool claimed;
	void *buf;
};

static struct ramster_ra_slot *ramster_ra_slots;
static DEFINE_SPINLOCK(ramster_ra_lock);	/* see the file comment */
static DEFINE_MUTEX(ramster_ra_drop_mutex);	/* see the file comment */
static DECLARE_WAIT_QUEUE_HEAD(ramster_ra_wait);	/* a GET answered */
static atomic_t ramster_ra_credit = ATOMIC_INIT(RAMSTER_RA_CREDIT_MAX);
static atomic_t ramster_ra_probe = ATOMIC_INIT(0);
/* Slots freed whose entry reference is not dropped yet (drop_tree waits). */
static atomic_t ramster_ra_putting = ATOMIC_INIT(0);

/* Under ramster_ra_lock: the slot of @entry, NULL if none. */
static struct ramster_ra_slot *ramster_ra_find(const struct ramster_tree *tree,
					       const struct ramster_entry *entry)
{
	int i;

	for (i = 0; i < RAMSTER_RA_SLOTS; i++)
		if (ramster_ra_slots[i].state != RAMSTER_RA_FREE &&
		    ramster_ra_slots[i].tree == tree &&
		    ramster_ra_slots[i].entry == entry)
			return &ramster_ra_slots[i];
	return NULL;
}

/*
 * Under ramster_ra_lock: free a slot that is not in flight, handing its
 * entry's reference to @entryp (dropped by the caller, unlocked: see
 * ramster_ra_put()).  Returns whether it held a page nobody used.
 */
static bool ramster_ra_free(struct ramster_ra_slot *slot,
			    struct ramster_tree **treep,
			    struct ramster_entry **entryp)
{
	bool wasted = slot->state == RAMSTER_RA_READY;

	if (slot->entry)
		atomic_inc(&ramster_ra_putting);
	*treep = slot->tree;
	*entryp = slot->entry;
	slot->tree = NULL;
	slot->entry = NULL;
	slot->claimed = false;
	slot->state = RAMSTER_RA_FREE;
	return wasted;
}

/*
 * Drop a freed slot's reference, and count a page fetched for nothing;
 * @charge: against the pacing credit too (not for pages dropped by
 * swapoff: that is not the access pattern's doing).
 */
static void ramster_ra_put(struct ramster_tree *tree,
			   struct ramster_entry *entry, bool wasted, bool charge)
{
	if (!entry)
		return;
	if (wasted) {
		ramster_stat_inc(RAMSTER_STAT_REMOTE_READAHEAD_WASTED);
		if (charge)
			atomic_dec_if_positive(&ramster_ra_credit);
	}
	spin_lock(&tree->lock);
	ramster_entry_put(tree, entry);
	spin_unlock(&tree->lock);
	if (atomic_dec_and_test(&ramster_ra_putting))
		wake_up_var(&ramster_ra_putting);
}

/*
 * Free a slot this caller claimed and drop its reference; @consumed: its
 * page was used (not wasted).  Never charged: a load took it, or swapoff
 * dropped it.
 */
static void ramster_ra_release(struct ramster_ra_slot *slot, bool consumed)
{
	struct ramster_entry *entry;
	struct ramster_tree *tree;
	bool wasted;

	spin_lock(&ramster_ra_lock);
	wasted = ramster_ra_free(slot, &tree, &entry);
	spin_unlock(&ramster_ra_lock);
	ramster_ra_put(tree, entry, wasted && !consumed, false);
}

/* May this load fetch ahead?  See "Pacing" in the file comment. */
static bool ramster_ra_paced(void)
{
	return atomic_read(&ramster_ra_credit) > 0 ||
	       !(atomic_inc_return(&ramster_ra_probe) % RAMSTER_RA_PROBE);
}

/* The slot's GET ended: @err 0 if ->buf has the page.  Wakes its load. */
static void ramster_ra_finish(struct ramster_ra_slot *slot, int err)
{
	spin_lock(&ramster_ra_lock);
	slot->state = err ? RAMSTER_RA_FAILED : RAMSTER_RA_READY;
	slot->stamp = jiffies;
	spin_unlock(&ramster_ra_lock);
	wake_up_all(&ramster_ra_wait);
}

static void ramster_ra_done(struct ramster_req *req, int err,
			    const struct ramster_wire_hdr *hdr,
			    const void *payload)
{
	struct ramster_ra_slot *slot = container_of(req, struct ramster_ra_slot,
						    req);

	/* The slot is in flight: nobody frees it or changes tree/entry. */
	if (!err)
		err = ramster_get_check(req->node, slot->tree, slot->entry,
					payload, slot->buf);
	if (err) {
		ramster_stat_inc(RAMSTER_STAT_REMOTE_READAHEAD_FAILED);
		atomic_dec_if_positive(&ramster_ra_credit);
	}
	ramster_ra_finish(slot, err);
}

/*
 * Under ramster_ra_lock: a slot for a new GET.  A free one, else the
 * oldest answered one nobody is taking (its reference and whether it was
 * wasted go to the caller).  NULL if every slot is in flight or claimed.
 */
static struct ramster_ra_slot *ramster_ra_grab(struct ramster_tree **treep,
					       struct ramster_entry **entryp,
					       bool *wastedp)
{
	struct ramster_ra_slot *slot, *oldest = NULL;
	int i;

	*entryp = NULL;
	*wastedp = false;
	for (i = 0; i < RAMSTER_RA_SLOTS; i++) {
		slot = &ramster_ra_slots[i];
		if (slot->state == RAMSTER_RA_FREE)
			return slot;
		if (slot->state == RAMSTER_RA_INFLIGHT || slot->claimed)
			continue;
		if (!oldest || time_before(slot->stamp, oldest->stamp))
			oldest = slot;
	}
	if (oldest)
		*wastedp = ramster_ra_free(oldest, treep, entryp);
	return oldest;
}

/*
 * Fetch one entry ahead.  *@taken says whether a slot took over the
 * caller's reference on it (else the caller keeps it).  Returns 0 to go
 * on (a GET left, or the entry is staged already), or a negative errno
 * to stop (no slot, no memory, the link refused the GET).
 */
static int ramster_ra_start(struct ramster_tree *tree,
			    struct ramster_entry *entry, u8 holder,
			    bool *taken)
{
	struct ramster_entry *old_entry;
	struct ramster_tree *old_tree;
	struct ramster_ra_slot *slot;
	struct ramster_msg *msg;
	bool wasted;
	int ret;

	*taken = false;
	/* A sliding window mostly finds its pages staged: no frame for them. */
	spin_lock(&ramster_ra_lock);
	slot = ramster_ra_find(tree, entry);
	spin_unlock(&ramster_ra_lock);
	if (slot)
		return 0;
	msg = ramster_get_msg(tree, entry, false);
	if (!msg)
		return -ENOMEM;
	spin_lock(&ramster_ra_lock);
	if (ramster_ra_find(tree, entry)) {
		spin_unlock(&ramster_ra_lock);
		ramster_msg_free(msg);
		return 0;
	}
	slot = ramster_ra_grab(&old_tree, &old_entry, &wasted);
	if (slot) {
		slot->tree = tree;
		slot->entry = entry;
		slot->state = RAMSTER_RA_INFLIGHT;
		slot->claimed = false;
		slot->stamp = jiffies;
		memset(&slot->req, 0, sizeof(slot->req));
		INIT_LIST_HEAD(&slot->req.list);
		slot->req.node = holder;
		slot->req.reply_type = RAMSTER_MSG_GET_REPLY;
		slot->req.done = ramster_ra_done;
		*taken = true;
	}
	spin_unlock(&ramster_ra_lock);
	ramster_ra_put(old_tree, old_entry, wasted, true);
	if (!slot) {
		ramster_msg_free(msg);
		return -EBUSY;
	}
	ret = ramster_send(holder, msg, &slot->req);
	if (ret) {
		/*
		 * Not sent, so not counted; but as if answered: a load may
		 * already be waiting for it.  The slot keeps the reference
		 * until it is taken or reused.
		 */
		ramster_ra_finish(slot, ret);
		return ret;
	}
	ramster_stat_inc(RAMSTER_STAT_REMOTE_READAHEAD_GETS);
	return 0;
}

/**
 * ramster_ra_issue - fetch the pages after a load's ahead of their loads
 * @tree: the load's tree
 * @entry: the entry being loaded
 * @holder: the node its GET just went to
 *
 * Called right after the load's own GET left, so that the faulting page
 * is answered first.  The remote-only pages @holder keeps at the next
 * remote_readahead - 1 offsets each get a GET into a slot; a page staged
 * already, or a slot or frame that cannot be had, ends it.  Nothing is
 * fetched for a task on its way out (frontswap_task_leaving()): it will
 * not read on, even when its load took a page fetched ahead.
 */
void ramster_ra_issue(struct ramster_tree *tree,
		      const struct ramster_entry *entry, u8 holder)
{
	struct ramster_entry *ahead[RAMSTER_RA_MAX], *next;
	unsigned int window = READ_ONCE(remote_readahead);
	pgoff_t end = entry->offset + window;
	int i, n = 0, ret = 0;
	bool taken;

	if (window < 2 || frontswap_task_leaving() || !ramster_ra_paced())
		return;
	spin_lock(&tree->lock);
	next = ramster_index_next(tree, entry->offset + 1);
	while (next && next->offset < end && n < window - 1) {
		if (ramster_entry_remote_only(next) &&
		    ramster_entry_has_holder(next, holder) &&
		    next->length <= PAGE_SIZE) {
			ramster_entry_get(next);
			ahead[n++] = next;
		}
		next = ramster_index_after(tree, next);
	}
	spin_unlock(&tree->lock);

	for (i = 0; i < n && !ret; i++) {
		ret = ramster_ra_start(tree, ahead[i], holder, &taken);
		if (taken)
			ahead[i] = NULL;	/* the slot has it */
	}
	if (!n)
		return;
	spin_lock(&tree->lock);
	for (i = 0; i < n; i++)
		if (ahead[i])
			ramster_entry_put(tree, ahead[i]);
	spin_unlock(&tree->lock);
}

/**
 * ramster_ra_take - a load's page, if it was fetched ahead
 * @tree: the entry's tree
 * @entry: the entry being loaded, referenced by the caller
 * @buf: receives entry->length bytes of data
 * @asked: set to the node a GET that brought nothing went to (the load
 *	then asks for itself, perhaps another replica: a failover), else
 *	RAMSTER_NO_NODE
 *
 * Waits for a GET still on its way (bounded: the transport fails a
 * request after request_timeout_ms).  The slot is freed either way.
 *
 * Return: 0 with @buf filled, or -ENOENT: not fetched ahead, or the GET
 * brought nothing usable; the load asks for itself.
 */
int ramster_ra_take(struct ramster_tree *tree, struct ramster_entry *entry,
		    void *buf, u8 *asked)
{
	unsigned long timeout;
	struct ramster_ra_slot *slot;
	enum ramster_ra_state state;
	u8 holder;

	*asked = RAMSTER_NO_NODE;
	spin_lock(&ramster_ra_lock);
	slot = ramster_ra_find(tree, entry);
	if (!slot || slot->claimed) {
		spin_unlock(&ramster_ra_lock);
		return -ENOENT;
	}
	slot->claimed = true;
	state = slot->state;
	spin_unlock(&ramster_ra_lock);

	if (state == RAMSTER_RA_INFLIGHT) {
		timeout = msecs_to_jiffies(ramster_transport_request_timeout_ms() +
					   2000);
		wait_event_timeout(ramster_ra_wait,
				   READ_ONCE(slot->state) != RAMSTER_RA_INFLIGHT,
				   timeout);
	}

	spin_lock(&ramster_ra_lock);
	state = slot->state;
	if (state == RAMSTER_RA_INFLIGHT) {
		/* Its ->done() is still to come: the slot stays for it. */
		slot->claimed = false;
		spin_unlock(&ramster_ra_lock);
		return -ENOENT;
	}
	spin_unlock(&ramster_ra_lock);

	/* Claimed and answered: nobody else touches the slot now. */
	if (state == RAMSTER_RA_READY)
		memcpy(buf, slot->buf, entry->length);
	holder = slot->req.node;
	/* Our caller's reference keeps the entry: this is never the last. */
	ramster_ra_release(slot, true);
	if (state != RAMSTER_RA_READY) {
		*asked = holder;
		return -ENOENT;
	}
	ramster_stat_inc(RAMSTER_STAT_REMOTE_READAHEAD_HITS);
	atomic_add_unless(&ramster_ra_credit, 1, RAMSTER_RA_CREDIT_MAX);
	/* Keep the window ahead of a sequential reader: mostly one more GET. */
	ramster_ra_issue(tree, entry, holder);
	return 0;
}

/**
 * ramster_ra_expire - let staged pages nobody loaded go
 *
 * Called often (the remotification thread's loops), acting at most every
 * RAMSTER_RA_AGE_MS / 4: a staged page holds its entry, which keeps a
 * freed swap slot's remote copies (and the module) until the page goes.
 * A slot in flight or claimed by a load is left.
 */
void ramster_ra_expire(void)
{
	static unsigned long next;
	static bool started;
	unsigned long old = jiffies - msecs_to_jiffies(RAMSTER_RA_AGE_MS);
	struct ramster_entry *old_entry;
	struct ramster_tree *old_tree;
	struct ramster_ra_slot *slot;
	bool wasted;
	int i;

	if (READ_ONCE(started) && time_before(jiffies, READ_ONCE(next)))
		return;
	WRITE_ONCE(started, true);
	WRITE_ONCE(next, jiffies + msecs_to_jiffies(RAMSTER_RA_AGE_MS / 4));
	for (i = 0; i < RAMSTER_RA_SLOTS; i++) {
		slot = &ramster_ra_slots[i];
		spin_lock(&ramster_ra_lock);
		if (slot->state == RAMSTER_RA_FREE ||
		    slot->state == RAMSTER_RA_INFLIGHT || slot->claimed ||
		    time_after(slot->stamp, old)) {
			spin_unlock(&ramster_ra_lock);
			continue;
		}
		wasted = ramster_ra_free(slot, &old_tree, &old_entry);
		spin_unlock(&ramster_ra_lock);
		ramster_ra_put(old_tree, old_entry, wasted, true);
	}
}

/*
 * Drop the slots of @tree, or of every tree if @tree is NULL.  GETs still
 * in flight are cancelled; one whose answer is being handled right now is
 * waited for (its ->done() does not sleep), and so is a reference just
 * being dropped by whoever freed a slot.  A slot claimed by a load is
 * left to it (it releases the slot itself); no load runs for a tree being
 * dropped alone (swapoff).  Sleeps.
 */
static void ramster_ra_drop(struct ramster_tree *tree)
{
	struct ramster_ra_slot *slot;
	bool inflight;
	int i;

	mutex_lock(&ramster_ra_drop_mutex);
	for (i = 0; i < RAMSTER_RA_SLOTS; i++) {
		slot = &ramster_ra_slots[i];
		spin_lock(&ramster_ra_lock);
		if (slot->state == RAMSTER_RA_FREE ||
		    (tree && slot->tree != tree) ||
		    WARN_ON_ONCE(tree && slot->claimed) || slot->claimed) {
			spin_unlock(&ramster_ra_lock);
			continue;
		}
		/* Ours now: nobody else frees or reuses a claimed slot. */
		slot->claimed = true;
		inflight = slot->state == RAMSTER_RA_INFLIGHT;
		spin_unlock(&ramster_ra_lock);
		if (inflight) {
			if (ramster_req_cancel(&slot->req))
				ramster_ra_finish(slot, -ECANCELED);
			else
				wait_event(ramster_ra_wait,
					   READ_ONCE(slot->state) !=
					   RAMSTER_RA_INFLIGHT);
		}
		ramster_ra_release(slot, false);
	}
	/*
	 * A slot freed by someone else (expiry, a fetch taking the slot)
	 * just before we looked: its reference goes in a moment.
	 */
	wait_var_event(&ramster_ra_putting, !atomic_read(&ramster_ra_putting));
	mutex_unlock(&ramster_ra_drop_mutex);
}

/**
 * ramster_ra_drop_tree - drop every page fetched ahead for a tree
 * @tree: a tree whose swap area is being switched off
 *
 * Called before its entries are dropped, so that none outlives them: its
 * last reference would send a per-page invalidation after the area's,
 * and keep the entry (and the module) until it went.  No load of the area
 * runs any more (swapoff), so no slot of it may be claimed.  Sleeps.
 */
void ramster_ra_drop_tree(struct ramster_tree *tree)
{
	ramster_ra_drop(tree);
}

/**
 * ramster_ra_drop_all - drop every page fetched ahead
 *
 * Called once the node has drained (frontswap holds no page of ours, so
 * no load will claim a slot any more): a staged page nobody loaded would
 * keep its entry, and so the module, until it expired, RAMSTER_RA_AGE_MS
 * later, and an rmmod right after the drain would be refused for it.
 * Sleeps.
 */
void ramster_ra_drop_all(void)
{
	ramster_ra_drop(NULL);
}

int ramster_ra_init(void)
{
	int i;

	ramster_ra_slots = kcalloc(RAMSTER_RA_SLOTS, sizeof(*ramster_ra_slots),
				   GFP_KERNEL);
	if (!ramster_ra_slots)
		return -ENOMEM;
	for (i = 0; i < RAMSTER_RA_SLOTS; i++) {
		ramster_ra_slots[i].buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!ramster_ra_slots[i].buf)
			goto err_free;
	}
	return 0;

err_free:
	while (i--)
		kfree(ramster_ra_slots[i].buf);
	kfree(ramster_ra_slots);
	return -ENOMEM;
}

/* No entry is left (each holds the module), so no slot is in use. */
void ramster_ra_exit(void)
{
	int i;

	for (i = 0; i < RAMSTER_RA_SLOTS; i++) {
		WARN_ON_ONCE(ramster_ra_slots[i].state != RAMSTER_RA_FREE);
		kfree(ramster_ra_slots[i].buf);
	}
	kfree(ramster_ra_slots);
}
