// SPDX-License-Identifier: GPL-2.0
/*
 * lender.c - the holder's side of the protocol: this node lends its RAM
 *
 * A transport service (transport.h).  It answers the frames an owner
 * sends about the pages it keeps here (PUT, GET, INVALIDATE,
 * INVALIDATE_AREA) from the foreign store (foreign.c), says in every
 * KEEPALIVE how much room it offers that owner and how many of its pages
 * it holds, and asks an owner for pages back (RECALL) when the store is
 * past its high mark or the node is leaving.  A RECALL carries a target
 * ("keep at most N here"), so repeating it every tick until it is met is
 * harmless.
 *
 * Only nodes whose role sends pages to a node of ours may store here
 * (attach tells which); a PUT from another is refused.  When an owner
 * restarts (a new instance), what it stored here is nobody's: dropped.
 *
 * A lender is not protected from its own generosity by the capacity
 * alone: its own processes may need the memory later.  Two signals
 * squeeze it; a squeezed lender limits the store below what it holds, so
 * it offers no room, refuses PUTs (FULL) and recalls pages from their
 * owners.  Foreign swap pages are never dropped to make room: they are
 * the only copy their owner may have.  Ephemeral pages (clean page cache
 * pages, which their owner can read again from its disk) are: the oldest
 * go first when squeezed, and under any memory pressure through a
 * shrinker.
 *
 *  - Available memory (si_mem_available(), less the free pages that
 *    ordinary allocations do not get: the high-order atomic reserve and
 *    the watermark boost), every tick and, between ticks, every 50 ms of
 *    PUTs (on a node that has owners): below lender_reserve_percent of
 *    RAM, the limit is what the store holds less what the shortfall from
 *    twice the reserve is worth in foreign pages (at their average
 *    compressed size), not below the floor (below).  It is lifted once
 *    available memory is above twice the reserve; between the marks it
 *    stays as it was.  PUTs check so often because an owner can fill a
 *    store faster than a tick: in the cleanremote session node 2 put
 *    1700 pages on node 1 within a second and a half, and node 1's next
 *    check found it short by all of them.  (A store that stopped
 *    growing under twice the reserve was tried: it protected node 1 as
 *    well, but a lender left in that band lent nothing more, and the
 *    faults session's node 2, holding node 1's parked pages after its
 *    own workload, took none of the next process's.)  On by default
 *    (10%).
 *
 *  - Direct reclaim, off by default (lender_reclaim_quiet_ms=0).
 *    Available memory counts the page cache: a lender living on its page
 *    cache looks well off until reclaim of it fails to keep up with its
 *    own allocations.  So a second shrinker counts the foreign swap pages
 *    above the floor, to reclaim by a task for itself only (PF_MEMALLOC
 *    without PF_KSWAPD: direct, proactive, node and hibernation reclaim;
 *    not kswapd nor drop_caches).  The VM asks a shrinker for a share of
 *    its objects that doubles with each step of reclaim priority, and
 *    this one (batch LONG_MAX) is scanned only when the ask, deferred
 *    work included, reaches all of them: deep reclaim.  Then, if
 *    ephemeral pages do not cover it, the shrinker freezes the limit at
 *    what is held (PUTs are refused from that moment) and flags the ask;
 *    nothing else (any reclaim context: no frame, no allocation).  The
 *    next tick lowers the limit by a quarter of what is held, not below
 *    the floor, once per tick that finds a new ask, so recalls follow;
 *    the limit is lifted lender_reclaim_quiet_ms after the last ask.  In
 *    the sessions it never protected a lender the reserve did not, and
 *    in peers3 it asked on every node at once: hence off by default.
 *
 * In a symmetric cluster every node can be short at once (the peers3
 * session): with a bare reserve every node would refuse every other, and
 * a node short from the start would never place a page anywhere.  The
 * policy: squeezing is fine, pages refused or recalled go to their
 * owner's local pool or swap device, nothing is lost; but a squeezed
 * lender keeps lending up to a floor of half the reserve in pages, at
 * most a quarter of its capacity, and offers the room left in equal
 * shares to its owners, so that a short node can still place some pages.
 * (Recalls stay in proportion to what each owner holds: an owner that
 * filled the floor first keeps its pages.)  Deep reclaim (the shrinker)
 * never lets the store grow, floor or not.
 *
 * The handlers run on each owner's link thread, so the frames of one
 * owner are handled in order; the store is shared by all owners.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/debugfs.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>

#include "ramster.h"
#include "cluster.h"
#include "foreign.h"
#include "lender.h"
#include "stats.h"
#include "transport.h"

static unsigned int foreign_high_percent = 100;
module_param(foreign_high_percent, uint, 0644);
MODULE_PARM_DESC(foreign_high_percent,
		 "recall pages from their owners above this percent of the capacity (default 100)");

static unsigned int foreign_low_percent = 100;
module_param(foreign_low_percent, uint, 0644);
MODULE_PARM_DESC(foreign_low_percent,
		 "... down to this percent of it, where advertised room ends too (default 100)");

/*
 * On by default: 10% of RAM is what a lender with workloads of its own
 * needs to see coming before reclaim does (the faults session's lender
 * recalls at it and is not OOM-killed), and in a symmetric cluster the
 * floor keeps every node lending a little (see the top of the file).
 */
