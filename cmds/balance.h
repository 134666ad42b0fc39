/* SPDX-License-Identifier: GPL-2.0 */
/* The balance group's commands (cmds/balance-*.c), for the group in cmds/balance.c. */
#ifndef BTRFS_KIT_CMDS_BALANCE_H
#define BTRFS_KIT_CMDS_BALANCE_H

#include "cmds/commands.h"

extern const struct cmd_struct cmd_struct_balance_start;
extern const struct cmd_struct cmd_struct_balance_status;
extern const struct cmd_struct cmd_struct_balance_pause;
extern const struct cmd_struct cmd_struct_balance_resume;
extern const struct cmd_struct cmd_struct_balance_cancel;

#endif
