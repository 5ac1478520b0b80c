// SPDX-License-Identifier: GPL-2.0
/* burn.bpf.c as a socket filter, run by ktload -R (arm64 before 6.4). */
#define KT_BURN_SOCKET
#include "burn.bpf.c"
