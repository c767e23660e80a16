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
 *
 * Copy transitions: an entry's copies (the local one, the holders) change
 * only through the ramster_entry_*() transitions below, each under the
 * tree lock, so the rules of index.h are enforced in one place: a local
 * copy is dropped only when a remote one exists and nobody else reads it,
 * and a copy fetched home is adopted only by an entry still in the tree.
 */
#include <kunit/visibility.h>
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
EXPORT_SYMBOL_IF_KUNIT(ramster_tree_init);

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
EXPORT_SYMBOL_IF_KUNIT(ramster_index_lookup);

/**
 * ramster_index_next - the first entry at or after a swap offset
 * @tree: the tree, locked
 * @offset: where to start
 *
 * For walks that drop the lock between entries: the caller goes on from
 * the entry's offset + 1.
 *
 * Return: the entry, or NULL.  No reference is taken.
 */
struct ramster_entry *ramster_index_next(struct ramster_tree *tree,
					 pgoff_t offset)
{
	struct rb_node *node = tree->root.rb_node;
	struct ramster_entry *entry, *found = NULL;

	lockdep_assert_held(&tree->lock);
	while (node) {
		entry = rb_entry(node, struct ramster_entry, rbnode);
		if (entry->offset >= offset) {
			found = entry;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_index_next);

/**
 * ramster_index_after - the entry with the next higher offset
 * @tree: the tree, locked
 * @entry: an entry in @tree
 *
 * Return: the entry, or NULL.  No reference is taken.
 */
struct ramster_entry *ramster_index_after(struct ramster_tree *tree,
					  struct ramster_entry *entry)
{
	struct rb_node *node;

	lockdep_assert_held(&tree->lock);
	node = rb_next(&entry->rbnode);
	return node ? rb_entry(node, struct ramster_entry, rbnode) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_index_after);

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
EXPORT_SYMBOL_IF_KUNIT(ramster_index_insert);

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
EXPORT_SYMBOL_IF_KUNIT(ramster_index_erase);

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
EXPORT_SYMBOL_IF_KUNIT(ramster_index_erase_all);

/* Take a reference on an entry found under the tree's lock. */
void ramster_entry_get(struct ramster_entry *entry)
{
	entry->refcount++;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_get);

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
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_put);

/*
 * Does anyone but the tree (while the entry is in it) and the caller's
 * @own_refs use the entry?
 */
static bool ramster_entry_shared(const struct ramster_entry *entry,
				 int own_refs)
{
	return entry->refcount > own_refs + !RB_EMPTY_NODE(&entry->rbnode);
}

/**
 * ramster_entry_begin_put - the entry is picked to be sent to a holder
 * @tree: its tree, locked
 * @entry: an entry with a local copy, not already being sent
 *
 * Takes a reference for the PUT (its local copy stays while the PUT
 * reads it), flags it REMOTIFYING, and moves it to the young end of the
 * LRU so the next pick looks elsewhere.
 */
void ramster_entry_begin_put(struct ramster_tree *tree,
			     struct ramster_entry *entry)
{
	lockdep_assert_held(&tree->lock);
	WARN_ON_ONCE(entry->flags & RAMSTER_ENTRY_REMOTIFYING);
	entry->flags |= RAMSTER_ENTRY_REMOTIFYING;
	ramster_entry_get(entry);
	list_move_tail(&entry->lru, &tree->lru);
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_begin_put);

/**
 * ramster_entry_begin_copy - a remote-only entry gets one more copy
 * @tree: its tree, locked
 * @entry: an entry whose data is only on other nodes
 *
 * Re-replication: the data fetched from one holder goes to another.  As
 * ramster_entry_begin_put() without a local copy (the entry stays off
 * the LRU); ramster_entry_end_put() ends it.
 *
 * Return: false if the entry is not remote-only (left the tree, came
 * home, or is already being sent): nothing was done.
 */
bool ramster_entry_begin_copy(struct ramster_tree *tree,
			      struct ramster_entry *entry)
{
	lockdep_assert_held(&tree->lock);
	if (RB_EMPTY_NODE(&entry->rbnode) || !ramster_entry_remote_only(entry))
		return false;
	entry->flags |= RAMSTER_ENTRY_REMOTIFYING;
	ramster_entry_get(entry);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_begin_copy);

/**
 * ramster_entry_end_put - the PUT is answered or given up
 * @tree: its tree, locked
 * @entry: the entry of ramster_entry_begin_put()
 *
 * Clears the flag; the caller still drops the PUT's reference.
 */
void ramster_entry_end_put(struct ramster_tree *tree,
			   struct ramster_entry *entry)
{
	lockdep_assert_held(&tree->lock);
	entry->flags &= ~RAMSTER_ENTRY_REMOTIFYING;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_end_put);

/**
 * ramster_entry_set_holder - a node acknowledged a copy of the entry
 * @tree: its tree, locked
 * @entry: the entry (it may have left the tree meanwhile: its free path
 *	then invalidates the copy just recorded)
 * @node: the holder
 * @crc: crc32c of the data it holds, which any copy must match
 *
 * Return: 0, -EEXIST if @node already holds one, -ENOSPC if the entry
 * has no free holder slot.
 */
int ramster_entry_set_holder(struct ramster_tree *tree,
			     struct ramster_entry *entry, u8 node, u32 crc)
{
	int i, free = -1;

	lockdep_assert_held(&tree->lock);
	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++) {
		if (entry->holders[i] == node)
			return -EEXIST;
		if (entry->holders[i] == RAMSTER_NO_NODE && free < 0)
			free = i;
	}
	if (free < 0)
		return -ENOSPC;
	if (!ramster_entry_is_remote(entry))
		entry->crc = crc;
	entry->holders[free] = node;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_set_holder);

