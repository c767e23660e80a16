/* SPDX-License-Identifier: GPL-2.0 */
/*
 * remote.h - the remote tier: this node's pages in other nodes' RAM
 */
#ifndef _RAMSTER_REMOTE_H
#define _RAMSTER_REMOTE_H

#include <linux/types.h>

struct dentry;
struct page;
struct ramster_entry;
struct ramster_local_limits;
struct ramster_tree;

int ramster_remote_init(struct ramster_tree **trees,
			const struct ramster_local_limits *limits,
			struct dentry *debugfs_root);
void ramster_remote_exit(void);
void ramster_remote_kick(void);
bool ramster_remote_over_target(void);
int ramster_remote_load(struct ramster_tree *tree, struct ramster_entry *entry,
			struct page *page);
int ramster_remote_read_now(struct ramster_tree *tree,
			    struct ramster_entry *entry, struct page *page);
void ramster_remote_forget(struct ramster_tree *tree,
			   struct ramster_entry *entry);
void ramster_remote_invalidate_area(unsigned int type);
unsigned long ramster_remote_fetch_home(u8 holder, unsigned long max,
					bool to_limit);
int ramster_remote_want(void);
struct ramster_entry *
ramster_remote_next(struct ramster_tree *tree, pgoff_t offset, u8 holder,
		    bool (*want)(const struct ramster_entry *entry));
int ramster_remote_add_copy(struct ramster_tree *tree,
			    struct ramster_entry *entry, void *buf);
bool ramster_remote_window_wait(void);
bool ramster_remote_holder_lost(u8 node);
bool ramster_remote_drop_holder(struct ramster_tree *tree,
				struct ramster_entry *entry, u8 node);

#endif /* _RAMSTER_REMOTE_H */
