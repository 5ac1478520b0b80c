// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A hook's run is skipped when another task is preempted inside the same
 * hook on the same CPU (bpf/ksymtap.bpf.c, the twins): that takes a kernel
 * that preempts tasks in kernel code.  With CONFIG_PREEMPT_DYNAMIC (Debian's
 * kernels) the model is chosen at boot: debugfs says which; then the
 * command line's preempt=; then the build (uname -v, the kernel's config).
 * Debian's 6.1 and 6.12 run voluntary, 6.18 and 7.x lazy
 * (docs/kernel-facts.md).
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>
#include "backend/preempt.h"
#include "util/fileio.h"

static bool model_preempts(const char *m)
{
	return strcmp(m, "none") && strcmp(m, "voluntary");
}

const char *kt_preempt_debugfs_mode(const char *text, char *buf, size_t size)
{
	const char *o = strchr(text, '('), *c = o ? strchr(o, ')') : NULL;

	if (!c || (size_t)(c - o - 1) >= size || c == o + 1)
		return NULL;
	memcpy(buf, o + 1, c - o - 1);
	buf[c - o - 1] = 0;
	return buf;
}

const char *kt_preempt_cmdline_mode(const char *cmdline, char *buf, size_t size)
{
	const char *p = cmdline, *v;
	size_t n;

	while ((p = strstr(p, "preempt="))) {
		if (p == cmdline || p[-1] == ' ') {
			v = p + 8;
			n = strcspn(v, " \n");
			if (n && n < size) {
				memcpy(buf, v, n);
				buf[n] = 0;
				return buf;
			}
		}
		p += 8;
	}
	return NULL;
}

/* "#1 SMP PREEMPT_DYNAMIC Debian ...": the build's word (init/Makefile). */
const char *kt_preempt_uname_mode(const char *version)
{
	static const char *const words[] = { "PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT_LAZY",
					     "PREEMPT" };
	const char *p;
	size_t i, n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i]);
		for (p = version; (p = strstr(p, words[i])); p += n)
			if ((p == version || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
				return words[i];
	}
	return NULL;
}

/* The build's default model from its config: "lazy", "full", "voluntary",
 * "none", or NULL.  /proc/config.gz (IKCONFIG_PROC), /boot/config-RELEASE. */
static const char *config_mode(const char *release, char *where, size_t size)
{
	static const struct {
		const char *line, *mode;
	} opts[] = { { "CONFIG_PREEMPT_LAZY=y", "lazy" },
		     { "CONFIG_PREEMPT=y", "full" },
		     { "CONFIG_PREEMPT_VOLUNTARY=y", "voluntary" },
		     { "CONFIG_PREEMPT_NONE=y", "none" } };
	char path[256], line[256];
	const char *found = NULL;
	gzFile f;
	size_t i;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = gzopen("/proc/config.gz", "rb");
	snprintf(where, size, "/proc/config.gz");
	if (!f) {
		f = gzopen(path, "rb"); /* gzopen() reads plain files too */
		snprintf(where, size, "%s", path);
	}
	if (!f)
		return NULL;
	while (!found && gzgets(f, line, sizeof(line)))
		for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
			if (!strncmp(line, opts[i].line, strlen(opts[i].line)))
				found = opts[i].mode;
	gzclose(f);
	return found;
}

bool kt_preemptible(char *how, size_t size)
{
	char buf[4096], mode[32], where[300];
	const char *m;
	struct utsname u;

	if (kt_read_small("/sys/kernel/debug/sched/preempt", buf, sizeof(buf)) > 0 &&
	    (m = kt_preempt_debugfs_mode(buf, mode, sizeof(mode)))) {
		snprintf(how, size, "preemption %s (/sys/kernel/debug/sched/preempt)", m);
		return model_preempts(m);
	}
	if (uname(&u)) {
		snprintf(how, size, "preemption model unknown");
		return true;
	}
	m = kt_preempt_uname_mode(u.version);
	if (!m) {
		snprintf(how, size, "no preemption in kernel code (uname -v)");
		return false;
	}
	if (strcmp(m, "PREEMPT_DYNAMIC")) {
		snprintf(how, size, "%s (uname -v)", m);
		return true;
	}
	if (kt_read_small("/proc/cmdline", buf, sizeof(buf)) > 0 &&
	    kt_preempt_cmdline_mode(buf, mode, sizeof(mode))) {
		snprintf(how, size, "preemption %s (preempt= on the command line)", mode);
		return model_preempts(mode);
	}
	m = config_mode(u.release, where, sizeof(where));
	if (m) {
		snprintf(how, size, "preemption %s (the build's default, %s)", m, where);
		return model_preempts(m);
	}
	snprintf(how, size,
		 "preemption model unknown (PREEMPT_DYNAMIC, no debugfs): assumed "
		 "preemptible");
	return true;
}
