/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a cgroup v2 path says about containers: the runtime and container id
 * that systemd and cgroupfs drivers of docker, containerd (CRI), CRI-O and
 * podman put into their directory names, and the Kubernetes pod UID kubelet
 * puts into the pod's.  Only names these tools make are matched; anything else
 * leaves the fields empty (unknown, never guessed).
 */
#ifndef KT_CGPATH_H
#define KT_CGPATH_H

#include <stdbool.h>
#include <stddef.h>

/* Longest cgroup path reported; longer ones are reported as unknown. */
#define KT_CGPATH_MAX 1024

#define KT_CONTAINER_ID_LEN 64 /* sha256 hex, what every runtime here uses */
#define KT_POD_UID_MAX 36 /* 8-4-4-4-12; static pods' hash UIDs are 32 */

struct kt_cgpath_info {
	const char *runtime; /* "docker", "containerd", "cri-o", "podman", or NULL */
	char container_id[KT_CONTAINER_ID_LEN + 1]; /* "" if none */
	char pod_uid[KT_POD_UID_MAX + 1]; /* "" if none */
};

/* Parse a cgroup path ("/kubepods.slice/..."); returns true if it names a
 * container or a pod. */
bool kt_cgpath_parse(const char *path, struct kt_cgpath_info *info);

/* Join a /proc/PID/cgroup path (relative to the reader's cgroup namespace,
 * perhaps "/../..") onto the namespace root's path; false if it leaves the
 * root or does not fit. */
bool kt_cgpath_join(const char *ns_root, const char *rel, char *out, size_t size);

#endif
