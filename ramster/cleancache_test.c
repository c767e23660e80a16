// SPDX-License-Identifier: GPL-2.0
/*
 * cleancache_test.c - KUnit suite for the pure decisions of cleancache.h:
 * the room clean pages have beside swap pages, and the order of the pages
 * kept
 */
#include <kunit/test.h>
#include <linux/mm.h>

#include "cleancache.h"

/* 1000 pages of RAM in all the room tests: a percent is 10 pages. */
static void room_is_what_swap_pages_leave(struct kunit *test)
{
	/* Pool limit 20% (200 pages), own limit 20%: 200 minus swap. */
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 0, 20, 20),
			200ULL << PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 150, 20, 20),
			50ULL << PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 199, 20, 20),
			1ULL << PAGE_SHIFT);
}

static void room_is_zero_when_swap_pages_fill_the_pool(struct kunit *test)
{
	/* A swap page is never refused to keep a clean page. */
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 200, 20, 20), 0ULL);
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 900, 20, 100), 0ULL);
}

static void room_is_capped_by_its_own_limit(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 0, 50, 10),
			100ULL << PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 350, 50, 10),
			100ULL << PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1000, 450, 50, 10),
			50ULL << PAGE_SHIFT);
	/* Large machines must not overflow: 2^40 pages at 100%. */
	KUNIT_EXPECT_EQ(test, ramster_clean_room(1UL << 40, 0, 100, 100),
			(1ULL << 40) << PAGE_SHIFT);
}

static void order_is_pool_key_index(struct kunit *test)
{
	struct cleancache_filekey a = { .u.ino = 12 }, b = { .u.ino = 13 };

	KUNIT_EXPECT_EQ(test, ramster_clean_cmp(1, &a, 5, 1, &a, 5), 0);
	KUNIT_EXPECT_LT(test, ramster_clean_cmp(1, &a, 5, 1, &a, 6), 0);
	KUNIT_EXPECT_GT(test, ramster_clean_cmp(1, &a, 6, 1, &a, 5), 0);
	/* The key before the index, the pool before the key. */
	KUNIT_EXPECT_NE(test, ramster_clean_cmp(1, &a, 9, 1, &b, 0), 0);
	KUNIT_EXPECT_EQ(test, ramster_clean_cmp(1, &a, 9, 1, &b, 0) < 0,
			ramster_clean_cmp(1, &a, 0, 1, &b, 9) < 0);
	KUNIT_EXPECT_LT(test, ramster_clean_cmp(1, &b, 9, 2, &a, 0), 0);
	KUNIT_EXPECT_GT(test, ramster_clean_cmp(2, &a, 0, 1, &b, 9), 0);
}

/*
 * Every key and index of a pool sorts after (pool, zero key, 0), where a
 * pool's invalidation starts, and before the next pool: a pool is one run.
 */
static void a_pool_is_one_run(struct kunit *test)
{
	struct cleancache_filekey zero = { }, big;

	memset(&big, 0xff, sizeof(big));
	KUNIT_EXPECT_LE(test, ramster_clean_cmp(3, &zero, 0, 3, &zero, 0), 0);
	KUNIT_EXPECT_LT(test, ramster_clean_cmp(3, &zero, 0, 3, &big, 0), 0);
	KUNIT_EXPECT_LT(test, ramster_clean_cmp(3, &big, ULONG_MAX, 4, &zero, 0),
			0);
	KUNIT_EXPECT_GT(test, ramster_clean_cmp(3, &zero, 0, 2, &big, ULONG_MAX),
			0);
	/* Negative pool ids are never used, but still order. */
	KUNIT_EXPECT_LT(test, ramster_clean_cmp(-1, &big, 0, 0, &zero, 0), 0);
}

static struct kunit_case ramster_cleancache_cases[] = {
	KUNIT_CASE(room_is_what_swap_pages_leave),
	KUNIT_CASE(room_is_zero_when_swap_pages_fill_the_pool),
	KUNIT_CASE(room_is_capped_by_its_own_limit),
	KUNIT_CASE(order_is_pool_key_index),
	KUNIT_CASE(a_pool_is_one_run),
	{}
};

static struct kunit_suite ramster_cleancache_suite = {
	.name = "ramster_cleancache",
	.test_cases = ramster_cleancache_cases,
};

kunit_test_suites(&ramster_cleancache_suite);
