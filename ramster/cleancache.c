// SPDX-License-Identifier: GPL-2.0
/*
 * cleancache.c - the ephemeral pool: ramster as a cleancache backend
 *
 * Clean page cache pages evicted from a filesystem that opts in (ext4)
 * are kept here compressed, so that reading one again costs a
 * decompression instead of a device read.  They are ephemeral: the
 * device has them, so any of them may be dropped at any time, and they
 * are, oldest first:
 *  - when a swap page needs the room: every frontswap store calls
 *    ramster_clean_make_room() before it checks the pool limit, so a swap
 *    page is never refused to keep a clean page;
 *  - when a newer clean page needs room within the clean pages' share
 *    (cleancache_percent of RAM, and what the swap pages leave of
 *    max_pool_percent);
 *  - under memory pressure, through a shrinker, as the page cache itself
 *    gives memory back: a clean page costs a device read, no more;
 *  - at rmmod: clean pages pin nothing, the module unloads without them.
 *
 * Remote copies.  With clean_remote=Y, a worker copies the oldest clean
 * pages to peers as ephemeral pages (ephemeral.c) while the pool is above
 * clean_remote_percent of its room.  An acknowledged copy makes the entry
 * local and remote at once (the data of a generation never changes), so
 * the eviction above stays atomic and immediate: an evicted entry that
 * has a remote copy only loses its data and goes to the young end of a
 * second LRU, of stubs (remote-only, a small charge); one without is
 * dropped.  Stubs go, oldest first, when they use more than a quarter of
 * the room, or when there is no data left to evict.  A get of a
 * remote-only entry (get_page may sleep: it runs on the read paths, with
 * no spinlock held) fetches the data from the peer with a short timeout;
 * any failure is a miss and unlinks the entry, so the next read goes to
 * the disk.  Peers may drop ephemeral pages whenever they like.  When an
 * entry with a remote copy is unlinked for any reason, it waits on a
 * list for the worker to send the peer an INVALIDATE; if that is lost,
 * the peer keeps a page nobody will ask for (a generation is never
 * reused), until it drops it.
 *
 * A page is named by (pool, file key, index), a pool per filesystem, and
 * each kept version by a generation.  Coherency, after the rules of
 * Documentation/mm/cleancache.rst:
 *  1. A put replaces the older copy of its page, and a put that is
 *     refused drops it: a get never returns the first of two puts.
 *  2. A get takes a reference to the entry, decompresses outside the lock
 *     and succeeds only if the entry, that generation, is still in the
 *     tree afterwards.  An invalidation or a newer put that raced with it
 *     unlinked the entry: the get then fails (a miss is always allowed),
 *     and never returns the version that was invalidated.
 *  3. A get from a private pool is exclusive: the entry leaves with it.
 *
 * Context.  put_page and invalidate_page run under the page cache's
 * i_pages lock with interrupts disabled, from reclaim too.  So nothing
 * here sleeps in them: one spinlock, taken with interrupts disabled
 * everywhere (i_pages is taken in interrupts); the compressed data is
 * kmalloc'ed without reclaim (CLEAN_GFP), not in zsmalloc, whose locks
 * the swap paths take with interrupts enabled and which must not nest
 * inside an interrupt-safe lock; and the compressors are per-CPU ones
 * used with interrupts disabled, not compress.c's, which sleep on a
 * mutex.
 *
 * Lock order: i_pages (the caller's) -> ramster_clean.lock -> slab, and
 * the workqueue's lock (queue_work() from under it).  Nothing touches the
 * network under ramster_clean.lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cleancache.h>
#include <linux/crypto.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uuid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ramster.h"
#include "cleancache.h"
#include "compress.h"
#include "ephemeral.h"
#include "index.h"
#include "local.h"
#include "policy.h"
#include "stats.h"

/*
 * Allocations in put_page, under i_pages and from reclaim: no sleep, no
 * reclaim but waking kswapd, and never from the emergency reserves even
 * in reclaim (PF_MEMALLOC): those are for swap-out and the links that
 * carry it, and a clean page can always be refused.
 */
#define CLEAN_GFP	(__GFP_NOWARN | __GFP_KSWAPD_RECLAIM | __GFP_NOMEMALLOC)

/*
 * Entries unlinked per lock hold (with interrupts disabled) when many go:
 * a whole pool or file, or the room given to swap pages.
 */
#define CLEAN_DROP_BATCH	256
/* Oldest entries a put may evict to fit; beyond that it is refused. */
#define CLEAN_PUT_EVICT_MAX	32
/* Remote copies: PUTs in flight, entries looked at per pick, per run. */
#define CLEAN_REMOTE_WINDOW	32
#define CLEAN_REMOTE_SCAN	256
#define CLEAN_REMOTE_BATCH	512

static bool cleancache = true;
module_param(cleancache, bool, 0444);
MODULE_PARM_DESC(cleancache,
		 "keep clean page cache pages too, as a cleancache backend (default Y)");

static unsigned int cleancache_percent = 20;
static struct ramster_uint_range cleancache_percent_range = {
	.var = &cleancache_percent, .min = 1, .max = 100,
};
module_param_cb(cleancache_percent, &ramster_uint_range_ops,
		&cleancache_percent_range, 0644);
MODULE_PARM_DESC(cleancache_percent,
		 "clean pages' limit in percent of RAM, within what swap pages leave of max_pool_percent, 1-100 (default 20)");

static bool clean_remote = true;
module_param(clean_remote, bool, 0644);
MODULE_PARM_DESC(clean_remote,
		 "copy the oldest clean pages to peers as ephemeral pages, and get them back from there (default Y)");

static unsigned int clean_remote_percent = 50;
static struct ramster_uint_range clean_remote_percent_range = {
	.var = &clean_remote_percent, .min = 0, .max = 100,
};
module_param_cb(clean_remote_percent, &ramster_uint_range_ops,
		&clean_remote_percent_range, 0644);
