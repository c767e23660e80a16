/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - the local tier's pure decisions
 *
 * No state and no locking here: each function answers one question from
 * its arguments, so the KUnit suite can pin down every edge.
 */
#ifndef _RAMSTER_POLICY_H
#define _RAMSTER_POLICY_H

#include <linux/types.h>
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

#endif /* _RAMSTER_POLICY_H */
