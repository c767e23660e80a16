/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mix64.h - the test programs' hash: every page they make is derived from
 * mix64() of its seed, index and version (murmur3's 64-bit finalizer)
 */
#ifndef _TESTS_GUEST_MIX64_H
#define _TESTS_GUEST_MIX64_H

#include <stdint.h>

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* _TESTS_GUEST_MIX64_H */