/**
 * ramster_entry_drop_local - the local copy goes, remote ones stay
 * @tree: its tree, locked
 * @entry: the entry
 * @own_refs: references the caller holds on it (0 or 1)
 * @copies: remote copies the entry must have to let its local one go
 *	(the replicas wanted; at least 1)
 *
 * Only if that many holders have a copy and nobody but the tree and the
 * caller uses the entry (a load or a PUT may be reading the local copy).
 *
 * Return: the zsmalloc handle of the copy, for the caller to free; 0 if
 * the copy stays.
 */
unsigned long ramster_entry_drop_local(struct ramster_tree *tree,
				       struct ramster_entry *entry,
				       int own_refs, int copies)
{
	lockdep_assert_held(&tree->lock);
	if (!(entry->flags & RAMSTER_ENTRY_LOCAL) ||
	    ramster_entry_nr_holders(entry) < max(copies, 1) ||
	    ramster_entry_shared(entry, own_refs))
		return 0;
	entry->flags &= ~RAMSTER_ENTRY_LOCAL;
	list_del_init(&entry->lru);
	return entry->handle;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_drop_local);

/**
 * ramster_entry_adopt_local - a copy fetched home becomes the local one
 * @tree: its tree, locked
 * @entry: the entry
 * @handle: zsmalloc handle of the fetched copy
 *
 * Return: true if adopted (the entry owns @handle now); false if the
 * entry left the tree, got a local copy meanwhile, or is getting one
 * more remote copy (the caller frees @handle).
 */
bool ramster_entry_adopt_local(struct ramster_tree *tree,
			       struct ramster_entry *entry,
			       unsigned long handle)
{
	lockdep_assert_held(&tree->lock);
	if (RB_EMPTY_NODE(&entry->rbnode) ||
	    (entry->flags & (RAMSTER_ENTRY_LOCAL | RAMSTER_ENTRY_SAME_FILLED |
			     RAMSTER_ENTRY_REMOTIFYING)))
		return false;
	entry->handle = handle;
	entry->flags |= RAMSTER_ENTRY_LOCAL;
	list_add_tail(&entry->lru, &tree->lru);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_adopt_local);

/**
 * ramster_entry_forget_remote - the entry's remote copies are forgotten
 * @tree: its tree, locked
 * @entry: the entry
 * @holders: receives the nodes that held them, RAMSTER_NO_NODE after
 *
 * Return: how many copies there were.
 */
int ramster_entry_forget_remote(struct ramster_tree *tree,
				struct ramster_entry *entry,
				u8 holders[RAMSTER_MAX_HOLDERS])
{
	int i, n = 0;

	lockdep_assert_held(&tree->lock);
	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++) {
		holders[i] = RAMSTER_NO_NODE;
		if (entry->holders[i] == RAMSTER_NO_NODE)
			continue;
		holders[n++] = entry->holders[i];
		entry->holders[i] = RAMSTER_NO_NODE;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_forget_remote);

/**
 * ramster_entry_drop_holder - a node lost its copy of the entry
 * @tree: its tree, locked
 * @entry: the entry
 * @node: the node (it restarted, or is presumed dead)
 *
 * Only if another copy exists (another holder, or the local one): the
 * last copy of a page stays named, so that a load of it asks, and fails
 * loudly, rather than finding nothing.
 *
 * Return: true if @node was dropped.
 */
bool ramster_entry_drop_holder(struct ramster_tree *tree,
			       struct ramster_entry *entry, u8 node)
{
	int i;

	lockdep_assert_held(&tree->lock);
	if (!(entry->flags & RAMSTER_ENTRY_LOCAL) &&
	    ramster_entry_nr_holders(entry) < 2)
		return false;
	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++) {
		if (entry->holders[i] == node) {
			entry->holders[i] = RAMSTER_NO_NODE;
			return true;
		}
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(ramster_entry_drop_holder);
