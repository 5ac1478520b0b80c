// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "backend/hooks.h"

const struct kt_hook_desc kt_hooks[KT_HOOK_MAX] = {
	[KT_HOOK_PROG_ADD] = { "prog_add", "prog_add_loop", "prog_add_legacy",
			       "bpf_prog_kallsyms_add", KT_SRC_BPF_PROG, true,
			       "BPF program load: KSYMBOLs + BPF_EVENT PROG_LOAD" },
	[KT_HOOK_PROG_DEL] = { "prog_del", "prog_del_loop", "prog_del_legacy",
			       "bpf_prog_kallsyms_del_all", KT_SRC_BPF_PROG, false,
			       "BPF program unload (else bpf_ksym_del)" },
	[KT_HOOK_KSYM_ADD] = { "ksym_add", "ksym_add", NULL, "bpf_ksym_add", KT_SRC_BPF_IMAGE, true,
			       "BPF trampolines, dispatchers, struct_ops" },
	[KT_HOOK_KSYM_DEL] = { "ksym_del", "ksym_del_loop", "ksym_del_legacy", "bpf_ksym_del",
			       KT_SRC_BPF_IMAGE, false, "BPF image removal" },
	[KT_HOOK_MODULE_ALLOC] = { "module_alloc_exit", "module_alloc_exit", NULL, "module_alloc",
				   KT_SRC_FTRACE, true,
				   "ftrace trampolines and kprobe pages (< 6.10)" },
	[KT_HOOK_MODULE_MEMFREE] = { "module_memfree_entry", "module_memfree_entry", NULL,
				     "module_memfree", KT_SRC_FTRACE, false,
				     "their frees (< 6.10)" },
	[KT_HOOK_EXECMEM_ALLOC] = { "execmem_alloc_exit", "execmem_alloc_exit", NULL,
				    "execmem_alloc", KT_SRC_FTRACE, true,
				    "ftrace trampolines and kprobe pages (6.10+)" },
	[KT_HOOK_EXECMEM_FREE] = { "execmem_free_entry", "execmem_free_entry", NULL, "execmem_free",
				   KT_SRC_FTRACE, false, "their frees (6.10+)" },
	[KT_HOOK_INSN_SLOT] = { "insn_slot_exit", "insn_slot_exit", NULL, "__get_insn_slot",
				KT_SRC_KPROBE, true, "kprobe (opt)insn pages, by cache name" },
};

int kt_hook_lookup(const char *name)
{
	int i;

	for (i = 0; i < KT_HOOK_MAX; i++)
		if (!strcmp(name, kt_hooks[i].name) || !strcmp(name, kt_hooks[i].prog) ||
		    (kt_hooks[i].prog_legacy && !strcmp(name, kt_hooks[i].prog_legacy)) ||
		    !strcmp(name, kt_hooks[i].target))
			return i;
	return -1;
}
