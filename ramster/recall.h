/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recall.h - taking our pages back when a holder asks, or when leaving
 */
#ifndef _RAMSTER_RECALL_H
#define _RAMSTER_RECALL_H

#include <linux/types.h>

int ramster_recall_init(void);
void ramster_recall_exit(void);
struct ramster_writeback_cursor;

u64 ramster_recall_take_back(u8 holder, u64 keep,
			     struct ramster_writeback_cursor *cursor);

#endif /* _RAMSTER_RECALL_H */
