// SPDX-License-Identifier: GPL-2.0
/*
 * index_test.c - KUnit suite for the per-type index (index.c)
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "index.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* A tree whose freed entries are counted instead of freed. */
struct test_tree {
	struct ramster_tree tree;
	int freed;
	struct ramster_entry *last_freed;
};

static void test_free_entry(struct ramster_tree *tree,
			    struct ramster_entry *entry)
{
	struct test_tree *t = container_of(tree, struct test_tree, tree);

	t->freed++;
	t->last_freed = entry;
}

static struct test_tree *new_tree(struct kunit *test)
{
	struct test_tree *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	ramster_tree_init(&t->tree, test_free_entry);
	return t;
}

static struct ramster_entry *new_entry(struct kunit *test, pgoff_t offset)
{
	struct ramster_entry *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, e);
	RB_CLEAR_NODE(&e->rbnode);
	e->offset = offset;
	return e;
}

static void insert_lookup_erase(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	pgoff_t offsets[] = { 5, 1, 9, 3, 7, 0, 1UL << 30 };
	struct ramster_entry *e[ARRAY_SIZE(offsets)];
	int i;

	/* Allocate first: nothing may sleep under the tree lock. */
	for (i = 0; i < ARRAY_SIZE(offsets); i++)
		e[i] = new_entry(test, offsets[i]);
	spin_lock(&t->tree.lock);
	for (i = 0; i < ARRAY_SIZE(offsets); i++)
		KUNIT_EXPECT_NULL(test, ramster_index_insert(&t->tree, e[i]));
	KUNIT_EXPECT_EQ(test, t->tree.nr_entries, ARRAY_SIZE(offsets));
	for (i = 0; i < ARRAY_SIZE(offsets); i++)
		KUNIT_EXPECT_PTR_EQ(test,
				    ramster_index_lookup(&t->tree, offsets[i]),
				    e[i]);
	KUNIT_EXPECT_NULL(test, ramster_index_lookup(&t->tree, 2));

	ramster_index_erase(&t->tree, e[2]);
	ramster_entry_put(&t->tree, e[2]);
	KUNIT_EXPECT_NULL(test, ramster_index_lookup(&t->tree, 9));
	KUNIT_EXPECT_EQ(test, t->freed, 1);
	KUNIT_EXPECT_PTR_EQ(test, t->last_freed, e[2]);
	/* Erasing twice is harmless and does not miscount. */
	ramster_index_erase(&t->tree, e[2]);
	KUNIT_EXPECT_EQ(test, t->tree.nr_entries, ARRAY_SIZE(offsets) - 1);
	spin_unlock(&t->tree.lock);
}

/* A duplicate store replaces the old version in one step. */
static void duplicate_replaces_and_returns_old(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *old = new_entry(test, 42);
	struct ramster_entry *new = new_entry(test, 42);

	spin_lock(&t->tree.lock);
	KUNIT_EXPECT_NULL(test, ramster_index_insert(&t->tree, old));
	KUNIT_EXPECT_PTR_EQ(test, ramster_index_insert(&t->tree, new), old);
	KUNIT_EXPECT_PTR_EQ(test, ramster_index_lookup(&t->tree, 42), new);
	KUNIT_EXPECT_EQ(test, t->tree.nr_entries, 1UL);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&old->rbnode));
	ramster_entry_put(&t->tree, old);
	KUNIT_EXPECT_EQ(test, t->freed, 1);
	KUNIT_EXPECT_PTR_EQ(test, ramster_index_lookup(&t->tree, 42), new);
	spin_unlock(&t->tree.lock);
}

static void generations_increase(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *a = new_entry(test, 1);
	struct ramster_entry *b = new_entry(test, 2);
	struct ramster_entry *c = new_entry(test, 1);

	spin_lock(&t->tree.lock);
	ramster_index_insert(&t->tree, a);
	ramster_index_insert(&t->tree, b);
	ramster_entry_put(&t->tree, ramster_index_insert(&t->tree, c));
	spin_unlock(&t->tree.lock);
	KUNIT_EXPECT_GT(test, a->gen, 0ULL);
	KUNIT_EXPECT_GT(test, b->gen, a->gen);
	KUNIT_EXPECT_GT(test, c->gen, b->gen);
}

