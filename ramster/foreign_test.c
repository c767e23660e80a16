// SPDX-License-Identifier: GPL-2.0
/*
 * foreign_test.c - KUnit suite for the foreign store's rules (foreign.c)
 *
 * Each case drives a store of its own: the generation rules (a PUT only
 * replaces an older version, a GET is answered only for the version it
 * names, an INVALIDATE removes only the version it names), owners kept
 * apart, capacity, closing, area drops, room and recall targets, and
 * ephemeral pages giving way to swap pages.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "foreign.h"
#include "wire.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define DATA_LEN	64

struct put_frame {
	struct ramster_wire_page page;
	u8 data[DATA_LEN];
};

static struct ramster_foreign *new_store(struct kunit *test, u64 capacity)
{
	struct ramster_foreign *fs = ramster_foreign_create("ramster_foreign_test");

	KUNIT_ASSERT_NOT_NULL(test, fs);
	ramster_foreign_set_capacity(fs, capacity);
	return fs;
}

static void key_set(struct ramster_wire_key *key, u16 type, u64 offset,
		    u64 gen)
{
	memset(key, 0, sizeof(*key));
	key->swap_type = cpu_to_le16(type);
	key->offset = cpu_to_le64(offset);
	key->gen = cpu_to_le64(gen);
}

/* PUT (type, offset, gen) whose data is @fill repeated. */
static u32 put(struct ramster_foreign *fs, u8 node, u16 type, u64 offset,
	       u64 gen, u8 fill)
{
	struct put_frame f = { };

	key_set(&f.page.key, type, offset, gen);
	f.page.clen = cpu_to_le32(DATA_LEN);
	f.page.dcrc = cpu_to_le32(fill);
	f.page.compressor = RAMSTER_COMP_LZ4;
	memset(f.data, fill, DATA_LEN);
	return ramster_foreign_put(fs, node, &f.page);
}

/* The fill byte of the data a GET of (type, offset, gen) gets; -1: none. */
static int get(struct ramster_foreign *fs, u8 node, u16 type, u64 offset,
	       u64 gen)
{
	struct put_frame f = { };
	u32 clen;
	int i;

	key_set(&f.page.key, type, offset, gen);
	clen = ramster_foreign_data_len(fs, node, &f.page.key);
	if (!clen)
		return -1;
	if (clen != DATA_LEN || ramster_foreign_get(fs, node, &f.page, clen))
		return -2;
	for (i = 1; i < DATA_LEN; i++)
		if (f.data[i] != f.data[0])
			return -3;
	if (le32_to_cpu(f.page.dcrc) != f.data[0])
		return -4;
	return f.data[0];
}

static void invalidate(struct ramster_foreign *fs, u8 node, u16 type,
		       u64 offset, u64 gen)
{
	struct ramster_wire_key key;

	key_set(&key, type, offset, gen);
	ramster_foreign_invalidate(fs, node, &key, 1);
}

static void newer_put_replaces_older_is_refused(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 100);

	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 5, 0xa5), RAMSTER_ST_OK);
	/* An older version, or other data for the same one, never replaces it. */
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 4, 0x44), RAMSTER_ST_REFUSED);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 5, 0x55), RAMSTER_ST_REFUSED);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 5), 0xa5);
	/* The same version sent again (a lost reply, a new replica): done, once. */
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 5, 0xa5), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 5), 0xa5);
	/* A newer one does, and the slot still counts once. */
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 6, 0x66), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 1);
	KUNIT_EXPECT_EQ(test, ramster_foreign_held_for(fs, 1), 1);
	ramster_foreign_destroy(fs);
}

static void get_answers_only_its_generation(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 100);

	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 6, 0x66), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 6), 0x66);
	/* The version it replaced, and one it never had: not found. */
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 5), -1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 7), -1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 11, 6), -1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 1, 10, 6), -1);
	ramster_foreign_destroy(fs);
}

static void invalidate_removes_only_its_generation(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 100);

	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 6, 0x66), RAMSTER_ST_OK);
	/* A late INVALIDATE of the version before leaves the new one. */
	invalidate(fs, 1, 0, 10, 5);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 6), 0x66);
	invalidate(fs, 1, 0, 10, 6);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 6), -1);
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 0);
	/* After that, an older PUT still arriving is taken: nothing newer. */
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 5, 0x55), RAMSTER_ST_OK);
	ramster_foreign_destroy(fs);
}

