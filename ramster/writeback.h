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

/* Available memory under RAM / this: the node is short (writeback.c). */
#define RAMSTER_WRITEBACK_SHORT	32

void ramster_writeback_init(struct ramster_tree **trees);
int ramster_write_back(struct ramster_tree *tree, struct ramster_entry *entry,
		       bool remote);
unsigned long ramster_write_back_held(u8 holder, unsigned long max,
				      struct ramster_writeback_cursor *cursor);

#endif /* _RAMSTER_WRITEBACK_H */
