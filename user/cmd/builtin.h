/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The commands main.c dispatches to, one per cmd_NAME.c (perf's builtin.h). */
#ifndef KT_BUILTIN_H
#define KT_BUILTIN_H

int cmd_stream(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_tail(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_kallsyms(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_disasm(int argc, char **argv);

#endif
