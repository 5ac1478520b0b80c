/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Diagnostics go to stderr, prefixed "ksymtap: "; data never does. */
#ifndef KT_LOG_H
#define KT_LOG_H

#include <stdbool.h>

extern int kt_verbose;

enum kt_log_level {
	KT_LOG_ERR, /* "ksymtap: error: ..." */
	KT_LOG_WARN, /* "ksymtap: warning: ..." */
	KT_LOG_INFO, /* "ksymtap: ..." */
	KT_LOG_DEBUG, /* the same, only with -v */
};

/* One line at a level, as libbpf's libbpf_print() behind its pr_warn(). */
void kt_log(enum kt_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define kt_err(...) kt_log(KT_LOG_ERR, __VA_ARGS__)
#define kt_warn(...) kt_log(KT_LOG_WARN, __VA_ARGS__)
#define kt_info(...) kt_log(KT_LOG_INFO, __VA_ARGS__)
#define kt_debug(...) kt_log(KT_LOG_DEBUG, __VA_ARGS__)
/* Only with -vv: a step of start-up with the time since the process began. */
void kt_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
