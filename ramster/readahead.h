/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readahead.h - remote pages fetched ahead of their loads
 */
#ifndef _RAMSTER_READAHEAD_H
#define _RAMSTER_READAHEAD_H

#include <linux/types.h>

struct ramster_entry;
struct ramster_tree;

int ramster_ra_init(void);
void ramster_ra_exit(void);
void ramster_ra_issue(struct ramster_tree *tree,
		      const struct ramster_entry *entry, u8 holder);
int ramster_ra_take(struct ramster_tree *tree, struct ramster_entry *entry,
		    void *buf, u8 *asked);
void ramster_ra_expire(void);
void ramster_ra_drop_tree(struct ramster_tree *tree);
void ramster_ra_drop_all(void);

#endif /* _RAMSTER_READAHEAD_H */
