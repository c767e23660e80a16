// SPDX-License-Identifier: GPL-2.0
/*
 * holders.c - the owner's view of the nodes that hold its pages, and
 * where the next page goes
 *
 * A transport service (transport.h).  For each node that may hold our
 * pages (our role sends, its role holds: attach tells), it keeps:
 *  - whether the link is live (up and down events, sent as the link's
 *    state changes);
 *  - the room it offers us: its last KEEPALIVE, less the PUTs we sent
 *    since (reset to 0 when the link comes up, until it says);
 *  - how many of our pages it says it holds (the same KEEPALIVE);
 *  - how many of our pages we believe it holds (the remote tier counts);
 *  - the smoothed round trip of our requests to it.
 * Placement: the next page goes to the live holder with the most room.
 * While the node leaves the cluster (lifecycle.c) placement is paused.
 *
 * Locking: ramster_holders_lock (a spinlock) protects the room and the
 * round trip of every holder; the rest is read and written whole
 * (READ_ONCE / WRITE_ONCE, atomics).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "ramster.h"
#include "cluster.h"
#include "holders.h"
#include "stats.h"
#include "transport.h"

/**
 * struct ramster_holder - what an owner knows of one node that holds its
 * pages
 * @holds: it may hold our pages (we have a link, our role sends, its
 *	role holds)
 * @live: its link is up
 * @room: pages it last said it would take, less the PUTs sent since
 * @held_for_us: pages of ours it last said it holds
 * @held_there: pages of ours we believe it holds
 * @gap: @held_for_us less @held_there at its last keepalive
 * @settled: the @gap a complete reconciliation left (copies it could not
 *           forget: the last of a page), no reason for another; 0 once
 *           the counts agree
 * @differ: keepalives in a row with the same @gap, neither 0 nor @settled
 * @rtt_us: smoothed round trip of requests, in microseconds
 * @gets_answered: GETs it answered (whatever the answer): which holder
 *	the loads are reading from
 * @epoch: times its link came up
 * @forgetting: it lost our pages (restarted, presumed dead) and the
 *	copies it had are being forgotten: no new copy goes there until
 *	that is done, or it would be forgotten too
 * @down_since: jiffies when its link went down (or we attached to it)
 * @debugfs: its files in peers/<num>/ exist (a failed start attaches again)
 */
struct ramster_holder {
	bool holds;
	bool debugfs;
	bool live;
	bool forgetting;
	s64 room;
	u64 held_for_us;
	atomic64_t held_there;
	s64 gap;
	s64 settled;
	unsigned int differ;
	u64 rtt_us;
	u64 gets_answered;
	unsigned long epoch;
	unsigned long down_since;
};

static DEFINE_SPINLOCK(ramster_holders_lock);	/* see the file comment */
static struct ramster_holder ramster_holders[RAMSTER_MAX_NODES];
static bool ramster_holders_sends;	/* our role sends pages away */
static bool ramster_holders_paused;
/* Loads waiting for a holder's link to come back (ramster_holders_up()). */
static DECLARE_WAIT_QUEUE_HEAD(ramster_holders_wait);

/*********************************
 * placement
 *********************************/
/* Leaving the cluster: no page goes away until this is undone. */
void ramster_holders_pause(bool paused)
{
	WRITE_ONCE(ramster_holders_paused, paused);
}

/* May this node put its pages on others at all? */
bool ramster_holders_may_remotify(void)
{
	return ramster_transport_running() && READ_ONCE(ramster_holders_sends) &&
	       !READ_ONCE(ramster_holders_paused);
}

/* May @node hold our pages (and so have some to give back)? */
bool ramster_holders_is_holder(u8 node)
{
	return READ_ONCE(ramster_holders[node].holds);
}

