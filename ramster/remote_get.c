// SPDX-License-Identifier: GPL-2.0
/*
 * remote_get.c - one GET of a remote page: the frame and its answer's check
 *
 * Every reader of a remote copy (a load, a page fetched ahead of one,
 * fetching home, re-replication, a write-back) asks with the same frame
 * and takes the answer only after the same check: the reply names the
 * same (type, offset, generation) and carries data of the length, kind
 * (raw or not) and crc32c recorded when the page left.  Anything else is
 * counted in remote_gets_bad and never used as data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/gfp.h>
#include <linux/string.h>

#include "index.h"
#include "ramster.h"
#include "remote_get.h"
#include "stats.h"
#include "transport.h"
#include "wire.h"

/**
 * ramster_keys_match - does a frame's key name this entry?
 * @key: the key from the frame
 * @tree: the entry's tree
 * @entry: the entry
 *
 * Return: true if type, offset and generation are the entry's.
 */
bool ramster_keys_match(const struct ramster_wire_key *key,
			const struct ramster_tree *tree,
			const struct ramster_entry *entry)
{
	return le16_to_cpu(key->swap_type) == tree->type &&
	       le64_to_cpu(key->offset) == entry->offset &&
	       le64_to_cpu(key->gen) == entry->gen;
}

/**
 * ramster_key_fill - name an entry in a frame
 * @key: the key to fill
 * @tree: the entry's tree
 * @entry: the entry
 *
 * As ramster_keys_match() expects it back.
 */
void ramster_key_fill(struct ramster_wire_key *key,
		      const struct ramster_tree *tree,
		      const struct ramster_entry *entry)
{
	memset(key, 0, sizeof(*key));
	key->swap_type = cpu_to_le16(tree->type);
	key->offset = cpu_to_le64(entry->offset);
	key->gen = cpu_to_le64(entry->gen);
}

/**
 * ramster_get_msg - a GET frame for an entry's data
 * @tree: the entry's tree
 * @entry: the entry
 * @needed: a load waits for it: from the transport's reserve (sleeps,
 *	never fails); else (a GET fetched ahead, a page fetched home, copied
 *	or written back) only if memory is at hand, without reclaim
 *
 * Never with I/O nor a loop in reclaim: a load runs in reclaim's
 * neighbourhood, on a node that may be short of memory.
 *
 * Return: the frame, or NULL if out of memory (only without @needed).
 */
struct ramster_msg *ramster_get_msg(const struct ramster_tree *tree,
				    const struct ramster_entry *entry,
				    bool needed)
{
	u32 plen = sizeof(struct ramster_wire_key);
	struct ramster_msg *msg;

	static_assert(sizeof(struct ramster_wire_key) <=
		      RAMSTER_MSG_RESERVED_PLEN);
	msg = needed ? ramster_msg_alloc_reserved(RAMSTER_MSG_GET, plen) :
	      ramster_msg_alloc(RAMSTER_MSG_GET, plen,
				GFP_NOWAIT | __GFP_NOWARN);
	if (msg)
		ramster_key_fill((void *)msg->payload, tree, entry);
	return msg;
}

/* Raw data back for a raw entry, compressed data for any other. */
static bool ramster_kind_matches(const struct ramster_wire_page *wp,
				 const struct ramster_entry *entry)
{
	bool raw = wp->compressor == RAMSTER_COMP_RAW;

	return raw == !!(entry->flags & RAMSTER_ENTRY_RAW);
}

/*
 * "Not found" from a node the entry no longer lists: the copy was
 * forgotten (fetched home, dropped as lost) after the GET was decided,
 * and the holder already acted on the invalidation.  Not a wrong answer.
 */
static bool ramster_get_forgotten(u8 node, struct ramster_tree *tree,
				  struct ramster_entry *entry)
{
	bool listed;

	spin_lock(&tree->lock);
	listed = ramster_entry_has_holder(entry, node);
	spin_unlock(&tree->lock);
	return !listed;
}

/**
 * ramster_get_check - take a GET_REPLY's data if it is the page
 * @node: the node that answered
 * @tree: the entry's tree
 * @entry: the entry asked for, referenced by the asker
 * @payload: the GET_REPLY's payload (a ramster_wire_page and its data,
 *	sized by the transport's rule for the type)
 * @buf: receives entry->length bytes of data
 *
 * Called from the link's receive thread (a request's ->done()): takes
 * the tree lock only, briefly.
 *
 * Return: 0 with @buf filled; -EAGAIN if the holder said "not now" (it
 * keeps the page); -ESTALE if it does not have the page but the entry no
 * longer lists it either; -EIO for any answer that is not the page
 * (counted in remote_gets_bad and logged).
 */
int ramster_get_check(u8 node, struct ramster_tree *tree,
		      struct ramster_entry *entry, const void *payload,
		      void *buf)
{
	const struct ramster_wire_page *wp = payload;
	u32 status = le32_to_cpu(wp->status);

	if (!ramster_keys_match(&wp->key, tree, entry)) {
		pr_err_ratelimited("node %u: GET_REPLY names another page\n",
				   node);
		goto bad;
	}
	if (status != RAMSTER_ST_OK) {
		/*
		 * Short of memory or busy: it still has the page.  Any other
		 * status (a holder answers a GET with NOT_FOUND or NO_MEMORY
		 * only) is not the page: retried as busy, it would defer a
		 * load forever.
		 */
		if (status == RAMSTER_ST_NO_MEMORY)
			return -EAGAIN;
		if (status == RAMSTER_ST_NOT_FOUND &&
		    ramster_get_forgotten(node, tree, entry)) {
			ramster_stat_inc(RAMSTER_STAT_REMOTE_GETS_FORGOTTEN);
			return -ESTALE;
		}
		pr_err_ratelimited("node %u: swap type %u offset %lu: not held there (status %u)\n",
				   node, tree->type, entry->offset, status);
		goto bad;
	}
	if (le32_to_cpu(wp->clen) != entry->length ||
	    !ramster_kind_matches(wp, entry) ||
	    le32_to_cpu(wp->dcrc) != entry->crc ||
	    crc32c(0, wp + 1, entry->length) != entry->crc) {
		pr_err_ratelimited("node %u: swap type %u offset %lu: data differs from what was sent\n",
				   node, tree->type, entry->offset);
		goto bad;
	}
	memcpy(buf, wp + 1, entry->length);
	return 0;
bad:
	/* Each answer that is not the page, whoever asked (a load or not). */
	ramster_stat_inc(RAMSTER_STAT_REMOTE_GETS_BAD);
	return -EIO;
}
