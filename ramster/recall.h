/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recall.h - giving borrowed memory back: recalls, leaving, draining
 */
#ifndef _RAMSTER_RECALL_H
#define _RAMSTER_RECALL_H

#include <linux/types.h>

struct dentry;

void ramster_recall_init(struct dentry *debugfs_root);
void ramster_recall_exit(void);
void ramster_recall_request(u8 holder, u64 keep);
bool ramster_recall_leaving(void);
bool ramster_recall_draining(void);

#endif /* _RAMSTER_RECALL_H */