static unsigned int lender_reserve_percent = 10;
static struct ramster_uint_range lender_reserve_percent_range = {
	&lender_reserve_percent, 0, 90
};
module_param_cb(lender_reserve_percent, &ramster_uint_range_ops,
		&lender_reserve_percent_range, 0644);
MODULE_PARM_DESC(lender_reserve_percent,
		 "below this much available memory (percent of RAM) a lender recalls its foreign pages, down to a floor of half the reserve (at most a quarter of capacity); 0: never (default 10)");

/*
 * Off by default: in the sessions it never protected a lender the reserve
 * did not (cleanremote: 0 asks), and in a symmetric cluster under
 * pressure (peers3) it asked on every node at once, squeezing them all.
 * For lenders whose own work lives on page cache that reclaim cannot keep
 * up with.
 */
static unsigned int lender_reclaim_quiet_ms;
module_param(lender_reclaim_quiet_ms, uint, 0644);
MODULE_PARM_DESC(lender_reclaim_quiet_ms,
		 "a lender that direct reclaim asked for its foreign pages lends again this long after the last ask; 0: reclaim never squeezes it (default 0)");

/*
 * Fault injection, for the tests only (tests/cluster/reconcile.sh): the
 * next this many PUTs are stored and then not answered: the link is
 * closed instead, as if the PUT_REPLY were lost with it.  The owner
 * believes the PUT failed; the page here is an orphan until the owner
 * reconciles (reconcile.c).
 */
static unsigned int fault_drop_put_reply;
module_param(fault_drop_put_reply, uint, 0644);
MODULE_PARM_DESC(fault_drop_put_reply,
		 "tests only: store the next N PUTs, then close the link instead of answering (default 0)");

static struct ramster_foreign *ramster_lender_store;

/**
 * struct ramster_lender_guard - what keeps a lender from its generosity
 * @lock: the tick that holds it updates the limits (another tick skips:
 *	it would compute the same)
 * @reserve_limit: the store's limit for being under lender_reserve_percent,
 *	U64_MAX when above twice it
 * @reclaim_limit: the store's limit for direct reclaim having asked for the
 *	foreign pages, U64_MAX once lender_reclaim_quiet_ms passed
 * @asked: set by the shrinker when direct reclaim asked; the next tick
 *	takes it
 * @asked_at: jiffies of the last ask
 * @checked_at: jiffies of the last check (PUTs check between ticks)
 *
 * The store's limit is the lower of the two (see the top of the file).
 * The limits are written under @lock and read without it.  Lock order:
 * a link's services_rwsem (read: the tick, a PUT) -> @lock -> the store's lock
 * (ramster_foreign_set_limit()); the shrinkers take only the store's.
 */
struct ramster_lender_guard {
	struct mutex lock;		/* see above */
	u64 reserve_limit;
	u64 reclaim_limit;
	atomic_t asked;
	unsigned long asked_at;
	unsigned long checked_at;
};

static struct ramster_lender_guard ramster_lender_guard = {
	.lock = __MUTEX_INITIALIZER(ramster_lender_guard.lock),
	.reserve_limit = U64_MAX,
	.reclaim_limit = U64_MAX,
	.asked = ATOMIC_INIT(0),
};

