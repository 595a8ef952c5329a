// The protobuf body decoder on messages built here with the same schema:
// the types whose JSON is not an object of their fields, presence, and every
// way a body can be wrong, through the decoder and through the server.
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtobufDecodeError, decodeProtobufObject } from '../src/apiserver/protobuf/decode.js';
import schema from '../src/apiserver/protobuf/kube-proto.json' with { type: 'json' };
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

const root = protobuf.Root.fromJSON(schema);
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

function encode(type: string, object: Record<string, unknown>): Uint8Array {
  const t = root.lookupType(type);
  return t.encode(t.fromObject(object)).finish();
}

function body(apiVersion: string, kind: string, raw: Uint8Array, extra: object = {}): Buffer {
  const unknown = encode('k8s.io.apimachinery.pkg.runtime.Unknown', {
    typeMeta: { apiVersion, kind },
    raw,
    ...extra,
  });
  return Buffer.concat([MAGIC, unknown]);
}

const podWith = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
  body(
    'v1',
    'Pod',
    encode('k8s.io.api.core.v1.Pod', { metadata: { name: 'p', ...metadata }, spec }),
  );

describe('decodeProtobufObject', () => {
  it('writes Time, IntOrString, Quantity and FieldsV1 as their JSON, inlines embedded structs, and leaves out a zero Time', () => {
    const pod = decodeProtobufObject(
      podWith(
        {
          containers: [
            {
              name: 'c',
              image: 'nginx',
              resources: { limits: { cpu: { string: '500m' }, memory: { string: '1Gi' } } },
              readinessProbe: {
                handler: { httpGet: { path: '/', port: { type: 1, strVal: 'http' } } },
                periodSeconds: 5,
              },
              livenessProbe: { handler: { tcpSocket: { port: { type: 0, intVal: 8080 } } } },
            },
          ],
        },
        {
          creationTimestamp: { seconds: 1_700_000_000 },
          deletionTimestamp: {},
          managedFields: [
            {
              manager: 'kubectl',
              time: { seconds: 1_700_000_001 },
              fieldsV1: { Raw: Buffer.from('{"f:metadata":{}}') },
            },
          ],
        },
      ),
    );
    expect(pod).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        creationTimestamp: '2023-11-14T22:13:20Z',
        managedFields: [
          { manager: 'kubectl', time: '2023-11-14T22:13:21Z', fieldsV1: { 'f:metadata': {} } },
        ],
      },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx',
            resources: { limits: { cpu: '500m', memory: '1Gi' } },
            readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
            livenessProbe: { tcpSocket: { port: 8080 } },
          },
        ],
      },
    });
  });

  it('drops a zero that Go holds by value with omitempty, keeps a pointer’s zero, and drops empty lists and maps', () => {
    const pod = decodeProtobufObject(
      podWith({
        containers: [{ name: '', image: '', stdin: false, tty: true }],
        hostNetwork: false,
        terminationGracePeriodSeconds: 0,
        restartPolicy: '',
        nodeSelector: {},
        volumes: [],
      }),
    );
    // name has no omitempty; image, stdin, hostNetwork and restartPolicy do;
    // terminationGracePeriodSeconds is a pointer.
    expect(pod.spec).toEqual({
      containers: [{ name: '', tty: true }],
      terminationGracePeriodSeconds: 0,
    });
  });

  it('keeps empty strings inside a map, and bytes as base64', () => {
    const secret = decodeProtobufObject(
      body(
        'v1',
        'Secret',
        encode('k8s.io.api.core.v1.Secret', {
          metadata: { name: 's' },
          data: { key: Buffer.from([0, 255]) },
          stringData: { empty: '' },
        }),
      ),
    );
    expect(secret).toMatchObject({ data: { key: 'AP8=' }, stringData: { empty: '' } });
  });

  it.each([
    ['no magic', Buffer.from('{"kind":"Pod"}'), /does not appear to be a protobuf message/],
    [
      'a truncated envelope',
      Buffer.concat([MAGIC, Buffer.from([0x0a, 0x20, 0x01])]),
      /envelope is malformed/,
    ],
    [
      'a truncated object',
      body('v1', 'Pod', Buffer.from([0x0a, 0x40, 0x0a])),
      /Pod in version "v1" is malformed/,
    ],
    [
      'an encoding',
      body('v1', 'Pod', new Uint8Array(), { contentEncoding: 'gzip' }),
      /content encoding "gzip" is not supported/,
    ],
    [
      'an unknown kind',
      body('example.com/v1', 'Widget', new Uint8Array()),
      /no protobuf schema for "example\.com\/v1\/Widget"/,
    ],
  ])('refuses %s', (_, input, message) => {
    expect(() => decodeProtobufObject(input)).toThrow(ProtobufDecodeError);
    expect(() => decodeProtobufObject(input)).toThrow(message);
  });
});

describe('a protobuf body sent to the server', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.stop());

  const post = (path: string, data: Buffer) =>
    call(sandbox, 'POST', path, {
      body: data,
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    });

  it('creates the object', async () => {
    const res = await post(
      '/api/v1/namespaces/default/configmaps',
      body(
        'v1',
        'ConfigMap',
        encode('k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'cm' }, data: { a: '1' } }),
      ),
    );
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'cm' },
      data: { a: '1' },
    });
  });

  it('answers a malformed body 400 and a kind with no schema 415, and stays up', async () => {
    const bad = await post(
      '/api/v1/namespaces/default/pods',
      Buffer.concat([MAGIC, Buffer.from([0xff])]),
    );
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(bad.json().message).toContain('Pod in version "v1" cannot be handled as a Pod');
    const lease = await post(
      '/apis/coordination.k8s.io/v1/namespaces/default/leases',
      body('coordination.k8s.io/v1', 'Lease', new Uint8Array()),
    );
    expect(lease.status).toBe(415);
    expect(lease.json()).toMatchObject({ reason: 'UnsupportedMediaType' });
    expect(lease.json().message).toContain('send this kind as JSON');
    expect((await call(sandbox, 'GET', '/api/v1/namespaces/default/configmaps/cm')).status).toBe(
      200,
    );
  });
});
