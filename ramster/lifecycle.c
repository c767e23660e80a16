// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle.c - the node's part in the cluster: starting, leaving,
 * draining, and the administrator's controls
 *
 * One owner for the node's state: joined, leaving (no page taken from
 * others, none sent away, all brought home) or draining (leaving, and
 * every page back in its process, before rmmod).  The layers below do
 * not ask each other what the node is doing; this file tells them
 * (ramster_lender_set_leaving(), ramster_holders_pause()).
 *
 * Starting: when membership (cluster.c) sets the local node, the lender
 * gets its capacity and the transport starts.
 *
 * Controls, in /sys/module/ramster/control/ (sysfs: a stable interface,
 * unlike debugfs, which is for inspection only):
 *
 *   leave		write 1: leave the cluster.  The node refuses other
 *			nodes' pages and offers no room, recalls every page it
 *			holds from their owners, stops sending its own pages
 *			away and takes them home.  The write returns once
 *			nothing is held either way, or fails after
 *			leave_timeout_ms (progress in the log every 5 s).
 *			Write 0 to rejoin.  Reads 1 while left.
 *   drain		write 1: leave, then refuse new stores (their pages go
 *			to the swap device) and bring every page back into
 *			its process with frontswap_shrink(), batch by batch
 *			while memory allows.  Then no page pins the module,
 *			and once the configfs nodes are removed rmmod
 *			succeeds.  Write 0 to resume.  Reads 1 while drained.
 *   shrink_target	write N: bring pages home until frontswap holds N or
 *			fewer (a partial swapoff); reads the count now.
 *
 * Locking: ramster_lifecycle_mutex serialises the controls and the state
 * changes; the state is read without it (READ_ONCE).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/frontswap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include "ramster.h"
#include "cluster.h"
#include "holders.h"
#include "index.h"
#include "lender.h"
#include "lifecycle.h"
#include "readahead.h"
#include "recall.h"
#include "remote.h"
#include "shrink.h"
#include "transport.h"
#include "writeback.h"

static unsigned int leave_timeout_ms = 60000;
module_param(leave_timeout_ms, uint, 0644);
MODULE_PARM_DESC(leave_timeout_ms,
		 "how long leaving (and draining) waits for pages to go home (default 60000)");

#define RAMSTER_DRAIN_BATCH	4096	/* pages per frontswap_shrink() */

static DEFINE_MUTEX(ramster_lifecycle_mutex);	/* see the file comment */
static bool ramster_leaving;
static bool ramster_draining;

/* Does the node refuse new stores (draining before rmmod)? */
bool ramster_lifecycle_draining(void)
{
	return READ_ONCE(ramster_draining);
}

/*********************************
 * starting
 *********************************/
static int ramster_lifecycle_start_local(const struct ramster_node_info *local)
{
	int ret;

	if (local->role != RAMSTER_ROLE_CLIENT)
		ramster_lender_set_capacity(local->capacity);
	ret = ramster_transport_start(local);
	if (ret)
		ramster_lender_set_capacity(0);
	return ret;
}

static void ramster_lifecycle_capacity_changed(u64 pages)
{
	ramster_lender_set_capacity(pages);
}

static const struct ramster_cluster_ops ramster_lifecycle_cluster_ops = {
	.start_local = ramster_lifecycle_start_local,
	.capacity_changed = ramster_lifecycle_capacity_changed,
};

/*********************************
 * leaving and draining
 *********************************/
static void ramster_set_leaving(bool leaving)
{
	WRITE_ONCE(ramster_leaving, leaving);
	ramster_lender_set_leaving(leaving);
	ramster_holders_pause(leaving);
}

