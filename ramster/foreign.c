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
 * The pool holds at most the local node's capacity in pages; past it a
 * PUT is refused with RAMSTER_ST_FULL.  Allocations never wait and never
 * dip into reserves (GFP_NOWAIT): holding other nodes' pages must not cost
 * this node its own memory; a failed one is refused with
 * RAMSTER_ST_NO_MEMORY.  Every foreign page pins the module, as local
 * entries do: a node cannot unload while it holds another node's data.
 *
 * Giving the memory back: above foreign_high_percent of the capacity, the
 * link threads ask each owner for its share of the excess back (RECALL,
 * see ramster_foreign_recall_keep()), down to foreign_low_percent, where
 * the room advertised to owners ends too.  Both marks are 100 by
 * default: pages are recalled when the capacity is lowered below what is
 * held.  Lowering the capacity (in configfs) or the marks is how an
 * administrator asks for memory back; a low mark below the high one
 * leaves a gap for owners' concurrent PUTs.  A node that leaves the
 * cluster (recall.c) accepts no page and recalls them all.
 *
 * Handlers are called from the owner's link thread, so the frames of one
 * owner are handled in order; the tree is shared by all owners.
 *
 * Locking: ramster_foreign_lock (a spinlock) protects the tree and the
 * counts; zsmalloc's locks nest inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/zsmalloc.h>

#include "ramster.h"
#include "cluster.h"
#include "foreign.h"
#include "policy.h"
#include "recall.h"
#include "stats.h"
#include "transport.h"

#define FOREIGN_GFP	(GFP_NOWAIT | __GFP_NOWARN)

static unsigned int foreign_high_percent = 100;
module_param(foreign_high_percent, uint, 0644);
MODULE_PARM_DESC(foreign_high_percent,
		 "recall pages from their owners above this percent of the capacity (default 100)");

static unsigned int foreign_low_percent = 100;
module_param(foreign_low_percent, uint, 0644);
MODULE_PARM_DESC(foreign_low_percent,
		 "... down to this percent of it, where advertised room ends too (default 100)");

/**
 * struct ramster_foreign_page - a page held for another node
 * @rbnode: in ramster_foreign_root, by (node, type, offset)
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
	u8 node;
	u16 type;
	u64 offset;
	u64 gen;
	unsigned long handle;
	u32 clen;
	u32 dcrc;
	u8 compressor;
};

static DEFINE_SPINLOCK(ramster_foreign_lock);	/* see the file comment */
static struct rb_root ramster_foreign_root = RB_ROOT;
static u64 ramster_foreign_total;
static u64 ramster_foreign_count[RAMSTER_MAX_NODES];
static u64 ramster_foreign_capacity;
static struct zs_pool *ramster_foreign_pool;
static struct kmem_cache *ramster_foreign_cache;

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

static struct ramster_foreign_page *ramster_foreign_lookup(u8 node, u16 type,
							   u64 offset)
{
	struct rb_node *n = ramster_foreign_root.rb_node;

	lockdep_assert_held(&ramster_foreign_lock);
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
static struct ramster_foreign_page *ramster_foreign_ceil(u8 node, u16 type,
							 u64 offset)
{
	struct rb_node *n = ramster_foreign_root.rb_node;
	struct ramster_foreign_page *best = NULL;

	lockdep_assert_held(&ramster_foreign_lock);
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

static void ramster_foreign_insert(struct ramster_foreign_page *new)
{
	struct rb_node **link = &ramster_foreign_root.rb_node, *parent = NULL;

	lockdep_assert_held(&ramster_foreign_lock);
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
	rb_insert_color(&new->rbnode, &ramster_foreign_root);
	ramster_foreign_total++;
	ramster_foreign_count[new->node]++;
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_PAGES);
}

/* Free a page's memory; it is not in the tree. */
static void ramster_foreign_free(struct ramster_foreign_page *fp)
{
	zs_free(ramster_foreign_pool, fp->handle);
	kmem_cache_free(ramster_foreign_cache, fp);
	module_put(THIS_MODULE);
}

static void ramster_foreign_erase(struct ramster_foreign_page *fp)
{
	lockdep_assert_held(&ramster_foreign_lock);
	rb_erase(&fp->rbnode, &ramster_foreign_root);
	ramster_foreign_total--;
	ramster_foreign_count[fp->node]--;
	ramster_stat_dec(RAMSTER_STAT_FOREIGN_PAGES);
	ramster_foreign_free(fp);
}

/**
 * ramster_foreign_put - hold a page for another node
 * @node: the owner (the link it came on)
 * @page: the validated payload of its PUT
 *
 * Return: the RAMSTER_ST_* status of the PUT_REPLY.
 */
u32 ramster_foreign_put(u8 node, const struct ramster_wire_page *page)
{
	u16 type = le16_to_cpu(page->key.swap_type);
	u64 offset = le64_to_cpu(page->key.offset);
	struct ramster_foreign_page *fp, *old;
	u32 clen = le32_to_cpu(page->clen);
	void *dst;

	if (ramster_recall_leaving()) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_REFUSED);
		return RAMSTER_ST_REFUSED;
	}
	if (READ_ONCE(ramster_foreign_total) >= READ_ONCE(ramster_foreign_capacity)) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_FULL);
		return RAMSTER_ST_FULL;
	}
	if (!try_module_get(THIS_MODULE)) {
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_REFUSED);
		return RAMSTER_ST_REFUSED;
	}
	fp = kmem_cache_alloc(ramster_foreign_cache, FOREIGN_GFP);
	if (!fp)
		goto err_no_memory;
	fp->handle = zs_malloc(ramster_foreign_pool, clen, FOREIGN_GFP);
	if (IS_ERR_VALUE(fp->handle)) {
		kmem_cache_free(ramster_foreign_cache, fp);
		goto err_no_memory;
	}
	dst = zs_map_object(ramster_foreign_pool, fp->handle, ZS_MM_WO);
	memcpy(dst, page + 1, clen);
	zs_unmap_object(ramster_foreign_pool, fp->handle);
	fp->node = node;
	fp->type = type;
	fp->offset = offset;
	fp->gen = le64_to_cpu(page->key.gen);
	fp->clen = clen;
	fp->dcrc = le32_to_cpu(page->dcrc);
	fp->compressor = page->compressor;

	spin_lock(&ramster_foreign_lock);
	old = ramster_foreign_lookup(node, type, offset);
	if (old && old->gen >= fp->gen) {
		spin_unlock(&ramster_foreign_lock);
		ramster_foreign_free(fp);
		ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_STALE);
		return RAMSTER_ST_REFUSED;
	}
	if (old)
		ramster_foreign_erase(old);
	ramster_foreign_insert(fp);
	spin_unlock(&ramster_foreign_lock);
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS);
	return RAMSTER_ST_OK;

