/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGINT and SIGTERM turned into a request to stop at the next safe point,
 * for the commands that rewrite a whole filesystem (offline balance, image
 * restore): while caught, the first signal only sets a flag the work polls
 * between the steps it can stop after (a chunk committed, a batch of a
 * restore written); a second one ends the process as usual, which leaves
 * what a kill leaves (each command is crash-safe).
 *
 * The flag is the one piece of process-wide state outside a filesystem
 * context: a signal handler can reach nothing else.
 */
#ifndef BTRFS_KIT_COMMON_INTERRUPT_H
#define BTRFS_KIT_COMMON_INTERRUPT_H

#include <signal.h>

/* Catch SIGINT and SIGTERM; the flag to poll (0 until a signal came). */
const volatile sig_atomic_t *interrupt_catch(void);
/* The default handlers back. */
void interrupt_release(void);

#endif
