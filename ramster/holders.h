/* SPDX-License-Identifier: GPL-2.0 */
/*
 * holders.h - the owner's view of the nodes that hold its pages, and
 * where the next page goes
 */
#ifndef _RAMSTER_HOLDERS_H
#define _RAMSTER_HOLDERS_H

#include <linux/ktime.h>
#include <linux/types.h>

#include "index.h"

int ramster_holders_init(void);
void ramster_holders_exit(void);
void ramster_holders_pause(bool paused);
bool ramster_holders_may_remotify(void);
bool ramster_holders_is_holder(u8 node);
int ramster_holders_pick(u8 *node, const u8 exclude[RAMSTER_MAX_HOLDERS],
			 const unsigned long *allowed);
void ramster_holders_unpick(u8 node);
void ramster_holders_set_forgetting(u8 node, bool forgetting);
unsigned int ramster_holders_count(void);
void ramster_holders_note_rtt(u8 node, ktime_t sent, bool get);
void ramster_holders_held_there(u8 node, long delta);
u64 ramster_holders_held_there_count(u8 node);
u64 ramster_holders_held_for_us(u8 node);
bool ramster_holders_counts_differ(u8 node);
void ramster_holders_counts_settled(u8 node);
void ramster_holders_live(unsigned long *nodes);
unsigned long ramster_holders_epoch(u8 node);
unsigned int ramster_holders_down_ms(u8 node);
bool ramster_holders_wait_live(u8 node, unsigned long epoch,
			       unsigned int wait_ms);

#endif /* _RAMSTER_HOLDERS_H */
