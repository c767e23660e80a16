/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recall.h - taking our pages back when a holder asks, or when leaving
 */
#ifndef _RAMSTER_RECALL_H
#define _RAMSTER_RECALL_H

#include <linux/types.h>

int ramster_recall_init(void);
void ramster_recall_exit(void);
u64 ramster_recall_take_back(u8 holder, u64 keep);

#endif /* _RAMSTER_RECALL_H */