/* Owners: nodes that may store here (set at attach, before any frame). */
static DECLARE_BITMAP(ramster_lender_owners, RAMSTER_MAX_NODES);
/* Nodes whose peers/<num>/ file exists (a failed start attaches again). */
static DECLARE_BITMAP(ramster_lender_debugfs, RAMSTER_MAX_NODES);

static void ramster_lender_protect(bool tick);

/*
 * The store grows only by PUTs: between ticks they check memory this
 * often, so that a lender short of it stops taking pages within this
 * much of a burst rather than a keepalive's (the cleanremote session's
 * lender went from its reserve to the OOM killer within a tick).
 */
#define RAMSTER_LENDER_PUT_CHECK	(HZ / 20)

static u32 ramster_lender_status(u8 node, const struct ramster_wire_page *page)
{
	if (!test_bit(node, ramster_lender_owners)) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_REFUSED);
		return RAMSTER_ST_REFUSED;
	}
	if (time_after(jiffies, READ_ONCE(ramster_lender_guard.checked_at) +
				RAMSTER_LENDER_PUT_CHECK))
		ramster_lender_protect(false);
	return ramster_foreign_put(ramster_lender_store, node, page);
}

/*
 * The handlers run on the owner's link thread, which must never block on
 * allocation nor close the link for want of memory (transport.h): they
 * allocate with LENDER_GFP, and answer "not now" (RAMSTER_ST_NO_MEMORY)
 * or, if even that cannot be allocated, nothing: the owner's request then
 * times out alone, and a transient it is.
 */
#define LENDER_GFP	(GFP_NOWAIT | __GFP_NOWARN)

/* Take one of the PUT replies fault_drop_put_reply asks to lose. */
static bool ramster_lender_fault_drop_reply(void)
{
	unsigned int n = READ_ONCE(fault_drop_put_reply);

	/* One link thread per owner: exactly N are dropped among them. */
	do {
		if (!n)
			return false;
	} while (!try_cmpxchg(&fault_drop_put_reply, &n, n - 1));
	return true;
}

/*
 * Store, then answer.  The answer is allocated first: a page stored
 * whose answer could not be sent would be an orphan here, kept for an
 * owner that believes it was refused.
 */
static int ramster_lender_put(void *ctx, u8 node,
			      const struct ramster_wire_hdr *hdr,
			      const void *payload)
{
	const struct ramster_wire_page *page = payload;
	struct ramster_wire_status *st;
	struct ramster_msg *msg;
	u32 status;

	msg = ramster_msg_alloc(RAMSTER_MSG_PUT_REPLY, sizeof(*st), LENDER_GFP);
	if (!msg) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_REPLIES_DROPPED);
		return 0;
	}
	status = ramster_lender_status(node, page);
	if (status == RAMSTER_ST_OK && ramster_lender_fault_drop_reply()) {
		ramster_msg_free(msg);
		pr_info("node %u: PUT stored, its reply dropped with the link (fault_drop_put_reply)\n",
			node);
		return -ECONNRESET;
	}
	st = (void *)msg->payload;
	st->key = page->key;
	st->status = cpu_to_le32(status);
	st->rsvd = 0;
	/* Not live any more: the owner's request fails with the link. */
	ramster_send_reply(node, hdr, msg);
	return 0;
}

/* A GET_REPLY for @key with room for @clen bytes of data, status OK. */
static struct ramster_msg *ramster_lender_reply(const struct ramster_wire_key *key,
						u32 clen)
{
	struct ramster_wire_page *rp;
	struct ramster_msg *msg;

	msg = ramster_msg_alloc(RAMSTER_MSG_GET_REPLY, sizeof(*rp) + clen,
				LENDER_GFP);
	if (!msg)
		return NULL;
	if (clen)
		msg->flags = RAMSTER_MSG_F_BOUNDED;
	rp = (void *)msg->payload;
	memset(rp, 0, sizeof(*rp));
	rp->key = *key;
	return msg;
}

/* A GET_REPLY without data: @status says why. */
static void ramster_lender_get_status(u8 node, const struct ramster_wire_hdr *hdr,
				      const struct ramster_wire_key *key,
				      u32 status)
{
	struct ramster_wire_page *rp;
	struct ramster_msg *msg;

	msg = ramster_lender_reply(key, 0);
	if (!msg) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_REPLIES_DROPPED);
		return;
	}
	rp = (void *)msg->payload;
	rp->status = cpu_to_le32(status);
	ramster_send_reply(node, hdr, msg);
}

