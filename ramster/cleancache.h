/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cleancache.h - the ephemeral pool: clean page cache pages, compressed,
 * kept at a lower priority than swap pages
 */
#ifndef _RAMSTER_CLEANCACHE_H
#define _RAMSTER_CLEANCACHE_H

#include <linux/cleancache.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>

struct ramster_local_limits;

int ramster_clean_init(const struct ramster_local_limits *limits);
void ramster_clean_exit(void);
void ramster_clean_make_room(const struct ramster_local_limits *limits);

/*
 * Pure decisions, here so that the KUnit suite (cleancache_test.c) can
 * check them without a page in sight.
 */

/**
 * ramster_clean_room - bytes the clean pages may use now
 * @totalram: pages of RAM
 * @swap_pool_pages: pages the swap pages' pool uses now
 * @max_pool_percent: limit of both pools together, in percent of RAM
 * @clean_percent: the clean pages' own limit, in percent of RAM
 *
 * Clean pages get what the swap pages leave of the pool, up to their own
 * limit: a swap page is never refused to keep a clean one.
 */
static inline u64 ramster_clean_room(unsigned long totalram,
				     unsigned long swap_pool_pages,
				     unsigned int max_pool_percent,
				     unsigned int clean_percent)
{
	u64 limit = div_u64((u64)totalram * max_pool_percent, 100);
	u64 own = div_u64((u64)totalram * clean_percent, 100);

	if (swap_pool_pages >= limit)
		return 0;
	return min_t(u64, limit - swap_pool_pages, own) << PAGE_SHIFT;
}

/**
 * ramster_clean_cmp - the order of the pages kept: pool, file key, index
 * @pool_a: first page's pool id
 * @key_a: its file key
 * @index_a: its index
 * @pool_b: second page's pool id
 * @key_b: its file key
 * @index_b: its index
 *
 * The pages of one file, and of one pool, are neighbours: a file or a
 * pool is invalidated by walking from its first page.
 *
 * Return: <0, 0 or >0 as a sorts before, with or after b.
 */
static inline int ramster_clean_cmp(int pool_a,
				    const struct cleancache_filekey *key_a,
				    pgoff_t index_a, int pool_b,
				    const struct cleancache_filekey *key_b,
				    pgoff_t index_b)
{
	int ret;

	if (pool_a != pool_b)
		return pool_a < pool_b ? -1 : 1;
	ret = memcmp(key_a, key_b, sizeof(*key_a));
	if (ret)
		return ret;
	if (index_a != index_b)
		return index_a < index_b ? -1 : 1;
	return 0;
}

#endif /* _RAMSTER_CLEANCACHE_H */
