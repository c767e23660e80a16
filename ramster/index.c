// SPDX-License-Identifier: GPL-2.0
/*
 * index.c - per-swap-type index of stored pages
 *
 * An rbtree of entries keyed by swap offset, with a generation per stored
 * version and a reference count per entry.  All functions but
 * ramster_tree_init() are called with the tree's lock held; the lock is a
 * spinlock because invalidate_page runs in atomic context.
 *
 * Reference rule: an entry in the tree holds one reference for the tree.
 * A user (a load, later the remotification thread) takes one under the
 * lock, drops the lock for the slow work, and puts it under the lock.  An
 * entry erased while in use stays valid until its last put, and its
 * memory is released then, by the tree's ->free_entry().
 */
#include <linux/bug.h>
#include <linux/lockdep.h>

#include "ramster.h"
#include "index.h"

/**
 * ramster_tree_init - prepare an empty tree
 * @tree: the tree
 * @free_entry: releases an entry when its last reference goes
 */
void ramster_tree_init(struct ramster_tree *tree,
		       void (*free_entry)(struct ramster_tree *tree,
					  struct ramster_entry *entry))
{
	spin_lock_init(&tree->lock);
	tree->root = RB_ROOT;
	INIT_LIST_HEAD(&tree->lru);
	tree->dropping = false;
	tree->next_gen = 1;
	tree->nr_entries = 0;
	tree->free_entry = free_entry;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_tree_init);

/**
 * ramster_index_lookup - find the entry of a swap offset
 * @tree: the tree, locked
 * @offset: the swap offset
 *
 * Return: the entry, or NULL.  No reference is taken.
 */
struct ramster_entry *ramster_index_lookup(struct ramster_tree *tree,
					   pgoff_t offset)
{
	struct rb_node *node = tree->root.rb_node;

	lockdep_assert_held(&tree->lock);
	while (node) {
		struct ramster_entry *entry =
			rb_entry(node, struct ramster_entry, rbnode);

		if (offset < entry->offset)
			node = node->rb_left;
		else if (offset > entry->offset)
			node = node->rb_right;
		else
			return entry;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_index_lookup);

/**
 * ramster_index_insert - insert an entry, replacing any older version
 * @tree: the tree, locked
 * @entry: the new entry; its offset is set, its generation is assigned here
 *
 * The new entry takes the tree's reference (refcount 1).  If the offset
 * already had an entry (a duplicate store), that entry is erased and
 * returned; the caller drops the tree's reference on it with
 * ramster_entry_put().  Replacing in one step under the lock means that a
 * load can see the old version or the new one, never neither and never
 * the old one after the new one.
 *
 * Return: the replaced entry, or NULL.
 */
struct ramster_entry *ramster_index_insert(struct ramster_tree *tree,
					   struct ramster_entry *entry)
{
	struct rb_node **link = &tree->root.rb_node, *parent = NULL;
	struct ramster_entry *old;

	lockdep_assert_held(&tree->lock);
	entry->gen = tree->next_gen++;
	entry->refcount = 1;
	if (entry->flags & RAMSTER_ENTRY_LOCAL)
		list_add_tail(&entry->lru, &tree->lru);
	else
		INIT_LIST_HEAD(&entry->lru);
	while (*link) {
		old = rb_entry(*link, struct ramster_entry, rbnode);
		parent = *link;
		if (entry->offset < old->offset) {
			link = &(*link)->rb_left;
		} else if (entry->offset > old->offset) {
			link = &(*link)->rb_right;
		} else {
			rb_replace_node(&old->rbnode, &entry->rbnode,
					&tree->root);
			RB_CLEAR_NODE(&old->rbnode);
			list_del_init(&old->lru);
			return old;
		}
	}
	rb_link_node(&entry->rbnode, parent, link);
	rb_insert_color(&entry->rbnode, &tree->root);
	tree->nr_entries++;
	return NULL;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_index_insert);

/**
 * ramster_index_erase - take an entry out of its tree
 * @tree: the tree, locked
 * @entry: the entry; erasing an entry twice is harmless
 *
 * The caller still has to drop the tree's reference.
 */
void ramster_index_erase(struct ramster_tree *tree,
			 struct ramster_entry *entry)
{
	lockdep_assert_held(&tree->lock);
	if (RB_EMPTY_NODE(&entry->rbnode))
		return;
	rb_erase(&entry->rbnode, &tree->root);
	RB_CLEAR_NODE(&entry->rbnode);
	list_del_init(&entry->lru);
	tree->nr_entries--;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_index_erase);

/**
 * ramster_index_erase_all - empty a tree (swapoff)
 * @tree: the tree, locked
 *
 * Return: the number of entries erased.
 */
unsigned long ramster_index_erase_all(struct ramster_tree *tree)
{
	struct ramster_entry *entry, *next;
	unsigned long erased = 0;

	lockdep_assert_held(&tree->lock);
	rbtree_postorder_for_each_entry_safe(entry, next, &tree->root, rbnode) {
		RB_CLEAR_NODE(&entry->rbnode);
		list_del_init(&entry->lru);
		ramster_entry_put(tree, entry);
		erased++;
	}
	tree->root = RB_ROOT;
	tree->nr_entries = 0;
	return erased;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_index_erase_all);

/* Take a reference on an entry found under the tree's lock. */
void ramster_entry_get(struct ramster_entry *entry)
{
	entry->refcount++;
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_entry_get);

/**
 * ramster_entry_put - drop a reference, freeing the entry on the last one
 * @tree: the entry's tree, locked
 * @entry: the entry
 */
void ramster_entry_put(struct ramster_tree *tree, struct ramster_entry *entry)
{
	lockdep_assert_held(&tree->lock);
	if (WARN_ON_ONCE(entry->refcount <= 0))
		return;
	if (--entry->refcount)
		return;
	WARN_ON_ONCE(!RB_EMPTY_NODE(&entry->rbnode));
	tree->free_entry(tree, entry);
}
EXPORT_SYMBOL_IF_RAMSTER_KUNIT(ramster_entry_put);
