// SPDX-License-Identifier: GPL-2.0
/*
 * reconcile_test.c - KUnit suite for the owner's side of reconciliation
 * (reconcile.c): which listed copies are orphans, which of ours are lost
 */
#include <kunit/test.h>
#include <linux/swap.h>

#include "index.h"
#include "reconcile.h"
#include "wire.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static void no_free(struct ramster_tree *tree, struct ramster_entry *entry)
{
}

static struct ramster_wire_key key(unsigned int type, u64 offset, u64 gen)
{
	struct ramster_wire_key k = {
		.swap_type = cpu_to_le16(type),
		.offset = cpu_to_le64(offset),
		.gen = cpu_to_le64(gen),
	};

	return k;
}

/* An entry at @offset held by @a and @b (its generation: insert()). */
static struct ramster_entry *entry(struct kunit *test, pgoff_t offset,
				   u8 a, u8 b)
{
	struct ramster_entry *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	RB_CLEAR_NODE(&e->rbnode);
	e->offset = offset;
	e->holders[0] = a;
	e->holders[1] = b;
	return e;
}

/* Inserted with generation @gen (the index assigns the next one). */
static struct ramster_entry *insert(struct ramster_tree *tree,
				    struct ramster_entry *e, u64 gen)
{
	struct ramster_entry *old;

	spin_lock(&tree->lock);
	tree->next_gen = gen;
	old = ramster_index_insert(tree, e);
	spin_unlock(&tree->lock);
	return old;
}

/*
 * ramster_reconcile_is_orphan() under the lock it wants; expectations are
 * checked outside it (a failed one allocates).
 */
static bool is_orphan(struct ramster_tree *tree, u8 node, u64 offset, u64 gen)
{
	struct ramster_wire_key k = key(0, offset, gen);
	bool ret;

	if (!tree)
		return ramster_reconcile_is_orphan(NULL, node, &k);
	spin_lock(&tree->lock);
	ret = ramster_reconcile_is_orphan(tree, node, &k);
	spin_unlock(&tree->lock);
	return ret;
}

/*
 * A copy listed by holder 2 is an orphan unless we have that very
 * version naming 2 as a holder, or a PUT of that version is in flight.
 */
static void orphans(struct kunit *test)
{
	struct ramster_tree *tree = kunit_kzalloc(test, sizeof(*tree), GFP_KERNEL);
	struct ramster_entry *held, *other, *inflight;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tree);
	ramster_tree_init(tree, no_free);
	held = entry(test, 10, 2, 3);
	other = entry(test, 20, 3, RAMSTER_NO_NODE);
	inflight = entry(test, 30, RAMSTER_NO_NODE, RAMSTER_NO_NODE);
	inflight->flags |= RAMSTER_ENTRY_REMOTIFYING;
	KUNIT_ASSERT_NULL(test, insert(tree, held, 5));
	KUNIT_ASSERT_NULL(test, insert(tree, other, 5));
	KUNIT_ASSERT_NULL(test, insert(tree, inflight, 6));
	KUNIT_ASSERT_EQ(test, held->gen, 5ULL);
	KUNIT_ASSERT_EQ(test, inflight->gen, 6ULL);

	/* The copy we know of. */
	KUNIT_EXPECT_FALSE(test, is_orphan(tree, 2, 10, 5));
	KUNIT_EXPECT_FALSE(test, is_orphan(tree, 3, 10, 5));
	/* An older version: a lost INVALIDATE. */
	KUNIT_EXPECT_TRUE(test, is_orphan(tree, 2, 10, 4));
	/* A newer one we never finished: a lost reply. */
	KUNIT_EXPECT_TRUE(test, is_orphan(tree, 2, 10, 6));
	/* The version we have, but not on this node. */
	KUNIT_EXPECT_TRUE(test, is_orphan(tree, 2, 20, 5));
	KUNIT_EXPECT_FALSE(test, is_orphan(tree, 3, 20, 5));
	/* No such page any more. */
	KUNIT_EXPECT_TRUE(test, is_orphan(tree, 2, 15, 1));
	/* Its PUT's reply decides... */
	KUNIT_EXPECT_FALSE(test, is_orphan(tree, 2, 30, 6));
	/* ...but not for another version. */
	KUNIT_EXPECT_TRUE(test, is_orphan(tree, 2, 30, 5));

	spin_lock(&tree->lock);
	ramster_index_erase(tree, held);
	ramster_index_erase(tree, other);
	ramster_index_erase(tree, inflight);
	spin_unlock(&tree->lock);

	/* A swap area that is gone keeps nothing. */
	KUNIT_EXPECT_TRUE(test, is_orphan(NULL, 2, 10, 5));
}

