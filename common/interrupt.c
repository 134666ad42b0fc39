// SPDX-License-Identifier: GPL-2.0
/* Stop requests by SIGINT and SIGTERM (see interrupt.h). */
#include <string.h>
#include "common/interrupt.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	if (stop_signal) {
		/* the second one: as if not caught */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_signal = sig;
}

const volatile sig_atomic_t *interrupt_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	stop_signal = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return &stop_signal;
}

void interrupt_release(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}