/* List @node's keys after (@type, @offset) (or from the start), @max each. */
static u32 list(struct ramster_foreign *fs, u8 node, bool start, u16 type,
		u64 offset, u32 max, struct ramster_wire_key *keys, bool *end)
{
	struct ramster_wire_reconcile rc = {
		.swap_type = cpu_to_le16(type),
		.flags = cpu_to_le16(start ? RAMSTER_RECONCILE_F_START : 0),
		.max_keys = cpu_to_le32(max),
		.offset = cpu_to_le64(offset),
	};

	return ramster_foreign_list(fs, node, &rc, keys, end);
}

static void list_walks_one_owner_in_key_order(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 100);
	struct ramster_wire_key keys[4];
	bool end;

	KUNIT_EXPECT_EQ(test, put(fs, 1, 1, 5, 3, 1), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, U64_MAX, 2, 1), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 7, 9, 1), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 2, 0, 8, 1, 1), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, RAMSTER_WIRE_EPHEMERAL_TYPE, 1, 1, 1),
			RAMSTER_ST_OK);

	/* From the start, two at a time: (0,7) (0,MAX), then (1,5), end. */
	KUNIT_EXPECT_EQ(test, list(fs, 1, true, 0, 0, 2, keys, &end), 2);
	KUNIT_EXPECT_FALSE(test, end);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(keys[0].offset), 7);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(keys[0].gen), 9);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(keys[1].offset), U64_MAX);
	KUNIT_EXPECT_EQ(test, list(fs, 1, false, 0, U64_MAX, 2, keys, &end), 1);
	KUNIT_EXPECT_TRUE(test, end);	/* the ephemeral page is not listed */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(keys[0].swap_type), 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(keys[0].gen), 3);
	/* The cursor itself is not listed again; other owners never are. */
	KUNIT_EXPECT_EQ(test, list(fs, 1, false, 1, 5, 4, keys, &end), 0);
	KUNIT_EXPECT_TRUE(test, end);
	KUNIT_EXPECT_EQ(test, list(fs, 2, true, 0, 0, 4, keys, &end), 1);
	KUNIT_EXPECT_TRUE(test, end);
	KUNIT_EXPECT_EQ(test, list(fs, 3, true, 0, 0, 4, keys, &end), 0);
	KUNIT_EXPECT_TRUE(test, end);
	ramster_foreign_drop(fs, 1, RAMSTER_FOREIGN_ALL_TYPES);
	ramster_foreign_drop(fs, 2, RAMSTER_FOREIGN_ALL_TYPES);
	ramster_foreign_destroy(fs);
}

static void owners_are_apart(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 100);

	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 10, 5, 0x11), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 2, 0, 10, 9, 0x22), RAMSTER_ST_OK);
	/* Node 2's newer generation is not node 1's. */
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 5), 0x11);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 9), -1);
	invalidate(fs, 2, 0, 10, 5);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 5), 0x11);
	KUNIT_EXPECT_EQ(test, ramster_foreign_drop(fs, 2, RAMSTER_FOREIGN_ALL_TYPES), 1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 10, 5), 0x11);
	KUNIT_EXPECT_EQ(test, ramster_foreign_held_for(fs, 1), 1);
	KUNIT_EXPECT_EQ(test, ramster_foreign_held_for(fs, 2), 0);
	ramster_foreign_destroy(fs);
}

static void drop_area_keeps_other_areas(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 100);
	int i;

	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, put(fs, 1, 0, i, 1, 0x10), RAMSTER_ST_OK);
		KUNIT_EXPECT_EQ(test, put(fs, 1, 1, i, 1, 0x20), RAMSTER_ST_OK);
		KUNIT_EXPECT_EQ(test, put(fs, 1, 2, i, 1, 0x30), RAMSTER_ST_OK);
	}
	KUNIT_EXPECT_EQ(test, ramster_foreign_drop(fs, 1, 1), 5);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 4, 1), 0x10);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 1, 0, 1), -1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 2, 0, 1), 0x30);
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 10);
	ramster_foreign_destroy(fs);
}

static void full_and_closed_refuse(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 2);

	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 1, 1, 1), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 2, 1, 2), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 3, 1, 3), RAMSTER_ST_FULL);
	ramster_foreign_set_capacity(fs, 10);
	ramster_foreign_set_closed(fs, true);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 3, 1, 3), RAMSTER_ST_REFUSED);
	KUNIT_EXPECT_EQ(test, ramster_foreign_room(fs, 100, 100), 0);
	KUNIT_EXPECT_EQ(test, ramster_foreign_recall_keep(fs, 1, 100, 100), 0);
	/* What it holds is still served while it leaves. */
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 2, 1), 2);
	ramster_foreign_set_closed(fs, false);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 3, 1, 3), RAMSTER_ST_OK);
	ramster_foreign_destroy(fs);
}

