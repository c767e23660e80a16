/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - pure decisions: the local tier's and the lender's
 *
 * No state and no locking here: each function answers one question from
 * its arguments, so the KUnit suite can pin down every edge.
 */
#ifndef _RAMSTER_POLICY_H
#define _RAMSTER_POLICY_H

#include <linux/types.h>
#include <linux/math64.h>
#include <linux/mm.h>

/**
 * ramster_same_filled - is a page one repeated word?
 * @data: the page's contents, PAGE_SIZE bytes
 * @value: set to the repeated word when the answer is yes
 *
 * Such pages (most often zero pages) are stored as the word alone, with
 * no compression and no pool allocation.
 */
static inline bool ramster_same_filled(const void *data, unsigned long *value)
{
	const unsigned long *words = data;
	unsigned int i, last = PAGE_SIZE / sizeof(*words) - 1;

	/* The last word first: it differs first in most pages. */
	if (words[0] != words[last])
		return false;
	for (i = 1; i < last; i++) {
		if (words[i] != words[0])
			return false;
	}
	*value = words[0];
	return true;
}

/* Fill a page with a word, the inverse of ramster_same_filled(). */
static inline void ramster_fill_page(void *data, unsigned long value)
{
	memset_l(data, value, PAGE_SIZE / sizeof(unsigned long));
}

/**
 * ramster_compressed_too_big - should a compressed page be rejected?
 * @dlen: compressed length in bytes
 * @max_percent: largest accepted size, in percent of a page
 *
 * A page that barely compresses costs as much pool memory as it saves, and
 * zsmalloc's largest size classes waste the most: such pages go to the
 * swap device instead.
 */
static inline bool ramster_compressed_too_big(unsigned int dlen,
					      unsigned int max_percent)
{
	return (unsigned long)dlen * 100 > (unsigned long)PAGE_SIZE * max_percent;
}

/**
 * ramster_pool_limit_hit - is the pool at its size limit?
 * @pool_pages: pages the pool uses now
 * @total_ram: pages of RAM in the machine
 * @max_percent: the pool's limit, in percent of RAM
 */
static inline bool ramster_pool_limit_hit(unsigned long pool_pages,
					  unsigned long total_ram,
					  unsigned int max_percent)
{
	return pool_pages >= mult_frac(total_ram, max_percent, 100);
}

/**
 * ramster_pool_over_mark - is the pool above a mark within its limit?
 * @pool_pages: pages the pool uses now
 * @total_ram: pages of RAM in the machine
 * @max_percent: the pool's limit, in percent of RAM
 * @mark_percent: the mark, in percent of the limit (at most 100)
 *
 * Eviction starts above evict_high_percent and stops at or below
 * evict_low_percent of the limit.
 */
static inline bool ramster_pool_over_mark(unsigned long pool_pages,
					  unsigned long total_ram,
					  unsigned int max_percent,
					  unsigned int mark_percent)
{
	unsigned long limit = mult_frac(total_ram, max_percent, 100);

	return pool_pages > mult_frac(limit, min(mark_percent, 100U), 100);
}

/**
 * ramster_recall_keep - how many of one owner's pages a lender keeps
 * @held_for: pages the lender holds for that owner
 * @total: foreign pages it holds for all owners
 * @high: its high mark, in pages: above it, pages are recalled
 * @low: where a recall brings @total (at most @high)
 *
 * Every owner takes back its share of the excess, in proportion to what
 * it has here, rounded up so that the shares do bring @total to @low.
 * Page counts are far below 2^32, so the products cannot overflow.
 *
 * Return: how many of that owner's pages to keep, or U64_MAX when nothing
 * is recalled.
 */
static inline u64 ramster_recall_keep(u64 held_for, u64 total, u64 high,
				      u64 low)
{
	u64 give;

	if (total <= high || !held_for || held_for > total)
		return U64_MAX;
	low = min(low, high);
	give = div64_u64(held_for * (total - low) + total - 1, total);
	return held_for - min(give, held_for);
}

#endif /* _RAMSTER_POLICY_H */