/*
 * Answer with the data if the page of exactly that generation is held,
 * with RAMSTER_ST_NOT_FOUND otherwise.  The page may go between the two
 * looks (an ephemeral page is dropped at any time): the copy checks the
 * generation and length again, and a page gone is not found.  A reply
 * that cannot be allocated, or that the owner's link has no room for
 * (link_queue_kb: the owner asks faster than the link carries), is a
 * "not now" (RAMSTER_ST_NO_MEMORY), which the owner retries: so at most
 * link_queue_kb of pages wait here for one owner, whatever it asks.
 */
static int ramster_lender_get(void *ctx, u8 node,
			      const struct ramster_wire_hdr *hdr,
			      const void *payload)
{
	const struct ramster_wire_key *key = payload;
	struct ramster_wire_page *rp;
	struct ramster_msg *msg;
	u32 clen;

	ramster_stat_inc(RAMSTER_STAT_FOREIGN_GETS);
	clen = ramster_foreign_data_len(ramster_lender_store, node, key);
	if (!clen)
		goto not_found;
	msg = ramster_lender_reply(key, clen);
	if (!msg)
		goto busy;
	rp = (void *)msg->payload;
	if (ramster_foreign_get(ramster_lender_store, node, rp, clen)) {
		ramster_msg_free(msg);
		goto not_found;
	}
	if (ramster_send_reply(node, hdr, msg) == -ENOBUFS)
		goto busy;
	return 0;

not_found:
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_GETS_NOT_FOUND);
	ramster_lender_get_status(node, hdr, key, RAMSTER_ST_NOT_FOUND);
	return 0;
busy:
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_GETS_BUSY);
	ramster_lender_get_status(node, hdr, key, RAMSTER_ST_NO_MEMORY);
	return 0;
}

static int ramster_lender_invalidate(void *ctx, u8 node,
				     const struct ramster_wire_hdr *hdr,
				     const void *payload)
{
	const struct ramster_wire_invalidate *inv = payload;

	ramster_foreign_invalidate(ramster_lender_store, node,
				   (const void *)(inv + 1),
				   le32_to_cpu(inv->count));
	return 0;
}

static int ramster_lender_invalidate_area(void *ctx, u8 node,
					  const struct ramster_wire_hdr *hdr,
					  const void *payload)
{
	const struct ramster_wire_area *area = payload;
	unsigned long n;

	n = ramster_foreign_drop(ramster_lender_store, node,
				 le16_to_cpu(area->swap_type));
	ramster_stat_add(RAMSTER_STAT_FOREIGN_INVALIDATES, n);
	return 0;
}

/*
 * RECONCILE: list the owner's swap pages held here after its cursor.  The
 * keys are copied out under the store's lock (ramster_foreign_list()),
 * the reply sent after.  No memory for the reply: "busy" if that much can
 * be sent, nothing otherwise; the owner asks again later.
 */
static int ramster_lender_reconcile(void *ctx, u8 node,
				    const struct ramster_wire_hdr *hdr,
				    const void *payload)
{
	const struct ramster_wire_reconcile *rc = payload;
	u32 max = le32_to_cpu(rc->max_keys), count;
	struct ramster_wire_reconcile_reply *rr;
	struct ramster_msg *msg;
	bool end;

	msg = ramster_msg_alloc(RAMSTER_MSG_RECONCILE_REPLY,
				sizeof(*rr) + max * sizeof(struct ramster_wire_key),
				LENDER_GFP);
	if (!msg) {
		msg = ramster_msg_alloc(RAMSTER_MSG_RECONCILE_REPLY, sizeof(*rr),
					LENDER_GFP);
		if (!msg) {
			ramster_stat_inc(RAMSTER_STAT_FOREIGN_REPLIES_DROPPED);
			return 0;
		}
		rr = (void *)msg->payload;
		memset(rr, 0, sizeof(*rr));
		rr->status = cpu_to_le16(RAMSTER_ST_NO_MEMORY);
		ramster_send_reply(node, hdr, msg);
		return 0;
	}
	rr = (void *)msg->payload;
	count = ramster_foreign_list(ramster_lender_store, node, rc,
				     (void *)(rr + 1), &end);
	rr->count = cpu_to_le32(count);
	rr->flags = cpu_to_le16(end ? RAMSTER_RECONCILE_F_END : 0);
	rr->status = cpu_to_le16(RAMSTER_ST_OK);
	msg->hdr.plen = cpu_to_le32(sizeof(*rr) +
				    count * sizeof(struct ramster_wire_key));
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_RECONCILES);
	ramster_send_reply(node, hdr, msg);
	return 0;
}

