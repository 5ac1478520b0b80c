// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "record/attrib.h"
#include "util/htab.h"
#include "util/clock.h"
#include "util/log.h"
#include "record/record.h"

/* Distinct cgroups that ever loaded something; past this the table starts
 * over (answers are cheap to find again, memory is not free). */
#define MAX_ENTRIES 16384
/* Directories one tick of a walk reads: a few hundred getdents, well under a
 * millisecond, so the ring buffer consumer is never held up for long. */
#define WALK_DIRS_PER_TICK 256
/* Between two slices of a walk while no record comes. */
#define WALK_SLICE_GAP_NS 20000000ULL

struct ent {
	struct kt_hnode node; /* keyed by the cgroup id */
	struct kt_attrib a;
	bool pending; /* a walk looks for it */
	bool walked; /* a walk finished without finding it */
	__u32 tried_tid; /* /proc/TID/cgroup already failed for this one */
};

struct kt_attrib_cache {
	bool on;
	char root[PATH_MAX];
	int rootfd;
	/* Our cgroup namespace's root under the cgroup root: /proc paths are
	 * relative to it ("" when we share the root's namespace). */
	char ns_root[KT_CGPATH_MAX];
	struct kt_htab tab;
	size_t npending;
	/* The walk: directories still to read, relative to the root. */
	char **stack;
	size_t nstack, capstack;
	__u64 want_id; /* start-up: the namespace root's id */
	char want_path[KT_CGPATH_MAX];
	struct kt_attrib_stats st;
};

#define ent_of(n) container_of(n, struct ent, node)

static struct ent *find(struct kt_attrib_cache *c, __u64 id)
{
	struct kt_hnode *n;

	for (n = *kt_htab_chain(&c->tab, id); n; n = n->next)
		if (n->key == id)
			return ent_of(n);
	return NULL;
}

static void clear_stack(struct kt_attrib_cache *c)
{
	while (c->nstack)
		free(c->stack[--c->nstack]);
}

static void free_ent(struct kt_hnode *n)
{
	struct ent *e = ent_of(n);

	free((char *)e->a.path);
	free(e);
}

static void clear_table(struct kt_attrib_cache *c)
{
	kt_htab_clear(&c->tab, free_ent);
	c->npending = 0;
	c->st.cached = 0;
}

static struct ent *insert(struct kt_attrib_cache *c, __u64 id)
{
	struct ent *e;

	if (c->tab.n >= MAX_ENTRIES) {
		kt_debug("attribution: %d cgroups cached, starting over", MAX_ENTRIES);
		clear_table(c);
		clear_stack(c);
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->a.cgroup_id = id;
	e->node.key = id;
	kt_htab_add(&c->tab, &e->node);
	c->st.cached = c->tab.n;
	return e;
}

static void set_path(struct ent *e, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return;
	e->a.path = p;
	kt_cgpath_parse(p, &e->a.c);
}

/* The "0::" line of /proc/TID/cgroup: the cgroup v2 path, relative to our
 * cgroup namespace. */
static bool proc_cgroup(__u32 tid, char *out, size_t size)
{
	char path[64], buf[4096], *l, *nl;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), tid ? "/proc/%u/cgroup" : "/proc/self/cgroup", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	for (l = buf; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(l, "0::", 3)) {
			if (strlen(l + 3) >= size)
				return false;
			strcpy(out, l + 3);
			return true;
		}
	}
	return false;
}

/* Inode of PATH (relative to the root, "/..."), or 0. */
static __u64 root_ino(struct kt_attrib_cache *c, const char *path)
{
	struct stat st;

	if (fstatat(c->rootfd, path[1] ? path + 1 : ".", &st, 0) || !S_ISDIR(st.st_mode))
		return 0;
	return st.st_ino;
}

static bool try_proc(struct kt_attrib_cache *c, __u32 tid, __u64 id, char *out)
{
	char rel[KT_CGPATH_MAX];

	return proc_cgroup(tid, rel, sizeof(rel)) &&
	       kt_cgpath_join(c->ns_root, rel, out, KT_CGPATH_MAX) && root_ino(c, out) == id;
}

