// SPDX-License-Identifier: GPL-2.0
/*
 * foreign.c - pages this node holds for other nodes
 *
 * A foreign page is kept exactly as received: compressed by its owner,
 * with the owner's checksum, in a zsmalloc pool of its own.  It is named
 * by (owner node, swap type, offset) and carries the generation the owner
 * gave it:
 *  - a PUT replaces the page of its name only with a newer generation (an
 *    older one is refused as stale);
 *  - a GET is answered with data only for the generation it names;
 *  - an INVALIDATE removes a page only if the generation matches.
 * So a late INVALIDATE never removes a newer page and an older page is
 * never served for a newer one, whatever the order in which frames for
 * the same slot arrive.
 *
 * The store holds at most its capacity in pages; past it a PUT is
 * refused with RAMSTER_ST_FULL.  Allocations never wait and never dip
 * into reserves (GFP_NOWAIT): holding other nodes' pages must not cost
 * this node its own memory; a failed one is refused with
 * RAMSTER_ST_NO_MEMORY.  Every foreign page pins the module, as local
 * entries do: a node cannot unload while it holds another node's data.
 *
 * Giving the memory back is decided here too, from the marks the caller
 * passes (lender.c has them as module parameters): above the high mark,
 * each owner may keep its share of the room down to the low mark
 * (ramster_foreign_recall_keep()); room is advertised only up to the low
 * mark.  A closed store (the node is leaving) takes no page, offers no
 * room and recalls everything.  A limit below the capacity (the lender
 * short of memory itself, lender.c) stands in for the capacity in all of
 * this: PUTs are refused past it, no room is offered, pages are recalled.
 *
 * Ephemeral pages (swap type RAMSTER_WIRE_EPHEMERAL_TYPE: clean page
 * cache pages, which the owner can always read again from its disk) may
 * be dropped at any time without asking.  They live in the same tree but
 * are counted apart, on an LRU of their own, and never stand in the way
 * of a swap page: a PUT of a swap page that finds the store full drops
 * the oldest ephemeral pages first; an ephemeral PUT that finds it full
 * drops an older ephemeral page, never a swap page.  They are not counted
 * in the room advertised, the owners' shares or recalls, they do not pin
 * the module, and ramster_foreign_shrink() drops them under this node's
 * own memory pressure.
 *
 * The store is an instance (struct ramster_foreign) with no tie to the
 * links: the lender (lender.c) feeds it the frames it receives, and the
 * KUnit suite (foreign_test.c) drives one of its own.
 *
 * Locking: fs->lock (a spinlock) protects the tree and the counts;
 * zsmalloc's locks nest inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/zsmalloc.h>

#include "ramster.h"
#include "cluster.h"
#include "foreign.h"
#include "policy.h"
#include "stats.h"

#define FOREIGN_GFP	(GFP_NOWAIT | __GFP_NOWARN)
/* Ephemeral pages one PUT may drop to make its room (under fs->lock). */
#define FOREIGN_DROP_PER_PUT	32

/**
 * struct ramster_foreign_page - a page held for another node
 * @rbnode: in its store's tree, by (node, type, offset)
 * @lru: an ephemeral page's place in the store's ephemeral LRU
 * @node: the owner
 * @type: the owner's swap type
 * @offset: the owner's swap offset
 * @gen: the owner's generation of this version
 * @handle: zsmalloc handle of the data
 * @clen: data length
 * @dcrc: the owner's checksum of the data
 * @compressor: RAMSTER_COMP_* the owner used
 */
struct ramster_foreign_page {
	struct rb_node rbnode;
	struct list_head lru;
	u8 node;
	u16 type;
	u64 offset;
	u64 gen;
	unsigned long handle;
	u32 clen;
	u32 dcrc;
	u8 compressor;
};