static const struct ramster_handler ramster_lender_handlers[] = {
	{ RAMSTER_MSG_PUT, RAMSTER_WIRE_RULE_PUT, ramster_lender_put },
	{ RAMSTER_MSG_GET, RAMSTER_WIRE_RULE_GET, ramster_lender_get },
	{ RAMSTER_MSG_INVALIDATE, RAMSTER_WIRE_RULE_INVALIDATE,
	  ramster_lender_invalidate },
	{ RAMSTER_MSG_INVALIDATE_AREA, RAMSTER_WIRE_RULE_INVALIDATE_AREA,
	  ramster_lender_invalidate_area },
	{ RAMSTER_MSG_RECONCILE, RAMSTER_WIRE_RULE_RECONCILE,
	  ramster_lender_reconcile },
};

/*********************************
 * link events
 *********************************/
static int ramster_lender_held_show(struct seq_file *m, void *v)
{
	u8 node = (uintptr_t)m->private;

	seq_printf(m, "%llu\n",
		   ramster_foreign_held_for(ramster_lender_store, node));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_lender_held);

static void ramster_lender_attach(void *ctx,
				  const struct ramster_node_info *local,
				  const struct ramster_node_info *peer)
{
	if (ramster_role_holds(local->role) && ramster_role_sends(peer->role))
		set_bit(peer->num, ramster_lender_owners);
	if (test_and_set_bit(peer->num, ramster_lender_debugfs))
		return;
	debugfs_create_file("pages_held_for_it", 0444,
			    ramster_stats_peer_dir(peer->num),
			    (void *)(uintptr_t)peer->num,
			    &ramster_lender_held_fops);
}

/* The owner forgot what it stored here: nobody will ask for it. */
static void ramster_lender_restarted(void *ctx, u8 node)
{
	unsigned long n;

	n = ramster_foreign_drop(ramster_lender_store, node,
				 RAMSTER_FOREIGN_ALL_TYPES);
	ramster_stat_add(RAMSTER_STAT_FOREIGN_DROPPED, n);
	if (n)
		pr_info("dropped %lu pages held for the previous instance of node %u\n",
			n, node);
}

/* If we hold more of its pages than we want to, ask for some back. */
static void ramster_lender_send_recall(u8 node)
{
	u64 keep = ramster_foreign_recall_keep(ramster_lender_store, node,
					       READ_ONCE(foreign_high_percent),
					       READ_ONCE(foreign_low_percent));
	u64 held = ramster_foreign_held_for(ramster_lender_store, node);
	struct ramster_wire_area *area;
	struct ramster_msg *msg;

	if (keep == U64_MAX || held <= keep)
		return;
	msg = ramster_msg_alloc(RAMSTER_MSG_RECALL, sizeof(*area),
				GFP_KERNEL | __GFP_NOWARN);
	if (!msg)
		return;
	area = (void *)msg->payload;
	memset(area, 0, sizeof(*area));
	area->pages = cpu_to_le64(keep);
	if (!ramster_send(node, msg, NULL)) {
		ramster_stat_inc(RAMSTER_STAT_RECALLS_SENT);
		pr_info_ratelimited("node %u: asking it to take back %llu of its %llu pages here\n",
				    node, held - keep, held);
	}
}

/* The capacity configured (ramster_lender_set_capacity()), in pages. */
static u64 ramster_lender_capacity;

/*
 * A squeezed lender still lends this much (see the top of the file):
 * half the reserve, but at most a quarter of the capacity, so that the
 * floor never stands in for the capacity and turns protection off.
 */
static u64 ramster_lender_floor(void)
{
	return min_t(u64, mult_frac(totalram_pages(),
				    READ_ONCE(lender_reserve_percent), 100) / 2,
		     READ_ONCE(ramster_lender_capacity) / 4);
}

static bool ramster_lender_squeezed(void)
{
	return READ_ONCE(ramster_lender_guard.reserve_limit) != U64_MAX ||
	       READ_ONCE(ramster_lender_guard.reclaim_limit) != U64_MAX;
}