MODULE_PARM_DESC(clean_remote_percent,
		 "copy clean pages to peers while they use more than this percent of their room, 0-100 (default 50)");

static unsigned int clean_remote_get_ms = 100;
static struct ramster_uint_range clean_remote_get_ms_range = {
	.var = &clean_remote_get_ms, .min = 1, .max = 10000,
};
module_param_cb(clean_remote_get_ms, &ramster_uint_range_ops,
		&clean_remote_get_ms_range, 0644);
MODULE_PARM_DESC(clean_remote_get_ms,
		 "a clean page not back from its peer within this many ms is a miss, read from the disk, 1-10000 (default 100)");

/**
 * struct ramster_clean_pool - the pool of one filesystem
 * @shared: opened by init_shared_fs: gets leave the page for the others
 * @users: mounts using it (a shared pool may have several)
 * @uuid: a shared pool's name
 */
struct ramster_clean_pool {
	bool shared;
	unsigned int users;
	uuid_t uuid;
};

/**
 * struct ramster_clean_entry - one clean page kept
 * @rbnode: in ramster_clean.tree, by (pool, key, index); empty once
 *	unlinked
 * @lru: in ramster_clean.lru (or .stubs if remote-only), oldest first,
 *	while linked; once unlinked, in ramster_clean.dead if it has a
 *	remote copy
 * @pool: pool id
 * @key: the file's key
 * @index: the page's index in the file
 * @gen: the version: ramster_clean.gen at its put
 * @refs: the tree's reference plus one per get in progress
 * @length: compressed length, 0 for a same-filled page
 * @value: the repeated word of a same-filled page
 * @data: the compressed page; NULL for a same-filled one (@length 0) and
 *	for a remote-only one (@length > 0: the data is on @holder only)
 * @charge: bytes counted for it in ramster_clean.bytes
 * @holder: the node with a copy, RAMSTER_NO_NODE if none
 * @sending: a PUT of it is in flight (it holds a reference)
 * @crc: crc32c of the data, as the holder must return it
 * @hash: the data's keyed hash (ephemeral.c), as the holder must return it
 */
struct ramster_clean_entry {
	struct rb_node rbnode;
	struct list_head lru;
	int pool;
	struct cleancache_filekey key;
	pgoff_t index;
	u64 gen;
	unsigned int refs;
	unsigned int length;
	unsigned long value;
	void *data;
	unsigned int charge;
	u8 holder;
	bool sending;
	u32 crc;
	u64 hash;
};

/**
 * struct ramster_clean_comp - one CPU's compressor for clean pages
 * @tfm: the module's compressor (compressor=)
 * @buf: output buffer of two pages (some compressors overrun one)
 *
 * Used only with interrupts disabled on its CPU, which makes it the one
 * user: no lock.
 */
struct ramster_clean_comp {
	struct crypto_comp *tfm;
	u8 *buf;
};

/**
 * struct ramster_clean_state - the ephemeral pool
 * @lock: protects everything below; taken with interrupts disabled
 * @tree: entries by (pool, key, index)
 * @lru: entries with their data here, oldest first
 * @stubs: remote-only entries, oldest first
 * @nr_stubs: how many
 * @pools: pool id -> struct ramster_clean_pool
 * @bytes: memory the entries use (their data and themselves)
 * @gen: generation of the last put
 * @limits: the module's pool limits (main.c)
 * @comps: per-CPU compressors
 * @entry_cache: where entries come from
 * @shrinker: gives clean pages back under memory pressure
 * @registered: registered with cleancache (cleancache=Y)
 * @dead: unlinked entries whose remote copy the holder should drop
 * @remote_work: sends copies and INVALIDATEs (process context)
 * @remote_inflight: PUTs in flight
 * @remote_idle: woken when @remote_inflight drops
 * @stopping: the module is unloading: no more PUTs
 * @remote_rest: jiffies until which the worker does not look for pages
 *	to copy (it found none worth it)
 */
struct ramster_clean_state {
	spinlock_t lock;		/* see above */
	struct rb_root tree;
	struct list_head lru;
	struct list_head stubs;
	unsigned long nr_stubs;
	struct idr pools;
	u64 bytes;
	u64 gen;
	const struct ramster_local_limits *limits;
	struct ramster_clean_comp __percpu *comps;
	struct kmem_cache *entry_cache;
	struct shrinker shrinker;
	bool registered;
	struct list_head dead;
	struct work_struct remote_work;
	atomic_t remote_inflight;
	wait_queue_head_t remote_idle;
	bool stopping;
	unsigned long remote_rest;
};

static void ramster_clean_remote_fn(struct work_struct *work);

static struct ramster_clean_state ramster_clean = {
	.lock = __SPIN_LOCK_UNLOCKED(ramster_clean.lock),
	.tree = RB_ROOT,
	.lru = LIST_HEAD_INIT(ramster_clean.lru),
	.stubs = LIST_HEAD_INIT(ramster_clean.stubs),
	.dead = LIST_HEAD_INIT(ramster_clean.dead),
	.remote_work = __WORK_INITIALIZER(ramster_clean.remote_work,
					  ramster_clean_remote_fn),
	.remote_inflight = ATOMIC_INIT(0),
	.remote_idle = __WAIT_QUEUE_HEAD_INITIALIZER(ramster_clean.remote_idle),
};

/*********************************
 * entries (ramster_clean.lock held)
 *********************************/
static int ramster_clean_entry_cmp(const struct ramster_clean_entry *e,
				   int pool, const struct cleancache_filekey *key,
				   pgoff_t index)
{
	return ramster_clean_cmp(e->pool, &e->key, e->index, pool, key, index);
}