/* An entry erased while a user holds it is freed by the user's put. */
static void erase_while_in_use(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *e = new_entry(test, 3);

	spin_lock(&t->tree.lock);
	ramster_index_insert(&t->tree, e);
	ramster_entry_get(e);			/* a load starts */
	ramster_index_erase(&t->tree, e);	/* invalidate_page */
	ramster_entry_put(&t->tree, e);
	KUNIT_EXPECT_EQ(test, t->freed, 0);
	ramster_entry_put(&t->tree, e);		/* the load ends */
	KUNIT_EXPECT_EQ(test, t->freed, 1);
	spin_unlock(&t->tree.lock);
}

static void erase_all_frees_everything(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *e[100];
	int i;

	for (i = 0; i < 100; i++)
		e[i] = new_entry(test, i * 7);
	spin_lock(&t->tree.lock);
	for (i = 0; i < 100; i++)
		ramster_index_insert(&t->tree, e[i]);
	KUNIT_EXPECT_EQ(test, ramster_index_erase_all(&t->tree), 100UL);
	KUNIT_EXPECT_EQ(test, t->freed, 100);
	KUNIT_EXPECT_EQ(test, t->tree.nr_entries, 0UL);
	KUNIT_EXPECT_NULL(test, ramster_index_lookup(&t->tree, 7));
	KUNIT_EXPECT_EQ(test, ramster_index_erase_all(&t->tree), 0UL);
	spin_unlock(&t->tree.lock);
}

/*
 * The LRU (what remotification takes first) holds exactly the entries
 * with a local compressed copy, oldest first, and loses them as they go.
 */
static void lru_follows_local_copies(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *a = new_entry(test, 1);
	struct ramster_entry *same = new_entry(test, 2);
	struct ramster_entry *b = new_entry(test, 3);
	struct ramster_entry *b2 = new_entry(test, 3);
	struct list_head *lru = &t->tree.lru;

	a->flags = RAMSTER_ENTRY_LOCAL;
	b->flags = RAMSTER_ENTRY_LOCAL;
	b2->flags = RAMSTER_ENTRY_LOCAL;
	same->flags = RAMSTER_ENTRY_SAME_FILLED;

	spin_lock(&t->tree.lock);
	ramster_index_insert(&t->tree, a);
	ramster_index_insert(&t->tree, same);
	ramster_index_insert(&t->tree, b);
	KUNIT_EXPECT_PTR_EQ(test, lru->next, &a->lru);
	KUNIT_EXPECT_PTR_EQ(test, lru->next->next, &b->lru);
	KUNIT_EXPECT_PTR_EQ(test, lru->prev, &b->lru);
	KUNIT_EXPECT_TRUE(test, list_empty(&same->lru));

	ramster_index_erase(&t->tree, a);
	ramster_entry_put(&t->tree, a);
	KUNIT_EXPECT_PTR_EQ(test, lru->next, &b->lru);
	ramster_entry_put(&t->tree, ramster_index_insert(&t->tree, b2));
	KUNIT_EXPECT_PTR_EQ(test, lru->next, &b2->lru);
	KUNIT_EXPECT_PTR_EQ(test, lru->prev, &b2->lru);
	ramster_index_erase_all(&t->tree);
	KUNIT_EXPECT_TRUE(test, list_empty(lru));
	spin_unlock(&t->tree.lock);
}

/*
 * The copy transitions.  An entry with a local copy, inserted: the tree
 * holds one reference.
 */
static struct ramster_entry *local_entry(struct kunit *test,
					 struct test_tree *t, pgoff_t offset)
{
	struct ramster_entry *e = new_entry(test, offset);

