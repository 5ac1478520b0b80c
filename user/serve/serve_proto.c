// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/base.h"
#include "util/fileio.h"
#include "history/resolve.h"
#include "serve/serve_proto.h"
#include "serve/serve_socket.h"

static const char *const modes[] = {
	[KT_MODE_STREAM] = "stream",	 [KT_MODE_SNAPSHOT] = "snapshot", [KT_MODE_QUERY] = "query",
	[KT_MODE_KALLSYMS] = "kallsyms", [KT_MODE_CODE] = "code",
};

void kt_hello_default(struct kt_hello *h)
{
	h->fmt = KT_FMT_JSON;
	h->mode = KT_MODE_STREAM;
	h->at = KT_HIST_NOW;
	h->addr = 0;
	h->has_addr = false;
}

/* One key=value word into h: 0, or -EINVAL with why. */
static int parse_word(const char *w, const char *eq, struct kt_hello *h, char *why, size_t why_size)
{
	int m;

	if (!strcmp(w, "format")) {
		if (kt_format_parse(eq, &h->fmt)) {
			snprintf(why, why_size, "format '%.32s' is not json, raw or text", eq);
			return -EINVAL;
		}
	} else if (!strcmp(w, "mode")) {
		for (m = 0; m < (int)ARRAY_SIZE(modes); m++)
			if (!strcmp(eq, modes[m]))
				break;
		if (m == (int)ARRAY_SIZE(modes)) {
			snprintf(why, why_size,
				 "mode '%.32s' is not stream, snapshot, query, kallsyms or code",
				 eq);
			return -EINVAL;
		}
		h->mode = m;
	} else if (!strcmp(w, "at")) {
		if (kt_parse_time(eq, KT_HIST_NOW, &h->at)) {
			snprintf(why, why_size,
				 "at '%.32s' is not a time (ns, seconds.fraction or now)", eq);
			return -EINVAL;
		}
	} else if (!strcmp(w, "addr")) {
		if (kt_parse_addr(eq, strlen(eq), &h->addr)) {
			snprintf(why, why_size, "addr '%.32s' is not an address (hex)", eq);
			return -EINVAL;
		}
		h->has_addr = true;
	} else {
		/* Strict: a misspelt key must not silently mean the default. */
		snprintf(why, why_size, "unknown key '%.32s'", w);
		return -EINVAL;
	}
	return 0;
}

int kt_hello_parse(const char *line, struct kt_hello *h, char *why, size_t why_size)
{
	char buf[KT_HELLO_MAX], *save = NULL, *w, *eq;

	kt_hello_default(h);
	if (strlen(line) >= sizeof(buf)) {
		snprintf(why, why_size, "handshake longer than %d bytes", KT_HELLO_MAX - 1);
		return -EINVAL;
	}
	strcpy(buf, line);
	/* Tolerate CRLF from interactive tools (socat, nc): one trailing \r.
	 * A \r anywhere else is an error below (not key=value). */
	if (buf[0] && buf[strlen(buf) - 1] == '\r')
		buf[strlen(buf) - 1] = 0;
	if (strchr(buf, '\r')) {
		snprintf(why, why_size, "a carriage return inside the handshake");
		return -EINVAL;
	}
	for (w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		eq = strchr(w, '=');
		if (!eq) {
			snprintf(why, why_size, "'%.64s' is not key=value", w);
			return -EINVAL;
		}
		*eq++ = 0;
		if (parse_word(w, eq, h, why, why_size))
			return -EINVAL;
	}
	if (h->mode == KT_MODE_CODE && !h->has_addr) {
		snprintf(why, why_size, "mode=code needs addr=ADDR");
		return -EINVAL;
	}
	return 0;
}

const char *kt_hello_mode_name(enum kt_hello_mode m)
{
	return modes[m];
}

int kt_hello_format(const struct kt_hello *h, char *buf, size_t size)
{
	char at[32] = "", addr[32] = "";

	if (h->at != KT_HIST_NOW)
		snprintf(at, sizeof(at), " at=%llu", (unsigned long long)h->at);
	if (h->has_addr)
		snprintf(addr, sizeof(addr), " addr=%llx", (unsigned long long)h->addr);
	return snprintf(buf, size, "format=%s mode=%s%s%s\n", kt_format_name(h->fmt),
			modes[h->mode], at, addr);
}

int kt_hello_connect(const char *path, const struct kt_hello *h, char *why, size_t why_size)
{
	char line[128];
	int fd = kt_connect_unix(path), n, err;

	if (fd < 0) {
		snprintf(why, why_size, "%s: %s (is 'ksymtap serve' running there?)", path,
			 strerror(-fd));
		return fd;
	}
	n = kt_hello_format(h, line, sizeof(line));
	err = kt_write_all(fd, line, n);
	if (err) {
		snprintf(why, why_size, "%s: sending the handshake: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}
