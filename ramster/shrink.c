// SPDX-License-Identifier: GPL-2.0
/*
 * shrink.c - bringing pages home through frontswap_shrink()
 *
 * frontswap_shrink() (mm/frontswap.c) brings pages back into the
 * processes that own them until frontswap holds a target or fewer (a
 * partial swapoff).  Its users here: the administrator's shrink_target
 * (lifecycle.c), suction (suction.c), recalls (recall.c) and draining.
 * Each pass is counted and logged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/frontswap.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>

#include "ramster.h"
#include "shrink.h"
#include "stats.h"

/* One shrink at a time: concurrent ones would only fight. */
static DEFINE_MUTEX(ramster_shrink_lock);

/**
 * ramster_shrink_to - bring pages home until frontswap holds @target
 * @target: pages
 * @who: for the log line
 *
 * Return: how many came back, or a negative errno.
 */
long ramster_shrink_to(unsigned long target, const char *who)
{
	unsigned long before, after;
	unsigned long start = jiffies;
	int ret;

	mutex_lock(&ramster_shrink_lock);
	before = frontswap_curr_pages();
	ret = frontswap_shrink(target);
	after = frontswap_curr_pages();
	mutex_unlock(&ramster_shrink_lock);

	ramster_stat_inc(RAMSTER_STAT_SHRINK_RUNS);
	if (before > after)
		ramster_stat_add(RAMSTER_STAT_SHRINK_PAGES, before - after);
	pr_info("%s: shrink to %lu pages: %lu -> %lu in %u ms (%d)\n", who,
		target, before, after, jiffies_to_msecs(jiffies - start), ret);
	if (ret)
		return ret;
	return before > after ? before - after : 0;
}

/**
 * ramster_shrink_by - bring up to @pages pages home
 * @pages: how many
 * @who: for the log line
 *
 * Return: how many came back (0 on error).
 */
unsigned long ramster_shrink_by(unsigned long pages, const char *who)
{
	unsigned long held = frontswap_curr_pages();
	long ret = ramster_shrink_to(held > pages ? held - pages : 0, who);

	return ret > 0 ? ret : 0;
}