static void start_walk(struct kt_attrib_cache *c)
{
	char *top;

	if (c->nstack)
		return;
	top = strdup("");
	if (!top)
		return;
	if (KT_GROW(c->stack, c->capstack, 1)) {
		free(top);
		return;
	}
	c->stack[c->nstack++] = top;
}

static void push_dir(struct kt_attrib_cache *c, const char *parent, const char *name)
{
	char *p;

	if (KT_GROW(c->stack, c->capstack, c->nstack + 1))
		return;
	if (asprintf(&p, "%s/%s", parent, name) < 0)
		return;
	if (strlen(p) >= KT_CGPATH_MAX) {
		free(p); /* reported as unknown, like every path that long */
		return;
	}
	c->stack[c->nstack++] = p;
}

static void found(struct kt_attrib_cache *c, __u64 id, const char *path)
{
	struct ent *e;

	if (c->want_id && id == c->want_id) {
		snprintf(c->want_path, sizeof(c->want_path), "%s", path);
		c->want_id = 0;
	}
	e = find(c, id);
	if (!e || !e->pending)
		return;
	set_path(e, path);
	e->pending = false;
	c->npending--;
	c->st.resolved_walk++;
}

static void finish_walk(struct kt_attrib_cache *c)
{
	struct kt_hnode *n;
	struct ent *e;
	size_t i;

	clear_stack(c);
	kt_htab_for_each(&c->tab, i, n) {
		e = ent_of(n);
		if (e->pending) {
			e->pending = false;
			e->walked = true;
		}
	}
	c->npending = 0;
	c->st.walks++;
}

/* Read up to max directories of the walk; true when it is over. */
static bool walk_some(struct kt_attrib_cache *c, size_t max)
{
	struct dirent *de;
	char *dir;
	DIR *d;
	int fd;

	while (max-- && c->nstack) {
		if (!c->npending && !c->want_id)
			break;
		dir = c->stack[--c->nstack];
		fd = openat(c->rootfd, dir[0] ? dir + 1 : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d) {
			if (fd >= 0)
				close(fd);
			free(dir);
			continue; /* removed meanwhile */
		}
		while ((de = readdir(d))) {
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			/* kernfs reports the node id as d_ino: no stat needed. */
			if (c->npending || c->want_id) {
				char path[KT_CGPATH_MAX];

				if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
				    (int)sizeof(path))
					found(c, de->d_ino, path);
			}
			push_dir(c, dir, de->d_name);
		}
		closedir(d);
		free(dir);
	}
	if (c->nstack && (c->npending || c->want_id))
		return false;
	finish_walk(c);
	return true;
}

/*
 * Where our cgroup namespace's root sits under the cgroup root.  Our own
 * cgroup, as our namespace sees it, is /sys/fs/cgroup + /proc/self/cgroup's
 * path; its inode is its id.  Under the root that id is either at the same
 * path (same namespace) or somewhere a walk finds it (a container with a
 * private cgroup namespace and the host's cgroup2 mounted as the root).
 */
