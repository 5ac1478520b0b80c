// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//
//   node compare.js STREAM.json RECORDS.jsonl
//
// The records of a `ksymtap stream -f json` run against the log records the
// receiver decoded from the same run's OTLP export (receiver.js), field for
// field, in order (one pipeline feeds both, one request at a time): exit 0
// and a count, or exit 1 and the first difference.  docs/otlp.md's table is
// what this checks.
'use strict';
const fs = require('fs');

const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
const stream = lines(process.argv[2]);
const otlp = lines(process.argv[3]);

const s = (v) => (v === null || v === undefined ? undefined : String(v));
const events = {
  ksymbol: (r) => (r.unregister ? 'ksymtap.ksymbol.unregister' : 'ksymtap.ksymbol.register'),
  bpf_event: (r) => (r.type_name === 'prog_unload' ? 'ksymtap.bpf.prog_unload' : 'ksymtap.bpf.prog_load'),
  lost: () => 'ksymtap.lost',
};

// JSON key -> OTLP attribute, for every record and per kind.
const common = {
  time: 'ksymtap.time', origin: 'ksymtap.origin', snapshot: 'ksymtap.snapshot', cpu: 'cpu.logical_number',
  identity: 'ksymtap.identity',
};
const task = { pid: 'process.pid', tid: 'thread.id', comm: 'process.executable.name' };
const cgroup = {
  cgroup_id: 'ksymtap.cgroup.id', cgroup_path: 'ksymtap.cgroup.path',
  container_runtime: 'container.runtime.name', container_id: 'container.id', pod_uid: 'k8s.pod.uid',
};
const kinds = {
  ksymbol: {
    source: 'ksymtap.symbol.source', addr: 'ksymtap.symbol.addr', len: 'ksymtap.symbol.len',
    ksym_type: 'ksymtap.symbol.type', ksym_type_name: 'ksymtap.symbol.type_name',
    flags: 'ksymtap.symbol.flags', unregister: 'ksymtap.symbol.unregister',
    name: 'ksymtap.symbol.name', module: 'ksymtap.symbol.module', prog_id: 'ksymtap.bpf.prog.id',
  },
  bpf_event: {
    source: 'ksymtap.bpf.source', type: 'ksymtap.bpf.event.type', type_name: 'ksymtap.bpf.event.type_name',
    flags: 'ksymtap.bpf.event.flags', id: 'ksymtap.bpf.prog.id', tag: 'ksymtap.bpf.prog.tag',
    prog_name: 'ksymtap.bpf.prog.name',
  },
  lost: { lost: 'ksymtap.lost' },
};

function check(i, j, o) {
  const where = `record ${i + 1} (${JSON.stringify(j).slice(0, 160)})`;
  const want = (what, a, b) => {
    if (s(a) !== s(b)) throw new Error(`${where}: ${what}: stream ${s(a)}, otlp ${s(b)}`);
  };
  want('event name', events[j.kind](j), o.eventName);
  want('time 0 (unknown) or not', j.time === 0, o.time === undefined || o.time === '0');
  const map = { ...common, ...(j.identity === 'none' ? {} : task), ...(j.kind === 'lost' ? {} : cgroup), ...kinds[j.kind] };
  for (const [k, a] of Object.entries(map)) {
    let v = j[k];
    if (v === '' || (v === -1 && (k === 'pid' || k === 'tid')) || (v === 0 && k === 'time')) v = null;
    if (k === 'addr') v = '0x' + BigInt(v).toString(16);
    want(k, v, o.attrs[a]);
  }
  // Nothing more than the table: every attribute is one of the mapped ones.
  const known = new Set([...Object.values(map), 'ksymtap.seq']);
  for (const a of Object.keys(o.attrs)) if (!known.has(a)) throw new Error(`${where}: attribute ${a} not in the table`);
}

if (stream.length !== otlp.length) {
  console.log(`FAIL: the stream has ${stream.length} records, the receiver ${otlp.length}`);
  process.exit(1);
}
let prevSeq = -1n;
try {
  stream.forEach((j, i) => {
    check(i, j, otlp[i]);
    const seq = BigInt(otlp[i].attrs['ksymtap.seq']);
    if (seq <= prevSeq) throw new Error(`record ${i + 1}: sequence ${seq} after ${prevSeq}`);
    prevSeq = seq;
  });
} catch (e) {
  console.log(`FAIL: ${e.message}`);
  process.exit(1);
}
console.log(`${stream.length} records, field for field`);