/**
 * struct ramster_foreign - a store of pages held for other nodes
 * @lock: protects the fields below; see the file comment
 * @root: the pages, by (node, type, offset)
 * @total: swap pages held
 * @count: swap pages held per owner
 * @ephemeral: ephemeral pages held
 * @ephemeral_lru: ephemeral pages, oldest first
 * @capacity: most pages it takes
 * @limit: most pages it takes for now, U64_MAX for none (the lender short
 *	of memory); written under @lock, read without
 * @closed: takes no page, offers no room, recalls all (leaving)
 * @pool: the data
 * @cache: the struct ramster_foreign_page of each page
 */
struct ramster_foreign {
	spinlock_t lock;		/* see above */
	struct rb_root root;
	u64 total;
	u64 count[RAMSTER_MAX_NODES];
	u64 ephemeral;
	struct list_head ephemeral_lru;
	u64 capacity;
	u64 limit;
	bool closed;
	struct zs_pool *pool;
	struct kmem_cache *cache;
};

/* What the store may hold now: its capacity, or less under a limit. */
static u64 ramster_foreign_capacity(struct ramster_foreign *fs)
{
	return min(READ_ONCE(fs->capacity), READ_ONCE(fs->limit));
}

static bool ramster_foreign_is_ephemeral(u16 type)
{
	return type == RAMSTER_WIRE_EPHEMERAL_TYPE;
}

/* -1, 0, 1 as (node, type, offset) sorts before, with, after @fp. */
static int ramster_foreign_cmp(u8 node, u16 type, u64 offset,
			       const struct ramster_foreign_page *fp)
{
	if (node != fp->node)
		return node < fp->node ? -1 : 1;
	if (type != fp->type)
		return type < fp->type ? -1 : 1;
	if (offset != fp->offset)
		return offset < fp->offset ? -1 : 1;
	return 0;
}