/*
 * Direct reclaim asked for the foreign pages since the last tick: a
 * quarter of what is held goes.  Quiet for lender_reclaim_quiet_ms: the
 * limit is lifted.
 */
static void ramster_lender_reclaim_check(struct ramster_lender_guard *g)
{
	unsigned int quiet = READ_ONCE(lender_reclaim_quiet_ms);
	u64 total, limit;

	if (atomic_xchg(&g->asked, 0) && quiet) {
		total = ramster_foreign_total(ramster_lender_store);
		limit = min(g->reclaim_limit,
			    total - DIV_ROUND_UP_ULL(total, 4));
		/* Never grows here: direct reclaim is deep already. */
		limit = max(limit, min(ramster_lender_floor(), total));
		if (g->reclaim_limit == U64_MAX)
			pr_info("direct reclaim asks for the foreign pages: refusing PUTs, recalling (%llu held)\n",
				total);
		WRITE_ONCE(g->reclaim_limit, limit);
		ramster_stat_inc(RAMSTER_STAT_LENDER_RECLAIM_ASKS);
		return;
	}
	if (g->reclaim_limit != U64_MAX &&
	    (!quiet || time_after(jiffies, READ_ONCE(g->asked_at) +
					   msecs_to_jiffies(quiet))))
		WRITE_ONCE(g->reclaim_limit, U64_MAX);
}

/*
 * Free pages an ordinary allocation will not get: the high-order atomic
 * reserve (nr_reserved_highatomic is the size of the reserved
 * pageblocks, used or not) and the watermark boost, which the
 * allocator's watermarks include, at most the zone's free pages.
 * si_mem_available() counts the first as available and the second only
 * in part (through the low watermark, when the page cache is small).  On
 * a small guest both are large and lasting: in the cleanremote session
 * node 1 (64 MiB, 50 managed) ran with 8 MiB reserved for atomic
 * allocations (virtio-net's order-3 receive buffers) and a 4 MiB boost,
 * and was OOM-killed with MemAvailable at 11 MiB, above twice
 * lender_reserve_percent.  A boost kswapd clears soon is counted while
 * it lasts: the lender holds or recalls a little early.
 */
static unsigned long ramster_lender_unavailable_free(void)
{
	unsigned long n = 0, free;
	struct zone *zone;
	int nid, i;

	for_each_online_node(nid) {
		for (i = 0; i < MAX_NR_ZONES; i++) {
			zone = &NODE_DATA(nid)->node_zones[i];
			if (!populated_zone(zone))
				continue;
			free = zone_page_state(zone, NR_FREE_PAGES);
			n += min(READ_ONCE(zone->nr_reserved_highatomic) +
				 READ_ONCE(zone->watermark_boost), free);
		}
	}
	return n;
}

/* Below lender_reserve_percent of available memory (see the top). */
static void ramster_lender_reserve_check(struct ramster_lender_guard *g)
{
	unsigned long reserve = mult_frac(totalram_pages(),
					  READ_ONCE(lender_reserve_percent), 100);
	long avail = si_mem_available() -
		     (long)ramster_lender_unavailable_free();
	u64 total, bytes, short_pages, per_page, limit, want;

	if (!reserve || avail > 2 * (long)reserve) {
		WRITE_ONCE(g->reserve_limit, U64_MAX);
		return;
	}
	if (avail >= (long)reserve)
		return;		/* between the marks: as it was */

	/*
	 * Short of the upper mark, not of the reserve: a lender squeezed
	 * only back to its reserve was lifted at once by the page cache its
	 * own workload freed, refilled, and squeezed again (cleanremote:
	 * five squeezes, then the OOM killer).
	 */
	want = 2 * (u64)reserve - max(avail, 0L);
	/* What costs an owner a disk read goes before what costs a recall. */
	short_pages = want * 2;
	if (ramster_foreign_shrink(ramster_lender_store, short_pages) >=
	    short_pages)
		return;
	total = ramster_foreign_total(ramster_lender_store);
	bytes = ramster_foreign_pool_bytes(ramster_lender_store);
	per_page = total ? max_t(u64, div64_u64(bytes, total), 64) : PAGE_SIZE;
	short_pages = div64_u64(want * PAGE_SIZE, per_page);
	limit = total > short_pages ? total - short_pages : 0;
	/*
	 * The floor: every short node of a cluster can still place pages
	 * (peers3: without it, none did).  It is bounded (half the reserve,
	 * a quarter of the capacity): what a lender keeps of its generosity
	 * when short, never more.
	 */
	limit = max(limit, ramster_lender_floor());
	if (g->reserve_limit == U64_MAX && total)
		pr_info("available memory under lender_reserve_percent: recalling foreign pages (%llu held)\n",
			total);
	WRITE_ONCE(g->reserve_limit, min(g->reserve_limit, limit));
}

