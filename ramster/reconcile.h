/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reconcile.h - the owner asks its holders what they keep for it, and
 * frees the orphans
 */
#ifndef _RAMSTER_RECONCILE_H
#define _RAMSTER_RECONCILE_H

struct ramster_tree;

int ramster_reconcile_init(struct ramster_tree **trees);
void ramster_reconcile_exit(void);

#endif /* _RAMSTER_RECONCILE_H */
