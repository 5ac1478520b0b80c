// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//
// The test receiver of ksymtap's OTLP export (docs/otlp.md): an OTLP/HTTP
// logs endpoint that decodes every request with the messages the official
// OpenTelemetry JavaScript packages generate (@opentelemetry/otlp-transformer,
// pinned in package.json: the last release that ships protobufjs-generated
// messages with LogRecord.eventName), in both protocols.
//
//   node receiver.js DIR [--tls KEY CERT]
//
// With --tls it is an https:// endpoint with that key and certificate.
// DIR/port: the port it listens on (127.0.0.1, chosen by the kernel);
// DIR/records.jsonl: one line per log record received, flattened;
// DIR/requests.jsonl: one line per request (protocol, compression, status);
// DIR/otlp.jsonl: each request taken, as one line of OTLP/JSON: the format of
// an OpenTelemetry Collector's file exporter (ksymtap resolve -i reads it);
// DIR/errors: what it could not decode (a test fails on any).
// Writing a line to DIR/mode changes what it answers from the next request:
//   ok                 200 (the default)
//   status CODE [N] [RETRY_AFTER]
//                      CODE for the next N requests (all if no N), with
//                      Retry-After: RETRY_AFTER seconds if given
//   hang               accept requests and never answer
//   down SEC           stop listening for SEC seconds
//   partial N          200 with a partial success: N records rejected
'use strict';
const fs = require('fs');
const http = require('http');
const https = require('https');
const path = require('path');
const zlib = require('zlib');
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root');

const logsv1 = root.opentelemetry.proto.collector.logs.v1;
const Req = logsv1.ExportLogsServiceRequest;
const Resp = logsv1.ExportLogsServiceResponse;
const dir = process.argv[2];
const tls = process.argv[3] === '--tls'
  ? { key: fs.readFileSync(process.argv[4]), cert: fs.readFileSync(process.argv[5]) }
  : null;
const out = (f, line) => fs.appendFileSync(path.join(dir, f), line + '\n');

let mode = { kind: 'ok' };
let modeText = '';
function readMode() {
  let t = '';
  try {
    t = fs.readFileSync(path.join(dir, 'mode'), 'utf8').trim();
  } catch (e) {
    return;
  }
  if (t === modeText) return;
  modeText = t;
  const w = t.split(/\s+/);
  if (w[0] === 'status')
    mode = { kind: 'status', code: +w[1], left: w[2] ? +w[2] : Infinity, retryAfter: w[3] };
  else if (w[0] === 'hang') mode = { kind: 'hang' };
  else if (w[0] === 'down') mode = { kind: 'down', sec: +w[1] };
  else if (w[0] === 'partial') mode = { kind: 'partial', n: +w[1] };
  else mode = { kind: 'ok' };
}

function anyValue(v) {
  if (!v) return null;
  if (v.stringValue !== undefined && v.stringValue !== null) return v.stringValue;
  if (v.boolValue !== undefined && v.boolValue !== null) return v.boolValue;
  if (v.intValue !== undefined && v.intValue !== null) return String(v.intValue);
  if (v.doubleValue !== undefined && v.doubleValue !== null) return v.doubleValue;
  return JSON.stringify(v);
}

function attrs(list) {
  const o = {};
  for (const kv of list || []) o[kv.key] = anyValue(kv.value);
  return o;
}

// A JSON request must say nothing the messages do not hold: what fromObject
// reads back out is compared with what came, key by key.
function sameJson(sent, back, where) {
  if (typeof sent !== 'object' || sent === null) {
    if (String(sent) !== String(back)) throw new Error(`${where}: ${sent} read back as ${back}`);
    return;
  }
  for (const k of Object.keys(sent)) {
    if (!(k in (back || {}))) throw new Error(`${where}.${k}: not a field of the message`);
    sameJson(sent[k], back[k], `${where}.${k}`);
  }
}

function decode(req, body) {
  const type = req.headers['content-type'] || '';
  if (type.startsWith('application/x-protobuf')) return { proto: 'protobuf', msg: Req.decode(body) };
  if (!type.startsWith('application/json')) throw new Error(`Content-Type ${type}`);
  const obj = JSON.parse(body.toString('utf8'));
  const msg = Req.fromObject(obj);
  sameJson(obj, Req.toObject(msg, { longs: String, enums: Number, bytes: String }), 'request');
  return { proto: 'json', msg };
}

function record(proto, msg) {
  const o = Req.toObject(msg, { longs: String, enums: Number, bytes: String });
  let n = 0;
  for (const rl of o.resourceLogs || []) {
    const res = attrs(rl.resource && rl.resource.attributes);
    for (const sl of rl.scopeLogs || []) {
      for (const lr of sl.logRecords || []) {
        out('records.jsonl', JSON.stringify({
          protocol: proto,
          resource: res,
          scope: sl.scope,
          time: lr.timeUnixNano,
          observed: lr.observedTimeUnixNano,
          severity: lr.severityNumber,
          severityText: lr.severityText,
          eventName: lr.eventName,
          body: anyValue(lr.body),
          attrs: attrs(lr.attributes),
        }));
        n++;
      }
    }
  }
  return n;
}

function answer(res, proto, rejected) {
  const ps = rejected ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage: 'test' } } : {};
  if (proto === 'json') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(rejected ? { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage: 'test' } } : {}));
  } else {
    res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
    res.end(Buffer.from(Resp.encode(Resp.fromObject(ps)).finish()));
  }
}

let server;
function handle(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    readMode();
    if (mode.kind === 'hang') return; // never answered
    if (mode.kind === 'down') {
      const sec = mode.sec;
      mode = { kind: 'ok' };
      req.socket.destroy();
      server.close();
      for (const s of sockets) s.destroy();
      setTimeout(listen, sec * 1000);
      return;
    }
    const line = { path: req.url, encoding: req.headers['content-encoding'] || 'identity', type: req.headers['content-type'] };
    if (mode.kind === 'status' && mode.left > 0) {
      mode.left--;
      const h = mode.retryAfter ? { 'Retry-After': mode.retryAfter } : {};
      res.writeHead(mode.code, h);
      res.end();
      out('requests.jsonl', JSON.stringify({ ...line, status: mode.code }));
      return;
    }
    try {
      let body = Buffer.concat(chunks);
      if (line.encoding === 'gzip') body = zlib.gunzipSync(body);
      else if (line.encoding !== 'identity') throw new Error(`Content-Encoding ${line.encoding}`);
      if (req.method !== 'POST' || req.url !== '/v1/logs') throw new Error(`${req.method} ${req.url}`);
      const { proto, msg } = decode(req, body);
      const n = record(proto, msg);
      out('otlp.jsonl', JSON.stringify(Req.toObject(msg, { longs: String, enums: Number, bytes: String })));
      const rejected = mode.kind === 'partial' ? mode.n : 0;
      out('requests.jsonl', JSON.stringify({ ...line, status: 200, protocol: proto, records: n, rejected }));
      answer(res, proto, rejected);
    } catch (e) {
      out('errors', `${e.message}`);
      res.writeHead(400);
      res.end();
    }
  });
}

const sockets = new Set();
let port = 0;
function listen() {
  server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  server.listen(port, '127.0.0.1', () => {
    port = server.address().port;
    fs.writeFileSync(path.join(dir, 'port'), `${port}\n`);
  });
}
listen();
