// SPDX-License-Identifier: GPL-2.0
/*
 * writeback.c - writing pages we hold back to their swap slots
 *
 * frontswap_writeback() (kernel patch 0018) puts a page for the slot in
 * the swap cache, has us fill it, makes frontswap stop holding the slot
 * and starts the write; then the entry goes as an invalidate would take
 * it (its local copy freed, its remote copies invalidated).  Two users:
 *
 *  - eviction (main.c): the coldest local entries leave a full pool;
 *  - recalls and leaving (recall.c): a holder wants our pages back and
 *    they cannot come home (the local pool is full, memory is short):
 *    they are fetched from a live holder straight into the swap cache
 *    page and written to the device, so the holder gets its memory back
 *    at the device's pace instead of never (a lender squeezed by its own
 *    workload was OOM-killed while its owner, itself short, answered
 *    every RECALL "cannot come home now").
 *
 * Races (the entry is referenced by the caller throughout):
 *  - Once frontswap_writeback() has the slot's page locked in the swap
 *    cache, loads of the slot wait on that lock and the slot cannot be
 *    freed.  Before that, the slot may have been freed and stored to
 *    again: the fill checks, under the tree lock, that the entry is
 *    still the slot's and not being remotified (the PUT owns it then).
 *  - A remote entry may come home (fetch home, suction) while its data
 *    is fetched, its remote copies invalidated: a failed GET looks for
 *    the local copy again.  A copy fetched is verified as a load's is
 *    (key, generation, checksum): the entry's data or an error.
 *  - swapoff: frontswap_writeback() pins the area and returns -ENOENT
 *    once it is going.
 *  - Reclaim recursion: the write-back runs under memalloc_noio_save(),
 *    so the swap cache page's allocation, and any reclaim it enters,
 *    cannot write swap pages and re-enter our store.
 *  - Memory: each write takes a page for the swap cache until its I/O
 *    is done, asked with RAMSTER_WRITEBACK_GFP: reclaim as long as it
 *    makes progress (NOIO, by the scope above), then fail, and never
 *    the OOM killer, global or a memcg's (the page is charged to the
 *    cgroup that swapped the slot out, which may be at its limit): a
 *    page written back is memory given back, to our pool or to a
 *    lender, not worth a process.  A page not had (-ENOMEM, counted in
 *    writeback_nomem) ends an eviction run or a recall pass when the
 *    node itself is short (ramster_write_back() decides, and returns
 *    -ENOMEM only then, -EAGAIN otherwise): each
 *    further try would be another round of reclaim for nothing; the
 *    holder asks again, the next store over the mark queues eviction
 *    again.  Otherwise it is one cgroup's failure (the page is charged
 *    to the cgroup that swapped the slot out, maybe at its limit, whose
 *    slots tend to be neighbours): a miss, and the pass goes on to
 *    other slots; a recall goes on from its cursor the next time, past
 *    the pages that failed.  A recall pass starts at most
 *    RAMSTER_RECALL_BATCH writes; the block queue bounds those in
 *    flight across passes.
 *  - The swap cache page stays locked while its data is fetched: a
 *    swap-in of that slot waits for the GET, as its own load would.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/frontswap.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/swap.h>

#include "ramster.h"
#include "index.h"
#include "local.h"
#include "remote.h"
#include "stats.h"
#include "writeback.h"

static struct ramster_tree **ramster_writeback_trees;

/**
 * struct ramster_writeback_ctx - one entry being written back
 * @tree: its tree
 * @entry: the entry, referenced
 * @remote: may its data come from a holder (else only its local copy)
 */
struct ramster_writeback_ctx {
	struct ramster_tree *tree;
	struct ramster_entry *entry;
	bool remote;
};

/* The swap cache page of a write-back: see "Memory" above. */
#define RAMSTER_WRITEBACK_GFP	(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/*
 * Is the node itself short of memory?  For a write-back that got -ENOMEM:
 * a cgroup at its limit fails its own slots however much memory the node
 * has; when the node's available memory is under 1/RAMSTER_WRITEBACK_SHORT
 * of RAM, reclaim failed for everyone.
 */
static bool ramster_writeback_node_short(void)
{
	return si_mem_available() <
	       (long)(totalram_pages() / RAMSTER_WRITEBACK_SHORT);
}

/* frontswap_writeback()'s fill: the slot's page is locked in the cache. */
static int ramster_writeback_fill(struct page *page, void *arg)
{
	struct ramster_writeback_ctx *ctx = arg;
	struct ramster_entry *entry = ctx->entry;
	bool current_entry, local = false;
	int ret;

	spin_lock(&ctx->tree->lock);
	current_entry = ramster_index_lookup(ctx->tree, entry->offset) ==
				entry &&
			!(entry->flags & RAMSTER_ENTRY_REMOTIFYING);
	if (current_entry) {
		local = entry->flags & RAMSTER_ENTRY_LOCAL;
		current_entry = local || (ctx->remote &&
					  ramster_entry_is_remote(entry));
	}
	spin_unlock(&ctx->tree->lock);
	if (!current_entry)
		return -ENOENT;
	/* Our reference keeps the local copy (see the load). */
	if (local)
		return ramster_local_load(entry, page);
	ret = ramster_remote_read_now(ctx->tree, entry, page);
	if (!ret)
		return 0;
	/* Fetched home meanwhile, its remote copies invalidated? */
	spin_lock(&ctx->tree->lock);
	local = entry->flags & RAMSTER_ENTRY_LOCAL;
	spin_unlock(&ctx->tree->lock);
	return local ? ramster_local_load(entry, page) : ret;
}