	memset(e->holders, RAMSTER_NO_NODE, sizeof(e->holders));
	e->flags = RAMSTER_ENTRY_LOCAL;
	e->handle = 0x1000 + offset;
	spin_lock(&t->tree.lock);
	KUNIT_EXPECT_NULL(test, ramster_index_insert(&t->tree, e));
	spin_unlock(&t->tree.lock);
	return e;
}

/*
 * Transitions run under the tree lock, as the module runs them; what they
 * return is checked after it is dropped (a failed expectation allocates).
 */
static void put_then_holder_then_drop_local(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *e = local_entry(test, t, 1);
	unsigned long none, dropped, again;
	unsigned int flags_put, flags_end;
	int refs, set;

	spin_lock(&t->tree.lock);
	ramster_entry_begin_put(&t->tree, e);
	flags_put = e->flags;
	refs = e->refcount;
	/* No holder yet: the local copy is the only one and stays. */
	none = ramster_entry_drop_local(&t->tree, e, 1, 1);
	ramster_entry_end_put(&t->tree, e);
	flags_end = e->flags;
	set = ramster_entry_set_holder(&t->tree, e, 4, 0xc0c0);
	/* The tree and the PUT's reference only: the copy goes. */
	dropped = ramster_entry_drop_local(&t->tree, e, 1, 1);
	again = ramster_entry_drop_local(&t->tree, e, 1, 1);
	ramster_entry_put(&t->tree, e);
	spin_unlock(&t->tree.lock);

	KUNIT_EXPECT_TRUE(test, flags_put & RAMSTER_ENTRY_REMOTIFYING);
	KUNIT_EXPECT_EQ(test, refs, 2);
	KUNIT_EXPECT_EQ(test, none, 0);
	KUNIT_EXPECT_FALSE(test, flags_end & RAMSTER_ENTRY_REMOTIFYING);
	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_EXPECT_EQ(test, e->crc, 0xc0c0);
	KUNIT_EXPECT_EQ(test, dropped, 0x1001);
	KUNIT_EXPECT_FALSE(test, e->flags & RAMSTER_ENTRY_LOCAL);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->lru));
	KUNIT_EXPECT_TRUE(test, ramster_entry_remote_only(e));
	KUNIT_EXPECT_EQ(test, again, 0);
}

static void local_copy_stays_while_read(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *e = local_entry(test, t, 2);
	unsigned long while_read, after;
	unsigned int flags;
	int set;

	spin_lock(&t->tree.lock);
	set = ramster_entry_set_holder(&t->tree, e, 4, 1);
	ramster_entry_get(e);		/* a load reads the local copy */
	while_read = ramster_entry_drop_local(&t->tree, e, 0, 1);
	flags = e->flags;
	ramster_entry_put(&t->tree, e);	/* the load is done */
	after = ramster_entry_drop_local(&t->tree, e, 0, 1);
	spin_unlock(&t->tree.lock);

	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_EXPECT_EQ(test, while_read, 0);
	KUNIT_EXPECT_TRUE(test, flags & RAMSTER_ENTRY_LOCAL);
	KUNIT_EXPECT_EQ(test, after, 0x1002);
}

