// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The serve socket's query requests (query.c), as the daemon reads them: the
 * first byte picks the format (text, json, raw), the rest arrives in chunks
 * of its second byte's size into a bounded buffer, against a small history. */
#include "fuzz.h"
#include "fuzz_history.h"
#include "serve/query.h"

#define IN_MAX 512

static struct kt_history h;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[KT_QUERY_ANSWER_MAX];
	struct kt_query q = { .h = &h, .t_default = KT_HIST_NOW, .wall_off = 1 };
	size_t chunk, off = 2, used, req_len, inlen = 0, n;
	char *in = malloc(IN_MAX);
	const char *req;
	bool bad;

	if (!h.live)
		fuzz_history(&h);
	if (size < 2 || !in) {
		free(in);
		return 0;
	}
	q.fmt = data[0] % 3 == 0 ? KT_FMT_TEXT : data[0] % 3 == 1 ? KT_FMT_JSON : KT_FMT_RAW;
	chunk = data[1] ? data[1] : 1;
	while (off < size || inlen) {
		n = size - off < chunk ? size - off : chunk;
		if (n > IN_MAX - inlen)
			n = IN_MAX - inlen;
		memcpy(in + inlen, data + off, n);
		inlen += n;
		off += n;
		while ((used = kt_query_next(&q, in, inlen, inlen == IN_MAX, &req, &req_len))) {
			if (req_len) {
				n = kt_query_answer(&q, req, req_len, out, sizeof(out), &bad);
				if (n >= sizeof(out))
					abort();
			}
			memmove(in, in + used, inlen - used);
			inlen -= used;
		}
		if (off == size)
			break;
	}
	free(in);
	return 0;
}
