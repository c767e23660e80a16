/* SPDX-License-Identifier: GPL-2.0 */
/*
 * foreign.h - pages this node holds for other nodes
 */
#ifndef _RAMSTER_FOREIGN_H
#define _RAMSTER_FOREIGN_H

#include <linux/types.h>

#include "wire.h"

struct ramster_msg;

int ramster_foreign_init(void);
void ramster_foreign_exit(void);
void ramster_foreign_set_capacity(u64 pages);
u32 ramster_foreign_put(u8 node, const struct ramster_wire_page *page);
struct ramster_msg *ramster_foreign_get(u8 node,
					const struct ramster_wire_key *key);
void ramster_foreign_invalidate(u8 node, const struct ramster_wire_key *keys,
				u32 count);
void ramster_foreign_invalidate_area(u8 node, u16 type);
void ramster_foreign_drop_node(u8 node);
u64 ramster_foreign_free_pages(void);
u64 ramster_foreign_recall_keep(u8 node);
u64 ramster_foreign_total_pages(void);
u64 ramster_foreign_held_for(u8 node);
u64 ramster_foreign_pool_bytes(void);

#endif /* _RAMSTER_FOREIGN_H */