static void find_ns_root(struct kt_attrib_cache *c)
{
	char self[KT_CGPATH_MAX], own[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	size_t sl, pl;

	const char *mnt = "/sys/fs/cgroup";

	if (!proc_cgroup(0, self, sizeof(self)))
		return;
	if (!statfs(mnt, &sfs) && sfs.f_type != CGROUP2_SUPER_MAGIC)
		mnt = "/sys/fs/cgroup/unified";
	if (snprintf(own, sizeof(own), "%s%s", mnt, self) >= (int)sizeof(own) ||
	    statfs(mnt, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC || stat(own, &st))
		return; /* cannot tell: assume the root's namespace */
	if (root_ino(c, self) == st.st_ino)
		return;
	c->want_id = st.st_ino;
	start_walk(c);
	while (!walk_some(c, ~(size_t)0))
		;
	if (!c->want_path[0]) {
		kt_warn("attribution: our own cgroup is not under %s; container paths are unknown",
			c->root);
		c->on = false;
		return;
	}
	/* want_path = ns_root + self (self is "/" at the namespace root). */
	sl = strcmp(self, "/") ? strlen(self) : 0;
	pl = strlen(c->want_path);
	if (pl < sl || (sl && strcmp(c->want_path + pl - sl, self))) {
		kt_warn("attribution: our cgroup %s is at %s under %s; container paths are unknown",
			self, c->want_path, c->root);
		c->on = false;
		return;
	}
	c->want_path[pl - sl] = 0;
	snprintf(c->ns_root, sizeof(c->ns_root), "%s", c->want_path);
	kt_debug("attribution: our cgroup namespace is %s under %s", c->ns_root, c->root);
}

struct kt_attrib_cache *kt_attrib_new(const char *root)
{
	struct kt_attrib_cache *c = calloc(1, sizeof(*c));
	struct statfs sfs;

	if (!c)
		return NULL;
	if (kt_htab_init(&c->tab, 256)) {
		free(c);
		return NULL;
	}
	c->rootfd = -1;
	snprintf(c->root, sizeof(c->root), "%s", root ? root : "/sys/fs/cgroup");
	/* Hybrid hierarchies keep cgroup2 at unified/. */
	if (!root && !statfs(c->root, &sfs) && sfs.f_type != CGROUP2_SUPER_MAGIC)
		snprintf(c->root, sizeof(c->root), "/sys/fs/cgroup/unified");
	if (statfs(c->root, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		kt_debug("attribution: %s is not a cgroup2 mount; cgroup paths are unknown",
			 c->root);
		return c;
	}
	c->rootfd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->rootfd < 0) {
		kt_debug("attribution: %s: %s; cgroup paths are unknown", c->root, strerror(errno));
		return c;
	}
	c->on = true;
	find_ns_root(c);
	return c;
}

void kt_attrib_free(struct kt_attrib_cache *c)
{
	if (!c)
		return;
	kt_htab_fini(&c->tab, free_ent);
	c->npending = 0;
	clear_stack(c);
	free(c->stack);
	if (c->rootfd >= 0)
		close(c->rootfd);
	free(c);
}

void kt_attrib_fill(struct kt_attrib_cache *c, struct kt_record *r)
{
	char path[KT_CGPATH_MAX];
	struct ent *e;

	r->attrib = NULL;
	if (!c || r->type == KT_RECORD_LOST || !r->cgroup_id)
		return;
	e = find(c, r->cgroup_id);
	if (!e && !(e = insert(c, r->cgroup_id)))
		return;
	r->attrib = &e->a;
	if (e->a.path || !c->on)
		return;
	/* Each task is asked once: an unresolvable cgroup must not cost every
	 * record of a busy loader an open() of /proc (BENCHMARKS.md). */
	if (!(r->rflags & KT_RF_NO_TASK) && e->tried_tid != (r->tid ? r->tid : r->pid) &&
	    (e->tried_tid = r->tid ? r->tid : r->pid,
	     try_proc(c, r->tid ? r->tid : r->pid, r->cgroup_id, path))) {
		set_path(e, path);
		if (e->pending) {
			e->pending = false;
			c->npending--;
		}
		c->st.resolved_proc++;
		return;
	}
	c->st.unresolved++;
	if (!e->pending && !e->walked) {
		e->pending = true;
		c->npending++;
		start_walk(c);
	}
}

void kt_attrib_tick(struct kt_attrib_cache *c)
{
	if (c && c->nstack)
		walk_some(c, WALK_DIRS_PER_TICK);
}

__u64 kt_attrib_wake_ns(const struct kt_attrib_cache *c)
{
	/* A walk goes on in slices, a tick each, while one is under way. */
	return c && c->nstack ? kt_monotonic_ns() + WALK_SLICE_GAP_NS : 0;
}

void kt_attrib_get_stats(const struct kt_attrib_cache *c, struct kt_attrib_stats *s)
{
	if (c)
		*s = c->st;
	else
		memset(s, 0, sizeof(*s));
}

const char *kt_attrib_root(const struct kt_attrib_cache *c)
{
	return c && c->on ? c->root : NULL;
}
