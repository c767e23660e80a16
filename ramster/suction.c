// SPDX-License-Identifier: GPL-2.0
/*
 * suction.c - bringing pages home when memory pressure has subsided
 *
 * Remote RAM is borrowed and local compressed RAM is not free either:
 * once this node has memory to spare again, its swapped pages should come
 * back into the processes that own them.  A thread looks at the memory
 * available (si_mem_available(): free pages plus what reclaim gets back
 * cheaply, less the reserves) every suction_interval_ms.  When it has
 * stayed above suction_free_percent of RAM for suction_inertia looks in a
 * row, the thread calls frontswap_shrink() (shrink.c) for at most
 * suction_batch pages, and never for more than half of the memory above
 * that mark: the pages it brings back use the memory, so a pass can never
 * push the node back under the mark and into reclaim.  One look below
 * the mark resets the count (hysteresis): a node that swaps is left alone.
 *
 * Borrowed memory goes first: a pass first fetches pages held by other
 * nodes back into the local pool (while the pool stays below the mark
 * where remotification would send them away again), then calls
 * frontswap_shrink(), which works through page tables and brings back
 * any page frontswap holds into its process, with at most the room left
 * once as many pages as are still borrowed (up to half of it) are kept
 * for them.  A page brought into its process costs a whole page, one
 * fetched home its compressed size: a shrink that took the whole room
 * left the last few dozen borrowed pages on their holder for good (seen:
 * 36 to 65 pages, MemAvailable 68 kB under the mark); one that waited
 * for every borrowed page first took three times as long (the pool's
 * mark bounds what a pass can fetch until a shrink empties it).
 * Counters: suction_runs,
 * suction_pages (into processes), suction_remote_pages (fetched home).
 *
 * A pass that brings nothing home (the pages are shmem's, which a shrink
 * leaves alone, or their holders are out of reach) doubles the number of
 * intervals until the next pass, up to RAMSTER_SUCTION_MAX_BACKOFF: a sweep
 * of every mm and the whole swap map is not repeated every second for
 * nothing.  Any progress resets it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/frontswap.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "ramster.h"
#include "index.h"
#include "remote.h"
#include "shrink.h"
#include "stats.h"
#include "suction.h"

static unsigned int suction_interval_ms = 1000;
module_param(suction_interval_ms, uint, 0644);
MODULE_PARM_DESC(suction_interval_ms,
		 "how often the suction thread looks at memory; 0 stops it (default 1000)");

static unsigned int suction_free_percent = 25;
module_param(suction_free_percent, uint, 0644);
MODULE_PARM_DESC(suction_free_percent,
		 "bring pages home only while available memory is above this percent of RAM (default 25)");

static unsigned int suction_inertia = 3;
module_param(suction_inertia, uint, 0644);
MODULE_PARM_DESC(suction_inertia,
		 "looks in a row above the mark before a pass (default 3)");

static unsigned int suction_batch = 4096;
module_param(suction_batch, uint, 0644);
MODULE_PARM_DESC(suction_batch, "most pages one pass brings home (default 4096)");

#define RAMSTER_SUCTION_MAX_BACKOFF	64

static struct task_struct *ramster_suction_thread;

/*
 * How many pages a pass may bring home now: 0 while memory is not
 * plentiful.  A recall (recall.c) asks the same question.
 */
unsigned long ramster_suction_room(void)
{
	unsigned long mark = mult_frac(totalram_pages(),
				       min(suction_free_percent, 100U), 100);
	long avail = si_mem_available();

	if (avail <= 0 || (unsigned long)avail <= mark)
		return 0;
	return min_t(unsigned long, ((unsigned long)avail - mark) / 2,
		     suction_batch);
}

static int ramster_suction_fn(void *arg)
{
	unsigned int calm = 0, backoff = 1, skip = 0;
	unsigned long room, held, remote;
	u64 out;

	while (!kthread_should_stop()) {
		schedule_timeout_interruptible(msecs_to_jiffies(max(suction_interval_ms,
								    100U)));
		if (!READ_ONCE(suction_interval_ms))
			continue;
		held = frontswap_curr_pages();
		room = ramster_suction_room();
		if (!room) {
			calm = 0;
			continue;
		}
		if (++calm < max(suction_inertia, 1U) || !held)
			continue;
		if (skip) {
			skip--;
			continue;
		}

		/* Borrowed RAM first: remote pages into the local pool... */
		remote = ramster_remote_fetch_home(RAMSTER_NO_NODE, room, false);
		ramster_stat_add(RAMSTER_STAT_SUCTION_REMOTE_PAGES, remote);
		/* ... then pages into their processes, room kept for the rest. */
		out = ramster_stat_read(RAMSTER_STAT_REMOTE_PAGES);
		held = ramster_shrink_by(min(room - min_t(u64, out, room / 2),
					     held), "suction");
		ramster_stat_inc(RAMSTER_STAT_SUCTION_RUNS);
		ramster_stat_add(RAMSTER_STAT_SUCTION_PAGES, held);
		if (remote)
			pr_info("suction: %lu remote pages fetched home\n", remote);
		if (remote || held)
			backoff = 1;
		else if (backoff < RAMSTER_SUCTION_MAX_BACKOFF)
			backoff *= 2;
		skip = backoff - 1;
	}
	return 0;
}

int ramster_suction_init(void)
{
	ramster_suction_thread = kthread_run(ramster_suction_fn, NULL,
					     "ramster-suction");
	if (IS_ERR(ramster_suction_thread))
		return PTR_ERR(ramster_suction_thread);
	return 0;
}

void ramster_suction_exit(void)
{
	kthread_stop(ramster_suction_thread);
}