/* The first entry at or after (pool, key, index), or NULL. */
static struct ramster_clean_entry *
ramster_clean_lower_bound(int pool, const struct cleancache_filekey *key,
			  pgoff_t index)
{
	struct rb_node *node = ramster_clean.tree.rb_node;
	struct ramster_clean_entry *e, *found = NULL;

	while (node) {
		e = rb_entry(node, struct ramster_clean_entry, rbnode);
		if (ramster_clean_entry_cmp(e, pool, key, index) >= 0) {
			found = e;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

static struct ramster_clean_entry *
ramster_clean_lookup(int pool, const struct cleancache_filekey *key,
		     pgoff_t index)
{
	struct ramster_clean_entry *e;

	e = ramster_clean_lower_bound(pool, key, index);
	if (e && ramster_clean_entry_cmp(e, pool, key, index) == 0)
		return e;
	return NULL;
}

static struct ramster_clean_entry *
ramster_clean_next(struct ramster_clean_entry *e)
{
	struct rb_node *node = rb_next(&e->rbnode);

	return node ? rb_entry(node, struct ramster_clean_entry, rbnode) : NULL;
}

/* Link @new; there is no entry with its (pool, key, index). */
static void ramster_clean_link(struct ramster_clean_entry *new)
{
	struct rb_node **link = &ramster_clean.tree.rb_node, *parent = NULL;
	struct ramster_clean_entry *e;

	while (*link) {
		parent = *link;
		e = rb_entry(parent, struct ramster_clean_entry, rbnode);
		if (ramster_clean_entry_cmp(e, new->pool, &new->key,
					    new->index) > 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&new->rbnode, parent, link);
	rb_insert_color(&new->rbnode, &ramster_clean.tree);
	list_add_tail(&new->lru, &ramster_clean.lru);
	new->gen = ++ramster_clean.gen;
	ramster_clean.bytes += new->charge;
	ramster_stat_inc(RAMSTER_STAT_CLEAN_PAGES);
	ramster_stat_set(RAMSTER_STAT_CLEAN_POOL_SIZE, ramster_clean.bytes);
}

static bool ramster_clean_linked(const struct ramster_clean_entry *e)
{
	return !RB_EMPTY_NODE(&e->rbnode);
}

/* Its data is on its holder only. */
static bool ramster_clean_remote_only(const struct ramster_clean_entry *e)
{
	return !e->data && e->length;
}

/* The worker has copies to send, or INVALIDATEs (any context). */
static void ramster_clean_remote_kick(void)
{
	if (!READ_ONCE(ramster_clean.stopping))
		queue_work(system_unbound_wq, &ramster_clean.remote_work);
}

static void ramster_clean_entry_free(struct ramster_clean_entry *e)
{
	kfree(e->data);
	kmem_cache_free(ramster_clean.entry_cache, e);
}

static void ramster_clean_entry_put(struct ramster_clean_entry *e)
{
	if (--e->refs == 0)
		ramster_clean_entry_free(e);
}

/*
 * Take @e out of the pool; a get holding it frees it when it is done.
 * If a node has a copy, the tree's reference goes to the dead list, for
 * the worker to tell that node.
 */
static void ramster_clean_unlink(struct ramster_clean_entry *e)
{
	rb_erase(&e->rbnode, &ramster_clean.tree);
	RB_CLEAR_NODE(&e->rbnode);
	list_del(&e->lru);
	ramster_clean.bytes -= e->charge;
	ramster_stat_dec(RAMSTER_STAT_CLEAN_PAGES);
	ramster_stat_set(RAMSTER_STAT_CLEAN_POOL_SIZE, ramster_clean.bytes);
	if (ramster_clean_remote_only(e)) {
		ramster_clean.nr_stubs--;
		ramster_stat_dec(RAMSTER_STAT_CLEAN_REMOTE_PAGES);
	}
	if (e->holder == RAMSTER_NO_NODE) {
		ramster_clean_entry_put(e);
		return;
	}
	/* Only its name is needed now, unless a get or a send reads it. */
	if (e->refs == 1) {
		kfree(e->data);
		e->data = NULL;
	}
	list_add_tail(&e->lru, &ramster_clean.dead);
	ramster_clean_remote_kick();
}

/*
 * Evict an entry with data: if a node has a copy and nobody reads it,
 * only its data goes (it becomes the youngest stub); else all of it (and
 * all of it with clean_remote=N: a stub would always miss).
 */
static void ramster_clean_evict(struct ramster_clean_entry *e)
{
	unsigned int own = kmem_cache_size(ramster_clean.entry_cache);

	if (e->holder == RAMSTER_NO_NODE || !e->data || e->refs != 1 ||
	    !READ_ONCE(clean_remote)) {
		ramster_clean_unlink(e);
		return;
	}
	kfree(e->data);
	e->data = NULL;
	ramster_clean.bytes -= e->charge - own;
	e->charge = own;
	list_move_tail(&e->lru, &ramster_clean.stubs);
	ramster_clean.nr_stubs++;
	ramster_stat_inc(RAMSTER_STAT_CLEAN_REMOTE_PAGES);
	ramster_stat_set(RAMSTER_STAT_CLEAN_POOL_SIZE, ramster_clean.bytes);
}

/* Do the stubs go before the data (they use over a quarter of @room)? */
static bool ramster_clean_stubs_first(u64 room)
{
	u64 stub_bytes = (u64)ramster_clean.nr_stubs *
			 kmem_cache_size(ramster_clean.entry_cache);

	return !list_empty(&ramster_clean.stubs) &&
	       (list_empty(&ramster_clean.lru) || stub_bytes > room / 4);
}

/*
 * Evict the oldest entries, at most @max, until the pool fits in @room:
 * data first (ramster_clean_evict()), the oldest stubs when they use too
 * much of the room themselves.
 */
static unsigned long ramster_clean_drop_oldest(u64 room, unsigned long max)
{
	struct ramster_clean_entry *e;
	unsigned long dropped = 0;

	while (ramster_clean.bytes > room && dropped < max) {
		if (ramster_clean_stubs_first(room)) {
			e = list_first_entry(&ramster_clean.stubs,
					     struct ramster_clean_entry, lru);
			ramster_clean_unlink(e);
		} else if (!list_empty(&ramster_clean.lru)) {
			e = list_first_entry(&ramster_clean.lru,
					     struct ramster_clean_entry, lru);
			ramster_clean_evict(e);
		} else {
			break;
		}
		dropped++;
	}
	return dropped;
}

/* Unlink up to @max entries of @pool (and @key, unless NULL). */
static unsigned long ramster_clean_drop(int pool,
					const struct cleancache_filekey *key,
					unsigned long max)
{
	static const struct cleancache_filekey first_key;
	struct ramster_clean_entry *e, *next;
	unsigned long dropped = 0;

	e = ramster_clean_lower_bound(pool, key ? key : &first_key, 0);
	while (e && dropped < max && e->pool == pool &&
	       (!key || !memcmp(&e->key, key, sizeof(*key)))) {
		next = ramster_clean_next(e);
		ramster_clean_unlink(e);
		dropped++;
		e = next;
	}
	ramster_stat_add(RAMSTER_STAT_CLEAN_INVALIDATES, dropped);
	return dropped;
}

/* The room clean pages have now (ramster_clean_room()). */
static u64 ramster_clean_room_now(void)
{
	return ramster_clean_room(totalram_pages(), ramster_local_pool_pages(),
				  ramster_clean.limits->max_pool_percent,
				  READ_ONCE(cleancache_percent));
}

/**
 * ramster_clean_make_room - clean pages give way to a swap page
 * @limits: the module's pool limits
 *
 * Called by every frontswap store before it checks the pool limit: the
 * oldest clean pages go until the swap pages' pool, one page larger, and
 * the clean pages fit in max_pool_percent together.
 */
void ramster_clean_make_room(const struct ramster_local_limits *limits)
{
	unsigned long flags, dropped;
	u64 room;

	/* Every swap store comes here: nothing to compute without clean pages. */
	if (!READ_ONCE(ramster_clean.bytes))
		return;
	room = ramster_clean_room(totalram_pages(),
				  ramster_local_pool_pages() + 1,
				  limits->max_pool_percent, 100);
	if (READ_ONCE(ramster_clean.bytes) <= room)
		return;
	/* A batch per hold: interrupts come back between them. */
	do {
		spin_lock_irqsave(&ramster_clean.lock, flags);
		dropped = ramster_clean_drop_oldest(room, CLEAN_DROP_BATCH);
		spin_unlock_irqrestore(&ramster_clean.lock, flags);
		ramster_stat_add(RAMSTER_STAT_CLEAN_EVICTED_FOR_SWAP, dropped);
	} while (dropped == CLEAN_DROP_BATCH);
}

/*
 * What the shrinker can free: the entries with data (about half a page
 * each); a stub is a small fraction of a page and goes only when no data
 * is left, so that memory pressure does not forget what peers hold.
 */
static unsigned long ramster_clean_count(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	unsigned long stubs = READ_ONCE(ramster_clean.nr_stubs);
	u64 pages = ramster_stat_read(RAMSTER_STAT_CLEAN_PAGES);

	return (pages > stubs ? pages - stubs : 0) + stubs / 32;
}

static unsigned long ramster_clean_scan(struct shrinker *shrinker,
					struct shrink_control *sc)
{
	struct ramster_clean_entry *e;
	unsigned long flags, freed;

	spin_lock_irqsave(&ramster_clean.lock, flags);
	for (freed = 0; freed < sc->nr_to_scan; freed++) {
		e = list_first_entry_or_null(&ramster_clean.lru,
					     struct ramster_clean_entry, lru);
		if (e) {
			ramster_clean_evict(e);
			continue;
		}
		e = list_first_entry_or_null(&ramster_clean.stubs,
					     struct ramster_clean_entry, lru);
		if (!e)
			break;
		ramster_clean_unlink(e);
	}
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	ramster_stat_add(RAMSTER_STAT_CLEAN_SHRUNK, freed);
	return freed ?: SHRINK_STOP;
}

/*********************************
 * compression (interrupts disabled)
 *********************************/
/*
 * Make an entry for @page: same-filled, or compressed into memory of its
 * own.  Returns NULL, with the reason counted, if the page is refused.
 */
static struct ramster_clean_entry *ramster_clean_pack(struct page *page)
{
	const struct ramster_local_limits *limits = ramster_clean.limits;
	struct ramster_clean_comp *comp;
	struct ramster_clean_entry *e;
	unsigned int dlen = 2 * PAGE_SIZE;
	unsigned long value;
	void *src;
	bool same;
	int ret;

	lockdep_assert_irqs_disabled();
	e = kmem_cache_zalloc(ramster_clean.entry_cache, CLEAN_GFP);
	if (!e) {
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REJECT_ALLOC_FAIL);
		return NULL;
	}
	RB_CLEAR_NODE(&e->rbnode);
	e->refs = 1;
	e->holder = RAMSTER_NO_NODE;
	e->charge = kmem_cache_size(ramster_clean.entry_cache);

	src = kmap_local_page(page);
	same = limits->same_filled && ramster_same_filled(src, &value);
	if (same) {
		e->value = value;
		goto out_unmap;
	}
	comp = this_cpu_ptr(ramster_clean.comps);
	ret = crypto_comp_compress(comp->tfm, src, PAGE_SIZE, comp->buf, &dlen);
	/* Kept in a kmalloc object: what it really takes must save memory. */
	if (ret || ramster_compressed_too_big(dlen,
					      limits->max_compressed_percent) ||
	    kmalloc_size_roundup(dlen) >= PAGE_SIZE) {
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REJECT_COMPRESS_POOR);
		goto err_free;
	}
	e->data = kmemdup(comp->buf, dlen, CLEAN_GFP);
	if (!e->data) {
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REJECT_ALLOC_FAIL);
		goto err_free;
	}
	e->length = dlen;
	e->charge += ksize(e->data);
out_unmap:
	kunmap_local(src);
	return e;

err_free:
	kunmap_local(src);
	ramster_clean_entry_free(e);
	return NULL;
}

/*
 * Fill @page from @data (@length bytes compressed), or with @value if
 * @length is 0; 0 or -EIO if the data is not a page.
 */
static int ramster_clean_unpack(const void *data, unsigned int length,
				unsigned long value, struct page *page)
{
	struct ramster_clean_comp *comp;
	unsigned int dlen = PAGE_SIZE;
	unsigned long flags;
	void *dst;
	int ret = 0;

	dst = kmap_local_page(page);
	if (!length) {
		ramster_fill_page(dst, value);
	} else {
		local_irq_save(flags);
		comp = this_cpu_ptr(ramster_clean.comps);
		ret = crypto_comp_decompress(comp->tfm, data, length,
					     dst, &dlen);
		local_irq_restore(flags);
		if (ret || dlen != PAGE_SIZE)
			ret = -EIO;
	}
	kunmap_local(dst);
	return ret;
}

/*********************************
 * remote copies (process context)
 *********************************/
/* Under the lock: should the worker send copies now? */
static bool ramster_clean_remote_due(u64 room)
{
	return READ_ONCE(clean_remote) &&
	       ramster_clean.bytes > div_u64(room * READ_ONCE(clean_remote_percent), 100) &&
	       atomic_read(&ramster_clean.remote_inflight) < CLEAN_REMOTE_WINDOW &&
	       time_after_eq(jiffies, ramster_clean.remote_rest);
}

/**
 * struct ramster_clean_send - a copy on its way to a peer
 * @put: the PUT
 * @e: the entry, referenced (and marked sending) until the reply
 */
struct ramster_clean_send {
	struct ramster_eph_put put;
	struct ramster_clean_entry *e;
};

/* From a link thread: the peer has the copy now, or not. */
static void ramster_clean_send_done(struct ramster_eph_put *put, int err)
{
	struct ramster_clean_send *send = container_of(put,
					struct ramster_clean_send, put);
	struct ramster_clean_entry *e = send->e;
	unsigned long flags;

	spin_lock_irqsave(&ramster_clean.lock, flags);
	e->sending = false;
	if (err) {
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REMOTE_PUT_FAILED);
	} else {
		e->holder = put->req.node;
		e->crc = put->crc;
		e->hash = put->hash;
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REMOTE_PUTS);
		/* Unlinked meanwhile: the copy is nobody's, tell the peer. */
		if (!ramster_clean_linked(e)) {
			e->refs++;
			list_add_tail(&e->lru, &ramster_clean.dead);
		}
	}
	ramster_clean_entry_put(e);
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	kfree(send);
	/*
	 * Room in the window: more may go (a refusal backs its node off,
	 * ephemeral.c).  Kicked before the count drops, which is what
	 * unloading waits for: no work is queued after it.
	 */
	if (!err)
		ramster_clean_remote_kick();
	if (atomic_dec_and_test(&ramster_clean.remote_inflight))
		wake_up(&ramster_clean.remote_idle);
}

