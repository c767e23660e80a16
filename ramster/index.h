/* SPDX-License-Identifier: GPL-2.0 */
/*
 * index.h - per-swap-type index of stored pages
 */
#ifndef _RAMSTER_INDEX_H
#define _RAMSTER_INDEX_H

#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* The page is one repeated word, kept in ->value: no pool memory. */
#define RAMSTER_ENTRY_SAME_FILLED	BIT(0)
/* The compressed data is in the local pool (->handle). */
#define RAMSTER_ENTRY_LOCAL		BIT(1)
/* A PUT of this entry to another node is in flight. */
#define RAMSTER_ENTRY_REMOTIFYING	BIT(2)
/*
 * The data is the page itself, PAGE_SIZE bytes, not compressed (the page
 * did not compress below max_compressed_percent): loaded with a copy,
 * sent as RAMSTER_COMP_RAW.  Set at store time, never changed.
 */
#define RAMSTER_ENTRY_RAW		BIT(3)

/* Nodes that may hold a copy of one entry: the most replicas. */
#define RAMSTER_MAX_HOLDERS		2
#define RAMSTER_NO_NODE			0xff

/**
 * struct ramster_entry - one stored version of a swap slot
 * @rbnode: links the entry in its tree, empty once erased
 * @offset: the swap offset, the key
 * @gen: generation: every store to a tree gets the next one, so that a
 *	later operation can tell this version from an older or newer one
 *	(an acknowledgment or invalidation that names (offset, gen) never
 *	touches another version of the slot)
 * @lru: in the tree's list of entries with local compressed data, oldest
 *	first (same-filled and remote-only entries are not on it)
 * @refcount: the tree's reference plus one per user; the tree lock
 *	protects it
 * @flags: RAMSTER_ENTRY_*
 * @length: compressed length; 0 if same-filled; PAGE_SIZE if raw
 * @crc: crc32c of the compressed data, kept while a copy is remote: a
 *	copy that comes back must match it bit for bit
 * @holders: nodes holding a copy, RAMSTER_NO_NODE in unused slots
 * @handle: zsmalloc handle of the compressed data, if LOCAL
 * @value: the repeated word of a same-filled page
 *
 * An entry's copies are the local one (RAMSTER_ENTRY_LOCAL) and one per
 * node in @holders.  A copy is only ever added or dropped under the tree
 * lock, and a local copy is dropped only when no user holds a reference
 * (a load or a PUT may be reading it).  @length and @crc do not change
 * once a remote copy exists.
 */
struct ramster_entry {
	struct rb_node rbnode;
	struct list_head lru;
	pgoff_t offset;
	u64 gen;
	int refcount;
	unsigned int flags;
	unsigned int length;
	u32 crc;
	u8 holders[RAMSTER_MAX_HOLDERS];
	union {
		unsigned long handle;
		unsigned long value;
	};
};

/**
 * struct ramster_tree - the stored pages of one swap type
 * @lock: protects everything below and the entries' refcounts.  It is
 *	taken in invalidate_page, which frontswap calls under the swap
 *	area's spinlock: nothing may sleep under it.  Lock order: swap area
 *	lock -> @lock -> zsmalloc's locks.
 * @root: entries by offset
 * @lru: entries with local compressed data, oldest first
 * @type: the swap type
 * @dropping: invalidate_area is emptying the tree: the remote copies go
 *	with one INVALIDATE_AREA per node, not one INVALIDATE per page
 * @next_gen: generation of the next entry inserted
 * @nr_entries: entries in @root
 * @free_entry: releases an entry whose last reference went; called with
 *	@lock held
 */
struct ramster_tree {
	spinlock_t lock;		/* see above */
	struct rb_root root;
	struct list_head lru;
	unsigned int type;
	bool dropping;
	u64 next_gen;
	unsigned long nr_entries;
	void (*free_entry)(struct ramster_tree *tree,
			   struct ramster_entry *entry);
};

void ramster_tree_init(struct ramster_tree *tree,
		       void (*free_entry)(struct ramster_tree *tree,
					  struct ramster_entry *entry));
struct ramster_entry *ramster_index_lookup(struct ramster_tree *tree,
					   pgoff_t offset);
struct ramster_entry *ramster_index_next(struct ramster_tree *tree,
					 pgoff_t offset);
struct ramster_entry *ramster_index_after(struct ramster_tree *tree,
					  struct ramster_entry *entry);
struct ramster_entry *ramster_index_insert(struct ramster_tree *tree,
					   struct ramster_entry *entry);
void ramster_index_erase(struct ramster_tree *tree,
			 struct ramster_entry *entry);
unsigned long ramster_index_erase_all(struct ramster_tree *tree);
void ramster_entry_get(struct ramster_entry *entry);
void ramster_entry_put(struct ramster_tree *tree, struct ramster_entry *entry);

void ramster_entry_begin_put(struct ramster_tree *tree,
			     struct ramster_entry *entry);
void ramster_entry_end_put(struct ramster_tree *tree,
			   struct ramster_entry *entry);
bool ramster_entry_begin_copy(struct ramster_tree *tree,
			      struct ramster_entry *entry);
int ramster_entry_set_holder(struct ramster_tree *tree,
			     struct ramster_entry *entry, u8 node, u32 crc);
unsigned long ramster_entry_drop_local(struct ramster_tree *tree,
				       struct ramster_entry *entry,
				       int own_refs, int copies);
bool ramster_entry_adopt_local(struct ramster_tree *tree,
			       struct ramster_entry *entry,
			       unsigned long handle);
int ramster_entry_forget_remote(struct ramster_tree *tree,
				struct ramster_entry *entry,
				u8 holders[RAMSTER_MAX_HOLDERS]);
bool ramster_entry_drop_holder(struct ramster_tree *tree,
			       struct ramster_entry *entry, u8 node);

/* Has a node acknowledged a copy? */
static inline bool ramster_entry_is_remote(const struct ramster_entry *entry)
{
	int i;

	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++)
		if (entry->holders[i] != RAMSTER_NO_NODE)
			return true;
	return false;
}

/* How many nodes hold a copy. */
static inline int ramster_entry_nr_holders(const struct ramster_entry *entry)
{
	int i, n = 0;

	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++)
		n += entry->holders[i] != RAMSTER_NO_NODE;
	return n;
}

/* Does @node hold a copy? */
static inline bool ramster_entry_has_holder(const struct ramster_entry *entry,
					    u8 node)
{
	int i;

	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++)
		if (entry->holders[i] == node)
			return true;
	return false;
}

/* Is its data only on other nodes, with no PUT of it in flight? */
static inline bool ramster_entry_remote_only(const struct ramster_entry *entry)
{
	return ramster_entry_is_remote(entry) &&
	       !(entry->flags & (RAMSTER_ENTRY_LOCAL |
				 RAMSTER_ENTRY_REMOTIFYING));
}

/* The first node holding a copy, RAMSTER_NO_NODE if none. */
static inline u8 ramster_entry_first_holder(const struct ramster_entry *entry)
{
	int i;

	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++)
		if (entry->holders[i] != RAMSTER_NO_NODE)
			return entry->holders[i];
	return RAMSTER_NO_NODE;
}

#endif /* _RAMSTER_INDEX_H */
