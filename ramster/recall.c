// SPDX-License-Identifier: GPL-2.0
/*
 * recall.c - giving borrowed memory back: recalls, leaving, draining
 *
 * Recall, the owner's side.  A holder that holds more of our pages than it
 * wants to (past its high mark, or leaving: foreign.c) sends RECALL with
 * the number of them it may keep, every keepalive until that is met.  The
 * link thread only records the target and queues the recall work, which
 * fetches pages held there back into the local pool (up to the pool's
 * limit, not only up to the remotification mark) until the holder has no
 * more than the target.  When the pool is full, the work makes room by
 * bringing pages back into their processes with frontswap_shrink(), as
 * far as memory allows (suction.c's mark).  When neither is possible the
 * recall is unmet: counted, logged, and tried again at the holder's next
 * request.  The remotification thread may later send those pages to a
 * node with room, never back to the one that recalled them: it
 * advertises none.
 *
 * Leaving, the administrator's request (debugfs "leave").  The node takes
 * no more pages from others (PUTs are refused and it advertises no room),
 * recalls every page it holds from their owners, stops sending its own
 * pages away and takes those home.  The write returns once nothing is
 * held either way, or fails after leave_timeout_ms; progress is logged.
 * Writing 0 rejoins.
 *
 * Draining, before rmmod (debugfs "drain").  The node leaves, stores are
 * refused from then on (their pages go to the swap device), and
 * frontswap_shrink() brings every page back into its process, batch by
 * batch while memory allows.  Then no page pins the module, and once the
 * configfs nodes are removed rmmod succeeds.  An rmmod before that fails
 * (the module is in use) and loses nothing.  Writing 0 resumes.
 *
 * Locking: ramster_recall_lock (a spinlock) protects the recall targets;
 * ramster_lifecycle_mutex serialises the leave and drain knobs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/frontswap.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ramster.h"
#include "cluster.h"
#include "foreign.h"
#include "index.h"
#include "recall.h"
#include "remote.h"
#include "shrink.h"
#include "stats.h"
#include "suction.h"
#include "transport.h"

static unsigned int leave_timeout_ms = 60000;
module_param(leave_timeout_ms, uint, 0644);
MODULE_PARM_DESC(leave_timeout_ms,
		 "how long leaving (and draining) waits for pages to go home (default 60000)");

#define RAMSTER_RECALL_BATCH	1024	/* pages fetched between checks */
#define RAMSTER_DRAIN_BATCH	4096	/* pages per frontswap_shrink() */

static DEFINE_SPINLOCK(ramster_recall_lock);	/* see the file comment */
static bool ramster_recall_stopping;
static u64 ramster_recall_keep_there[RAMSTER_MAX_NODES];
static DECLARE_BITMAP(ramster_recall_pending, RAMSTER_MAX_NODES);
static void ramster_recall_work_fn(struct work_struct *work);
static DECLARE_WORK(ramster_recall_work, ramster_recall_work_fn);

static DEFINE_MUTEX(ramster_lifecycle_mutex);	/* see the file comment */
static bool ramster_leaving;
static bool ramster_draining;

/* Does this node refuse other nodes' pages and keep its own at home? */
bool ramster_recall_leaving(void)
{
	return READ_ONCE(ramster_leaving);
}

/* Does it refuse new stores (draining before rmmod)? */
bool ramster_recall_draining(void)
{
	return READ_ONCE(ramster_draining);
}

/*********************************
 * taking pages back
 *********************************/
/* Our pages @holder holds (RAMSTER_NO_NODE: all holders together). */
static u64 ramster_pages_out(u8 holder)
{
	if (holder == RAMSTER_NO_NODE)
		return ramster_stat_read(RAMSTER_STAT_REMOTE_PAGES);
	return ramster_transport_held_there_count(holder);
}

/*
 * Bring our pages home until @holder holds at most @keep of them: into
 * the local pool, and when it is full, making room there by bringing
 * pages into their processes while memory allows.
 *
 * Return: how many more than @keep are still there.
 */
static u64 ramster_take_back(u8 holder, u64 keep)
{
	unsigned long fetched, room;
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
		if (!room || !ramster_shrink_by(min_t(u64, room, out - keep),
						"recall"))
			break;
	}
	out = ramster_pages_out(holder);
	return out > keep ? out - keep : 0;
}

/**
 * ramster_recall_request - a holder asks us to take pages back
 * @holder: the node that sent RECALL
 * @keep: how many of our pages it may keep
 *
 * Called from @holder's link thread: only records the target.
 */
void ramster_recall_request(u8 holder, u64 keep)
{
	spin_lock(&ramster_recall_lock);
	ramster_recall_keep_there[holder] = keep;
	__set_bit(holder, ramster_recall_pending);
	if (!ramster_recall_stopping)
		queue_work(system_unbound_wq, &ramster_recall_work);
	spin_unlock(&ramster_recall_lock);
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
		unmet = ramster_take_back(node, keep);
		pr_info_ratelimited("recall: node %u held %llu pages of ours, asked to keep %llu: %llu taken back\n",
				    node, before, keep,
				    before - min(before, ramster_pages_out(node)));
		if (unmet) {
			ramster_stat_inc(RAMSTER_STAT_RECALL_UNMET);
			pr_warn_ratelimited("recall: node %u: %llu pages cannot come home now (the local pool is full and memory is short)\n",
					    node, unmet);
		}
	}
}

