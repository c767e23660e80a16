/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lender.h - the holder's side of the protocol: this node lends its RAM
 */
#ifndef _RAMSTER_LENDER_H
#define _RAMSTER_LENDER_H

#include <linux/types.h>

int ramster_lender_init(void);
void ramster_lender_exit(void);
void ramster_lender_set_capacity(u64 pages);
void ramster_lender_set_leaving(bool leaving);
u64 ramster_lender_total_pages(void);
u64 ramster_lender_pool_bytes(void);

#endif /* _RAMSTER_LENDER_H */