/**
 * ramster_write_back - write an entry back to its swap slot
 * @tree: the entry's tree
 * @entry: the entry; the caller's reference is dropped
 * @remote: read it from a holder if it has no local copy (eviction,
 *	which empties the local pool, does not)
 *
 * Sleeps; runs under memalloc_noio_save() (see the top).  Once the write
 * is started the entry leaves the index, its copies freed as by an
 * invalidate; an I/O error is then the device's, as for any swap write.
 *
 * Return: 0 when the write is started; -EEXIST when the slot is busy
 * (its page is in the swap cache: try later); -ENOENT when the entry is
 * no longer the slot's or the area is going; -ENOMEM when no memory could
 * be had and the node itself is short (end the pass); -EAGAIN when not
 * now, but other slots may do (no memory for a cgroup at its limit, the
 * node not short; or no holder in reach); another negative errno when
 * no copy could be read.
 */
int ramster_write_back(struct ramster_tree *tree, struct ramster_entry *entry,
		       bool remote)
{
	struct ramster_writeback_ctx ctx = {
		.tree = tree, .entry = entry, .remote = remote,
	};
	unsigned int noio;
	int ret;

	noio = memalloc_noio_save();
	ret = frontswap_writeback(tree->type, entry->offset,
				  RAMSTER_WRITEBACK_GFP,
				  ramster_writeback_fill, &ctx);
	memalloc_noio_restore(noio);
	if (ret == -ENOMEM) {
		ramster_stat_inc(RAMSTER_STAT_WRITEBACK_NOMEM);
		/* One cgroup's failure: this slot only (see the top). */
		if (!ramster_writeback_node_short())
			ret = -EAGAIN;
	}
	spin_lock(&tree->lock);
	if (!ret && ramster_index_lookup(tree, entry->offset) == entry) {
		/* The device has the page: forget ours, as an invalidate. */
		ramster_index_erase(tree, entry);
		ramster_entry_put(tree, entry);
	}
	ramster_entry_put(tree, entry);
	spin_unlock(&tree->lock);
	return ret;
}

/*
 * Pages in a row not written before a pass gives up: no holder produced
 * them (no answer, "not now" after retries), no memory for the swap cache
 * page (-EAGAIN: the node is not short itself, see the top), or the
 * slot was freed meanwhile (-ENOENT, rare for an entry just found).  Busy
 * slots (-EEXIST) do not count.
 */
#define RAMSTER_WRITEBACK_MISSES	64

/* Has @cursor come to @start (the same type, at or past its offset)? */
static bool
ramster_writeback_cursor_reached(const struct ramster_writeback_cursor *cursor,
				 const struct ramster_writeback_cursor *start)
{
	return cursor->type > start->type ||
	       (cursor->type == start->type && cursor->offset >= start->offset);
}

/**
 * ramster_write_back_held - write pages a holder has to the swap device
 * @holder: the holder (RAMSTER_NO_NODE: any)
 * @max: most pages to write
 * @cursor: where to go on from; a caller's passes share one, zeroed at
 *	first, so that slots that stay busy, or whose cgroup has no memory,
 *	are not met first again and again; a pass that meets the end goes
 *	on from the beginning up to where it started (the entry that
 *	straddles that point may be tried twice), and past the end the next
 *	pass starts over
 *
 * For a recall or leaving whose pages cannot come home: remote-only
 * pages (one with a local copy only forgets its remote ones: remote.c's
 * fetch home) are fetched from a live holder into the swap cache and
 * written to their slots, then every copy is invalidated.  Counted in
 * recall_written_back.
 *
 * Return: how many writes were started; 0 at the end of the trees or
 * when no holder produced pages any more.
 */
unsigned long ramster_write_back_held(u8 holder, unsigned long max,
				      struct ramster_writeback_cursor *cursor)
{
	unsigned int misses = 0;
	unsigned long done = 0;
	struct ramster_writeback_cursor start;
	struct ramster_entry *entry;
	struct ramster_tree *tree;
	bool second = false;
	int ret;

	/* The last pass reached the end: start over. */
	if (cursor->type >= MAX_SWAPFILES) {
		cursor->type = 0;
		cursor->offset = 0;
	}
	start = *cursor;
again:
	for (; cursor->type < MAX_SWAPFILES; cursor->type++, cursor->offset = 0) {
		tree = READ_ONCE(ramster_writeback_trees[cursor->type]);
		while (tree && done < max &&
		       misses < RAMSTER_WRITEBACK_MISSES &&
		       !ramster_should_stop()) {
			/* The second walk ends where the first began. */
			if (second && ramster_writeback_cursor_reached(cursor,
								       &start))
				goto out;
			entry = ramster_remote_next(tree, cursor->offset,
						    holder, NULL);
			if (!entry)
				break;
			cursor->offset = entry->offset + 1;
			ret = ramster_write_back(tree, entry, true);
			if (!ret) {
				done++;
				misses = 0;
			} else if (ret == -ENOMEM) {
				goto out;
			} else if (ret != -EEXIST) {
				misses++;
			}
			cond_resched();
		}
		if (done >= max || misses >= RAMSTER_WRITEBACK_MISSES ||
		    ramster_should_stop())
			break;
	}
	/* Started past the beginning and met the end: the rest once. */
	if (cursor->type >= MAX_SWAPFILES && !second &&
	    (start.type || start.offset)) {
		cursor->type = 0;
		cursor->offset = 0;
		second = true;
		goto again;
	}
out:
	ramster_stat_add(RAMSTER_STAT_RECALL_WRITTEN_BACK, done);
	return done;
}

/* @trees: the per swap type trees (main.c), which outlive every caller. */
void ramster_writeback_init(struct ramster_tree **trees)
{
	ramster_writeback_trees = trees;
}