/* Pages asked for in increasing order, against one sorted list. */
static void listed(struct kunit *test)
{
	const struct ramster_wire_key keys[] = {
		key(0, 10, 1), key(0, 20, 2), key(1, 5, 3), key(3, 0, 4),
	};
	u32 n = ARRAY_SIZE(keys), pos = 0;

	KUNIT_EXPECT_FALSE(test, ramster_reconcile_listed(keys, n, &pos, 0, 5, 1));
	KUNIT_EXPECT_EQ(test, pos, 0U);
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_listed(keys, n, &pos, 0, 10, 1));
	/* Listed, with another generation: the copy we know of is gone. */
	KUNIT_EXPECT_FALSE(test, ramster_reconcile_listed(keys, n, &pos, 0, 20, 1));
	KUNIT_EXPECT_EQ(test, pos, 1U);
	KUNIT_EXPECT_FALSE(test, ramster_reconcile_listed(keys, n, &pos, 0, 25, 2));
	/* The same offset in another type is another page. */
	KUNIT_EXPECT_FALSE(test, ramster_reconcile_listed(keys, n, &pos, 1, 0, 3));
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_listed(keys, n, &pos, 1, 5, 3));
	KUNIT_EXPECT_FALSE(test, ramster_reconcile_listed(keys, n, &pos, 2, 5, 3));
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_listed(keys, n, &pos, 3, 0, 4));
	KUNIT_EXPECT_FALSE(test, ramster_reconcile_listed(keys, n, &pos, 3, 1, 4));
	KUNIT_EXPECT_EQ(test, pos, n);
	/* An empty reply lists nothing. */
	pos = 0;
	KUNIT_EXPECT_FALSE(test, ramster_reconcile_listed(keys, 0, &pos, 0, 10, 1));
}

/* What a reply covers: after its cursor, up to its last key or the end. */
static void span(struct kunit *test)
{
	struct ramster_wire_reconcile rc = {
		.flags = cpu_to_le16(RAMSTER_RECONCILE_F_START),
		.max_keys = cpu_to_le32(RAMSTER_WIRE_MAX_RECONCILE),
	};
	const struct ramster_wire_key keys[] = { key(0, 10, 1), key(2, 7, 1) };
	struct ramster_reconcile_span s;

	/* The first page: from the very first key to its last. */
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_span(&rc, keys, 2, false, &s));
	KUNIT_EXPECT_EQ(test, s.first_type, 0U);
	KUNIT_EXPECT_EQ(test, s.first_offset, 0ULL);
	KUNIT_EXPECT_EQ(test, s.last_type, 2U);
	KUNIT_EXPECT_EQ(test, s.last_offset, 7ULL);

	/* The last page: to the last key there can be. */
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_span(&rc, keys, 2, true, &s));
	KUNIT_EXPECT_EQ(test, s.last_type, (unsigned int)MAX_SWAPFILES - 1);
	KUNIT_EXPECT_EQ(test, s.last_offset, U64_MAX);

	/* An empty listing covers everything: the holder keeps nothing. */
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_span(&rc, keys, 0, true, &s));
	KUNIT_EXPECT_EQ(test, s.first_type, 0U);
	KUNIT_EXPECT_EQ(test, s.last_type, (unsigned int)MAX_SWAPFILES - 1);

	/* After a cursor: the cursor itself was covered by the last page. */
	rc.flags = 0;
	rc.swap_type = cpu_to_le16(0);
	rc.offset = cpu_to_le64(9);
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_span(&rc, keys, 2, false, &s));
	KUNIT_EXPECT_EQ(test, s.first_type, 0U);
	KUNIT_EXPECT_EQ(test, s.first_offset, 10ULL);

	/* A cursor on a type's last offset: the next type. */
	rc.offset = cpu_to_le64(U64_MAX);
	KUNIT_EXPECT_TRUE(test, ramster_reconcile_span(&rc, keys + 1, 1, false, &s));
	KUNIT_EXPECT_EQ(test, s.first_type, 1U);
	KUNIT_EXPECT_EQ(test, s.first_offset, 0ULL);

	/* On the last key there can be: nothing left to cover. */
	rc.swap_type = cpu_to_le16(MAX_SWAPFILES - 1);
	KUNIT_EXPECT_FALSE(test, ramster_reconcile_span(&rc, keys, 0, true, &s));

	/* A key past our swap types covers all of ours before it. */
	if (MAX_SWAPFILES < RAMSTER_WIRE_MAX_SWAP_TYPES) {
		const struct ramster_wire_key far[] = {
			key(RAMSTER_WIRE_MAX_SWAP_TYPES - 1, 3, 1),
		};

		rc.flags = cpu_to_le16(RAMSTER_RECONCILE_F_START);
		rc.swap_type = 0;
		rc.offset = 0;
		KUNIT_EXPECT_TRUE(test, ramster_reconcile_span(&rc, far, 1, false, &s));
		KUNIT_EXPECT_EQ(test, s.last_type, (unsigned int)MAX_SWAPFILES - 1);
		KUNIT_EXPECT_EQ(test, s.last_offset, U64_MAX);
	}
}

static struct kunit_case ramster_reconcile_cases[] = {
	KUNIT_CASE(orphans),
	KUNIT_CASE(listed),
	KUNIT_CASE(span),
	{}
};

static struct kunit_suite ramster_reconcile_suite = {
	.name = "ramster_reconcile",
	.test_cases = ramster_reconcile_cases,
};

kunit_test_suite(ramster_reconcile_suite);