static void room_and_recall_follow_the_marks(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 10);
	u64 keep1, keep2;
	int i;

	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, put(fs, 1, 0, i, 1, 1), RAMSTER_ST_OK);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, put(fs, 2, 0, i, 1, 1), RAMSTER_ST_OK);
	/* Room ends at the low mark. */
	KUNIT_EXPECT_EQ(test, ramster_foreign_room(fs, 100, 100), 2);
	KUNIT_EXPECT_EQ(test, ramster_foreign_room(fs, 100, 50), 0);
	/* Below the high mark, nothing is recalled; node 3 has nothing. */
	KUNIT_EXPECT_EQ(test, ramster_foreign_recall_keep(fs, 1, 90, 50), U64_MAX);
	KUNIT_EXPECT_EQ(test, ramster_foreign_recall_keep(fs, 3, 10, 10), U64_MAX);
	/* Above it, each owner keeps its share of the low mark (5 pages). */
	keep1 = ramster_foreign_recall_keep(fs, 1, 70, 50);
	keep2 = ramster_foreign_recall_keep(fs, 2, 70, 50);
	KUNIT_EXPECT_LT(test, keep1, 6);
	KUNIT_EXPECT_LE(test, keep2, 2);
	KUNIT_EXPECT_LE(test, keep1 + keep2, 5);
	ramster_foreign_destroy(fs);
}

/* The lender short of memory: a limit under what it holds. */
static void a_limit_stands_in_for_the_capacity(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 10);
	int i;

	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, put(fs, 1, 0, i, 1, 1), RAMSTER_ST_OK);
	ramster_foreign_set_limit(fs, 4);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 6, 1, 1), RAMSTER_ST_FULL);
	KUNIT_EXPECT_EQ(test, ramster_foreign_room(fs, 100, 100), 0);
	/* Everything above the limit's marks is recalled... */
	KUNIT_EXPECT_LE(test, ramster_foreign_recall_keep(fs, 1, 100, 100), 4);
	/* ... nothing is dropped: the pages are still served. */
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 6);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 5, 1), 1);
	/* Lifted: the capacity counts again. */
	ramster_foreign_set_limit(fs, U64_MAX);
	KUNIT_EXPECT_EQ(test, ramster_foreign_room(fs, 100, 100), 4);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 6, 1, 1), RAMSTER_ST_OK);
	ramster_foreign_destroy(fs);
}

/* A shrinker only ever lowers the limit; a squeezed lender shares room. */
static void lower_limit_and_owner_room(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 12);
	int i;

	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, put(fs, 1, 0, i, 1, 1), RAMSTER_ST_OK);
	ramster_foreign_lower_limit(fs, 8);
	ramster_foreign_lower_limit(fs, 10);
	KUNIT_EXPECT_EQ(test, ramster_foreign_room(fs, 100, 100), 6);
	/* Two owners: 4 pages each; node 1 has 2 of its 4, node 2 none. */
	KUNIT_EXPECT_EQ(test, ramster_foreign_owner_room(fs, 1, 100, 100, 2), 2);
	KUNIT_EXPECT_EQ(test, ramster_foreign_owner_room(fs, 2, 100, 100, 2), 4);
	/* Frozen at what is held: no room for anyone, nothing taken. */
	ramster_foreign_lower_limit(fs, ramster_foreign_total(fs));
	KUNIT_EXPECT_EQ(test, ramster_foreign_owner_room(fs, 2, 100, 100, 2), 0);
	KUNIT_EXPECT_EQ(test, put(fs, 2, 0, 0, 1, 1), RAMSTER_ST_FULL);
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 2);
	ramster_foreign_set_limit(fs, U64_MAX);
	KUNIT_EXPECT_EQ(test, put(fs, 2, 0, 0, 1, 1), RAMSTER_ST_OK);
	ramster_foreign_destroy(fs);
}

#define EPH	RAMSTER_WIRE_EPHEMERAL_TYPE

