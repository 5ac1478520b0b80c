// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Attribution: what cgroup paths say about containers, and /proc path joins. */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "record/attrib.h"
#include "encode/encode.h"
#include "record/record.h"
#include "unit.h"

#define ID_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_B "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define UID "1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"
#define UID_ "1f2e3d4c_5b6a_4978_8a9b_0c1d2e3f4a5b"

struct pcase {
	const char *name;
	const char *path;
	const char *runtime; /* NULL: none */
	const char *id; /* "": none */
	const char *pod; /* "": none */
};

static const struct pcase cases[] = {
	{ "docker_systemd", "/system.slice/docker-" ID_A ".scope", "docker", ID_A, "" },
	{ "docker_cgroupfs", "/docker/" ID_A, "docker", ID_A, "" },
	{ "docker_subcgroup", "/system.slice/docker-" ID_A ".scope/init", "docker", ID_A, "" },
	{ "containerd_besteffort",
	  "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/cri-containerd-" ID_A ".scope",
	  "containerd", ID_A, UID },
	{ "containerd_burstable",
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/cri-containerd-" ID_B ".scope",
	  "containerd", ID_B, UID },
	{ "containerd_guaranteed",
	  "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID_A ".scope", "containerd",
	  ID_A, UID },
	{ "containerd_colon",
	  "/system.slice/containerd.service/kubepods-besteffort-pod" UID_
	  ".slice:cri-containerd:" ID_A,
	  "containerd", ID_A, UID },
	{ "kubepods_cgroupfs", "/kubepods/burstable/pod" UID "/" ID_A, NULL, ID_A, UID },
	{ "kubepods_cgroupfs_guaranteed", "/kubepods/pod" UID "/" ID_B, NULL, ID_B, UID },
	{ "kind_nested",
	  "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
	  "kubelet-kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" ID_A ".scope",
	  "containerd", ID_A, UID },
	{ "crio_systemd",
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/crio-" ID_B
	  ".scope",
	  "cri-o", ID_B, UID },
	{ "crio_conmon_is_not_the_container",
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-conmon-" ID_B ".scope",
	  NULL, "", UID },
	{ "podman_systemd", "/machine.slice/libpod-" ID_A ".scope", "podman", ID_A, "" },
	{ "podman_rootless",
	  "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_B ".scope",
	  "podman", ID_B, "" },
	{ "podman_cgroupfs", "/libpod_parent/libpod-" ID_A, "podman", ID_A, "" },
	{ "podman_conmon", "/machine.slice/libpod-conmon-" ID_A ".scope", NULL, "", "" },
	{ "pod_slice_only",
	  "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice", NULL,
	  "", UID },
	{ "outermost_container_wins", "/system.slice/docker-" ID_A ".scope/docker/" ID_B, "docker",
	  ID_A, "" },
	{ "short_id_is_not_an_id", "/system.slice/docker-0123456789ab.scope", NULL, "", "" },
	{ "uppercase_is_not_an_id",
	  "/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", NULL, "",
	  "" },
	{ "bare_id_elsewhere", "/system.slice/" ID_A, NULL, "", "" },
	{ "pod_without_kubepods", "/pod" UID "/" ID_A, NULL, "", "" },
	{ "bad_uid", "/kubepods.slice/kubepods-podnot-a-uid.slice/cri-containerd-" ID_A ".scope",
	  "containerd", ID_A, "" },
	{ "plain_service", "/system.slice/sshd.service", NULL, "", "" },
	{ "root", "/", NULL, "", "" },
};

static void test_parse(void)
{
	struct kt_cgpath_info info;
	char name[128];
	size_t i;
	bool ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pcase *c = &cases[i];

		snprintf(name, sizeof(name), "cgpath_%s", c->name);
		if (unit_start(name)) {
			ret = kt_cgpath_parse(c->path, &info);
			ASSERT_EQ(ret, c->runtime || c->id[0] || c->pod[0], "return value");
			ASSERT_STREQ(info.runtime ? info.runtime : "(none)",
				     c->runtime ? c->runtime : "(none)", "runtime");
			ASSERT_STREQ(info.container_id, c->id, "container id");
			ASSERT_STREQ(info.pod_uid, c->pod, "pod uid");
			unit_end();
		}
	}
}