/* Leave: wait until nothing is held either way.  The mutex is held. */
static int ramster_leave(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(leave_timeout_ms);
	struct ramster_writeback_cursor cursor = {};
	unsigned long next_log = jiffies;
	u64 foreign, out;

	if (!ramster_leaving) {
		ramster_set_leaving(true);
		pr_info("leaving the cluster: refusing other nodes' pages, recalling those held here, taking ours home\n");
	}
	for (;;) {
		out = ramster_recall_take_back(RAMSTER_NO_NODE, 0, &cursor);
		foreign = ramster_lender_total_pages();
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
	/* Pages fetched ahead that nobody will load hold entries, and us. */
	ramster_ra_drop_all();
	pr_info("drained: no page held; rmmod can proceed once the configfs nodes are removed\n");
	return 0;
}

/* Writing 0 to either control: take pages again, send them away again. */
static void ramster_rejoin(void)
{
	if (!ramster_leaving && !ramster_draining)
		return;
	WRITE_ONCE(ramster_draining, false);
	ramster_set_leaving(false);
	ramster_remote_kick();
	pr_info("taking part in the cluster again\n");
}

/*********************************
 * /sys/module/ramster/control/
 *********************************/
/* A control's write: 1 runs @act (leave or drain), 0 rejoins. */
static ssize_t ramster_lifecycle_store(int (*act)(void), const char *buf,
				       size_t count)
{
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	mutex_lock(&ramster_lifecycle_mutex);
	if (on)
		ret = act();
	else
		ramster_rejoin();
	mutex_unlock(&ramster_lifecycle_mutex);
	return ret ? ret : count;
}

static ssize_t leave_show(struct module_attribute *attr,
			  struct module_kobject *mk, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ramster_leaving));
}

static ssize_t leave_store(struct module_attribute *attr,
			   struct module_kobject *mk, const char *buf,
			   size_t count)
{
	return ramster_lifecycle_store(ramster_leave, buf, count);
}

static ssize_t drain_show(struct module_attribute *attr,
			  struct module_kobject *mk, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ramster_draining));
}

static ssize_t drain_store(struct module_attribute *attr,
			   struct module_kobject *mk, const char *buf,
			   size_t count)
{
	return ramster_lifecycle_store(ramster_drain, buf, count);
}

static ssize_t shrink_target_show(struct module_attribute *attr,
				  struct module_kobject *mk, char *buf)
{
	return sysfs_emit(buf, "%lu\n", frontswap_curr_pages());
}

static ssize_t shrink_target_store(struct module_attribute *attr,
				   struct module_kobject *mk, const char *buf,
				   size_t count)
{
	unsigned long target;
	long ret;

	ret = kstrtoul(buf, 0, &target);
	if (ret)
		return ret;
	ret = ramster_shrink_to(target, "admin");
	return ret < 0 ? ret : count;
}

static struct module_attribute ramster_control_leave = __ATTR_RW_MODE(leave, 0600);
static struct module_attribute ramster_control_drain = __ATTR_RW_MODE(drain, 0600);
static struct module_attribute ramster_control_shrink_target =
	__ATTR_RW_MODE(shrink_target, 0600);

static struct attribute *ramster_control_attrs[] = {
	&ramster_control_leave.attr,
	&ramster_control_drain.attr,
	&ramster_control_shrink_target.attr,
	NULL,
};

static const struct attribute_group ramster_control_group = {
	.name = "control",
	.attrs = ramster_control_attrs,
};

/*********************************
 * init and exit
 *********************************/
int ramster_lifecycle_init(void)
{
	int ret;

	ret = sysfs_create_group(&THIS_MODULE->mkobj.kobj,
				 &ramster_control_group);
	if (ret) {
		pr_err("cannot create /sys/module/%s/control (%d)\n",
		       RAMSTER_NAME, ret);
		return ret;
	}
	ret = ramster_cluster_init(&ramster_lifecycle_cluster_ops);
	if (ret) {
		pr_err("cannot register /sys/kernel/config/%s (%d)\n",
		       RAMSTER_NAME, ret);
		sysfs_remove_group(&THIS_MODULE->mkobj.kobj,
				   &ramster_control_group);
	}
	return ret;
}

/* Waits for a control write in progress to return. */
void ramster_lifecycle_exit(void)
{
	ramster_cluster_exit();
	sysfs_remove_group(&THIS_MODULE->mkobj.kobj, &ramster_control_group);
}
