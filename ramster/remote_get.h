/* SPDX-License-Identifier: GPL-2.0 */
/*
 * remote_get.h - one GET of a remote page: the frame and its answer's check
 */
#ifndef _RAMSTER_REMOTE_GET_H
#define _RAMSTER_REMOTE_GET_H

#include <linux/types.h>

struct ramster_entry;
struct ramster_msg;
struct ramster_tree;
struct ramster_wire_key;

void ramster_key_fill(struct ramster_wire_key *key,
		      const struct ramster_tree *tree,
		      const struct ramster_entry *entry);
bool ramster_keys_match(const struct ramster_wire_key *key,
			const struct ramster_tree *tree,
			const struct ramster_entry *entry);
struct ramster_msg *ramster_get_msg(const struct ramster_tree *tree,
				    const struct ramster_entry *entry,
				    bool needed);
int ramster_get_check(u8 node, struct ramster_tree *tree,
		      struct ramster_entry *entry, const void *payload,
		      void *buf);

#endif /* _RAMSTER_REMOTE_GET_H */
