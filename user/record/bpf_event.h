/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Decoding the BPF hooks' ring-buffer events (struct kt_event). */
#ifndef KT_BPF_EVENT_H
#define KT_BPF_EVENT_H

#include <stddef.h>
#include "record/record.h"

/* Convert one ring-buffer event; returns -EINVAL if it is malformed. */
int kt_record_from_event(struct kt_record *r, const void *data, size_t size);
/* After kt_record_from_event() of an event with KT_EVF_BPF_EVENT: turn r into
 * the BPF_EVENT record it also carries; -ENOENT if it carries none. */
int kt_record_bpf_event_of(struct kt_record *r, const void *data, size_t size);

#endif
