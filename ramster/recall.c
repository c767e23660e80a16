// SPDX-License-Identifier: GPL-2.0
/*
 * recall.c - taking our pages back when a holder asks (RECALL), or when
 * the node leaves
 *
 * A transport service (transport.h) with one row, RECALL.  A holder that
 * holds more of our pages than it wants to (past its high mark, or
 * leaving: lender.c) sends RECALL with the number of them it may keep,
 * every keepalive until that is met.  The handler only records the target
 * and queues the recall work, which fetches pages held there back into
 * the local pool (up to the pool's limit, not only up to the
 * remotification mark) until the holder has no more than the target.
 * When the pool is full, the work makes room by bringing pages back into
 * their processes with frontswap_shrink(), as far as memory allows
 * (suction.c's mark).  When memory is short too, the pages are written
 * from the holder to their swap slots (writeback.c): the holder gets its
 * memory back at the device's pace, and this node spends a page per
 * write in flight.  Only when that fails too (the holders do not produce
 * the pages, or every slot is busy) is the recall unmet: counted,
 * logged, and tried again at the holder's next request.  The
 * remotification thread may later send those pages to a node with room,
 * never back to the one that recalled them: it advertises none.
 *
 * ramster_recall_take_back() is the same walk for leaving (lifecycle.c).
 *
 * Locking: ramster_recall_lock (a spinlock) protects the recall targets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ramster.h"
#include "cluster.h"
#include "holders.h"
#include "index.h"
#include "recall.h"
#include "remote.h"
#include "shrink.h"
#include "stats.h"
#include "suction.h"
#include "transport.h"
#include "writeback.h"

#define RAMSTER_RECALL_BATCH	1024	/* pages fetched between checks */

static DEFINE_SPINLOCK(ramster_recall_lock);	/* see the file comment */
static u64 ramster_recall_keep_there[RAMSTER_MAX_NODES];
static DECLARE_BITMAP(ramster_recall_pending, RAMSTER_MAX_NODES);
/* Where each holder's recall write-backs go on from: the recall work's. */
static struct ramster_writeback_cursor ramster_recall_cursors[RAMSTER_MAX_NODES];
static void ramster_recall_work_fn(struct work_struct *work);
static DECLARE_WORK(ramster_recall_work, ramster_recall_work_fn);

/*********************************
 * taking pages back
 *********************************/
/* Our pages @holder holds (RAMSTER_NO_NODE: all holders together). */
static u64 ramster_pages_out(u8 holder)
{
	if (holder == RAMSTER_NO_NODE)
		return ramster_stat_read(RAMSTER_STAT_REMOTE_PAGES);
	return ramster_holders_held_there_count(holder);
}

/**
 * ramster_recall_take_back - bring our pages home from a holder
 * @holder: the holder, or RAMSTER_NO_NODE for all of them
 * @keep: until it holds at most this many of them
 * @cursor: where its write-backs go on from (ramster_write_back_held()):
 *	the caller's, kept across calls
 *
 * Into the local pool, and when it is full, making room there by bringing
 * pages into their processes while memory allows, else to the swap device.
 *
 * Return: how many more than @keep are still there.
 */
u64 ramster_recall_take_back(u8 holder, u64 keep,
			     struct ramster_writeback_cursor *cursor)
{
	unsigned long fetched, room, written;
	u64 out;

	while ((out = ramster_pages_out(holder)) > keep &&
	       !ramster_should_stop()) {
		fetched = ramster_remote_fetch_home(holder,
						    min_t(u64, out - keep,
							  RAMSTER_RECALL_BATCH),
						    true);
		ramster_stat_add(RAMSTER_STAT_RECALL_PAGES, fetched);
		if (fetched)
			continue;
		room = ramster_suction_room();
		if (room && ramster_shrink_by(min_t(u64, room, out - keep),
					      "recall"))
			continue;
		/* No room here: the device takes them (writeback.c). */
		written = ramster_write_back_held(holder,
						  min_t(u64, out - keep,
							RAMSTER_RECALL_BATCH),
						  cursor);
		ramster_stat_add(RAMSTER_STAT_RECALL_PAGES, written);
		if (!written)
			break;
	}
	out = ramster_pages_out(holder);
	return out > keep ? out - keep : 0;
}

/*
 * A holder asks us to take pages back: on its link thread, only record
 * the target.  Only a node that may hold our pages has any to give back.
 */
static int ramster_recall_request(void *ctx, u8 holder,
				  const struct ramster_wire_hdr *hdr,
				  const void *payload)
{
	const struct ramster_wire_area *area = payload;

	ramster_stat_inc(RAMSTER_STAT_RECALLS_RECEIVED);
	if (!ramster_holders_is_holder(holder))
		return 0;
	spin_lock(&ramster_recall_lock);
	ramster_recall_keep_there[holder] = le64_to_cpu(area->pages);
	__set_bit(holder, ramster_recall_pending);
	spin_unlock(&ramster_recall_lock);
	queue_work(system_unbound_wq, &ramster_recall_work);
	return 0;
}

static void ramster_recall_work_fn(struct work_struct *work)
{
	u64 keep, before, unmet;
	bool pending;
	int node;

	for (node = 0; node < RAMSTER_MAX_NODES; node++) {
		spin_lock(&ramster_recall_lock);
		pending = __test_and_clear_bit(node, ramster_recall_pending);
		keep = ramster_recall_keep_there[node];
		spin_unlock(&ramster_recall_lock);
		if (!pending)
			continue;
		before = ramster_pages_out(node);
		if (before <= keep)
			continue;
		unmet = ramster_recall_take_back(node, keep,
						 &ramster_recall_cursors[node]);
		pr_info_ratelimited("recall: node %u held %llu pages of ours, asked to keep %llu: %llu taken back\n",
				    node, before, keep,
				    before - min(before, ramster_pages_out(node)));
		if (unmet) {
			ramster_stat_inc(RAMSTER_STAT_RECALL_UNMET);
			pr_warn_ratelimited("recall: node %u: %llu pages cannot come home now (nor be written to the swap device)\n",
					    node, unmet);
		}
	}
}

/*********************************
 * init and exit
 *********************************/
static const struct ramster_handler ramster_recall_handlers[] = {
	{ RAMSTER_MSG_RECALL, RAMSTER_WIRE_RULE_RECALL, ramster_recall_request },
};

static struct ramster_service ramster_recall_service = {
	.name = "recall",
	.handlers = ramster_recall_handlers,
	.nr_handlers = ARRAY_SIZE(ramster_recall_handlers),
};

int ramster_recall_init(void)
{
	return ramster_transport_register(&ramster_recall_service);
}

/* Once unregistered, no RECALL queues the work: cancel what is queued. */
void ramster_recall_exit(void)
{
	ramster_transport_unregister(&ramster_recall_service);
	cancel_work_sync(&ramster_recall_work);
}