static struct ramster_foreign_page *ramster_foreign_lookup(struct ramster_foreign *fs,
							   u8 node, u16 type,
							   u64 offset)
{
	struct rb_node *n = fs->root.rb_node;

	lockdep_assert_held(&fs->lock);
	while (n) {
		struct ramster_foreign_page *fp =
			rb_entry(n, struct ramster_foreign_page, rbnode);
		int c = ramster_foreign_cmp(node, type, offset, fp);

		if (!c)
			return fp;
		n = c < 0 ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/* The first page at or after (node, type, offset); NULL if none. */
static struct ramster_foreign_page *ramster_foreign_ceil(struct ramster_foreign *fs,
							 u8 node, u16 type,
							 u64 offset)
{
	struct rb_node *n = fs->root.rb_node;
	struct ramster_foreign_page *best = NULL;

	lockdep_assert_held(&fs->lock);
	while (n) {
		struct ramster_foreign_page *fp =
			rb_entry(n, struct ramster_foreign_page, rbnode);

		if (ramster_foreign_cmp(node, type, offset, fp) <= 0) {
			best = fp;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return best;
}

static void ramster_foreign_insert(struct ramster_foreign *fs,
				   struct ramster_foreign_page *new)
{
	struct rb_node **link = &fs->root.rb_node, *parent = NULL;

	lockdep_assert_held(&fs->lock);
	while (*link) {
		struct ramster_foreign_page *fp =
			rb_entry(*link, struct ramster_foreign_page, rbnode);

		parent = *link;
		if (ramster_foreign_cmp(new->node, new->type, new->offset, fp) < 0)
			link = &(*link)->rb_left;
		else
			link = &(*link)->rb_right;
	}
	rb_link_node(&new->rbnode, parent, link);
	rb_insert_color(&new->rbnode, &fs->root);
	if (ramster_foreign_is_ephemeral(new->type)) {
		list_add_tail(&new->lru, &fs->ephemeral_lru);
		WRITE_ONCE(fs->ephemeral, fs->ephemeral + 1);
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_EPHEMERAL_PAGES);
		return;
	}
	WRITE_ONCE(fs->total, fs->total + 1);
	fs->count[new->node]++;
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_PAGES);
}

/* Free a page's memory; it is not in the tree. */
static void ramster_foreign_free(struct ramster_foreign *fs,
				 struct ramster_foreign_page *fp)
{
	bool ephemeral = ramster_foreign_is_ephemeral(fp->type);

	zs_free(fs->pool, fp->handle);
	kmem_cache_free(fs->cache, fp);
	if (!ephemeral)
		module_put(THIS_MODULE);
}

static void ramster_foreign_erase(struct ramster_foreign *fs,
				  struct ramster_foreign_page *fp)
{
	lockdep_assert_held(&fs->lock);
	rb_erase(&fp->rbnode, &fs->root);
	if (ramster_foreign_is_ephemeral(fp->type)) {
		list_del(&fp->lru);
		WRITE_ONCE(fs->ephemeral, fs->ephemeral - 1);
		ramster_stat_dec(RAMSTER_STAT_FOREIGN_EPHEMERAL_PAGES);
	} else {
		WRITE_ONCE(fs->total, fs->total - 1);
		fs->count[fp->node]--;
		ramster_stat_dec(RAMSTER_STAT_FOREIGN_PAGES);
	}
	ramster_foreign_free(fs, fp);
}

/* Drop up to @max of the oldest ephemeral pages; how many went. */
static unsigned long ramster_foreign_drop_oldest(struct ramster_foreign *fs,
						 unsigned long max)
{
	struct ramster_foreign_page *fp;
	unsigned long n = 0;

	lockdep_assert_held(&fs->lock);
	while (n < max && !list_empty(&fs->ephemeral_lru)) {
		fp = list_first_entry(&fs->ephemeral_lru,
				      struct ramster_foreign_page, lru);
		ramster_foreign_erase(fs, fp);
		n++;
	}
	return n;
}

/**
 * ramster_foreign_put - hold a page for another node
 * @fs: the store
 * @node: the owner (the link it came on)
 * @page: the validated payload of its PUT
 *
 * Return: the RAMSTER_ST_* status of the PUT_REPLY.
 */
u32 ramster_foreign_put(struct ramster_foreign *fs, u8 node,
			const struct ramster_wire_page *page)
{
	u16 type = le16_to_cpu(page->key.swap_type);
	u64 offset = le64_to_cpu(page->key.offset);
	struct ramster_foreign_page *fp, *old;
	bool ephemeral = ramster_foreign_is_ephemeral(type);
	u32 clen = le32_to_cpu(page->clen);
	unsigned long dropped = 0;
	u64 capacity, excess;
	void *dst;

	if (READ_ONCE(fs->closed)) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_REFUSED);
		return RAMSTER_ST_REFUSED;
	}
	/* Ephemeral pages give way below; swap pages alone fill it here. */
	if (READ_ONCE(fs->total) >= ramster_foreign_capacity(fs)) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_FULL);
		return RAMSTER_ST_FULL;
	}
	if (!ephemeral && !try_module_get(THIS_MODULE)) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_REFUSED);
		return RAMSTER_ST_REFUSED;
	}
	fp = kmem_cache_alloc(fs->cache, FOREIGN_GFP);
	if (!fp)
		goto err_no_memory;
	fp->type = type;
	fp->handle = zs_malloc(fs->pool, clen, FOREIGN_GFP);
	/* Short of memory: ephemeral pages give theirs to a swap page. */
	if (IS_ERR_VALUE(fp->handle) && !ephemeral &&
	    ramster_foreign_shrink(fs, FOREIGN_DROP_PER_PUT))
		fp->handle = zs_malloc(fs->pool, clen, FOREIGN_GFP);
	if (IS_ERR_VALUE(fp->handle)) {
		kmem_cache_free(fs->cache, fp);
		goto err_no_memory;
	}
	dst = zs_map_object(fs->pool, fp->handle, ZS_MM_WO);
	memcpy(dst, page + 1, clen);
	zs_unmap_object(fs->pool, fp->handle);
	fp->node = node;
	fp->offset = offset;
	fp->gen = le64_to_cpu(page->key.gen);
	fp->clen = clen;
	fp->dcrc = le32_to_cpu(page->dcrc);
	fp->compressor = page->compressor;

	spin_lock(&fs->lock);
	old = ramster_foreign_lookup(fs, node, type, offset);
	/*
	 * The version held, sent again (its first PUT_REPLY was lost, or
	 * the owner forgot this copy and makes a replica here): the PUT is
	 * done, once.  Refusing it would leave the owner unable ever to
	 * record the copy it has here.
	 */
	if (old && old->gen == fp->gen && old->clen == fp->clen &&
	    old->dcrc == fp->dcrc) {
		spin_unlock(&fs->lock);
		ramster_foreign_free(fs, fp);
		return RAMSTER_ST_OK;
	}
	if (old && old->gen >= fp->gen) {
		spin_unlock(&fs->lock);
		ramster_foreign_free(fs, fp);
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_STALE);
		return RAMSTER_ST_REFUSED;
	}
	if (old)
		ramster_foreign_erase(fs, old);
	/* The oldest ephemeral pages make the room, a few per PUT at most. */
	capacity = ramster_foreign_capacity(fs);
	if (fs->total + fs->ephemeral >= capacity) {
		excess = min_t(u64, fs->total + fs->ephemeral + 1 - capacity,
			       FOREIGN_DROP_PER_PUT);
		dropped = ramster_foreign_drop_oldest(fs, excess);
	}
	/*
	 * Still over (the capacity was lowered under many ephemeral pages):
	 * a swap page goes in all the same if swap pages alone fit (the next
	 * PUTs and the shrinker drop the rest); an ephemeral page does not.
	 */
	if (ephemeral ? fs->total + fs->ephemeral >= capacity :
			fs->total >= capacity) {
		spin_unlock(&fs->lock);
		ramster_foreign_free(fs, fp);
		ramster_stat_add(RAMSTER_STAT_FOREIGN_EPHEMERAL_DROPPED, dropped);
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_FULL);
		return RAMSTER_ST_FULL;
	}
	ramster_foreign_insert(fs, fp);
	spin_unlock(&fs->lock);
	ramster_stat_add(RAMSTER_STAT_FOREIGN_EPHEMERAL_DROPPED, dropped);
	ramster_stat_inc(ephemeral ? RAMSTER_STAT_FOREIGN_EPHEMERAL_PUTS :
				     RAMSTER_STAT_FOREIGN_PUTS);
	return RAMSTER_ST_OK;

