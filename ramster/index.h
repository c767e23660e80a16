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

/**
 * struct ramster_entry - one stored version of a swap slot
 * @rbnode: links the entry in its tree, empty once erased
 * @offset: the swap offset, the key
 * @gen: generation: every store to a tree gets the next one, so that a
 *	later operation can tell this version from an older or newer one
 *	(an acknowledgment or invalidation that names (offset, gen) never
 *	touches another version of the slot)
 * @refcount: the tree's reference plus one per user; the tree lock
 *	protects it
 * @flags: RAMSTER_ENTRY_*
 * @length: compressed length in the local pool; 0 if same-filled
 * @handle: zsmalloc handle of the compressed data
 * @value: the repeated word of a same-filled page
 *
 * Where the copies live is the tier's business: today the local pool
 * (@handle); the remote tier adds the set of nodes that hold a copy.
 */
struct ramster_entry {
	struct rb_node rbnode;
	pgoff_t offset;
	u64 gen;
	int refcount;
	unsigned int flags;
	unsigned int length;
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
 * @next_gen: generation of the next entry inserted
 * @nr_entries: entries in @root
 * @free_entry: releases an entry whose last reference went; called with
 *	@lock held
 */
struct ramster_tree {
	spinlock_t lock;		/* see above */
	struct rb_root root;
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
struct ramster_entry *ramster_index_insert(struct ramster_tree *tree,
					   struct ramster_entry *entry);
void ramster_index_erase(struct ramster_tree *tree,
			 struct ramster_entry *entry);
unsigned long ramster_index_erase_all(struct ramster_tree *tree);
void ramster_entry_get(struct ramster_entry *entry);
void ramster_entry_put(struct ramster_tree *tree, struct ramster_entry *entry);

#endif /* _RAMSTER_INDEX_H */