err_no_memory:
	module_put(THIS_MODULE);
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_PUTS_NO_MEMORY);
	return RAMSTER_ST_NO_MEMORY;
}

/* A GET_REPLY for @key with room for @clen bytes of data, status OK. */
static struct ramster_msg *ramster_foreign_reply(const struct ramster_wire_key *key,
						 u32 clen)
{
	struct ramster_wire_page *rp;
	struct ramster_msg *msg;

	msg = ramster_msg_alloc(RAMSTER_MSG_GET_REPLY, sizeof(*rp) + clen,
				GFP_KERNEL | __GFP_NOWARN);
	if (!msg)
		return NULL;
	rp = (void *)msg->payload;
	memset(rp, 0, sizeof(*rp));
	rp->key = *key;
	return msg;
}

/**
 * ramster_foreign_get - answer a GET
 * @node: the owner
 * @key: the validated key it asked for
 *
 * Return: the GET_REPLY to send, with the data if the page of exactly that
 * generation is held, with RAMSTER_ST_NOT_FOUND otherwise; NULL if no
 * memory for the reply.
 */
struct ramster_msg *ramster_foreign_get(u8 node,
					const struct ramster_wire_key *key)
{
	u16 type = le16_to_cpu(key->swap_type);
	u64 offset = le64_to_cpu(key->offset);
	u64 gen = le64_to_cpu(key->gen);
	struct ramster_foreign_page *fp;
	struct ramster_wire_page *rp;
	struct ramster_msg *msg;
	u32 clen = 0;
	void *src;

	ramster_stat_inc(RAMSTER_STAT_FOREIGN_GETS);
	spin_lock(&ramster_foreign_lock);
	fp = ramster_foreign_lookup(node, type, offset);
	if (fp && fp->gen == gen)
		clen = fp->clen;
	spin_unlock(&ramster_foreign_lock);
	if (!clen)
		goto not_found;

	msg = ramster_foreign_reply(key, clen);
	if (!msg)
		return NULL;
	rp = (void *)msg->payload;

	/* Only this owner's link thread changes its pages: fp is the same. */
	spin_lock(&ramster_foreign_lock);
	fp = ramster_foreign_lookup(node, type, offset);
	if (!fp || fp->gen != gen || fp->clen != clen) {
		spin_unlock(&ramster_foreign_lock);
		ramster_msg_free(msg);
		goto not_found;
	}
	src = zs_map_object(ramster_foreign_pool, fp->handle, ZS_MM_RO);
	memcpy(rp + 1, src, clen);
	zs_unmap_object(ramster_foreign_pool, fp->handle);
	rp->clen = cpu_to_le32(clen);
	rp->dcrc = cpu_to_le32(fp->dcrc);
	rp->compressor = fp->compressor;
	spin_unlock(&ramster_foreign_lock);
	return msg;

not_found:
	ramster_stat_inc(RAMSTER_STAT_FOREIGN_GETS_NOT_FOUND);
	msg = ramster_foreign_reply(key, 0);
	if (msg) {
		rp = (void *)msg->payload;
		rp->status = cpu_to_le32(RAMSTER_ST_NOT_FOUND);
	}
	return msg;
}