/*
 * Protect this node from its own generosity (see the top of the file).
 * Every owner's tick calls it, and PUTs between ticks (above: the
 * reserve only); one at a time does the work.  A shrinker
 * that lowers the store's limit between the two checks and the limit set
 * here is undone for a tick at most: its ask is still flagged.
 */
static void ramster_lender_protect(bool tick)
{
	struct ramster_lender_guard *g = &ramster_lender_guard;
	bool was;
	u64 limit;

	/* A node nobody may store on lends nothing: nothing to protect. */
	if (bitmap_empty(ramster_lender_owners, RAMSTER_MAX_NODES) ||
	    !mutex_trylock(&g->lock))
		return;
	WRITE_ONCE(g->checked_at, jiffies);
	was = ramster_lender_squeezed();
	/* Direct reclaim's asks are taken once per tick (see the top). */
	if (tick)
		ramster_lender_reclaim_check(g);
	ramster_lender_reserve_check(g);
	limit = min(g->reserve_limit, g->reclaim_limit);
	ramster_foreign_set_limit(ramster_lender_store, limit);
	if (limit != U64_MAX && !was &&
	    ramster_foreign_total(ramster_lender_store))
		ramster_stat_inc(RAMSTER_STAT_LENDER_SQUEEZES);
	else if (limit == U64_MAX && was)
		pr_info("memory available again: lending resumes\n");
	mutex_unlock(&g->lock);
}

/* The room offered to @node: when squeezed, its share of what is left. */
static u64 ramster_lender_room(u8 node)
{
	unsigned int high = READ_ONCE(foreign_high_percent);
	unsigned int low = READ_ONCE(foreign_low_percent);

	if (!ramster_lender_squeezed())
		return ramster_foreign_room(ramster_lender_store, high, low);
	return ramster_foreign_owner_room(ramster_lender_store, node, high, low,
					  bitmap_weight(ramster_lender_owners,
							RAMSTER_MAX_NODES));
}

/* The keepalive says what we would still take from it and what we hold. */
static void ramster_lender_tick(void *ctx, u8 node,
				struct ramster_wire_keepalive *ka)
{
	bool owner = test_bit(node, ramster_lender_owners);

	ramster_lender_protect(true);
	ka->free_pages = cpu_to_le64(owner ? ramster_lender_room(node) : 0);
	ka->held_pages = cpu_to_le64(ramster_foreign_held_for(ramster_lender_store,
							      node));
	if (owner)
		ramster_lender_send_recall(node);
}

static const struct ramster_link_events ramster_lender_events = {
	.attach = ramster_lender_attach,
	.restarted = ramster_lender_restarted,
	.tick = ramster_lender_tick,
};

static struct ramster_service ramster_lender_service = {
	.name = "lender",
	.handlers = ramster_lender_handlers,
	.nr_handlers = ARRAY_SIZE(ramster_lender_handlers),
	.events = &ramster_lender_events,
};

/*********************************
 * what the rest of the module asks
 *********************************/
void ramster_lender_set_capacity(u64 pages)
{
	WRITE_ONCE(ramster_lender_capacity, pages);
	ramster_foreign_set_capacity(ramster_lender_store, pages);
}

/* Leaving: refuse PUTs, offer no room, recall every page held here. */
void ramster_lender_set_leaving(bool leaving)
{
	ramster_foreign_set_closed(ramster_lender_store, leaving);
}

u64 ramster_lender_total_pages(void)
{
	return ramster_foreign_total(ramster_lender_store);
}

u64 ramster_lender_pool_bytes(void)
{
	return ramster_foreign_pool_bytes(ramster_lender_store);
}

static unsigned long ramster_lender_count(struct shrinker *shrinker,
					  struct shrink_control *sc)
{
	return ramster_foreign_ephemeral(ramster_lender_store);
}