err_no_memory:
	if (!ephemeral)
		module_put(THIS_MODULE);
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_NO_MEMORY);
	return RAMSTER_ST_NO_MEMORY;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_put);

/**
 * ramster_foreign_data_len - how long is the data a GET asks for?
 * @fs: the store
 * @node: the owner
 * @key: the validated key it asked for
 *
 * Return: the data length if the page of exactly that generation is
 * held, 0 otherwise.
 */
u32 ramster_foreign_data_len(struct ramster_foreign *fs, u8 node,
			     const struct ramster_wire_key *key)
{
	struct ramster_foreign_page *fp;
	u32 clen = 0;

	spin_lock(&fs->lock);
	fp = ramster_foreign_lookup(fs, node, le16_to_cpu(key->swap_type),
				    le64_to_cpu(key->offset));
	if (fp && fp->gen == le64_to_cpu(key->gen))
		clen = fp->clen;
	spin_unlock(&fs->lock);
	return clen;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_data_len);

/**
 * ramster_foreign_get - copy out the page a GET asks for
 * @fs: the store
 * @node: the owner
 * @rp: a GET_REPLY payload with @clen bytes of room after it; its key
 *	names the page
 * @clen: what ramster_foreign_data_len() said
 *
 * Fills in the data, its length, checksum and compressor.  Only that
 * generation is ever answered, and only with the length announced.
 *
 * Return: 0, or -ENOENT if the page went (or changed) since.
 */
int ramster_foreign_get(struct ramster_foreign *fs, u8 node,
			struct ramster_wire_page *rp, u32 clen)
{
	struct ramster_foreign_page *fp;
	void *src;