/**
 * ramster_holders_pick - choose where the next copy of a page goes
 * @node: the chosen node
 * @exclude: nodes that already hold (or are about to hold) a copy of
 *	the page, RAMSTER_NO_NODE in unused slots
 * @allowed: NULL, or a bitmap of RAMSTER_MAX_NODES bits: only those
 *	nodes may be chosen (those that can take the page's kind)
 *
 * The live holder not in @exclude that last advertised the most free
 * room, less what we sent it since; one page of that room is reserved
 * (ramster_holders_unpick() gives it back).  Replicas of a page thus go
 * to distinct nodes.
 *
 * Return: 0, or -ENOSPC if no such holder has room.
 */
int ramster_holders_pick(u8 *node, const u8 exclude[RAMSTER_MAX_HOLDERS],
			 const unsigned long *allowed)
{
	struct ramster_holder *h;
	s64 best_room = 0;
	int i, j, best = -1;

	spin_lock(&ramster_holders_lock);
	for (i = 0; i < RAMSTER_MAX_NODES; i++) {
		h = &ramster_holders[i];
		if (!h->holds || !READ_ONCE(h->live) ||
		    READ_ONCE(h->forgetting) || h->room <= best_room ||
		    (allowed && !test_bit(i, allowed)))
			continue;
		for (j = 0; j < RAMSTER_MAX_HOLDERS; j++)
			if (exclude[j] == i)
				break;
		if (j < RAMSTER_MAX_HOLDERS)
			continue;
		best = i;
		best_room = h->room;
	}
	if (best >= 0)
		ramster_holders[best].room--;
	spin_unlock(&ramster_holders_lock);
	if (best < 0)
		return -ENOSPC;
	*node = best;
	return 0;
}

/* While a lost holder's copies are forgotten, no copy goes there. */
void ramster_holders_set_forgetting(u8 node, bool forgetting)
{
	WRITE_ONCE(ramster_holders[node].forgetting, forgetting);
}

/* A picked node got no PUT after all: its page of room is back. */
void ramster_holders_unpick(u8 node)
{
	spin_lock(&ramster_holders_lock);
	ramster_holders[node].room++;
	spin_unlock(&ramster_holders_lock);
}

/* How many nodes may hold our pages, live or not. */
unsigned int ramster_holders_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < RAMSTER_MAX_NODES; i++)
		n += READ_ONCE(ramster_holders[i].holds);
	return n;
}

/*
 * A request sent at @sent was answered (@get: a GET): EWMA of 1/8, as
 * TCP's srtt.
 */
void ramster_holders_note_rtt(u8 node, ktime_t sent, bool get)
{
	struct ramster_holder *h = &ramster_holders[node];
	u64 us = ktime_us_delta(ktime_get(), sent);

	spin_lock(&ramster_holders_lock);
	h->rtt_us = h->rtt_us ? h->rtt_us - (h->rtt_us >> 3) + (us >> 3) : us;
	h->gets_answered += get;
	spin_unlock(&ramster_holders_lock);
}

void ramster_holders_held_there(u8 node, long delta)
{
	atomic64_add(delta, &ramster_holders[node].held_there);
}

/* Our pages @node holds, as far as we know. */
u64 ramster_holders_held_there_count(u8 node)
{
	s64 n = atomic64_read(&ramster_holders[node].held_there);

	return n > 0 ? n : 0;
}

/* What @node said in its last keepalive it holds for us. */
u64 ramster_holders_held_for_us(u8 node)
{
	return READ_ONCE(ramster_holders[node].held_for_us);
}

/*
 * Has @node said in three keepalives in a row that it holds the same
 * other count of our pages than we believe?  Then reconcile.c asks it
 * which.
 */
bool ramster_holders_counts_differ(u8 node)
{
	struct ramster_holder *h = &ramster_holders[node];

	return READ_ONCE(h->holds) && READ_ONCE(h->live) &&
	       READ_ONCE(h->differ) >= 2;
}

/*
 * A reconciliation with @node ran to its end: the gap its keepalives show
 * now is what it could not repair, not a reason to ask again.
 */
void ramster_holders_counts_settled(u8 node)
{
	struct ramster_holder *h = &ramster_holders[node];

	WRITE_ONCE(h->settled, READ_ONCE(h->gap));
	WRITE_ONCE(h->differ, 0);
}