/* Under the lock: the oldest entry worth a copy, referenced, or NULL. */
static struct ramster_clean_entry *ramster_clean_remote_pick(void)
{
	struct ramster_clean_entry *e;
	unsigned int scanned = 0;

	if (!ramster_clean_remote_due(ramster_clean_room_now()))
		return NULL;
	list_for_each_entry(e, &ramster_clean.lru, lru) {
		if (++scanned > CLEAN_REMOTE_SCAN)
			break;
		if (e->holder != RAMSTER_NO_NODE || e->sending || !e->data)
			continue;
		e->sending = true;
		e->refs++;
		return e;
	}
	/* The oldest have copies (or are on their way): rest a while. */
	ramster_clean.remote_rest = jiffies + HZ / 10;
	return NULL;
}

/* Send a copy of the oldest entry worth one; false when there is none. */
static bool ramster_clean_remote_send_one(void)
{
	struct ramster_clean_send *send;
	struct ramster_clean_entry *e;
	unsigned long flags;
	u8 node;
	int ret;

	if (ramster_eph_pick(&node))
		return false;
	send = kzalloc(sizeof(*send), GFP_NOIO | __GFP_NOWARN);
	if (!send)
		return false;
	spin_lock_irqsave(&ramster_clean.lock, flags);
	e = ramster_clean_remote_pick();
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	if (!e) {
		kfree(send);
		return false;
	}
	send->e = e;
	send->put.gen = e->gen;
	send->put.done = ramster_clean_send_done;
	atomic_inc(&ramster_clean.remote_inflight);
	/* Our reference keeps @e->data: it is freed only with the last one. */
	ret = ramster_eph_put(node, &send->put, e->data, e->length);
	if (!ret)
		return true;
	ramster_stat_inc(RAMSTER_STAT_CLEAN_REMOTE_PUT_FAILED);
	spin_lock_irqsave(&ramster_clean.lock, flags);
	e->sending = false;
	ramster_clean_entry_put(e);
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	kfree(send);
	if (atomic_dec_and_test(&ramster_clean.remote_inflight))
		wake_up(&ramster_clean.remote_idle);
	return false;
}