/* Ephemeral pages give way to swap pages, oldest first, and are apart. */
static void ephemeral_pages_give_way(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 4);
	int i;

	for (i = 1; i <= 3; i++)
		KUNIT_EXPECT_EQ(test, put(fs, 1, EPH, i, i, i), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, ramster_foreign_ephemeral(fs), 3);
	/* Not swap pages: no room taken, no share, nothing to recall. */
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 0);
	KUNIT_EXPECT_EQ(test, ramster_foreign_held_for(fs, 1), 0);
	KUNIT_EXPECT_EQ(test, ramster_foreign_room(fs, 100, 100), 4);
	KUNIT_EXPECT_EQ(test, ramster_foreign_recall_keep(fs, 1, 10, 10), U64_MAX);
	/* Answered for their generation only. */
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 2, 2), 2);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 2, 3), -1);
	/* A swap page fits beside them; the next one drops the oldest (1). */
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 1, 1, 9), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 2, 1, 9), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 1, 1), -1);
	/* 2 was asked for last: 3 is the oldest now, and goes next. */
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 3, 1, 9), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 3, 3), -1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 2, 2), 2);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 4, 1, 9), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, ramster_foreign_ephemeral(fs), 0);
	KUNIT_EXPECT_EQ(test, ramster_foreign_total(fs), 4);
	/* Full of swap pages: an ephemeral page never displaces one. */
	KUNIT_EXPECT_EQ(test, put(fs, 1, EPH, 5, 5, 5), RAMSTER_ST_FULL);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 5, 1, 9), RAMSTER_ST_FULL);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 4, 1), 9);
	ramster_foreign_destroy(fs);
}

/* A full store of ephemeral pages takes a newer one for the oldest. */
static void ephemeral_pages_are_an_lru(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 2);

	KUNIT_EXPECT_EQ(test, put(fs, 1, EPH, 1, 1, 1), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 2, EPH, 2, 2, 2), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, EPH, 3, 3, 3), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 1, 1), -1);
	KUNIT_EXPECT_EQ(test, get(fs, 2, EPH, 2, 2), 2);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 3, 3), 3);
	/* Invalidated by name, and dropped with their owner's instance. */
	invalidate(fs, 1, EPH, 3, 3);
	KUNIT_EXPECT_EQ(test, ramster_foreign_ephemeral(fs), 1);
	KUNIT_EXPECT_EQ(test, ramster_foreign_drop(fs, 2, RAMSTER_FOREIGN_ALL_TYPES), 1);
	KUNIT_EXPECT_EQ(test, ramster_foreign_ephemeral(fs), 0);
	ramster_foreign_destroy(fs);
}

/* Memory pressure drops ephemeral pages, oldest first, and nothing else. */
static void shrink_drops_only_ephemeral_pages(struct kunit *test)
{
	struct ramster_foreign *fs = new_store(test, 10);
	int i;

	for (i = 1; i <= 4; i++)
		KUNIT_EXPECT_EQ(test, put(fs, 1, EPH, i, i, i), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, put(fs, 1, 0, 1, 1, 7), RAMSTER_ST_OK);
	KUNIT_EXPECT_EQ(test, ramster_foreign_shrink(fs, 3), 3);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 3, 3), -1);
	KUNIT_EXPECT_EQ(test, get(fs, 1, EPH, 4, 4), 4);
	KUNIT_EXPECT_EQ(test, ramster_foreign_shrink(fs, 100), 1);
	KUNIT_EXPECT_EQ(test, ramster_foreign_shrink(fs, 100), 0);
	KUNIT_EXPECT_EQ(test, get(fs, 1, 0, 1, 1), 7);
	/* Ephemeral pages are not taken while the store is closed either. */
	ramster_foreign_set_closed(fs, true);
	KUNIT_EXPECT_EQ(test, put(fs, 1, EPH, 9, 9, 9), RAMSTER_ST_REFUSED);
	ramster_foreign_destroy(fs);
}

static struct kunit_case ramster_foreign_cases[] = {
	KUNIT_CASE(newer_put_replaces_older_is_refused),
	KUNIT_CASE(get_answers_only_its_generation),
	KUNIT_CASE(invalidate_removes_only_its_generation),
	KUNIT_CASE(owners_are_apart),
	KUNIT_CASE(list_walks_one_owner_in_key_order),
	KUNIT_CASE(drop_area_keeps_other_areas),
	KUNIT_CASE(full_and_closed_refuse),
	KUNIT_CASE(room_and_recall_follow_the_marks),
	KUNIT_CASE(a_limit_stands_in_for_the_capacity),
	KUNIT_CASE(lower_limit_and_owner_room),
	KUNIT_CASE(ephemeral_pages_give_way),
	KUNIT_CASE(ephemeral_pages_are_an_lru),
	KUNIT_CASE(shrink_drops_only_ephemeral_pages),
	{}
};

static struct kunit_suite ramster_foreign_suite = {
	.name = "ramster_foreign",
	.test_cases = ramster_foreign_cases,
};

kunit_test_suite(ramster_foreign_suite);
