/* SPDX-License-Identifier: GPL-2.0 */
/*
 * writeback.h - writing pages we hold back to their swap slots
 */
#ifndef _RAMSTER_WRITEBACK_H
#define _RAMSTER_WRITEBACK_H

#include <linux/types.h>

struct ramster_entry;
struct ramster_tree;

/**
 * struct ramster_writeback_cursor - where a series of passes goes on from
 * @type: the swap type (MAX_SWAPFILES: past the end; the next pass starts
 *	over)
 * @offset: the offset in it
 */
struct ramster_writeback_cursor {
	unsigned int type;
	pgoff_t offset;
};

/*
 * Write-backs in a row that found no memory (-ENOMEM) before an eviction
 * run or a recall pass ends: one is often a single cgroup's (the swap
 * cache page is charged to the cgroup that swapped the slot out, maybe at
 * its limit), several in a row are the whole node's.
 */
#define RAMSTER_WRITEBACK_NOMEM	8

void ramster_writeback_init(struct ramster_tree **trees);
int ramster_write_back(struct ramster_tree *tree, struct ramster_entry *entry,
		       bool remote);
unsigned long ramster_write_back_held(u8 holder, unsigned long max,
				      struct ramster_writeback_cursor *cursor);

#endif /* _RAMSTER_WRITEBACK_H */
