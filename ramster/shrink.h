/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shrink.h - bringing pages home through frontswap_shrink()
 */
#ifndef _RAMSTER_SHRINK_H
#define _RAMSTER_SHRINK_H

long ramster_shrink_to(unsigned long target, const char *who);
unsigned long ramster_shrink_by(unsigned long pages, const char *who);

#endif /* _RAMSTER_SHRINK_H */
