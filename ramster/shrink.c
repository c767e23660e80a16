// SPDX-License-Identifier: GPL-2.0
/*
 * shrink.c - bringing pages home through frontswap_shrink()
 *
 * The administrator's knob: writing N to /sys/kernel/debug/ramster/
 * shrink_target asks frontswap to bring pages back into the processes that
 * own them until ramster holds N pages or fewer (a partial swapoff, see
 * frontswap_shrink() in mm/frontswap.c).  The write returns when the pass
 * is done; the result is logged.  The suction thread (suction.c) uses
 * the same path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/frontswap.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>

#include "ramster.h"
#include "shrink.h"
#include "stats.h"

/* One shrink at a time: concurrent ones would only fight. */
static DEFINE_MUTEX(ramster_shrink_lock);

/* Shrink to @target pages; returns pages brought back or an errno. */
static long ramster_shrink_to(unsigned long target, const char *who)
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

static int ramster_shrink_target_set(void *data, u64 val)
{
	long ret = ramster_shrink_to(val, "admin");

	return ret < 0 ? ret : 0;
}

static int ramster_shrink_target_get(void *data, u64 *val)
{
	*val = frontswap_curr_pages();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ramster_shrink_target_fops, ramster_shrink_target_get,
			 ramster_shrink_target_set, "%llu\n");

/* Reading shrink_target gives the pages frontswap holds now. */
void ramster_shrink_init(struct dentry *debugfs_root)
{
	debugfs_create_file_unsafe("shrink_target", 0600, debugfs_root, NULL,
				   &ramster_shrink_target_fops);
}