	spin_lock(&fs->lock);
	fp = ramster_foreign_lookup(fs, node, le16_to_cpu(rp->key.swap_type),
				    le64_to_cpu(rp->key.offset));
	if (!fp || fp->gen != le64_to_cpu(rp->key.gen) || fp->clen != clen) {
		spin_unlock(&fs->lock);
		return -ENOENT;
	}
	/* Asked for again: the last ephemeral page to go. */
	if (ramster_foreign_is_ephemeral(fp->type))
		list_move_tail(&fp->lru, &fs->ephemeral_lru);
	src = zs_map_object(fs->pool, fp->handle, ZS_MM_RO);
	memcpy(rp + 1, src, clen);
	zs_unmap_object(fs->pool, fp->handle);
	rp->clen = cpu_to_le32(clen);
	rp->dcrc = cpu_to_le32(fp->dcrc);
	rp->compressor = fp->compressor;
	spin_unlock(&fs->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_get);

/**
 * ramster_foreign_invalidate - drop the pages an INVALIDATE names
 * @fs: the store
 * @node: the owner
 * @keys: the validated keys
 * @count: how many
 *
 * A page goes only if its generation is the one named.
 */
void ramster_foreign_invalidate(struct ramster_foreign *fs, u8 node,
				const struct ramster_wire_key *keys, u32 count)
{
	struct ramster_foreign_page *fp;
	u32 i;

	spin_lock(&fs->lock);
	for (i = 0; i < count; i++) {
		fp = ramster_foreign_lookup(fs, node,
					    le16_to_cpu(keys[i].swap_type),
					    le64_to_cpu(keys[i].offset));
		if (fp && fp->gen == le64_to_cpu(keys[i].gen)) {
			ramster_foreign_erase(fs, fp);
			ramster_stat_inc(RAMSTER_STAT_FOREIGN_INVALIDATES);
		}
	}
	spin_unlock(&fs->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_invalidate);

/**
 * ramster_foreign_list - an owner's swap pages, in key order, from a cursor
 * @fs: the store
 * @node: the owner
 * @req: the validated RECONCILE: its cursor, and how many keys at most
 * @keys: receives up to @req->max_keys keys
 * @end: set when no swap page of @node follows the last key copied
 *
 * For reconciliation (lender.c): the keys are copied out under the lock,
 * which is dropped before the caller sends them.  Ephemeral pages are
 * never listed (their type sorts after every swap type).
 *
 * Return: how many keys were copied.
 */
u32 ramster_foreign_list(struct ramster_foreign *fs, u8 node,
			 const struct ramster_wire_reconcile *req,
			 struct ramster_wire_key *keys, bool *end)
{
	u32 n = 0, max = min_t(u32, le32_to_cpu(req->max_keys),
			       RAMSTER_WIRE_MAX_RECONCILE);
	u16 type = le16_to_cpu(req->swap_type);
	u64 offset = le64_to_cpu(req->offset);
	struct ramster_foreign_page *fp;
	struct rb_node *rb;

	if (le16_to_cpu(req->flags) & RAMSTER_RECONCILE_F_START) {
		type = 0;
		offset = 0;
	} else if (offset == U64_MAX) {		/* after the cursor */
		type++;
		offset = 0;
	} else {
		offset++;
	}
	spin_lock(&fs->lock);
	fp = ramster_foreign_ceil(fs, node, type, offset);
	while (fp && fp->node == node && !ramster_foreign_is_ephemeral(fp->type) &&
	       n < max) {
		memset(&keys[n], 0, sizeof(keys[n]));
		keys[n].swap_type = cpu_to_le16(fp->type);
		keys[n].offset = cpu_to_le64(fp->offset);
		keys[n].gen = cpu_to_le64(fp->gen);
		n++;
		rb = rb_next(&fp->rbnode);
		fp = rb ? rb_entry(rb, struct ramster_foreign_page, rbnode) : NULL;
	}
	*end = !fp || fp->node != node || ramster_foreign_is_ephemeral(fp->type);
	spin_unlock(&fs->lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_list);

/**
 * ramster_foreign_drop - drop an owner's pages
 * @fs: the store
 * @node: the owner
 * @type: its swap type, or RAMSTER_FOREIGN_ALL_TYPES
 *
 * Return: how many pages went.
 */
unsigned long ramster_foreign_drop(struct ramster_foreign *fs, u8 node,
				   u16 type)
{
	bool all = type == RAMSTER_FOREIGN_ALL_TYPES;
	struct ramster_foreign_page *fp;
	unsigned long n = 0;

	spin_lock(&fs->lock);
	for (;;) {
		fp = ramster_foreign_ceil(fs, node, all ? 0 : type, 0);
		if (!fp || fp->node != node || (!all && fp->type != type))
			break;
		ramster_foreign_erase(fs, fp);
		n++;
		if (need_resched()) {
			spin_unlock(&fs->lock);
			cond_resched();
			spin_lock(&fs->lock);
		}
	}
	spin_unlock(&fs->lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_drop);

/**
 * ramster_foreign_shrink - drop the oldest ephemeral pages
 * @fs: the store
 * @max: at most this many
 *
 * For this node's own memory pressure (lender.c's shrinker): ephemeral
 * pages cost their owners a disk read, no more.
 *
 * Return: how many went.
 */
unsigned long ramster_foreign_shrink(struct ramster_foreign *fs,
				     unsigned long max)
{
	unsigned long n, done = 0;

	/* In batches: the lock is not held for long. */
	while (done < max) {
		spin_lock(&fs->lock);
		n = ramster_foreign_drop_oldest(fs, min(max - done, 64UL));
		spin_unlock(&fs->lock);
		if (!n)
			break;
		done += n;
		cond_resched();
	}
	ramster_stat_add(RAMSTER_STAT_FOREIGN_EPHEMERAL_DROPPED, done);
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_shrink);

/* Ephemeral pages held, for all owners. */
u64 ramster_foreign_ephemeral(struct ramster_foreign *fs)
{
	return READ_ONCE(fs->ephemeral);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_ephemeral);

void ramster_foreign_set_capacity(struct ramster_foreign *fs, u64 pages)
{
	WRITE_ONCE(fs->capacity, pages);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_set_capacity);

/**
 * ramster_foreign_set_limit - hold at most this many pages for now
 * @fs: the store
 * @pages: the limit; U64_MAX for none (the capacity alone counts)
 */
void ramster_foreign_set_limit(struct ramster_foreign *fs, u64 pages)
{
	spin_lock(&fs->lock);
	WRITE_ONCE(fs->limit, pages);
	spin_unlock(&fs->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_set_limit);

/**
 * ramster_foreign_lower_limit - hold at most this many pages, if fewer
 * @fs: the store
 * @pages: the limit wanted
 *
 * Only ever lowers the limit (ramster_foreign_set_limit() sets it): for a
 * shrinker, which may run while a tick sets it.  Neither sleeps nor
 * allocates.
 */
void ramster_foreign_lower_limit(struct ramster_foreign *fs, u64 pages)
{
	spin_lock(&fs->lock);
	if (pages < fs->limit)
		WRITE_ONCE(fs->limit, pages);
	spin_unlock(&fs->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_lower_limit);

/* Leaving: take no page, offer no room, recall every page. */
void ramster_foreign_set_closed(struct ramster_foreign *fs, bool closed)
{
	WRITE_ONCE(fs->closed, closed);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_set_closed);

/* A percent of the capacity, in pages. */
static u64 ramster_foreign_mark(struct ramster_foreign *fs,
				unsigned int percent)
{
	return div_u64(ramster_foreign_capacity(fs) * min(percent, 100U), 100);
}

/**
 * ramster_foreign_room - how many more pages a PUT may bring
 * @fs: the store
 * @high: the high mark, in percent of the capacity
 * @low: the low mark
 *
 * What keepalives advertise.  Room ends at the low mark: every owner is
 * offered all of it, so owners that fill it at once overshoot, and the
 * gap up to the high mark absorbs that without a recall.  PUTs are
 * accepted up to the capacity.
 *
 * Return: pages.
 */
u64 ramster_foreign_room(struct ramster_foreign *fs, unsigned int high,
			 unsigned int low)
{
	u64 total = READ_ONCE(fs->total);
	u64 mark = ramster_foreign_mark(fs, min(low, high));

	if (READ_ONCE(fs->closed))
		return 0;
	return mark > total ? mark - total : 0;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_room);

/**
 * ramster_foreign_owner_room - the room one owner of several may take
 * @fs: the store
 * @node: the owner
 * @high: the high mark, in percent of the capacity
 * @low: the low mark
 * @owners: how many owners share the room evenly
 *
 * For a lender short of memory (lender.c): what the store still takes
 * goes to every owner in equal shares, so that one owner cannot fill it
 * before another could place a page.
 *
 * Return: pages, at most ramster_foreign_room().
 */
u64 ramster_foreign_owner_room(struct ramster_foreign *fs, u8 node,
			       unsigned int high, unsigned int low,
			       unsigned int owners)
{
	u64 room = ramster_foreign_room(fs, high, low);
	u64 share = div_u64(ramster_foreign_mark(fs, min(low, high)),
			    max(owners, 1U));
	u64 held = READ_ONCE(fs->count[node]);

	return min(room, share > held ? share - held : 0);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_owner_room);

/**
 * ramster_foreign_recall_keep - should an owner take pages back?
 * @fs: the store
 * @node: the owner
 * @high: the high mark, in percent of the capacity
 * @low: the low mark
 *
 * Return: how many of its pages it may keep here, or U64_MAX when none
 * is recalled.  From a closed store, it keeps none.
 */
u64 ramster_foreign_recall_keep(struct ramster_foreign *fs, u8 node,
				unsigned int high, unsigned int low)
{
	u64 held = READ_ONCE(fs->count[node]);

	if (!held)
		return U64_MAX;
	if (READ_ONCE(fs->closed))
		return 0;
	return ramster_recall_keep(held, READ_ONCE(fs->total),
				   ramster_foreign_mark(fs, high),
				   ramster_foreign_mark(fs, low));
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_recall_keep);

/* Pages held, for all owners. */
u64 ramster_foreign_total(struct ramster_foreign *fs)
{
	return READ_ONCE(fs->total);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_total);

u64 ramster_foreign_held_for(struct ramster_foreign *fs, u8 node)
{
	return READ_ONCE(fs->count[node]);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_held_for);

u64 ramster_foreign_pool_bytes(struct ramster_foreign *fs)
{
	return (u64)zs_get_total_pages(fs->pool) << PAGE_SHIFT;
}

/**
 * ramster_foreign_create - an empty store
 * @name: names its pool and cache
 *
 * Return: the store (capacity 0: it takes nothing yet), or NULL.
 */
struct ramster_foreign *ramster_foreign_create(const char *name)
{
	struct ramster_foreign *fs = kzalloc(sizeof(*fs), GFP_KERNEL);

	if (!fs)
		return NULL;
	spin_lock_init(&fs->lock);
	fs->root = RB_ROOT;
	INIT_LIST_HEAD(&fs->ephemeral_lru);
	fs->limit = U64_MAX;
	fs->cache = kmem_cache_create(name, sizeof(struct ramster_foreign_page),
				      0, 0, NULL);
	if (!fs->cache)
		goto err_free;
	fs->pool = zs_create_pool(name);
	if (!fs->pool)
		goto err_destroy_cache;
	return fs;

err_destroy_cache:
	kmem_cache_destroy(fs->cache);
err_free:
	kfree(fs);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_create);

/*
 * Free a store.  At module exit it holds no swap page (each pins the
 * module), only ephemeral pages, which go now, as a test's store's pages.
 */
void ramster_foreign_destroy(struct ramster_foreign *fs)
{
	struct ramster_foreign_page *fp, *next;

	if (!fs)
		return;
	rbtree_postorder_for_each_entry_safe(fp, next, &fs->root, rbnode) {
		ramster_stat_dec(ramster_foreign_is_ephemeral(fp->type) ?
				 RAMSTER_STAT_FOREIGN_EPHEMERAL_PAGES :
				 RAMSTER_STAT_FOREIGN_PAGES);
		ramster_foreign_free(fs, fp);
	}
	zs_destroy_pool(fs->pool);
	kmem_cache_destroy(fs->cache);
	kfree(fs);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_foreign_destroy);
