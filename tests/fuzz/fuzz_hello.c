// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The serve handshake line a client sends (docs/serve.md). */
#include "fuzz.h"
#include "serve/serve_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), why[128], out[KT_HELLO_MAX + 1];
	struct kt_hello h;

	if (!s)
		return 0;
	kt_hello_default(&h);
	if (!kt_hello_parse(s, &h, why, sizeof(why)))
		kt_hello_format(&h, out, sizeof(out));
	free(s);
	return 0;
}