/*
 * Tell the holders of the dead entries (at most @max) to drop their
 * copies, in INVALIDATEs of up to RAMSTER_WIRE_MAX_INVALIDATE names per
 * node, and free the entries.  Returns how many were done.
 */
static unsigned int ramster_clean_remote_bury(unsigned int max)
{
	static u64 gens[RAMSTER_WIRE_MAX_INVALIDATE];	/* the worker's */
	struct ramster_clean_entry *e, *tmp;
	unsigned int n = 0, done = 0, scanned = 0;
	unsigned long flags;
	LIST_HEAD(batch);
	u8 node;

	spin_lock_irqsave(&ramster_clean.lock, flags);
	if (list_empty(&ramster_clean.dead)) {
		spin_unlock_irqrestore(&ramster_clean.lock, flags);
		return 0;
	}
	node = list_first_entry(&ramster_clean.dead, struct ramster_clean_entry,
				lru)->holder;
	/* A bounded look with interrupts off: another node's wait longer. */
	list_for_each_entry_safe(e, tmp, &ramster_clean.dead, lru) {
		if (++scanned > CLEAN_DROP_BATCH * 4)
			break;
		if (e->holder != node)
			continue;
		list_move_tail(&e->lru, &batch);
		if (++n == min_t(unsigned int, max, RAMSTER_WIRE_MAX_INVALIDATE))
			break;
	}
	spin_unlock_irqrestore(&ramster_clean.lock, flags);

	list_for_each_entry(e, &batch, lru)
		gens[done++] = e->gen;
	/* Lost (link down, no memory): the peer drops them some day. */
	if (!ramster_eph_invalidate(node, gens, done))
		ramster_stat_add(RAMSTER_STAT_CLEAN_REMOTE_INVALIDATES, done);
	spin_lock_irqsave(&ramster_clean.lock, flags);
	list_for_each_entry_safe(e, tmp, &batch, lru) {
		list_del(&e->lru);
		ramster_clean_entry_put(e);
	}
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	return done;
}