static unsigned long ramster_lender_scan(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	return ramster_foreign_shrink(ramster_lender_store, sc->nr_to_scan) ?:
	       SHRINK_STOP;
}

/* Ephemeral pages given back under this node's own memory pressure. */
static struct shrinker ramster_lender_shrinker = {
	.count_objects = ramster_lender_count,
	.scan_objects = ramster_lender_scan,
	.seeks = DEFAULT_SEEKS,
};

/*
 * Reclaim by a task for its own allocation (see the top of the file).
 * Also true of proactive reclaim (memory.reclaim), hibernation's
 * shrink_all_memory() and node reclaim: they too mean memory is wanted.
 */
static bool ramster_lender_direct_reclaim(void)
{
	return (current->flags & (PF_MEMALLOC | PF_KSWAPD)) == PF_MEMALLOC;
}

static unsigned long ramster_lender_pressure_count(struct shrinker *shrinker,
						   struct shrink_control *sc)
{
	u64 total = ramster_foreign_total(ramster_lender_store);

	/* At or under the floor there is nothing the owners should take. */
	if (!READ_ONCE(lender_reclaim_quiet_ms) ||
	    !ramster_lender_direct_reclaim() ||
	    total <= ramster_lender_floor())
		return 0;
	return total;
}

/*
 * Asked for every foreign swap page at once: ephemeral pages first; what
 * they do not cover only the owners can free.  Any reclaim context: no
 * frame is sent, nothing allocated; the tick does the rest.
 */
static unsigned long ramster_lender_pressure_scan(struct shrinker *shrinker,
						  struct shrink_control *sc)
{
	struct ramster_lender_guard *g = &ramster_lender_guard;
	unsigned long dropped;

	if (!READ_ONCE(lender_reclaim_quiet_ms))
		return SHRINK_STOP;
	dropped = ramster_foreign_shrink(ramster_lender_store, sc->nr_to_scan);
	if (dropped >= sc->nr_to_scan)
		return dropped;
	/* Frozen at what is held: the store never grows under reclaim. */
	ramster_foreign_lower_limit(ramster_lender_store,
				    ramster_foreign_total(ramster_lender_store));
	WRITE_ONCE(g->asked_at, jiffies);
	atomic_set(&g->asked, 1);
	return dropped ?: SHRINK_STOP;
}

/*
 * Direct reclaim's ask for the foreign swap pages.  With no batch to
 * reach, the VM calls scan_objects only when it asks for at least all
 * the objects counted (do_shrink_slab()).
 */
static struct shrinker ramster_lender_pressure_shrinker = {
	.count_objects = ramster_lender_pressure_count,
	.scan_objects = ramster_lender_pressure_scan,
	.seeks = DEFAULT_SEEKS,
	.batch = LONG_MAX,
};

int ramster_lender_init(void)
{
	int ret;

	ramster_lender_store = ramster_foreign_create(RAMSTER_NAME "_foreign");
	if (!ramster_lender_store)
		return -ENOMEM;
	ret = register_shrinker(&ramster_lender_shrinker, "ramster-foreign");
	if (ret)
		goto err_destroy;
	ret = register_shrinker(&ramster_lender_pressure_shrinker,
				"ramster-lender-pressure");
	if (ret)
		goto err_unregister_shrinker;
	ret = ramster_transport_register(&ramster_lender_service);
	if (ret)
		goto err_unregister_pressure;
	return 0;

err_unregister_pressure:
	unregister_shrinker(&ramster_lender_pressure_shrinker);
err_unregister_shrinker:
	unregister_shrinker(&ramster_lender_shrinker);
err_destroy:
	ramster_foreign_destroy(ramster_lender_store);
	ramster_lender_store = NULL;
	return ret;
}

/*
 * Module exit: every swap page pins the module, so none is left;
 * ephemeral pages do not, and go with the store.
 */
void ramster_lender_exit(void)
{
	ramster_transport_unregister(&ramster_lender_service);
	unregister_shrinker(&ramster_lender_pressure_shrinker);
	unregister_shrinker(&ramster_lender_shrinker);
	WARN_ON_ONCE(ramster_foreign_total(ramster_lender_store));
	ramster_foreign_destroy(ramster_lender_store);
	ramster_lender_store = NULL;
}
