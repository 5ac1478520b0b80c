/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Diagnostics go to stderr, prefixed "ksymtap: "; data never does. */
#ifndef KT_LOG_H
#define KT_LOG_H

#include <stdbool.h>

extern int kt_verbose;

void kt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with -v. */
void kt_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with -vv: a step of start-up with the time since the process began. */
void kt_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