static void ramster_clean_remote_fn(struct work_struct *work)
{
	unsigned int done = 0, n;

	while (done < CLEAN_REMOTE_BATCH) {
		n = ramster_clean_remote_bury(CLEAN_REMOTE_BATCH - done);
		if (!n)
			break;
		done += n;
		cond_resched();
	}
	while (done < CLEAN_REMOTE_BATCH && !READ_ONCE(ramster_clean.stopping) &&
	       ramster_clean_remote_send_one()) {
		done++;
		cond_resched();
	}
	/* More to do, maybe: again, after what is queued already. */
	if (done >= CLEAN_REMOTE_BATCH)
		ramster_clean_remote_kick();
}

/* Unloading: no more copies; wait for those in flight, then for work. */
static void ramster_clean_remote_stop(void)
{
	unsigned long flags;

	/* Under the lock: every kick from an unlink sees it, or came before. */
	spin_lock_irqsave(&ramster_clean.lock, flags);
	WRITE_ONCE(ramster_clean.stopping, true);
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	cancel_work_sync(&ramster_clean.remote_work);
	/* Each PUT ends with its reply, its link going down or a timeout. */
	if (!wait_event_timeout(ramster_clean.remote_idle,
				!atomic_read(&ramster_clean.remote_inflight),
				60 * HZ)) {
		pr_warn("waiting for %d clean page copies in flight\n",
			atomic_read(&ramster_clean.remote_inflight));
		wait_event(ramster_clean.remote_idle,
			   !atomic_read(&ramster_clean.remote_inflight));
	}
	/* A reply may have queued the work before it saw @stopping. */
	cancel_work_sync(&ramster_clean.remote_work);
}

/*********************************
 * cleancache ops
 *********************************/
static int ramster_clean_open(bool shared, uuid_t *uuid)
{
	struct ramster_clean_pool *pool, *p;
	unsigned long flags;
	int id;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	pool->shared = shared;
	pool->users = 1;
	if (uuid)
		uuid_copy(&pool->uuid, uuid);

	idr_preload(GFP_KERNEL);
	spin_lock_irqsave(&ramster_clean.lock, flags);
	if (shared) {
		idr_for_each_entry(&ramster_clean.pools, p, id) {
			if (p->shared && uuid_equal(&p->uuid, uuid)) {
				p->users++;
				goto out_unlock;
			}
		}
	}
	/* Cyclic: an id is not given again soon after its pool closed. */
	id = idr_alloc_cyclic(&ramster_clean.pools, pool, 0, INT_MAX,
			      GFP_NOWAIT);
	if (id >= 0) {
		pool = NULL;
		ramster_stat_inc(RAMSTER_STAT_CLEAN_POOLS);
	}
out_unlock:
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	idr_preload_end();
	kfree(pool);
	return id;
}

static int ramster_clean_init_fs(size_t pagesize)
{
	if (pagesize != PAGE_SIZE)
		return -EINVAL;
	return ramster_clean_open(false, NULL);
}

static int ramster_clean_init_shared_fs(uuid_t *uuid, size_t pagesize)
{
	if (pagesize != PAGE_SIZE)
		return -EINVAL;
	return ramster_clean_open(true, uuid);
}

/*
 * The data of remote-only @e (referenced), from its holder, into @page.
 * Sleeps.  Return: 0; -ENOENT if the holder no longer has it (or cannot
 * hold ephemeral pages any more); -EAGAIN for a miss that may pass (a
 * timeout, a holder backed off or away, no memory here): the copy may
 * still be good; -EIO if what came back is not the page.
 */
static int ramster_clean_get_remote(struct ramster_clean_entry *e,
				    struct page *page)
{
	void *buf;
	int ret;

	might_sleep();
	if (!READ_ONCE(clean_remote))
		return -ENOENT;
	buf = kmalloc(e->length, GFP_NOIO | __GFP_NOWARN);
	if (!buf)
		return -EAGAIN;
	/* @holder, @crc and @hash were set before the entry lost its data. */
	ret = ramster_eph_get(e->holder, e->gen, buf, e->length, e->crc,
			      e->hash, READ_ONCE(clean_remote_get_ms));
	if (!ret)
		ret = ramster_clean_unpack(buf, e->length, 0, page);
	else if (ret != -ENOENT && ret != -EIO && ret != -EOPNOTSUPP)
		ret = -EAGAIN;
	else if (ret != -EIO)
		ret = -ENOENT;
	kfree(buf);
	return ret;
}