static void test_join(void)
{
	char out[KT_CGPATH_MAX];

	if (unit_start("cgpath_join_same_namespace")) {
		ASSERT_TRUE(kt_cgpath_join("", "/system.slice/x.service", out, sizeof(out)),
			    "joins");
		ASSERT_STREQ(out, "/system.slice/x.service", "path");
		ASSERT_TRUE(kt_cgpath_join("", "/", out, sizeof(out)), "root joins");
		ASSERT_STREQ(out, "/", "root");
		unit_end();
	}

	if (unit_start("cgpath_join_private_namespace_dotdot")) {
		ASSERT_TRUE(
			kt_cgpath_join("/kubepods.slice/kubepods-besteffort.slice/p.slice/c.scope",
				       "/../../q.slice/d.scope", out, sizeof(out)),
			"joins");
		ASSERT_STREQ(out, "/kubepods.slice/kubepods-besteffort.slice/q.slice/d.scope",
			     "path");
		ASSERT_TRUE(kt_cgpath_join("/a/b", "/", out, sizeof(out)), "own root");
		ASSERT_STREQ(out, "/a/b", "own root path");
		unit_end();
	}

	if (unit_start("cgpath_join_refuses_escaping_root")) {
		ASSERT_TRUE(!kt_cgpath_join("/a", "/../..", out, sizeof(out)), "above the root");
		ASSERT_TRUE(!kt_cgpath_join("/aaaa", "/bbbb", out, 8), "too long");
		unit_end();
	}
}

static void test_json(void)
{
	struct kt_attrib a = { .cgroup_id = 77, .path = "/system.slice/docker-" ID_A ".scope" };
	struct kt_record r;
	char buf[KT_ENCODE_MAX];

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.cgroup_id = 77;
	snprintf(r.name, sizeof(r.name), "bpf_prog_00_x");
	kt_cgpath_parse(a.path, &a.c);

	if (unit_start("json_attribution_fields")) {
		r.attrib = &a;
		ASSERT_TRUE(kt_encode_json(&r, buf, sizeof(buf)) > 0, "encodes");
		ASSERT_STRSTR(buf, "\"cgroup_path\":\"/system.slice/docker-" ID_A ".scope\",",
			      "cgroup_path");
		ASSERT_STRSTR(buf,
			      "\"container_runtime\":\"docker\",\"container_id\":\"" ID_A
			      "\",\"pod_uid\":null",
			      "container fields");
		unit_end();
	}

	if (unit_start("json_attribution_unknown_is_null")) {
		a.path = NULL;
		ASSERT_TRUE(kt_encode_json(&r, buf, sizeof(buf)) > 0, "encodes");
		ASSERT_STRSTR(buf,
			      "\"cgroup_path\":null,\"container_runtime\":null,"
			      "\"container_id\":null,\"pod_uid\":null",
			      "nulls, not the stale parse");
		r.attrib = NULL;
		ASSERT_TRUE(kt_encode_json(&r, buf, sizeof(buf)) > 0, "encodes without attrib");
		ASSERT_STRSTR(buf, "\"cgroup_path\":null", "null without attrib");
		unit_end();
	}

	if (unit_start("json_longest_path_fits")) {
		{
			static char longp[KT_CGPATH_MAX];

			memset(longp, 0x01, sizeof(longp) - 1); /* worst case: every byte escaped */
			longp[0] = '/';
			a.path = longp;
			memset(r.name, 0xff, KT_NAME_MAX - 1);
			r.name[KT_NAME_MAX - 1] = 0;
			r.attrib = &a;
			ASSERT_TRUE(kt_encode_json(&r, buf, sizeof(buf)) > 0,
				    "fits in KT_ENCODE_MAX");
		}
		unit_end();
	}
}

/* Against this machine's cgroup2 mount: our own cgroup on the record's path,
 * a cgroup without a live task by the walk, an unknown id stays unknown. */
