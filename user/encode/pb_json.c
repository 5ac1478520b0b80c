// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* protobuf-c messages as OTLP/JSON (pb_json.h says which rules). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "encode/digits.h"
#include "encode/pb_json.h"

/* "log_records" -> "logRecords": proto3's JSON name. */
static void camel_key(struct kt_jw *w, const char *name)
{
	char key[64];
	size_t i = 0;

	for (; *name && i < sizeof(key) - 1; name++) {
		if (*name == '_' && name[1]) {
			name++;
			key[i++] = (*name >= 'a' && *name <= 'z') ? *name - 'a' + 'A' : *name;
		} else {
			key[i++] = *name;
		}
	}
	key[i] = '\0';
	kt_jw_key(w, key);
}

static void put_bytes(struct kt_jw *w, const ProtobufCFieldDescriptor *f,
		      const ProtobufCBinaryData *b)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(2 * b->len + 4 * (b->len / 3 + 1) + 1), *o = out;
	unsigned int v;
	size_t i;

	if (!out) {
		w->full = true;
		return;
	}
	/* OTLP: ids are hex; other bytes are base64, as proto3 says. */
	if (!strcmp(f->name, "trace_id") || !strcmp(f->name, "span_id")) {
		o = put_hex_bytes(o, b->data, b->len);
	} else {
		for (i = 0; i < b->len; i += 3) {
			v = b->data[i] << 16 | (i + 1 < b->len ? b->data[i + 1] << 8 : 0) |
			    (i + 2 < b->len ? b->data[i + 2] : 0);
			*o++ = b64[v >> 18 & 63];
			*o++ = b64[v >> 12 & 63];
			*o++ = i + 1 < b->len ? b64[v >> 6 & 63] : '=';
			*o++ = i + 2 < b->len ? b64[v & 63] : '=';
		}
	}
	*o = '\0';
	kt_jw_str(w, out);
	free(out);
}

static void put_u64_str(struct kt_jw *w, unsigned long long v, bool neg)
{
	char s[24];

	snprintf(s, sizeof(s), neg ? "%lld" : "%llu", v);
	kt_jw_str(w, s);
}

/* One value of field f at p. */
static void put_value(struct kt_jw *w, const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_ENUM:
		kt_jw_s64(w, *(const int32_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		kt_jw_u64(w, *(const uint32_t *)p);
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		put_u64_str(w, *(const int64_t *)p, true);
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		put_u64_str(w, *(const uint64_t *)p, false);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
		kt_jw_double(w, *(const float *)p, 9);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
		kt_jw_double(w, *(const double *)p, 17);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		kt_jw_bool(w, *(const protobuf_c_boolean *)p);
		break;
	case PROTOBUF_C_TYPE_STRING:
		kt_jw_str(w, *(char *const *)p ? *(char *const *)p : "");
		break;
	case PROTOBUF_C_TYPE_BYTES:
		put_bytes(w, f, p);
		break;
	case PROTOBUF_C_TYPE_MESSAGE:
		kt_pb_json(w, *(ProtobufCMessage *const *)p);
		break;
	}
}

static size_t value_size(const ProtobufCFieldDescriptor *f)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return 8;
	case PROTOBUF_C_TYPE_DOUBLE:
		return sizeof(double);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return 4;
	}
}

/* proto3: a singular field at its default value is not written. */
static bool is_default(const ProtobufCFieldDescriptor *f, const void *p)
{
	static const char zero[16];

	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING:
		return !*(char *const *)p || !**(char *const *)p;
	case PROTOBUF_C_TYPE_MESSAGE:
		return !*(void *const *)p;
	case PROTOBUF_C_TYPE_BYTES:
		return !((const ProtobufCBinaryData *)p)->len;
	default:
		return !memcmp(p, zero, value_size(f));
	}
}

void kt_pb_json(struct kt_jw *w, const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *)m;
	const ProtobufCFieldDescriptor *f;
	unsigned int i;
	size_t j, n;

	kt_jw_obj_begin(w);
	for (i = 0; i < d->n_fields; i++) {
		f = &d->fields[i];
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			n = *(const size_t *)(base + f->quantifier_offset);
			if (!n)
				continue;
			camel_key(w, f->name);
			kt_jw_arr_begin(w);
			for (j = 0; j < n; j++)
				put_value(w, f,
					  *(char *const *)(base + f->offset) + j * value_size(f));
			kt_jw_arr_end(w);
			continue;
		}
		if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			/* The case member holds the id of the field that is set;
			 * that one is written even at its default (false, 0). */
			if (*(const uint32_t *)(base + f->quantifier_offset) != f->id)
				continue;
		} else if (is_default(f, base + f->offset)) {
			continue;
		}
		camel_key(w, f->name);
		put_value(w, f, base + f->offset);
	}
	kt_jw_obj_end(w);
}
