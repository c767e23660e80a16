// SPDX-License-Identifier: GPL-2.0
/*
 * stats_test.c - KUnit suite for the counters' summary line (stats.c)
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "stats.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/*
 * The summary's first columns as released.  Scripts parse the summary, so
 * these may never change: new counters are appended after them.
 */
static const char * const released_columns[] = {
	"stored_pages", "pool_total_size", "same_filled_pages", "loads",
	"stores", "invalidates", "invalidate_areas", "duplicate_entry",
	"reject_pool_limit", "reject_compress_poor", "reject_compress_fail",
	"reject_alloc_fail", "reject_kmemcache_fail", "reject_no_area",
	"reject_unloading", "load_not_found", "load_decompress_fail",
	"shrink_runs", "shrink_pages",
};

static void columns_are_append_only(struct kunit *test)
{
	int i;

	KUNIT_ASSERT_GE(test, (int)RAMSTER_NR_STATS,
			(int)ARRAY_SIZE(released_columns));
	for (i = 0; i < ARRAY_SIZE(released_columns); i++)
		KUNIT_EXPECT_STREQ(test, ramster_stat_names[i],
				   released_columns[i]);
}

/* The name table is indexed by enum: a counter added without a name. */
static void every_counter_has_a_name(struct kunit *test)
{
	int i, j;

	for (i = 0; i < RAMSTER_NR_STATS; i++) {
		KUNIT_EXPECT_NOT_NULL_MSG(test, ramster_stat_names[i],
					  "counter %d", i);
		if (!ramster_stat_names[i])
			continue;
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, ramster_stat_names[i],
					    ramster_stat_names[j]);
	}
}

static void summary_is_one_line_of_pairs(struct kunit *test)
{
	u64 values[RAMSTER_NR_STATS];
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *p, *tok;
	int i, len;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < RAMSTER_NR_STATS; i++)
		values[i] = i * 1000ULL + (i == 1 ? U64_MAX - 1000 : 0);
	len = ramster_stats_summary(buf, PAGE_SIZE, values);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_EXPECT_EQ(test, (size_t)len, strlen(buf));
	KUNIT_EXPECT_EQ(test, buf[len - 1], '\n');
	KUNIT_EXPECT_PTR_EQ(test, strchr(buf, '\n'), buf + len - 1);

	buf[len - 1] = '\0';
	p = buf;
	for (i = 0; (tok = strsep(&p, " ")); i++) {
		char want[64];

		KUNIT_ASSERT_LT(test, i, (int)RAMSTER_NR_STATS);
		snprintf(want, sizeof(want), "%s=%llu", ramster_stat_names[i],
			 values[i]);
		KUNIT_EXPECT_STREQ(test, tok, want);
	}
	KUNIT_EXPECT_EQ(test, i, (int)RAMSTER_NR_STATS);
}

static void summary_too_small_buffer(struct kunit *test)
{
	u64 values[RAMSTER_NR_STATS] = { 0 };
	char buf[16];

	KUNIT_EXPECT_EQ(test, ramster_stats_summary(buf, sizeof(buf), values),
			-ENOSPC);
}

static struct kunit_case ramster_stats_cases[] = {
	KUNIT_CASE(columns_are_append_only),
	KUNIT_CASE(every_counter_has_a_name),
	KUNIT_CASE(summary_is_one_line_of_pairs),
	KUNIT_CASE(summary_too_small_buffer),
	{}
};

static struct kunit_suite ramster_stats_suite = {
	.name = "ramster_stats",
	.test_cases = ramster_stats_cases,
};

kunit_test_suites(&ramster_stats_suite);

MODULE_LICENSE("GPL");
