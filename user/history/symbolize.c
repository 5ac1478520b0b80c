// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Kernel addresses in text, and the times lines give them (symbolize.h). */
#include <ctype.h>
#include <string.h>
#include "history/resolve.h"
#include "history/symbolize.h"

/* "[  12.345678] ...": printk's time stamp. */
bool kt_dmesg_time(const char *line, __u64 *t)
{
	char buf[32];
	size_t n = 0;
	const char *p = line;

	if (*p++ != '[')
		return false;
	while (*p == ' ')
		p++;
	while ((isdigit((unsigned char)*p) || *p == '.') && n < sizeof(buf) - 1)
		buf[n++] = *p++;
	buf[n] = 0;
	return *p == ']' && strchr(buf, '.') && !kt_parse_time(buf, 0, t);
}

/* perf script's sample line: "comm pid [cpu] 12.345678: ..." (its frames
 * are the lines that start with a tab). */
bool kt_perf_script_time(const char *line, __u64 *t)
{
	char buf[32];
	const char *p, *colon;

	if (line[0] == '\t')
		return false;
	for (p = line; (p = strchr(p, ':')); p++) {
		const char *b = p;

		while (b > line && (isdigit((unsigned char)b[-1]) || b[-1] == '.'))
			b--;
		colon = p;
		if (colon - b < 3 || colon - b >= (long)sizeof(buf) || (b > line && b[-1] != ' '))
			continue;
		memcpy(buf, b, colon - b);
		buf[colon - b] = 0;
		if (strchr(buf, '.') && !kt_parse_time(buf, 0, t))
			return true;
	}
	return false;
}

static bool is_hex(int c)
{
	return isxdigit((unsigned char)c);
}

/* Copy line to out, naming each address that resolves at t. */
int kt_symbolize_line(kt_name_fn name, void *ctx, const char *line, __u64 t, FILE *out)
{
	static const char unk[] = " [unknown]";
	char sym[KT_NAME_MAX + 64];
	const char *p = line, *s, *e;
	__u64 addr;
	int err;

	while (*p) {
		s = p;
		if (s[0] == '0' && s[1] == 'x' && (s == line || !isalnum((unsigned char)s[-1])))
			e = s + 2;
		else if (is_hex(*s) && (s == line || !isalnum((unsigned char)s[-1])))
			e = s;
		else {
			fputc(*p++, out);
			continue;
		}
		while (is_hex(*e))
			e++;
		/* Kernel addresses only: 8 to 16 digits, not part of a word. */
		err = 0;
		if (e - s < 8 || isalnum((unsigned char)*e) || *e == '_' ||
		    kt_parse_addr(s, e - s, &addr) ||
		    (err = name(ctx, addr, t, sym, sizeof(sym))) <= 0) {
			if (err < 0) {
				fputs(s, out);
				return err;
			}
			fwrite(s, 1, e - s, out);
			p = e;
			continue;
		}
		fwrite(s, 1, e - s, out);
		if (e[0] == '>' && e[1] == ']') {
			fputs(">]", out);
			e += 2;
		}
		fprintf(out, " %s", sym);
		if (!strncmp(e, unk, sizeof(unk) - 1))
			e += sizeof(unk) - 1;
		p = e;
	}
	return 0;
}