/* Drop the pages named by an INVALIDATE, generation by generation. */
void ramster_foreign_invalidate(u8 node, const struct ramster_wire_key *keys,
				u32 count)
{
	struct ramster_foreign_page *fp;
	u32 i;

	spin_lock(&ramster_foreign_lock);
	for (i = 0; i < count; i++) {
		fp = ramster_foreign_lookup(node, le16_to_cpu(keys[i].swap_type),
					    le64_to_cpu(keys[i].offset));
		if (fp && fp->gen == le64_to_cpu(keys[i].gen)) {
			ramster_foreign_erase(fp);
			ramster_stat_inc(RAMSTER_STAT_FOREIGN_INVALIDATES);
		}
	}
	spin_unlock(&ramster_foreign_lock);
}

/*
 * Drop every page of @node with swap type @type, or of every type if
 * @type is U16_MAX.  Returns how many went.
 */
static unsigned long ramster_foreign_drop(u8 node, u16 type)
{
	struct ramster_foreign_page *fp;
	unsigned long n = 0;

	spin_lock(&ramster_foreign_lock);
	for (;;) {
		fp = ramster_foreign_ceil(node, type == U16_MAX ? 0 : type, 0);
		if (!fp || fp->node != node ||
		    (type != U16_MAX && fp->type != type))
			break;
		ramster_foreign_erase(fp);
		n++;
		if (need_resched()) {
			spin_unlock(&ramster_foreign_lock);
			cond_resched();
			spin_lock(&ramster_foreign_lock);
		}
	}
	spin_unlock(&ramster_foreign_lock);
	return n;
}

void ramster_foreign_invalidate_area(u8 node, u16 type)
{
	unsigned long n = ramster_foreign_drop(node, type);

	ramster_stat_add(RAMSTER_STAT_FOREIGN_INVALIDATES, n);
}

/* The owner restarted or left: what it stored here is nobody's now. */
void ramster_foreign_drop_node(u8 node)
{
	unsigned long n = ramster_foreign_drop(node, U16_MAX);

	ramster_stat_add(RAMSTER_STAT_FOREIGN_DROPPED, n);
	if (n)
		pr_info("dropped %lu pages of node %u\n", n, node);
}

void ramster_foreign_set_capacity(u64 pages)
{
	WRITE_ONCE(ramster_foreign_capacity, pages);
}

/* A percent of the capacity, in pages. */
static u64 ramster_foreign_mark(unsigned int percent)
{
	return div_u64(READ_ONCE(ramster_foreign_capacity) *
		       min(percent, 100U), 100);
}

/*
 * How many more pages a PUT may bring: what keepalives advertise.  Room
 * ends at the low mark: every owner is offered all of it, so owners that
 * fill it at once overshoot, and the gap up to the high mark absorbs
 * that without a recall.  PUTs are accepted up to the capacity.
 */
u64 ramster_foreign_free_pages(void)
{
	u64 total = READ_ONCE(ramster_foreign_total);
	u64 low = ramster_foreign_mark(min(READ_ONCE(foreign_low_percent),
					   READ_ONCE(foreign_high_percent)));

	if (ramster_recall_leaving())
		return 0;
	return low > total ? low - total : 0;
}

/**
 * ramster_foreign_recall_keep - should an owner take pages back?
 * @node: the owner
 *
 * Return: how many of its pages it may keep here, or U64_MAX when none
 * is recalled.  Leaving, it keeps none.
 */
u64 ramster_foreign_recall_keep(u8 node)
{
	u64 held = READ_ONCE(ramster_foreign_count[node]);

	if (!held)
		return U64_MAX;
	if (ramster_recall_leaving())
		return 0;
	return ramster_recall_keep(held, READ_ONCE(ramster_foreign_total),
				   ramster_foreign_mark(READ_ONCE(foreign_high_percent)),
				   ramster_foreign_mark(READ_ONCE(foreign_low_percent)));
}

/* Foreign pages held, for all owners. */
u64 ramster_foreign_total_pages(void)
{
	return READ_ONCE(ramster_foreign_total);
}

u64 ramster_foreign_held_for(u8 node)
{
	return READ_ONCE(ramster_foreign_count[node]);
}

u64 ramster_foreign_pool_bytes(void)
{
	return (u64)zs_get_total_pages(ramster_foreign_pool) << PAGE_SHIFT;
}

int ramster_foreign_init(void)
{
	ramster_foreign_cache = KMEM_CACHE(ramster_foreign_page, 0);
	if (!ramster_foreign_cache)
		return -ENOMEM;
	ramster_foreign_pool = zs_create_pool(RAMSTER_NAME "_foreign");
	if (!ramster_foreign_pool) {
		kmem_cache_destroy(ramster_foreign_cache);
		return -ENOMEM;
	}
	return 0;
}

/* Module exit: every page pins the module, so none is left. */
void ramster_foreign_exit(void)
{
	WARN_ON_ONCE(!RB_EMPTY_ROOT(&ramster_foreign_root));
	zs_destroy_pool(ramster_foreign_pool);
	kmem_cache_destroy(ramster_foreign_cache);
}