/* How many times @node's link came up: a load's view before it asks. */
unsigned long ramster_holders_epoch(u8 node)
{
	if (node >= RAMSTER_MAX_NODES)
		return 0;
	return READ_ONCE(ramster_holders[node].epoch);
}

/**
 * ramster_holders_wait_live - wait for a holder's link to come back
 * @node: the holder
 * @epoch: ramster_holders_epoch() before the request that found the
 *	link down
 * @wait_ms: how long after the link went down a load may wait
 *
 * A link that is down is a transient until it has been down @wait_ms:
 * then loads of its pages fail at once instead of each waiting again.
 * The wait ends early for a fatal signal.
 *
 * Return: true if the link came up again since @epoch: ask again.
 */
bool ramster_holders_wait_live(u8 node, unsigned long epoch,
			       unsigned int wait_ms)
{
	struct ramster_holder *h;
	unsigned long deadline;
	long left;

	if (node >= RAMSTER_MAX_NODES || !READ_ONCE(ramster_holders[node].holds))
		return false;
	h = &ramster_holders[node];
	/* A down not announced yet counts from now. */
	deadline = (READ_ONCE(h->live) ? jiffies : READ_ONCE(h->down_since)) +
		   msecs_to_jiffies(wait_ms);
	left = time_after(deadline, jiffies) ? deadline - jiffies : 0;
	left = wait_event_killable_timeout(ramster_holders_wait,
					   READ_ONCE(h->epoch) != epoch &&
					   READ_ONCE(h->live), left);
	return left > 0 || (READ_ONCE(h->epoch) != epoch && READ_ONCE(h->live));
}

/* How long @node's link has been down, in ms; 0 while it is live. */
unsigned int ramster_holders_down_ms(u8 node)
{
	struct ramster_holder *h;

	if (node >= RAMSTER_MAX_NODES)
		return 0;
	h = &ramster_holders[node];
	if (!READ_ONCE(h->holds) || READ_ONCE(h->live))
		return 0;
	return jiffies_to_msecs(jiffies - READ_ONCE(h->down_since));
}

/* Set the bit of every holder whose link is live. */
void ramster_holders_live(unsigned long *nodes)
{
	int i;

	bitmap_zero(nodes, RAMSTER_MAX_NODES);
	for (i = 0; i < RAMSTER_MAX_NODES; i++)
		if (READ_ONCE(ramster_holders[i].holds) &&
		    READ_ONCE(ramster_holders[i].live))
			__set_bit(i, nodes);
}

/*********************************
 * the service
 *********************************/
static int ramster_holders_keepalive(void *ctx, u8 node,
				     const struct ramster_wire_hdr *hdr,
				     const void *payload)
{
	const struct ramster_wire_keepalive *ka = payload;
	struct ramster_holder *h = &ramster_holders[node];
	s64 gap;

	spin_lock(&ramster_holders_lock);
	h->room = min_t(u64, le64_to_cpu(ka->free_pages), S64_MAX);
	h->held_for_us = le64_to_cpu(ka->held_pages);
	spin_unlock(&ramster_holders_lock);
	/*
	 * PUTs and INVALIDATEs in flight make a passing difference, one
	 * that changes from one keepalive to the next under steady
	 * traffic; orphans and lost copies make one that stays.  Only
	 * this receive thread writes @gap and @differ (and @settled back
	 * to 0).
	 */
	gap = min_t(u64, le64_to_cpu(ka->held_pages), S64_MAX) -
	      (s64)ramster_holders_held_there_count(node);
	if (!gap)
		WRITE_ONCE(h->settled, 0);
	if (gap && gap == h->gap && gap != READ_ONCE(h->settled))
		WRITE_ONCE(h->differ, min(h->differ + 1, 2U));
	else
		WRITE_ONCE(h->differ, 0);
	WRITE_ONCE(h->gap, gap);
	return 0;
}

static const struct ramster_handler ramster_holders_handlers[] = {
	{ RAMSTER_MSG_KEEPALIVE, RAMSTER_WIRE_RULE_KEEPALIVE,
	  ramster_holders_keepalive },
};

