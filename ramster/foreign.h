/* SPDX-License-Identifier: GPL-2.0 */
/*
 * foreign.h - a store of pages held for other nodes, and its generation
 * rules
 */
#ifndef _RAMSTER_FOREIGN_H
#define _RAMSTER_FOREIGN_H

#include <linux/types.h>

#include "wire.h"

struct ramster_foreign;

#define RAMSTER_FOREIGN_ALL_TYPES	U16_MAX

struct ramster_foreign *ramster_foreign_create(const char *name);
void ramster_foreign_destroy(struct ramster_foreign *fs);
void ramster_foreign_set_capacity(struct ramster_foreign *fs, u64 pages);
void ramster_foreign_set_limit(struct ramster_foreign *fs, u64 pages);
void ramster_foreign_lower_limit(struct ramster_foreign *fs, u64 pages);
void ramster_foreign_set_closed(struct ramster_foreign *fs, bool closed);
u32 ramster_foreign_put(struct ramster_foreign *fs, u8 node,
			const struct ramster_wire_page *page);
u32 ramster_foreign_data_len(struct ramster_foreign *fs, u8 node,
			     const struct ramster_wire_key *key);
int ramster_foreign_get(struct ramster_foreign *fs, u8 node,
			struct ramster_wire_page *rp, u32 clen);
void ramster_foreign_invalidate(struct ramster_foreign *fs, u8 node,
				const struct ramster_wire_key *keys, u32 count);
u32 ramster_foreign_list(struct ramster_foreign *fs, u8 node,
			 const struct ramster_wire_reconcile *req,
			 struct ramster_wire_key *keys, bool *end);
unsigned long ramster_foreign_drop(struct ramster_foreign *fs, u8 node,
				   u16 type);
u64 ramster_foreign_room(struct ramster_foreign *fs, unsigned int high,
			 unsigned int low);
u64 ramster_foreign_owner_room(struct ramster_foreign *fs, u8 node,
			       unsigned int high, unsigned int low,
			       unsigned int owners);
u64 ramster_foreign_recall_keep(struct ramster_foreign *fs, u8 node,
				unsigned int high, unsigned int low);
u64 ramster_foreign_total(struct ramster_foreign *fs);
u64 ramster_foreign_held_for(struct ramster_foreign *fs, u8 node);
u64 ramster_foreign_pool_bytes(struct ramster_foreign *fs);
unsigned long ramster_foreign_shrink(struct ramster_foreign *fs,
				     unsigned long max);
u64 ramster_foreign_ephemeral(struct ramster_foreign *fs);

#endif /* _RAMSTER_FOREIGN_H */