static void test_resolve(void)
{
	struct kt_attrib_cache *c = kt_attrib_new(NULL);
	struct kt_attrib_stats st;
	struct kt_record r;
	char dir[4200];
	struct stat sb;
	const char *root = kt_attrib_root(c);
	int i;

	if (unit_start("attrib_resolves_own_cgroup_and_walks_for_others")) {
		if (!root || stat(root, &sb)) {
			unit_skip("no cgroup2 mount here");
			goto out;
		}
		memset(&r, 0, sizeof(r));
		r.type = KT_RECORD_BPF_EVENT;
		r.pid = r.tid = getpid();
		snprintf(dir, sizeof(dir), "%s/kt-unit-%d", root, getpid());
		if (mkdir(dir, 0755) || stat(dir, &sb)) {
			unit_skip("cannot make a cgroup (not root?)");
			goto out;
		}
		/* A cgroup no task of ours is in: /proc says otherwise, so the walk. */
		r.cgroup_id = sb.st_ino;
		kt_attrib_fill(c, &r);
		ASSERT_TRUE(r.attrib && !r.attrib->path, "unknown at first");
		for (i = 0; i < 1000 && !(r.attrib && r.attrib->path); i++) {
			kt_attrib_tick(c);
			kt_attrib_fill(c, &r);
		}
		ASSERT_TRUE(r.attrib && r.attrib->path, "the walk found it");
		snprintf(dir, sizeof(dir), "/kt-unit-%d", getpid());
		if (r.attrib && r.attrib->path)
			ASSERT_STREQ(r.attrib->path, dir, "its path");
		r.cgroup_id = 0xfffffffffff0ULL;
		kt_attrib_fill(c, &r);
		for (i = 0; i < 1000; i++)
			kt_attrib_tick(c);
		kt_attrib_fill(c, &r);
		ASSERT_TRUE(r.attrib && !r.attrib->path, "a made-up id stays unknown");
		kt_attrib_get_stats(c, &st);
		ASSERT_EQ(st.resolved_walk, 1, "resolved by walk");
		ASSERT_TRUE(st.walks >= 2, "walks finished");
		unit_end();
	}

	/* On the record's path: move ourselves into a fresh cgroup, load-time
	 * style, and resolve its id from /proc/self/cgroup in one call. */
	if (unit_start("attrib_resolves_a_live_task_on_the_record_path")) {
		if (!root || stat(root, &sb)) {
			unit_skip("no cgroup2 mount here");
			goto out;
		}
		snprintf(dir, sizeof(dir), "%s/kt-unit-%d", root, getpid());
		mkdir(dir, 0755); /* the first case's, if it did not run */
		memset(&r, 0, sizeof(r));
		r.type = KT_RECORD_BPF_EVENT;
		r.pid = r.tid = getpid();
		snprintf(dir, sizeof(dir), "%s/kt-unit-%d/docker-" ID_A ".scope", root, getpid());
		if (mkdir(dir, 0755) || stat(dir, &sb)) {
			unit_skip("cannot make a nested cgroup");
		} else {
			char procs[4300];
			FILE *f;

			snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
			f = fopen(procs, "w");
			if (f && fprintf(f, "%d\n", getpid()) > 0 && !fclose(f)) {
				r.cgroup_id = sb.st_ino;
				kt_attrib_fill(c, &r);
				ASSERT_TRUE(r.attrib && r.attrib->path, "resolved at once");
				if (r.attrib && r.attrib->path) {
					ASSERT_STREQ(r.attrib->c.runtime ? r.attrib->c.runtime : "",
						     "docker", "runtime");
					ASSERT_STREQ(r.attrib->c.container_id, ID_A,
						     "container id");
				}
				kt_attrib_get_stats(c, &st);
				ASSERT_EQ(st.resolved_proc, 1, "resolved from /proc");
				snprintf(procs, sizeof(procs), "%s/cgroup.procs", root);
				f = fopen(procs, "w");
				if (f) {
					fprintf(f, "%d\n", getpid());
					fclose(f);
				}
			} else {
				if (f)
					fclose(f);
				unit_skip("cannot move into it");
			}
			rmdir(dir);
		}
		snprintf(dir, sizeof(dir), "%s/kt-unit-%d", root, getpid());
		rmdir(dir);
out:
		unit_end();
	}
	kt_attrib_free(c);
}

static bool write_pid(const char *dir, pid_t pid)
{
	char p[4300];
	FILE *f;
	bool ok;

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	f = fopen(p, "w");
	if (!f)
		return false;
	ok = fprintf(f, "%d\n", pid) > 0;
	return !fclose(f) && ok;
}