static int ramster_holder_held_there_show(struct seq_file *m, void *v)
{
	struct ramster_holder *h = m->private;

	seq_printf(m, "%lld\n", (long long)atomic64_read(&h->held_there));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_holder_held_there);

/* Pages it offers to take from us (its last keepalive, less our PUTs). */
static int ramster_holder_room_show(struct seq_file *m, void *v)
{
	struct ramster_holder *h = m->private;

	seq_printf(m, "%lld\n", max_t(s64, READ_ONCE(h->room), 0));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_holder_room);

static void ramster_holders_attach(void *ctx,
				   const struct ramster_node_info *local,
				   const struct ramster_node_info *peer)
{
	bool holds = ramster_role_sends(local->role) &&
		     ramster_role_holds(peer->role);
	struct ramster_holder *h = &ramster_holders[peer->num];
	struct dentry *dir = ramster_stats_peer_dir(peer->num);

	WRITE_ONCE(ramster_holders_sends, ramster_role_sends(local->role));
	WRITE_ONCE(h->down_since, jiffies);
	WRITE_ONCE(h->holds, holds);
	if (h->debugfs)
		return;
	h->debugfs = true;
	debugfs_create_file("pages_held_there", 0444, dir, h,
			    &ramster_holder_held_there_fops);
	debugfs_create_file("room", 0444, dir, h, &ramster_holder_room_fops);
	debugfs_create_u64("rtt_us", 0444, dir, &h->rtt_us);
	debugfs_create_u64("gets_answered", 0444, dir, &h->gets_answered);
}

static void ramster_holders_up(void *ctx, u8 node)
{
	struct ramster_holder *h = &ramster_holders[node];

	spin_lock(&ramster_holders_lock);
	h->room = 0;	/* until its first keepalive */
	spin_unlock(&ramster_holders_lock);
	WRITE_ONCE(h->epoch, h->epoch + 1);
	WRITE_ONCE(h->live, true);
	wake_up_all(&ramster_holders_wait);
}

static void ramster_holders_down(void *ctx, u8 node)
{
	struct ramster_holder *h = &ramster_holders[node];

	WRITE_ONCE(h->down_since, jiffies);
	WRITE_ONCE(h->live, false);
}

static void ramster_holders_restarted(void *ctx, u8 node)
{
	if (ramster_holders_is_holder(node))
		pr_warn("node %u restarted: the copies of ours it held are gone; pages with another copy get a new replica, the others fail when loaded\n",
			node);
}

static const struct ramster_link_events ramster_holders_events = {
	.attach = ramster_holders_attach,
	.up = ramster_holders_up,
	.down = ramster_holders_down,
	.restarted = ramster_holders_restarted,
};

static struct ramster_service ramster_holders_service = {
	.name = "holders",
	.handlers = ramster_holders_handlers,
	.nr_handlers = ARRAY_SIZE(ramster_holders_handlers),
	.events = &ramster_holders_events,
};

/* Every holder, one line each. */
static int ramster_holders_show(struct seq_file *m, void *v)
{
	int i;

	seq_puts(m, "node live held_there held_for_us  room  rtt_us\n");
	for (i = 0; i < RAMSTER_MAX_NODES; i++) {
		struct ramster_holder *h = &ramster_holders[i];

		if (!READ_ONCE(h->holds))
			continue;
		seq_printf(m, "%-4u %-4s %10lld %11llu %5lld %7llu\n", i,
			   READ_ONCE(h->live) ? "yes" : "no",
			   (long long)atomic64_read(&h->held_there),
			   READ_ONCE(h->held_for_us),
			   (long long)max_t(s64, READ_ONCE(h->room), 0),
			   READ_ONCE(h->rtt_us));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramster_holders);

int ramster_holders_init(void)
{
	debugfs_create_file("holders", 0444, ramster_stats_debugfs_root(), NULL,
			    &ramster_holders_fops);
	return ramster_transport_register(&ramster_holders_service);
}

void ramster_holders_exit(void)
{
	ramster_transport_unregister(&ramster_holders_service);
}
