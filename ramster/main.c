// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ramster: a frontswap backend that keeps swap pages compressed
 * in RAM (the local tier) and, with the cluster tiers, in other nodes' RAM
 *
 * This file holds the module parameters, module init and exit, and the
 * frontswap ops, which tie the index (index.c) to the tiers (local.c).
 *
 * Correctness rules, in the order they matter:
 *  1. A load returns the data of the last successful store to its slot,
 *     or fails.  It never returns other data: a duplicate store replaces
 *     the old entry atomically under the tree lock, and a failed
 *     duplicate store leaves no entry (frontswap invalidates first).
 *  2. The module cannot go away while it holds a page: every stored entry
 *     holds a module reference (taken with try_module_get(), so a store
 *     racing with rmmod is refused), and rmmod fails with -EBUSY until
 *     the pages are invalidated (swapoff) or brought back
 *     (/sys/module/ramster/control/drain, lifecycle.c).
 *  3. invalidate_page runs under the swap area's spinlock: it and
 *     everything it calls only take spinlocks and never sleep.
 *
 * Eviction (evict, don't refuse): a store that finds the pool over
 * evict_high_percent of its limit kicks ramster_evict_work, which writes
 * the coldest local entries (the head of each tree's LRU) back to their
 * swap slots (writeback.c, which has the races of a write-back) until the
 * pool is under evict_low_percent; a store is refused (reject_pool_limit)
 * only when the pool is at the limit itself.  Pages that can leave for a
 * peer leave earlier, at remote.c's lower mark; eviction is what is left
 * when they cannot.  Also:
 *  - A slot whose page is already in the swap cache is skipped
 *    (evict_skipped_busy); an entry that lost its local copy meanwhile
 *    (remotified) is not fetched back to be written.
 *  - Module unload: every entry pins the module, so rmmod runs only with
 *    no entries; ramster_exit() still cancels the work before freeing the
 *    trees.
 *  - writethrough: the page is on the device already; writing it again
 *    is redundant but correct, and clears frontswap's bit the same way,
 *    so the local copy is dropped by the same path.
 *  - Allocations under pressure: the worker runs under
 *    memalloc_noio_save(), so the swap cache page frontswap_writeback()
 *    allocates, and any reclaim it enters, cannot write swap pages (no
 *    __GFP_IO): it never recurses into our store; it never calls the OOM
 *    killer either (writeback.c).  A page not had (writeback_nomem)
 *    ends the run when the node itself is short: each further try would
 *    be one more round of reclaim for nothing; the next store over the
 *    mark queues it again.  Else it was one cgroup's failure: a miss
 *    (the LRU rotates past it).  The
 *    store path itself only queues the work (no allocation, no waiting).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/frontswap.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/workqueue.h>

#include "ramster.h"
#include "cleancache.h"
#include "holders.h"
#include "index.h"
#include "lender.h"
#include "lifecycle.h"
#include "local.h"
#include "policy.h"
#include "readahead.h"
#include "recall.h"
#include "reconcile.h"
#include "remote.h"
#include "replicas.h"
#include "stats.h"
#include "suction.h"
#include "transport.h"
#include "writeback.h"

/*********************************
 * module parameters
 *********************************/
static char *compressor = "lz4";
module_param(compressor, charp, 0444);
MODULE_PARM_DESC(compressor,
		 "crypto API compressor, e.g. lz4, lzo, lzo-rle, zstd, deflate (default lz4)");

static int ramster_param_set_pool_percent(const char *val,
					  const struct kernel_param *kp)
{
	return ramster_param_set_uint_range(val, kp, 1, 100);
}

static int ramster_param_set_compressed_percent(const char *val,
						const struct kernel_param *kp)
{
	return ramster_param_set_uint_range(val, kp, 10, 100);
}

static const struct kernel_param_ops ramster_pool_percent_ops = {
	.set = ramster_param_set_pool_percent,
	.get = param_get_uint,
};

static const struct kernel_param_ops ramster_compressed_percent_ops = {
	.set = ramster_param_set_compressed_percent,
	.get = param_get_uint,
};

static struct ramster_local_limits ramster_limits = {
	.max_pool_percent = 20,
	.max_compressed_percent = 75,
	.same_filled = true,
	.store_raw = true,
};

module_param_cb(max_pool_percent, &ramster_pool_percent_ops,
		&ramster_limits.max_pool_percent, 0644);
MODULE_PARM_DESC(max_pool_percent,
		 "local pool limit in percent of RAM, 1-100 (default 20)");
module_param_cb(max_compressed_percent, &ramster_compressed_percent_ops,
		&ramster_limits.max_compressed_percent, 0644);
MODULE_PARM_DESC(max_compressed_percent,
		 "pages that compress to more than this percent of a page are kept raw (store_raw) or refused, 10-100 (default 75)");
module_param_named(same_filled, ramster_limits.same_filled, bool, 0644);
MODULE_PARM_DESC(same_filled,
		 "store same-filled pages as one word (default Y)");
module_param_named(store_raw, ramster_limits.store_raw, bool, 0644);
MODULE_PARM_DESC(store_raw,
		 "keep pages that compress above max_compressed_percent as they are rather than refuse them (default Y)");

static bool writethrough;
module_param(writethrough, bool, 0444);
MODULE_PARM_DESC(writethrough,
		 "also write every stored page to the swap device (default N)");

static unsigned int evict_high_percent = 95;
module_param_cb(evict_high_percent, &ramster_pool_percent_ops,
		&evict_high_percent, 0644);
MODULE_PARM_DESC(evict_high_percent,
		 "above this percent of the pool limit the coldest pages are written back to the swap device, 1-100 (default 95)");
static unsigned int evict_low_percent = 90;
module_param_cb(evict_low_percent, &ramster_pool_percent_ops,
		&evict_low_percent, 0644);
MODULE_PARM_DESC(evict_low_percent,
		 "eviction stops below this percent of the pool limit, 1-100 (default 90)");

/*********************************
 * per swap type trees
 *********************************/
/*
 * A tree is allocated at the first init() of its swap type and kept until
 * module exit; swapoff (invalidate_area) only empties it.  A store to a
 * type whose tree could not be allocated is refused.
 */
static struct ramster_tree *ramster_trees[MAX_SWAPFILES];
static struct kmem_cache *ramster_entry_cache;

static void ramster_free_entry(struct ramster_tree *tree,
			       struct ramster_entry *entry)
{
	if (ramster_entry_is_remote(entry))
		ramster_remote_forget(tree, entry);
	ramster_local_free(entry);
	kmem_cache_free(ramster_entry_cache, entry);
	ramster_stat_dec(RAMSTER_STAT_STORED_PAGES);
	module_put(THIS_MODULE);
}

/*********************************
 * eviction (see the top of the file)
 *********************************/
static void ramster_evict_fn(struct work_struct *work);
static DECLARE_WORK(ramster_evict_work, ramster_evict_fn);
/*
 * Its own queue: WQ_MEM_RECLAIM (a rescuer, since eviction is how memory
 * comes back under pressure) and WQ_HIGHPRI (a task looping in direct
 * reclaim must not starve it on a small machine).
 */
static struct workqueue_struct *ramster_evict_wq;

/* Is the pool above @percent of its limit? */
static bool ramster_pool_above(unsigned int percent)
{
	return ramster_pool_over_mark(ramster_local_pool_pages(),
				      totalram_pages(),
				      READ_ONCE(ramster_limits.max_pool_percent),
				      percent);
}

/* The coldest local entry of @tree, referenced, moved to the young end. */
static struct ramster_entry *ramster_evict_pick(struct ramster_tree *tree)
{
	struct ramster_entry *entry, *found = NULL;

	spin_lock(&tree->lock);
	list_for_each_entry(entry, &tree->lru, lru) {
		if (entry->flags & RAMSTER_ENTRY_REMOTIFYING)
			continue;
		found = entry;
		ramster_entry_get(found);
		list_move_tail(&found->lru, &tree->lru);
		break;
	}
	spin_unlock(&tree->lock);
	return found;
}

/* Write one entry back, counted; ramster_write_back()'s return. */
static int ramster_evict_one(struct ramster_tree *tree,
			     struct ramster_entry *entry)
{
	int ret = ramster_write_back(tree, entry, false);

	if (!ret)
		ramster_stat_inc(RAMSTER_STAT_EVICTED_WRITTEN_BACK);
	else if (ret == -EEXIST)
		ramster_stat_inc(RAMSTER_STAT_EVICT_SKIPPED_BUSY);
	else if (ret != -ENOENT)
		ramster_stat_inc(RAMSTER_STAT_EVICT_WRITEBACK_FAILED);
	return ret;
}

/*
 * Entries one run may write back: freed objects give pages back to the
 * pool only when their zspage empties, so the pool may stay above the
 * low mark for a while; without a bound a run could empty the pool.
 */
#define RAMSTER_EVICT_BATCH	1024
#define RAMSTER_EVICT_MISSES	256
#define RAMSTER_EVICT_COMPACT	64

static void ramster_evict_fn(struct work_struct *work)
{
	unsigned int noio, type, misses = 0, done = 0;
	struct ramster_entry *entry;
	struct ramster_tree *tree;
	struct blk_plug plug;
	bool any;
	int ret;

	noio = memalloc_noio_save();
	/*
	 * The coldest entries were mostly stored one after another, into
	 * neighbouring slots: plugged, their writes merge into few large
	 * requests instead of one 4 KiB request per page (a device limited
	 * in requests per second took the eviction's pace from it).
	 */
	blk_start_plug(&plug);
	while (ramster_pool_above(READ_ONCE(evict_low_percent)) &&
	       misses < RAMSTER_EVICT_MISSES && done < RAMSTER_EVICT_BATCH) {
		any = false;
		for (type = 0; type < MAX_SWAPFILES; type++) {
			tree = READ_ONCE(ramster_trees[type]);
			if (!tree)
				continue;
			entry = ramster_evict_pick(tree);
			if (!entry)
				continue;
			any = true;
			ret = ramster_evict_one(tree, entry);
			if (!ret)
				done++;
			else if (ret == -ENOMEM)
				goto out;
			else
				misses++;
		}
		if (!any)
			break;
		/* Freed objects are scattered: give emptied zspages back. */
		if (done && !(done % RAMSTER_EVICT_COMPACT))
			ramster_local_compact();
		cond_resched();
	}
out:
	blk_finish_plug(&plug);
	if (done)
		ramster_local_compact();
	memalloc_noio_restore(noio);
}

/*********************************
 * frontswap ops
 *********************************/
static void ramster_frontswap_init(unsigned int type)
{
	struct ramster_tree *tree = ramster_trees[type];

	if (tree) {
		/* Swapped on again: swapoff emptied it already. */
		spin_lock(&tree->lock);
		WARN_ON_ONCE(ramster_index_erase_all(tree));
		spin_unlock(&tree->lock);
		return;
	}

	/* Without a tree the area's stores are refused (reject_no_area). */
	tree = kzalloc(sizeof(*tree), GFP_KERNEL);
	if (!tree)
		return;
	ramster_tree_init(tree, ramster_free_entry);
	tree->type = type;
	/* Read without swapon's locks by reconcile.c's work and replies. */
	smp_store_release(&ramster_trees[type], tree);
}

static int ramster_frontswap_store(unsigned int type, pgoff_t offset,
				   struct page *page)
{
	struct ramster_tree *tree = ramster_trees[type];
	struct ramster_entry *entry, *dup;
	int ret;

	if (!tree) {
		ramster_stat_inc(RAMSTER_STAT_REJECT_NO_AREA);
		return -ENODEV;
	}
	/* Clean pages (cleancache.c) give way to swap pages. */
	ramster_clean_make_room(&ramster_limits);
	/* The coldest pages leave for the device (evict, don't refuse). */
	if (ramster_pool_above(READ_ONCE(evict_high_percent)))
		queue_work(ramster_evict_wq, &ramster_evict_work);
	if (ramster_local_full(&ramster_limits)) {
		/* Eviction is behind: this page goes to the device. */
		ramster_remote_kick();
		ramster_stat_inc(RAMSTER_STAT_REJECT_POOL_LIMIT);
		return -ENOMEM;
	}
	/* Draining before rmmod: new pages go to the device. */
	if (ramster_lifecycle_draining()) {
		ramster_stat_inc(RAMSTER_STAT_REJECT_DRAINING);
		return -EBUSY;
	}
	/* Each entry pins the module; refused once rmmod has begun. */
	if (!try_module_get(THIS_MODULE)) {
		ramster_stat_inc(RAMSTER_STAT_REJECT_UNLOADING);
		return -ENODEV;
	}

	entry = kmem_cache_zalloc(ramster_entry_cache,
				  __GFP_NORETRY | __GFP_NOWARN |
				  __GFP_KSWAPD_RECLAIM);
	if (!entry) {
		ramster_stat_inc(RAMSTER_STAT_REJECT_KMEMCACHE_FAIL);
		ret = -ENOMEM;
		goto err_put_module;
	}
	RB_CLEAR_NODE(&entry->rbnode);
	entry->offset = offset;
	memset(entry->holders, RAMSTER_NO_NODE, sizeof(entry->holders));

	ret = ramster_local_store(entry, page, &ramster_limits);
	if (ret)
		goto err_free_entry;

	spin_lock(&tree->lock);
	dup = ramster_index_insert(tree, entry);
	if (dup) {
		ramster_stat_inc(RAMSTER_STAT_DUPLICATE_ENTRY);
		ramster_entry_put(tree, dup);
	}
	spin_unlock(&tree->lock);

	ramster_stat_inc(RAMSTER_STAT_STORES);
	ramster_stat_inc(RAMSTER_STAT_STORED_PAGES);
	if (ramster_remote_over_target())
		ramster_remote_kick();
	return 0;

err_free_entry:
	kmem_cache_free(ramster_entry_cache, entry);
err_put_module:
	module_put(THIS_MODULE);
	return ret;
}

static int ramster_frontswap_load(unsigned int type, pgoff_t offset,
				  struct page *page)
{
	struct ramster_tree *tree = ramster_trees[type];
	struct ramster_entry *entry;
	bool local = false;
	int ret;

	if (!tree) {
		ramster_stat_inc(RAMSTER_STAT_LOAD_NOT_FOUND);
		return -ENOENT;
	}

	/*
	 * Our reference keeps a local copy from being dropped (remote.c
	 * drops one only when nobody else holds the entry).
	 */
	spin_lock(&tree->lock);
	entry = ramster_index_lookup(tree, offset);
	if (entry) {
		ramster_entry_get(entry);
		local = entry->flags & (RAMSTER_ENTRY_LOCAL |
					RAMSTER_ENTRY_SAME_FILLED);
	}
	spin_unlock(&tree->lock);
	if (!entry) {
		ramster_stat_inc(RAMSTER_STAT_LOAD_NOT_FOUND);
		return -ENOENT;
	}

	if (local) {
		ret = ramster_local_load(entry, page);
	} else {
		ret = ramster_remote_load(tree, entry, page);
		/*
		 * Brought home meanwhile (suction, a recall), its remote
		 * copy invalidated under our GET?  Then the copy is here,
		 * and our reference keeps it.
		 */
		if (ret) {
			spin_lock(&tree->lock);
			local = entry->flags & RAMSTER_ENTRY_LOCAL;
			spin_unlock(&tree->lock);
			if (local)
				ret = ramster_local_load(entry, page);
		}
	}
	if (ret && ret != -EAGAIN)	/* -EAGAIN: retried, remote.c logs */
		pr_err_ratelimited("swap type %u offset %lu: stored page cannot be produced (%d)\n",
				   type, offset, ret);
	else if (!ret)
		ramster_stat_inc(RAMSTER_STAT_LOADS);

	spin_lock(&tree->lock);
	ramster_entry_put(tree, entry);
	spin_unlock(&tree->lock);
	return ret;
}

/* Called under the swap area's spinlock: must not sleep. */
static void ramster_frontswap_invalidate_page(unsigned int type,
					      pgoff_t offset)
{
	struct ramster_tree *tree = ramster_trees[type];
	struct ramster_entry *entry;

	if (!tree)
		return;

	spin_lock(&tree->lock);
	entry = ramster_index_lookup(tree, offset);
	if (entry) {
		ramster_index_erase(tree, entry);
		ramster_entry_put(tree, entry);
		ramster_stat_inc(RAMSTER_STAT_INVALIDATES);
	}
	spin_unlock(&tree->lock);
}

static void ramster_frontswap_invalidate_area(unsigned int type)
{
	struct ramster_tree *tree = ramster_trees[type];

	if (!tree)
		return;

	/* Pages fetched ahead hold entries: they go first (readahead.c). */
	ramster_ra_drop_tree(tree);
	/* Remote copies go with one INVALIDATE_AREA per node, below. */
	spin_lock(&tree->lock);
	tree->dropping = true;
	ramster_index_erase_all(tree);
	tree->dropping = false;
	spin_unlock(&tree->lock);
	ramster_remote_invalidate_area(type);
	ramster_stat_inc(RAMSTER_STAT_INVALIDATE_AREAS);
}

static const struct frontswap_ops ramster_frontswap_ops = {
	.init = ramster_frontswap_init,
	.store = ramster_frontswap_store,
	.load = ramster_frontswap_load,
	.invalidate_page = ramster_frontswap_invalidate_page,
	.invalidate_area = ramster_frontswap_invalidate_area,
};

/*********************************
 * module init and exit
 *********************************/
static void ramster_refresh_stats(void)
{
	ramster_stat_set(RAMSTER_STAT_POOL_TOTAL_SIZE,
			 ramster_local_pool_bytes());
	ramster_stat_set(RAMSTER_STAT_FOREIGN_POOL_SIZE,
			 ramster_lender_pool_bytes());
	/* Pages whose only copy is here (an entry may briefly have both). */
	ramster_stat_set(RAMSTER_STAT_LOCAL_PAGES,
			 ramster_stat_read(RAMSTER_STAT_STORED_PAGES) -
			 ramster_stat_read(RAMSTER_STAT_REMOTE_PAGES));
}

/*
 * Layers come up from the bottom: the transport, then the services that
 * register with it (lender, holders, remote, recall), then lifecycle
 * (the controls, and membership, which starts the node), then the
 * frontswap ops, then suction.  They go down in the opposite order.
 */
static int __init ramster_init(void)
{
	int ret;

	ramster_entry_cache = KMEM_CACHE(ramster_entry, 0);
	if (!ramster_entry_cache)
		return -ENOMEM;
	ramster_evict_wq = alloc_workqueue("ramster_evict", WQ_UNBOUND |
					   WQ_MEM_RECLAIM | WQ_HIGHPRI, 1);
	if (!ramster_evict_wq) {
		ret = -ENOMEM;
		goto err_destroy_cache;
	}

	ret = ramster_local_init(compressor);
	if (ret == -ENOENT) {
		pr_err("compressor \"%s\" is not available in this kernel (try lz4, lzo or zstd)\n",
		       compressor);
		ret = -EINVAL;
	}
	if (ret)
		goto err_destroy_wq;

	ramster_stats_init(ramster_refresh_stats);
	ret = ramster_transport_init(ramster_stats_debugfs_root());
	if (ret)
		goto err_exit_stats;
	ret = ramster_lender_init();
	if (ret)
		goto err_exit_transport;
	ret = ramster_holders_init();
	if (ret)
		goto err_exit_lender;
	ramster_writeback_init(ramster_trees);
	ret = ramster_remote_init(ramster_trees, &ramster_limits,
				  ramster_stats_debugfs_root());
	if (ret)
		goto err_exit_holders;
	ret = ramster_replicas_init(ramster_trees);
	if (ret)
		goto err_exit_remote;
	ret = ramster_reconcile_init(ramster_trees);
	if (ret)
		goto err_exit_replicas;
	ret = ramster_recall_init();
	if (ret)
		goto err_exit_reconcile;
	ret = ramster_lifecycle_init();
	if (ret)
		goto err_exit_recall;

	frontswap_writethrough(writethrough);
	ret = frontswap_register_ops(&ramster_frontswap_ops);
	if (ret) {
		pr_err("cannot register with frontswap (%d): %s\n", ret,
		       ret == -EBUSY ?
		       "another backend (zswap?) is registered" : "error");
		goto err_exit_lifecycle;
	}

	ret = ramster_suction_init();
	if (ret)
		goto err_unregister;

	/* Last up, first down: clean pages, as a cleancache backend. */
	ret = ramster_clean_init(&ramster_limits);
	if (ret)
		goto err_exit_suction;

	pr_info("registered: compressor %s, max_pool_percent %u, writethrough %s\n",
		compressor, ramster_limits.max_pool_percent,
		writethrough ? "on" : "off");
	return 0;

err_exit_suction:
	ramster_suction_exit();
err_unregister:
	frontswap_unregister_ops(&ramster_frontswap_ops);
err_exit_lifecycle:
	frontswap_writethrough(false);
	ramster_lifecycle_exit();
err_exit_recall:
	ramster_recall_exit();
err_exit_reconcile:
	ramster_reconcile_exit();
err_exit_replicas:
	ramster_replicas_exit();
err_exit_remote:
	ramster_remote_exit();
err_exit_holders:
	ramster_holders_exit();
err_exit_lender:
	ramster_lender_exit();
err_exit_transport:
	ramster_transport_exit();
err_exit_stats:
	ramster_stats_exit();
	ramster_local_exit();
err_destroy_wq:
	destroy_workqueue(ramster_evict_wq);
err_destroy_cache:
	kmem_cache_destroy(ramster_entry_cache);
	return ret;
}

static void __exit ramster_exit(void)
{
	unsigned int type;
	int ret;

	/* Clean pages pin nothing: they are dropped. */
	ramster_clean_exit();
	/*
	 * The module count is zero, so no entry exists and none can be
	 * created (try_module_get() fails from now on): unregistering
	 * cannot find pages.
	 */
	/* No control runs against layers going down, no node starts. */
	ramster_lifecycle_exit();
	ramster_suction_exit();
	ret = frontswap_unregister_ops(&ramster_frontswap_ops);
	if (WARN(ret, "ramster: frontswap_unregister_ops: %d, leaking the module's memory\n",
		 ret))
		return;
	frontswap_writethrough(false);
	/* No entry is left to evict; the work must not touch freed trees. */
	cancel_work_sync(&ramster_evict_work);
	destroy_workqueue(ramster_evict_wq);

	/*
	 * The services that send stop first (the recall and re-replication
	 * work, the remotification thread, the invalidation work), then the
	 * links, before the services that answer peers (holders, lender) go.
	 */
	ramster_recall_exit();
	ramster_reconcile_exit();
	ramster_replicas_exit();
	ramster_remote_exit();
	ramster_transport_stop();
	ramster_holders_exit();
	ramster_lender_exit();
	ramster_transport_exit();
	for (type = 0; type < MAX_SWAPFILES; type++)
		kfree(ramster_trees[type]);
	ramster_stats_exit();
	ramster_local_exit();
	kmem_cache_destroy(ramster_entry_cache);
	pr_info("unregistered\n");
}

module_init(ramster_init);
module_exit(ramster_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("RAMster developers");
MODULE_DESCRIPTION("RAMster: compressed and clustered frontswap backend");