static void holders_are_distinct_and_bounded(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *e = local_entry(test, t, 3);
	int first, twice, full, forgot, forgot_again, set[RAMSTER_MAX_HOLDERS];
	u8 holders[RAMSTER_MAX_HOLDERS], after[RAMSTER_MAX_HOLDERS];
	u8 first_holder, first_after;
	bool remote_after;
	int i;

	spin_lock(&t->tree.lock);
	first = ramster_entry_set_holder(&t->tree, e, 4, 7);
	twice = ramster_entry_set_holder(&t->tree, e, 4, 7);
	for (i = 1; i < RAMSTER_MAX_HOLDERS; i++)
		set[i] = ramster_entry_set_holder(&t->tree, e, 4 + i, 9);
	full = ramster_entry_set_holder(&t->tree, e, 99, 7);
	first_holder = ramster_entry_first_holder(e);
	forgot = ramster_entry_forget_remote(&t->tree, e, holders);
	remote_after = ramster_entry_is_remote(e);
	first_after = ramster_entry_first_holder(e);
	forgot_again = ramster_entry_forget_remote(&t->tree, e, after);
	spin_unlock(&t->tree.lock);

	KUNIT_EXPECT_EQ(test, first, 0);
	KUNIT_EXPECT_EQ(test, twice, -EEXIST);
	for (i = 1; i < RAMSTER_MAX_HOLDERS; i++)
		KUNIT_EXPECT_EQ(test, set[i], 0);
	KUNIT_EXPECT_EQ(test, full, -ENOSPC);
	/* The first copy's checksum is the one every copy must match. */
	KUNIT_EXPECT_EQ(test, e->crc, 7);
	KUNIT_EXPECT_EQ(test, first_holder, 4);
	KUNIT_EXPECT_EQ(test, forgot, RAMSTER_MAX_HOLDERS);
	for (i = 0; i < RAMSTER_MAX_HOLDERS; i++)
		KUNIT_EXPECT_EQ(test, holders[i], 4 + i);
	KUNIT_EXPECT_FALSE(test, remote_after);
	KUNIT_EXPECT_EQ(test, first_after, RAMSTER_NO_NODE);
	KUNIT_EXPECT_EQ(test, forgot_again, 0);
	KUNIT_EXPECT_EQ(test, after[0], RAMSTER_NO_NODE);
}

static void adopt_only_by_a_live_remote_entry(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *e = local_entry(test, t, 5);
	bool own_copy, adopted, erased;
	unsigned long dropped, handle, dropped2;
	unsigned int flags;
	bool on_lru;
	int freed_before;

	spin_lock(&t->tree.lock);
	/* It still has its own copy: a fetched one is not taken. */
	own_copy = ramster_entry_adopt_local(&t->tree, e, 0x2000);
	ramster_entry_set_holder(&t->tree, e, 4, 1);
	dropped = ramster_entry_drop_local(&t->tree, e, 0, 1);
	adopted = ramster_entry_adopt_local(&t->tree, e, 0x2000);
	handle = e->handle;
	flags = e->flags;
	on_lru = !list_empty(&e->lru);
	/* Erased while the copy was on its way home: not adopted. */
	dropped2 = ramster_entry_drop_local(&t->tree, e, 0, 1);
	ramster_entry_get(e);
	ramster_index_erase(&t->tree, e);
	erased = ramster_entry_adopt_local(&t->tree, e, 0x3000);
	ramster_entry_put(&t->tree, e);
	freed_before = t->freed;
	ramster_entry_put(&t->tree, e);
	spin_unlock(&t->tree.lock);

	KUNIT_EXPECT_FALSE(test, own_copy);
	KUNIT_EXPECT_EQ(test, dropped, 0x1005);
	KUNIT_EXPECT_TRUE(test, adopted);
	KUNIT_EXPECT_EQ(test, handle, 0x2000);
	KUNIT_EXPECT_TRUE(test, flags & RAMSTER_ENTRY_LOCAL);
	KUNIT_EXPECT_TRUE(test, on_lru);
	KUNIT_EXPECT_EQ(test, dropped2, 0x2000);
	KUNIT_EXPECT_FALSE(test, erased);
	KUNIT_EXPECT_EQ(test, freed_before, 0);
	KUNIT_EXPECT_EQ(test, t->freed, 1);
}

/* Replicas: the local copy waits for enough copies; a lost holder goes
 * only while another copy remains.
 */
