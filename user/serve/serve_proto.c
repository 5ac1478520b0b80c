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
	[KT_MODE_STREAM] = "stream",
	[KT_MODE_SNAPSHOT] = "snapshot",
	[KT_MODE_QUERY] = "query",
	[KT_MODE_KALLSYMS] = "kallsyms",
};

void kt_hello_default(struct kt_hello *h)
{
	h->fmt = KT_FMT_JSON;
	h->mode = KT_MODE_STREAM;
	h->at = KT_HIST_NOW;
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
		if (!strcmp(w, "format")) {
			if (kt_format_parse(eq, &h->fmt)) {
				snprintf(why, why_size, "format '%.32s' is not json, raw or text",
					 eq);
				return -EINVAL;
			}
		} else if (!strcmp(w, "mode")) {
			int m;

			for (m = 0; m < (int)ARRAY_SIZE(modes); m++)
				if (!strcmp(eq, modes[m]))
					break;
			if (m == (int)ARRAY_SIZE(modes)) {
				snprintf(why, why_size,
					 "mode '%.32s' is not stream, snapshot, query or kallsyms",
					 eq);
				return -EINVAL;
			}
			h->mode = m;
		} else if (!strcmp(w, "at")) {
			if (kt_parse_time(eq, KT_HIST_NOW, &h->at)) {
				snprintf(why, why_size,
					 "at '%.32s' is not a time (ns, seconds.fraction or now)",
					 eq);
				return -EINVAL;
			}
		} else {
			/* Strict: a misspelt key must not silently mean the default. */
			snprintf(why, why_size, "unknown key '%.32s'", w);
			return -EINVAL;
		}
	}
	return 0;
}

const char *kt_hello_mode_name(enum kt_hello_mode m)
{
	return modes[m];
}

int kt_hello_format(const struct kt_hello *h, char *buf, size_t size)
{
	if (h->at != KT_HIST_NOW)
		return snprintf(buf, size, "format=%s mode=%s at=%llu\n", kt_format_name(h->fmt),
				modes[h->mode], (unsigned long long)h->at);
	return snprintf(buf, size, "format=%s mode=%s\n", kt_format_name(h->fmt), modes[h->mode]);
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
