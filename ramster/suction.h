/* SPDX-License-Identifier: GPL-2.0 */
/*
 * suction.h - bringing pages home when memory pressure has subsided
 */
#ifndef _RAMSTER_SUCTION_H
#define _RAMSTER_SUCTION_H

int ramster_suction_init(void);
void ramster_suction_exit(void);
unsigned long ramster_suction_room(void);

#endif /* _RAMSTER_SUCTION_H */