static void replicas_and_lost_holders(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *e = local_entry(test, t, 6);
	unsigned long one_copy, two_copies;
	bool last_local, drop_second, drop_absent, drop_last;
	int nr_before, nr_after;

	spin_lock(&t->tree.lock);
	ramster_entry_set_holder(&t->tree, e, 4, 1);
	/* Two copies wanted, one made: the local one stays. */
	one_copy = ramster_entry_drop_local(&t->tree, e, 0, 2);
	ramster_entry_set_holder(&t->tree, e, 5, 1);
	nr_before = ramster_entry_nr_holders(e);
	/* With the local copy still there, one holder may go ... */
	last_local = ramster_entry_drop_holder(&t->tree, e, 4);
	ramster_entry_set_holder(&t->tree, e, 4, 1);
	two_copies = ramster_entry_drop_local(&t->tree, e, 0, 2);
	/* ... and without it, one of two, but never the last. */
	drop_absent = ramster_entry_drop_holder(&t->tree, e, 9);
	drop_second = ramster_entry_drop_holder(&t->tree, e, 5);
	drop_last = ramster_entry_drop_holder(&t->tree, e, 4);
	nr_after = ramster_entry_nr_holders(e);
	spin_unlock(&t->tree.lock);

	KUNIT_EXPECT_EQ(test, one_copy, 0);
	KUNIT_EXPECT_EQ(test, nr_before, 2);
	KUNIT_EXPECT_TRUE(test, last_local);
	KUNIT_EXPECT_EQ(test, two_copies, 0x1006);
	KUNIT_EXPECT_FALSE(test, drop_absent);
	KUNIT_EXPECT_TRUE(test, drop_second);
	KUNIT_EXPECT_FALSE(test, drop_last);
	KUNIT_EXPECT_EQ(test, nr_after, 1);
	KUNIT_EXPECT_TRUE(test, ramster_entry_has_holder(e, 4));
	KUNIT_EXPECT_FALSE(test, ramster_entry_has_holder(e, 5));
}

static void next_finds_at_or_after(struct kunit *test)
{
	struct test_tree *t = new_tree(test);
	struct ramster_entry *a = local_entry(test, t, 10);
	struct ramster_entry *b = local_entry(test, t, 20);
	struct ramster_entry *at, *after, *past, *first, *succ, *last;

	spin_lock(&t->tree.lock);
	first = ramster_index_next(&t->tree, 0);
	at = ramster_index_next(&t->tree, 10);
	after = ramster_index_next(&t->tree, 11);
	past = ramster_index_next(&t->tree, 21);
	succ = ramster_index_after(&t->tree, a);
	last = ramster_index_after(&t->tree, b);
	spin_unlock(&t->tree.lock);

	KUNIT_EXPECT_PTR_EQ(test, first, a);
	KUNIT_EXPECT_PTR_EQ(test, at, a);
	KUNIT_EXPECT_PTR_EQ(test, after, b);
	KUNIT_EXPECT_NULL(test, past);
	KUNIT_EXPECT_PTR_EQ(test, succ, b);
	KUNIT_EXPECT_NULL(test, last);
}

static struct kunit_case ramster_entry_cases[] = {
	KUNIT_CASE(put_then_holder_then_drop_local),
	KUNIT_CASE(local_copy_stays_while_read),
	KUNIT_CASE(holders_are_distinct_and_bounded),
	KUNIT_CASE(adopt_only_by_a_live_remote_entry),
	KUNIT_CASE(replicas_and_lost_holders),
	KUNIT_CASE(next_finds_at_or_after),
	{}
};

static struct kunit_suite ramster_entry_suite = {
	.name = "ramster_entry_transitions",
	.test_cases = ramster_entry_cases,
};

static struct kunit_case ramster_index_cases[] = {
	KUNIT_CASE(lru_follows_local_copies),
	KUNIT_CASE(insert_lookup_erase),
	KUNIT_CASE(duplicate_replaces_and_returns_old),
	KUNIT_CASE(generations_increase),
	KUNIT_CASE(erase_while_in_use),
	KUNIT_CASE(erase_all_frees_everything),
	{}
};

static struct kunit_suite ramster_index_suite = {
	.name = "ramster_index",
	.test_cases = ramster_index_cases,
};

kunit_test_suites(&ramster_index_suite, &ramster_entry_suite);

MODULE_LICENSE("GPL");