static int ramster_clean_get_page(int pool_id, struct cleancache_filekey key,
				  pgoff_t index, struct page *page)
{
	struct ramster_clean_entry *e, *now;
	struct ramster_clean_pool *pool;
	unsigned long flags;
	bool shared, remote;
	u64 gen;
	int ret;

	spin_lock_irqsave(&ramster_clean.lock, flags);
	pool = idr_find(&ramster_clean.pools, pool_id);
	e = pool ? ramster_clean_lookup(pool_id, &key, index) : NULL;
	if (!e) {
		spin_unlock_irqrestore(&ramster_clean.lock, flags);
		ramster_stat_inc(RAMSTER_STAT_CLEAN_GET_MISSES);
		return -ENOENT;
	}
	e->refs++;
	gen = e->gen;
	shared = pool->shared;
	remote = ramster_clean_remote_only(e);
	spin_unlock_irqrestore(&ramster_clean.lock, flags);

	/* The data of a generation never changes: our reference keeps it. */
	if (remote)
		ret = ramster_clean_get_remote(e, page);
	else
		ret = ramster_clean_unpack(e->data, e->length, e->value, page);

	spin_lock_irqsave(&ramster_clean.lock, flags);
	now = ramster_clean_lookup(pool_id, &key, index);
	if (ret == -EAGAIN) {
		/* Not back from its peer now: a miss; the stub stays. */
		ret = -ENOENT;
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REMOTE_GET_MISSES);
	} else if (ret == -ENOENT) {
		/* Gone from its peer: a miss, and the next read is the disk's. */
		if (ramster_clean_linked(e))
			ramster_clean_unlink(e);
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REMOTE_GET_MISSES);
	} else if (ret) {
		/* Not a page: nobody may get it. */
		if (ramster_clean_linked(e))
			ramster_clean_unlink(e);
		ramster_stat_inc(RAMSTER_STAT_CLEAN_GET_BAD);
	} else if (!now || now->gen != gen) {
		/* Invalidated, or replaced, while we read it. */
		ret = -ESTALE;
		ramster_stat_inc(RAMSTER_STAT_CLEAN_GET_RACED);
	} else {
		if (!shared)
			ramster_clean_unlink(e);
		ramster_stat_inc(RAMSTER_STAT_CLEAN_GETS);
		if (remote)
			ramster_stat_inc(RAMSTER_STAT_CLEAN_REMOTE_GETS);
	}
	ramster_clean_entry_put(e);
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	return ret;
}

static void ramster_clean_put_page(int pool_id, struct cleancache_filekey key,
				   pgoff_t index, struct page *page)
{
	struct ramster_clean_entry *e = NULL, *old;
	unsigned long flags, evicted = 0;
	bool kick = false;
	u64 room;

	local_irq_save(flags);
	room = ramster_clean_room_now();
	if (room)
		e = ramster_clean_pack(page);
	else
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REJECT_FULL);

	spin_lock(&ramster_clean.lock);
	/* Kept or not, the older copy goes: put-put coherency. */
	old = ramster_clean_lookup(pool_id, &key, index);
	if (old) {
		ramster_clean_unlink(old);
		ramster_stat_inc(RAMSTER_STAT_CLEAN_PUTS_REPLACED);
	}
	if (!e)
		goto out_unlock;
	if (!idr_find(&ramster_clean.pools, pool_id) || e->charge > room) {
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REJECT_FULL);
		ramster_clean_entry_free(e);
		goto out_unlock;
	}
	/*
	 * A bounded eviction under i_pages: after a limit was lowered the
	 * excess goes a little per put, and the shrinker and swap stores
	 * take it in batches; a put that still does not fit is refused.
	 */
	evicted = ramster_clean_drop_oldest(room - e->charge,
					    CLEAN_PUT_EVICT_MAX);
	if (ramster_clean.bytes + e->charge > room) {
		ramster_stat_inc(RAMSTER_STAT_CLEAN_REJECT_FULL);
		ramster_clean_entry_free(e);
		goto out_unlock;
	}
	e->pool = pool_id;
	e->key = key;
	e->index = index;
	ramster_clean_link(e);
	ramster_stat_inc(RAMSTER_STAT_CLEAN_PUTS);
	kick = ramster_clean_remote_due(room);
out_unlock:
	spin_unlock(&ramster_clean.lock);
	local_irq_restore(flags);
	ramster_stat_add(RAMSTER_STAT_CLEAN_EVICTED, evicted);
	if (kick)
		ramster_clean_remote_kick();
}

static void ramster_clean_invalidate_page(int pool_id,
					  struct cleancache_filekey key,
					  pgoff_t index)
{
	struct ramster_clean_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&ramster_clean.lock, flags);
	e = ramster_clean_lookup(pool_id, &key, index);
	if (e) {
		ramster_clean_unlink(e);
		ramster_stat_inc(RAMSTER_STAT_CLEAN_INVALIDATES);
	}
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
}

static void ramster_clean_invalidate_inode(int pool_id,
					   struct cleancache_filekey key)
{
	unsigned long flags, dropped;

	/* A batch per hold: a large file does not keep interrupts off. */
	do {
		spin_lock_irqsave(&ramster_clean.lock, flags);
		dropped = ramster_clean_drop(pool_id, &key, CLEAN_DROP_BATCH);
		spin_unlock_irqrestore(&ramster_clean.lock, flags);
	} while (dropped == CLEAN_DROP_BATCH);
}

/* Close a pool (its last user): every page of it goes, then its id. */
static void ramster_clean_invalidate_fs(int pool_id)
{
	struct ramster_clean_pool *pool;
	unsigned long flags;

	spin_lock_irqsave(&ramster_clean.lock, flags);
	pool = idr_find(&ramster_clean.pools, pool_id);
	if (!pool || --pool->users) {
		spin_unlock_irqrestore(&ramster_clean.lock, flags);
		return;
	}
	/* No put can reach it any more (the frontend's promise, and this). */
	idr_remove(&ramster_clean.pools, pool_id);
	ramster_stat_dec(RAMSTER_STAT_CLEAN_POOLS);
	while (ramster_clean_drop(pool_id, NULL, CLEAN_DROP_BATCH)) {
		spin_unlock_irqrestore(&ramster_clean.lock, flags);
		cond_resched();
		spin_lock_irqsave(&ramster_clean.lock, flags);
	}
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	kfree(pool);
}

