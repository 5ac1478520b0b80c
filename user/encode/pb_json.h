/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A protobuf-c message as OTLP/JSON: proto3's JSON mapping with the OTLP
 * specification's exceptions (opentelemetry.io/docs/specs/otlp, "JSON
 * Protobuf Encoding"): keys in lowerCamelCase, enums as integers, trace and
 * span ids as hex strings, 64-bit integers as decimal strings, fields at
 * their default value left out.  Made from the message's descriptor, so the
 * JSON says what the protobuf bytes say.
 */
#ifndef KT_PB_JSON_H
#define KT_PB_JSON_H

#include <protobuf-c/protobuf-c.h>
#include "encode/json_writer.h"

void kt_pb_json(struct kt_jw *w, const ProtobufCMessage *m);

#endif
