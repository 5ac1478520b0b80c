// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Directory names, as the runtimes make them (systemd driver / cgroupfs driver):
 *   docker      /system.slice/docker-<id>.scope        /docker/<id>
 *   containerd  .../cri-containerd-<id>.scope          .../<slice>:cri-containerd:<id>
 *   CRI-O       .../crio-<id>.scope                    .../crio-<id>
 *   podman      .../libpod-<id>.scope                  /libpod_parent/libpod-<id>
 *   kubelet     /kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid_with_underscores>.slice/
 *               /kubepods/<qos>/pod<uid>/<id>          (the runtime is not in the name)
 * The outermost container wins: that is the one the node's runtime manages;
 * cgroups a container makes inside its own (nested runtimes, systemd in a
 * container) are its business.  conmon's scopes (crio-conmon-, libpod-conmon-)
 * hold the monitor, not the container, and do not match.
 */
#include <stdio.h>
#include <string.h>
#include "record/cgpath.h"

static bool is_hex_id(const char *s, size_t n)
{
	size_t i;

	if (n != KT_CONTAINER_ID_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t pl = strlen(p);

	return n >= pl && !memcmp(s, p, pl);
}

static bool has_suffix(const char *s, size_t n, const char *sfx)
{
	size_t sl = strlen(sfx);

	return n >= sl && !memcmp(s + n - sl, sfx, sl);
}

/* A pod UID as kubelet writes it (systemd driver: '-' became '_'). */
static bool take_uid(const char *s, size_t n, char *out)
{
	size_t i;

	if (n != 36 && n != 32)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i] == '_' ? '-' : s[i];
		bool dash = n == 36 && (i == 8 || i == 13 || i == 18 || i == 23);

		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
		out[i] = c;
	}
	out[n] = 0;
	return true;
}

/* kubepods-pod<uid>.slice, kubepods-<qos>-pod<uid>.slice (kind and other
 * kubelets nested under systemd prefix "kubelet-"), or cgroupfs pod<uid>. */
static bool pod_component(const char *c, size_t n, bool under_kubepods, char *uid)
{
	static const char *const qos[] = { "kubepods-pod", "kubepods-besteffort-pod",
					   "kubepods-burstable-pod" };
	size_t i, pl;

	if (has_prefix(c, n, "kubelet-"))
		c += 8, n -= 8;
	if (has_suffix(c, n, ".slice")) {
		for (i = 0; i < sizeof(qos) / sizeof(qos[0]); i++) {
			pl = strlen(qos[i]);
			if (has_prefix(c, n, qos[i]) && take_uid(c + pl, n - pl - 6, uid))
				return true;
		}
		return false;
	}
	return under_kubepods && has_prefix(c, n, "pod") && take_uid(c + 3, n - 3, uid);
}

struct form {
	const char *prefix;
	const char *runtime;
};

/* <prefix><id>[.scope] */
static const struct form scope_forms[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "cri-o" },
	{ "libpod-", "podman" },
};

/* <slice>:<prefix>:<id>, containerd's systemd driver outside a systemd scope */
static const struct form colon_forms[] = {
	{ "docker", "docker" },
	{ "cri-containerd", "containerd" },
	{ "crio", "cri-o" },
};

static bool container_component(const char *c, size_t n, const char *prev, size_t prevn,
				bool prev_is_pod, struct kt_cgpath_info *info)
{
	const char *colon;
	size_t i, pl, idn;

	for (i = 0; i < sizeof(scope_forms) / sizeof(scope_forms[0]); i++) {
		pl = strlen(scope_forms[i].prefix);
		if (!has_prefix(c, n, scope_forms[i].prefix))
			continue;
		idn = n - pl - (has_suffix(c, n, ".scope") ? 6 : 0);
		if (is_hex_id(c + pl, idn)) {
			info->runtime = scope_forms[i].runtime;
			memcpy(info->container_id, c + pl, idn);
			info->container_id[idn] = 0;
			return true;
		}
	}
	colon = memchr(c, ':', n);
	if (colon && n - (colon - c) > KT_CONTAINER_ID_LEN + 1) {
		const char *id = c + n - KT_CONTAINER_ID_LEN;

		for (i = 0; i < sizeof(colon_forms) / sizeof(colon_forms[0]); i++) {
			pl = strlen(colon_forms[i].prefix);
			if ((size_t)(id - colon) == pl + 2 &&
			    !memcmp(colon + 1, colon_forms[i].prefix, pl) && id[-1] == ':' &&
			    is_hex_id(id, KT_CONTAINER_ID_LEN)) {
				info->runtime = colon_forms[i].runtime;
				memcpy(info->container_id, id, KT_CONTAINER_ID_LEN + 1);
				return true;
			}
		}
	}
	/* cgroupfs drivers: the bare id under /docker or under the pod. */
	if (is_hex_id(c, n) && (prev_is_pod || (prevn == 6 && !memcmp(prev, "docker", 6)))) {
		info->runtime = prev_is_pod ? NULL : "docker";
		memcpy(info->container_id, c, n);
		info->container_id[n] = 0;
		return true;
	}
	return false;
}

bool kt_cgpath_parse(const char *path, struct kt_cgpath_info *info)
{
	const char *c = path, *end, *prev = "";
	size_t n, prevn = 0;
	bool kubepods = false, prev_is_pod = false, found_c = false, found_p = false;

	memset(info, 0, sizeof(*info));
	while (*c) {
		bool is_pod = false;

		while (*c == '/')
			c++;
		if (!*c)
			break;
		end = strchrnul(c, '/');
		n = end - c;
		if (n == 8 && !memcmp(c, "kubepods", 8))
			kubepods = true;
		if (!found_p) {
			/* The colon form carries the pod slice before its first ':'. */
			const char *colon = memchr(c, ':', n);

			is_pod = pod_component(c, colon ? (size_t)(colon - c) : n, kubepods,
					       info->pod_uid);
			found_p = is_pod;
		}
		if (!found_c)
			found_c = container_component(c, n, prev, prevn, prev_is_pod, info);
		prev_is_pod = is_pod;
		prev = c;
		prevn = n;
		c = end;
	}
	if (!found_p)
		info->pod_uid[0] = 0;
	return found_c || found_p;
}

bool kt_cgpath_join(const char *ns_root, const char *rel, char *out, size_t size)
{
	char buf[2 * KT_CGPATH_MAX + 2];
	size_t len = 0, n;
	const char *s, *end;

	if (snprintf(buf, sizeof(buf), "%s/%s", ns_root, rel) >= (int)sizeof(buf))
		return false;
	for (s = buf; *s;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		end = strchrnul(s, '/');
		n = end - s;
		if (n == 1 && s[0] == '.') {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (!len)
				return false;
			while (len && out[len - 1] != '/')
				len--;
			len--; /* the '/' */
		} else {
			if (len + 1 + n + 1 > size)
				return false;
			out[len++] = '/';
			memcpy(out + len, s, n);
			len += n;
		}
		s = end;
	}
	if (!len) {
		if (size < 2)
			return false;
		out[len++] = '/';
	}
	out[len] = 0;
	return true;
}