/*
 * The DaemonSet's situation: ksymtap in a cgroup of its own with a private
 * cgroup namespace (so /proc/PID/cgroup of others reads "/../..."), its own
 * ns-rooted cgroup2 at the usual place and the host's tree mounted elsewhere
 * as --cgroup-root.  A live task in another cgroup must still resolve on the
 * record's path, to its host path.  Runs in a child: it unshares.
 */
static int ns_child(const char *root, const char *nsdir, pid_t sleeper, __u64 id, const char *want)
{
	char host[64];
	struct kt_attrib_cache *c;
	struct kt_attrib_stats st;
	struct kt_record r;
	bool ok;

	if (!write_pid(nsdir, getpid()) || unshare(CLONE_NEWNS | CLONE_NEWCGROUP) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 77;
	snprintf(host, sizeof(host), "/tmp/kt-unit-hostcg-%d", getpid());
	/* The same superblock cannot be mounted twice on one mount point. */
	if (mkdir(host, 0700) || mount(root, host, NULL, MS_BIND, NULL) ||
	    umount2(root, MNT_DETACH) || mount("none", root, "cgroup2", 0, NULL))
		return 77;
	c = kt_attrib_new(host);
	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_BPF_EVENT;
	r.pid = r.tid = sleeper;
	r.cgroup_id = id;
	kt_attrib_fill(c, &r);
	kt_attrib_get_stats(c, &st);
	ok = r.attrib && r.attrib->path && !strcmp(r.attrib->path, want) && st.resolved_proc == 1;
	if (!ok)
		fprintf(stderr, "ns child: path %s, resolved_proc %llu\n",
			r.attrib && r.attrib->path ? r.attrib->path : "(null)", st.resolved_proc);
	kt_attrib_free(c);
	return ok ? 0 : 1;
}

static void test_cgroup_namespace(void)
{
	struct kt_attrib_cache *probe = kt_attrib_new(NULL);
	char nsdir[4200], tgt[4200], want[256];
	const char *root = kt_attrib_root(probe);
	pid_t sleeper = -1, child;
	struct stat sb;
	int status = 0;

	if (unit_start("attrib_private_cgroup_namespace_resolves_host_paths")) {
		if (!root) {
			unit_skip("no cgroup2 mount here");
			goto out;
		}
		snprintf(nsdir, sizeof(nsdir), "%s/kt-unit-ns-%d", root, getpid());
		snprintf(want, sizeof(want), "/kt-unit-tgt-%d/docker-" ID_B ".scope", getpid());
		snprintf(tgt, sizeof(tgt), "%s/kt-unit-tgt-%d", root, getpid());
		if (mkdir(nsdir, 0755) || mkdir(tgt, 0755)) {
			unit_skip("cannot make cgroups (not root?)");
			goto out;
		}
		snprintf(tgt, sizeof(tgt), "%s%s", root, want);
		if (mkdir(tgt, 0755) || stat(tgt, &sb)) {
			unit_skip("cannot make cgroups");
			goto clean;
		}
		sleeper = fork();
		if (!sleeper) {
			write_pid(tgt, getpid());
			pause();
			_exit(0);
		}
		usleep(100000);
		child = fork();
		if (!child)
			_exit(ns_child(root, nsdir, sleeper, sb.st_ino, want));
		waitpid(child, &status, 0);
		/* Its mount namespace went with it; the directory is ours to remove. */
		snprintf(tgt, sizeof(tgt), "/tmp/kt-unit-hostcg-%d", child);
		rmdir(tgt);
		snprintf(tgt, sizeof(tgt), "%s%s", root, want);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
			unit_skip("cannot unshare a cgroup namespace here");
		else
			ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
				  "child resolved the host path through /proc");
clean:
		if (sleeper > 0) {
			kill(sleeper, SIGKILL);
			waitpid(sleeper, NULL, 0);
		}
		rmdir(tgt);
		snprintf(tgt, sizeof(tgt), "%s/kt-unit-tgt-%d", root, getpid());
		rmdir(tgt);
		rmdir(nsdir);
out:
		unit_end();
	}
	kt_attrib_free(probe);
}

int main(void)
{
	test_parse();
	test_join();
	test_json();
	test_resolve();
	test_cgroup_namespace();
	return unit_exit();
}
