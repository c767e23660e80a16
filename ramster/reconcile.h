/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reconcile.h - the owner asks its holders what they keep for it, and
 * frees the orphans
 */
#ifndef _RAMSTER_RECONCILE_H
#define _RAMSTER_RECONCILE_H

#include <linux/types.h>

struct ramster_tree;
struct ramster_wire_key;
struct ramster_wire_reconcile;

/**
 * struct ramster_reconcile_span - the keys a RECONCILE_REPLY speaks for
 * @first_type: swap type of the first key covered
 * @first_offset: its offset
 * @last_type: swap type of the last key covered (included)
 * @last_offset: its offset
 *
 * A copy we believe the holder keeps in the span that the reply did not
 * list is lost; outside it, the reply says nothing.
 */
struct ramster_reconcile_span {
	unsigned int first_type;
	u64 first_offset;
	unsigned int last_type;
	u64 last_offset;
};

int ramster_reconcile_init(struct ramster_tree **trees);
void ramster_reconcile_exit(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* The owner's decisions, pure but for the tree they read (reconcile_test.c). */
bool ramster_reconcile_listed(const struct ramster_wire_key *keys, u32 count,
			      u32 *pos, unsigned int type, u64 offset, u64 gen);
bool ramster_reconcile_span(const struct ramster_wire_reconcile *rc,
			    const struct ramster_wire_key *keys, u32 count,
			    bool end, struct ramster_reconcile_span *span);
bool ramster_reconcile_is_orphan(struct ramster_tree *tree, u8 node,
				 const struct ramster_wire_key *key);
#endif

#endif /* _RAMSTER_RECONCILE_H */
