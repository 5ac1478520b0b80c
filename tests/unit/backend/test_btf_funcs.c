// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The raw BTF scan for hook targets, against libbpf's own parse. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "backend/btf_funcs.h"
#include "backend/hooks.h"
#include "unit.h"

static const char *write_tmp(char *path, const void *data, size_t size)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

/* Every kind the scan must step over, between and around the functions. */
static struct btf *every_kind(void)
{
	struct btf *b = btf__new_empty();
	int i32, proto, st;

	if (!b)
		return NULL;
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_ptr(b, i32);
	st = btf__add_struct(b, "bpf_ksym_add", 8); /* a name, but not a FUNC */
	btf__add_field(b, "a", i32, 0, 0);
	btf__add_field(b, "b", i32, 32, 0);
	btf__add_array(b, i32, i32, 4);
	btf__add_enum(b, "e", 4);
	btf__add_enum_value(b, "E1", 1);
	btf__add_enum64(b, "e64", 8, false);
	btf__add_enum64_value(b, "E2", 1ULL << 40);
	proto = btf__add_func_proto(b, i32);
	btf__add_func_param(b, "x", i32);
	btf__add_func(b, "bpf_prog_kallsyms_add", BTF_FUNC_GLOBAL, proto);
	btf__add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, i32);
	btf__add_datasec(b, ".data", 4);
	btf__add_datasec_var_info(b, btf__type_cnt(b) - 1, 0, 4);
	btf__add_decl_tag(b, "tag", st, -1);
	btf__add_type_tag(b, "tt", i32);
	btf__add_float(b, "float", 4);
	btf__add_typedef(b, "t", i32);
	btf__add_func(b, "execmem_alloc", BTF_FUNC_STATIC, proto);
	return b;
}

static void check_against_libbpf(struct btf *b, const char *path)
{
	const char *names[KT_HOOK_MAX + 2];
	bool found[KT_HOOK_MAX + 2];
	int i, n = 0;

	for (i = 0; i < KT_HOOK_MAX; i++)
		names[n++] = kt_hooks[i].target;
	names[n++] = "schedule";
	names[n++] = "no_such_function_kt";
	if (!ASSERT_EQ(kt_btf_find_funcs(path, names, n, found), 0, "scan"))
		return;
	for (i = 0; i < n; i++)
		if (!ASSERT_EQ(found[i], btf__find_by_name_kind(b, names[i], BTF_KIND_FUNC) >= 0,
			       names[i]))
			break;
}

static void test_every_kind(void)
{
	char path[] = "/tmp/kt_btfXXXXXX";
	const void *raw;
	struct btf *b;
	__u32 size;

	if (unit_start("btf_funcs_every_kind")) {
		/* Made only when the case runs: a case left out leaks nothing. */
		b = every_kind();
		raw = b ? btf__raw_data(b, &size) : NULL;
		if (ASSERT_TRUE(raw && write_tmp(path, raw, size), "BTF written")) {
			check_against_libbpf(b, path);
			/* Cut inside the type section: malformed, not a partial answer. */
			const char *one[] = { "execmem_alloc" };
			bool f[1];

			ASSERT_EQ(truncate(path, size - 20), 0, "truncate");
			ASSERT_EQ(kt_btf_find_funcs(path, one, 1, f), -EPROTO, "truncated");
			unlink(path);
		}
		btf__free(b);
		unit_end();
	}
}

static void test_vmlinux(void)
{
	struct btf *b;

	if (unit_start("btf_funcs_vmlinux")) {
		b = btf__parse("/sys/kernel/btf/vmlinux", NULL);
		if (!b) {
			unit_skip("no readable /sys/kernel/btf/vmlinux on this host");
			unit_end();
			return;
		}
		check_against_libbpf(b, "/sys/kernel/btf/vmlinux");
		btf__free(b);
		unit_end();
	}
}

static void test_missing(void)
{
	const char *one[] = { "x" };
	bool f[1];

	if (unit_start("btf_funcs_missing_file")) {
		ASSERT_EQ(kt_btf_find_funcs("/nonexistent/btf", one, 1, f), -ENOENT,
			  "missing file");
		unit_end();
	}
}

int main(void)
{
	test_every_kind();
	test_vmlinux();
	test_missing();
	return unit_exit();
}