/*********************************
 * leaving and draining
 *********************************/
/* Leave: wait until nothing is held either way.  The mutex is held. */
static int ramster_leave(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(leave_timeout_ms);
	unsigned long next_log = jiffies;
	u64 foreign, out;

	if (!ramster_leaving) {
		WRITE_ONCE(ramster_leaving, true);
		pr_info("leaving the cluster: refusing other nodes' pages, recalling those held here, taking ours home\n");
	}
	for (;;) {
		out = ramster_take_back(RAMSTER_NO_NODE, 0);
		foreign = ramster_foreign_total_pages();
		if (!out && !foreign)
			break;
		if (ramster_should_stop())
			return -EINTR;
		if (time_after(jiffies, deadline)) {
			pr_err("leave: timed out after %u ms: %llu pages still held for other nodes, %llu of ours still on other nodes\n",
			       leave_timeout_ms, foreign, out);
			return -ETIMEDOUT;
		}
		if (time_after_eq(jiffies, next_log)) {
			pr_info("leave: %llu pages held for other nodes, %llu of ours on other nodes\n",
				foreign, out);
			next_log = jiffies + 5 * HZ;
		}
		msleep(200);
	}
	pr_info("left the cluster: no page held for other nodes, none of ours on them\n");
	return 0;
}

/* Drain: leave, then every page back into its process.  Mutex held. */
static int ramster_drain(void)
{
	unsigned long held, batch;
	long avail;
	int ret;

	ret = ramster_leave();
	if (ret)
		return ret;
	if (!ramster_draining) {
		WRITE_ONCE(ramster_draining, true);
		pr_info("draining: refusing new stores, bringing every page back into its process\n");
	}
	while ((held = frontswap_curr_pages()) && !ramster_should_stop()) {
		batch = min_t(unsigned long, held, RAMSTER_DRAIN_BATCH);
		/* The pages need room, and the node must not thrash. */
		avail = si_mem_available();
		if (avail < 0 || (unsigned long)avail < batch + totalram_pages() / 16) {
			pr_err("drain: %lu pages held, but only %ld pages of memory available: swap off the areas, or free memory first\n",
			       held, avail);
			return -ENOMEM;
		}
		if (!ramster_shrink_by(batch, "drain"))
			break;
	}
	held = frontswap_curr_pages();
	if (held) {
		pr_err("drain: %lu pages still held: rmmod would be refused\n",
		       held);
		return -EBUSY;
	}
	pr_info("drained: no page held; rmmod can proceed once the configfs nodes are removed\n");
	return 0;
}

/* Writing 0 to either knob: take pages again, keep sending them away. */
static void ramster_rejoin(void)
{
	if (!ramster_leaving && !ramster_draining)
		return;
	WRITE_ONCE(ramster_draining, false);
	WRITE_ONCE(ramster_leaving, false);
	ramster_remote_kick();
	pr_info("taking part in the cluster again\n");
}

/* A knob's write: 1 runs @act (leave or drain), 0 rejoins. */
static int ramster_lifecycle_set(int (*act)(void), u64 val)
{
	int ret = 0;

	mutex_lock(&ramster_lifecycle_mutex);
	if (val)
		ret = act();
	else
		ramster_rejoin();
	mutex_unlock(&ramster_lifecycle_mutex);
	return ret;
}

static int ramster_leave_set(void *data, u64 val)
{
	return ramster_lifecycle_set(ramster_leave, val);
}

static int ramster_leave_get(void *data, u64 *val)
{
	*val = READ_ONCE(ramster_leaving);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ramster_leave_fops, ramster_leave_get,
			 ramster_leave_set, "%llu\n");

static int ramster_drain_set(void *data, u64 val)
{
	return ramster_lifecycle_set(ramster_drain, val);
}

static int ramster_drain_get(void *data, u64 *val)
{
	*val = READ_ONCE(ramster_draining);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ramster_drain_fops, ramster_drain_get,
			 ramster_drain_set, "%llu\n");

/*********************************
 * init and exit
 *********************************/
void ramster_recall_init(struct dentry *debugfs_root)
{
	debugfs_create_file_unsafe("leave", 0600, debugfs_root, NULL,
				   &ramster_leave_fops);
	debugfs_create_file_unsafe("drain", 0600, debugfs_root, NULL,
				   &ramster_drain_fops);
}

/* Before the links go: a RECALL arriving later queues nothing. */
void ramster_recall_exit(void)
{
	spin_lock(&ramster_recall_lock);
	ramster_recall_stopping = true;
	spin_unlock(&ramster_recall_lock);
	cancel_work_sync(&ramster_recall_work);
}
