// SPDX-License-Identifier: GPL-2.0
/*
 * policy_test.c - KUnit suite for the pure decisions of policy.h
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "policy.h"

static void *alloc_page_buf(struct kunit *test)
{
	void *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	return buf;
}

static void same_filled_zero_page(struct kunit *test)
{
	unsigned long value = 1;
	void *buf = alloc_page_buf(test);

	KUNIT_EXPECT_TRUE(test, ramster_same_filled(buf, &value));
	KUNIT_EXPECT_EQ(test, value, 0UL);
}

static void same_filled_pattern_page(struct kunit *test)
{
	unsigned long value = 0;
	void *buf = alloc_page_buf(test);

	ramster_fill_page(buf, 0xa5a5a5a55a5a5a5aUL);
	KUNIT_EXPECT_TRUE(test, ramster_same_filled(buf, &value));
	KUNIT_EXPECT_EQ(test, value, 0xa5a5a5a55a5a5a5aUL);
}

/* One differing byte anywhere, first, middle or last word, says no. */
static void same_filled_one_byte_differs(struct kunit *test)
{
	size_t where[] = { 0, 1, PAGE_SIZE / 2, PAGE_SIZE - 8, PAGE_SIZE - 1 };
	unsigned long value = 7;
	u8 *buf = alloc_page_buf(test);
	int i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		memset(buf, 0, PAGE_SIZE);
		buf[where[i]] = 1;
		KUNIT_EXPECT_FALSE_MSG(test, ramster_same_filled(buf, &value),
				       "byte %zu differs", where[i]);
	}
	KUNIT_EXPECT_EQ_MSG(test, value, 7UL, "value written on a no");
}

static void fill_page_round_trips(struct kunit *test)
{
	unsigned long value = 0;
	void *buf = alloc_page_buf(test);

	ramster_fill_page(buf, 0x0123456789abcdefUL);
	KUNIT_ASSERT_TRUE(test, ramster_same_filled(buf, &value));
	KUNIT_EXPECT_EQ(test, value, 0x0123456789abcdefUL);
}

static void compressed_size_limit(struct kunit *test)
{
	unsigned int limit75 = PAGE_SIZE * 75 / 100;

	KUNIT_EXPECT_FALSE(test, ramster_compressed_too_big(0, 75));
	KUNIT_EXPECT_FALSE(test, ramster_compressed_too_big(limit75, 75));
	KUNIT_EXPECT_TRUE(test, ramster_compressed_too_big(limit75 + 1, 75));
	KUNIT_EXPECT_FALSE(test, ramster_compressed_too_big(PAGE_SIZE, 100));
	KUNIT_EXPECT_TRUE(test, ramster_compressed_too_big(PAGE_SIZE + 1, 100));
	/* Larger than a page: some compressors expand random data. */
	KUNIT_EXPECT_TRUE(test, ramster_compressed_too_big(2 * PAGE_SIZE, 75));
}

static void pool_limit(struct kunit *test)
{
	/* 1000 pages of RAM, 20%: 199 is under, 200 is at the limit. */
	KUNIT_EXPECT_FALSE(test, ramster_pool_limit_hit(199, 1000, 20));
	KUNIT_EXPECT_TRUE(test, ramster_pool_limit_hit(200, 1000, 20));
	KUNIT_EXPECT_TRUE(test, ramster_pool_limit_hit(201, 1000, 20));
	KUNIT_EXPECT_FALSE(test, ramster_pool_limit_hit(0, 1000, 1));
	KUNIT_EXPECT_TRUE(test, ramster_pool_limit_hit(1000, 1000, 100));
	/* Large machines must not overflow: 2^40 pages at 50%. */
	KUNIT_EXPECT_FALSE(test, ramster_pool_limit_hit(1UL << 38, 1UL << 40, 50));
	KUNIT_EXPECT_TRUE(test, ramster_pool_limit_hit(1UL << 39, 1UL << 40, 50));
}

static void pool_over_mark(struct kunit *test)
{
	/* 1000 pages of RAM, 20%: limit 200, 95% of it 190, 90% 180. */
	KUNIT_EXPECT_FALSE(test, ramster_pool_over_mark(190, 1000, 20, 95));
	KUNIT_EXPECT_TRUE(test, ramster_pool_over_mark(191, 1000, 20, 95));
	KUNIT_EXPECT_FALSE(test, ramster_pool_over_mark(180, 1000, 20, 90));
	KUNIT_EXPECT_TRUE(test, ramster_pool_over_mark(181, 1000, 20, 90));
	/* A mark above 100 is the limit itself. */
	KUNIT_EXPECT_FALSE(test, ramster_pool_over_mark(200, 1000, 20, 150));
	KUNIT_EXPECT_TRUE(test, ramster_pool_over_mark(201, 1000, 20, 150));
	/* Large machines must not overflow: 2^40 pages, 50%, 50% of it. */
	KUNIT_EXPECT_FALSE(test,
			   ramster_pool_over_mark(1UL << 38, 1UL << 40, 50, 50));
	KUNIT_EXPECT_TRUE(test,
			  ramster_pool_over_mark((1UL << 38) + 1, 1UL << 40,
						 50, 50));
}

static void recall_only_above_high(struct kunit *test)
{
	/* At or below the high mark, or nothing held: no recall. */
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(500, 900, 900, 700), U64_MAX);
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(500, 800, 900, 700), U64_MAX);
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(0, 1000, 900, 700), U64_MAX);
	/* A count that cannot be (more for one than for all): no recall. */
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(1001, 1000, 900, 700), U64_MAX);
}

static void recall_shares_are_proportional(struct kunit *test)
{
	u64 held[] = { 600, 300, 100 }, kept = 0;
	int i;

	/* 1000 held, back to 700: 300 given in proportion 6:3:1. */
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(600, 1000, 900, 700), 420ULL);
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(300, 1000, 900, 700), 210ULL);
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(100, 1000, 900, 700), 70ULL);
	/* Rounding never leaves the total above the low mark. */
	for (i = 0; i < ARRAY_SIZE(held); i++)
		kept += ramster_recall_keep(held[i], 1000, 900, 701);
	KUNIT_EXPECT_LE(test, kept, 701ULL);
	/* One owner with everything gives exactly the excess. */
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(3000, 3000, 2000, 1500), 1500ULL);
}

static void recall_low_clamped_to_high(struct kunit *test)
{
	/* A low mark above the high one means the high one. */
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(1000, 1000, 500, 800), 500ULL);
	/* A mark of 0 (capacity 0, or leaving): everything comes back. */
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(123, 456, 0, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, ramster_recall_keep(1, 1, 0, 0), 0ULL);
}

static struct kunit_case ramster_policy_cases[] = {
	KUNIT_CASE(same_filled_zero_page),
	KUNIT_CASE(same_filled_pattern_page),
	KUNIT_CASE(same_filled_one_byte_differs),
	KUNIT_CASE(fill_page_round_trips),
	KUNIT_CASE(compressed_size_limit),
	KUNIT_CASE(pool_limit),
	KUNIT_CASE(pool_over_mark),
	KUNIT_CASE(recall_only_above_high),
	KUNIT_CASE(recall_shares_are_proportional),
	KUNIT_CASE(recall_low_clamped_to_high),
	{}
};

static struct kunit_suite ramster_policy_suite = {
	.name = "ramster_policy",
	.test_cases = ramster_policy_cases,
};

kunit_test_suites(&ramster_policy_suite);

MODULE_LICENSE("GPL");
