/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replicas.h - every remote page on `replicas` holders: the copies a lost
 * holder had are forgotten and made again from the survivors
 */
#ifndef _RAMSTER_REPLICAS_H
#define _RAMSTER_REPLICAS_H

struct ramster_tree;

int ramster_replicas_init(struct ramster_tree **trees);
void ramster_replicas_exit(void);
void ramster_replicas_repair_soon(void);

#endif /* _RAMSTER_REPLICAS_H */