static const struct cleancache_ops ramster_cleancache_ops = {
	.init_fs = ramster_clean_init_fs,
	.init_shared_fs = ramster_clean_init_shared_fs,
	.get_page = ramster_clean_get_page,
	.put_page = ramster_clean_put_page,
	.invalidate_page = ramster_clean_invalidate_page,
	.invalidate_inode = ramster_clean_invalidate_inode,
	.invalidate_fs = ramster_clean_invalidate_fs,
};

/*********************************
 * init and exit
 *********************************/
static void ramster_clean_free_comps(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ramster_clean_comp *comp =
			per_cpu_ptr(ramster_clean.comps, cpu);

		if (!IS_ERR_OR_NULL(comp->tfm))
			crypto_free_comp(comp->tfm);
		kfree(comp->buf);
	}
	free_percpu(ramster_clean.comps);
	ramster_clean.comps = NULL;
}

static int ramster_clean_alloc_comps(void)
{
	int cpu;

	ramster_clean.comps = alloc_percpu(struct ramster_clean_comp);
	if (!ramster_clean.comps)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ramster_clean_comp *comp =
			per_cpu_ptr(ramster_clean.comps, cpu);

		comp->buf = kmalloc_node(2 * PAGE_SIZE, GFP_KERNEL,
					 cpu_to_node(cpu));
		comp->tfm = crypto_alloc_comp(ramster_comp_name(), 0, 0);
		if (!comp->buf || IS_ERR(comp->tfm))
			goto err_free;
	}
	return 0;

err_free:
	ramster_clean_free_comps();
	return -ENOMEM;
}

/* Every page and pool goes (no backend call can run any more). */
static void ramster_clean_drop_all(void)
{
	struct ramster_clean_entry *e, *tmp;
	struct ramster_clean_pool *pool;
	unsigned long flags;
	unsigned int n;
	int id;

	/* A batch per hold: interrupts come back between them. */
	do {
		n = 0;
		spin_lock_irqsave(&ramster_clean.lock, flags);
		list_for_each_entry_safe(e, tmp, &ramster_clean.lru, lru) {
			if (n++ == CLEAN_DROP_BATCH)
				break;
			ramster_clean_unlink(e);
		}
		list_for_each_entry_safe(e, tmp, &ramster_clean.stubs, lru) {
			if (n++ >= CLEAN_DROP_BATCH)
				break;
			ramster_clean_unlink(e);
		}
		spin_unlock_irqrestore(&ramster_clean.lock, flags);
		cond_resched();
	} while (n > CLEAN_DROP_BATCH);
	spin_lock_irqsave(&ramster_clean.lock, flags);
	idr_for_each_entry(&ramster_clean.pools, pool, id)
		kfree(pool);
	spin_unlock_irqrestore(&ramster_clean.lock, flags);
	idr_destroy(&ramster_clean.pools);
	ramster_stat_set(RAMSTER_STAT_CLEAN_POOLS, 0);
}

/**
 * ramster_clean_init - keep clean pages: register with cleancache
 * @limits: the module's pool limits, which clean pages share with swap
 *	pages (they must outlive ramster_clean_exit())
 *
 * Filesystems mounted already get their pools now.  With cleancache=N
 * nothing is registered.
 *
 * Return: 0, -ENOMEM, or cleancache_register_ops()'s error (-EBUSY:
 * another backend).
 */
int ramster_clean_init(const struct ramster_local_limits *limits)
{
	int ret;

	if (!cleancache)
		return 0;
	ramster_clean.limits = limits;
	ramster_clean.remote_rest = jiffies;
	idr_init(&ramster_clean.pools);
	ramster_clean.entry_cache = KMEM_CACHE(ramster_clean_entry, 0);
	if (!ramster_clean.entry_cache)
		return -ENOMEM;
	ret = ramster_clean_alloc_comps();
	if (ret)
		goto err_destroy_cache;
	ramster_clean.shrinker.count_objects = ramster_clean_count;
	ramster_clean.shrinker.scan_objects = ramster_clean_scan;
	/*
	 * An entry is about half a page, and the pool is bounded already:
	 * scanned a quarter as hard as the page cache (measured: with the
	 * page cache's rate the pool kept a third of the hits it keeps with
	 * this one, on a file set of twice the RAM read twice).
	 */
	ramster_clean.shrinker.seeks = DEFAULT_SEEKS * 4;
	ret = register_shrinker(&ramster_clean.shrinker, "ramster-clean");
	if (ret)
		goto err_free_comps;
	ret = cleancache_register_ops(&ramster_cleancache_ops);
	if (ret == -EBUSY) {
		/* Clean pages are optional: swap pages do not wait for them. */
		pr_warn("another cleancache backend is registered: keeping swap pages only\n");
		ret = 0;
		goto err_unregister_shrinker;
	}
	if (ret) {
		pr_err("cannot register with cleancache (%d)\n", ret);
		goto err_unregister_shrinker;
	}
	ramster_clean.registered = true;
	return 0;

err_unregister_shrinker:
	unregister_shrinker(&ramster_clean.shrinker);
err_free_comps:
	ramster_clean_free_comps();
err_destroy_cache:
	kmem_cache_destroy(ramster_clean.entry_cache);
	return ret;
}

/*
 * Unregister, then drop every clean page: rmmod does not wait for them.
 * Their peers are told to drop the copies (best effort: a lost frame
 * leaves a copy nobody will ask for, until the peer drops it).
 */
void ramster_clean_exit(void)
{
	if (!ramster_clean.registered)
		return;
	cleancache_unregister_ops(&ramster_cleancache_ops);
	ramster_clean.registered = false;
	unregister_shrinker(&ramster_clean.shrinker);
	ramster_clean_remote_stop();
	ramster_clean_drop_all();
	while (ramster_clean_remote_bury(UINT_MAX))
		cond_resched();
	ramster_clean_free_comps();
	kmem_cache_destroy(ramster_clean.entry_cache);
}
