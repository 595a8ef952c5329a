// ConfigMap and Secret data as a typed client reads it back: strings in
// `data`/`stringData`, base64 in `binaryData` and a Secret's `data`. Other
// values are refused as Go's decoder refuses them (400 on create and update,
// 422 "patch" on a patch), keys and sizes as kube-apiserver validates them.
import { describe, expect, it } from 'vitest';
import { base64ErrorOffset } from '../src/apiserver/registry/typed-fields.js';
import { newRegistry } from './helpers.js';

function caught(fn: () => unknown): {
  code: number;
  message: string;
  details?: { causes?: { field?: string }[] };
} {
  try {
    fn();
  } catch (err) {
    return err as never;
  }
  throw new Error('expected an error');
}

describe('ConfigMap and Secret data types', () => {
  it('refuses non-string ConfigMap data with Go’s decode error', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const cases: [unknown, string][] = [
      [
        { k: 1 },
        'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      ],
      [
        { k: true },
        'json: cannot unmarshal bool into Go struct field ConfigMap.data of type string',
      ],
      [
        { k: { a: 'b' } },
        'json: cannot unmarshal object into Go struct field ConfigMap.data of type string',
      ],
      [
        ['a'],
        'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string',
      ],
    ];
    for (const [data, message] of cases) {
      const err = caught(() => registry.create(cms, 'default', { metadata: { name: 'x' }, data }));
      expect(err.code).toBe(400);
      expect(err.message).toBe(
        `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${message}`,
      );
    }
    expect(registry.list(cms, 'default').items).toEqual([]);
  });

  it('refuses binaryData and Secret data that is not standard base64, saying where', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const secrets = registry.resource('', 'secrets');
    const bin = caught(() =>
      registry.create(cms, 'default', { metadata: { name: 'x' }, binaryData: { k: 'ab!d' } }),
    );
    expect(bin.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 2',
    );
    const secret = caught(() =>
      registry.create(secrets, 'default', {
        metadata: { name: 's' },
        data: { password: 'hunter2' },
      }),
    );
    expect(secret.code).toBe(400);
    expect(secret.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4',
    );
    const number = caught(() =>
      registry.create(secrets, 'default', { metadata: { name: 's' }, data: { n: 7 } }),
    );
    expect(number.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.data of type []uint8',
    );
    // Valid base64 (with line breaks, as base64 tools wrap it) is kept.
    const ok = registry.create(secrets, 'default', {
      metadata: { name: 'ok' },
      data: { password: 'aHVu\ndGVyMg==' },
    }) as { data: Record<string, string> };
    expect(ok.data.password).toBe('aHVu\ndGVyMg==');
  });

  it('finds the byte encoding/base64 stops at', () => {
    expect(base64ErrorOffset('aGVsbG8=')).toBeUndefined();
    expect(base64ErrorOffset('')).toBeUndefined();
    expect(base64ErrorOffset('abc')).toBe(0);
    expect(base64ErrorOffset('abcdabc')).toBe(4);
    expect(base64ErrorOffset('ab=c')).toBe(2);
    expect(base64ErrorOffset('a===')).toBe(1);
    expect(base64ErrorOffset('ab=')).toBe(3);
    expect(base64ErrorOffset('ab==cd')).toBe(4);
    expect(base64ErrorOffset('ab\nc')).toBe(1);
  });

  it('turns a null data value into an empty string, as Go decodes it', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const cm = registry.create(cms, 'default', { metadata: { name: 'n' }, data: { k: null } }) as {
      data: Record<string, string>;
    };
    expect(cm.data).toEqual({ k: '' });
  });

  it('refuses a patch that leaves a wrongly typed value, as an Invalid patch', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    registry.create(cms, 'default', { metadata: { name: 'p' }, data: { k: 'v' } });
    const err = caught(() =>
      registry.patch(cms, 'default', 'p', { type: 'merge', body: { data: { k: 5 } } }),
    );
    expect(err.code).toBe(422);
    expect(err.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/,
    );
    expect((registry.get(cms, 'default', 'p') as { data: unknown }).data).toEqual({ k: 'v' });
  });

  it('validates keys and the 1 MiB total as kube-apiserver does', () => {
    const { registry } = newRegistry();
    const cms = registry.resource('', 'configmaps');
    const secrets = registry.resource('', 'secrets');
    const keys = caught(() =>
      registry.create(cms, 'default', {
        metadata: { name: 'k' },
        data: { 'a b': 'x', '..': 'y', dup: 'z' },
        binaryData: { dup: 'eg==' },
      }),
    );
    expect(keys.code).toBe(422);
    expect(keys.details?.causes?.map((c) => c.field)).toEqual([
      'data[a b]',
      'data[..]',
      'data[dup]',
    ]);
    expect(keys.message).toContain(
      `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
    expect(keys.message).toContain(`data[..]: Invalid value: "..": must not be '..'`);
    expect(keys.message).toContain(
      'data[dup]: Invalid value: "dup": duplicate of key present in binaryData',
    );
    const big = caught(() =>
      registry.create(cms, 'default', {
        metadata: { name: 'big' },
        data: { a: 'x'.repeat(600_000), b: 'y'.repeat(600_000) },
      }),
    );
    expect(big.message).toBe(
      'ConfigMap "big" is invalid: []: Too long: must have at most 1048576 bytes',
    );
    const bigSecret = caught(() =>
      registry.create(secrets, 'default', {
        metadata: { name: 'big' },
        data: { a: Buffer.alloc(1_100_000).toString('base64') },
      }),
    );
    expect(bigSecret.message).toBe(
      'Secret "big" is invalid: data: Too long: must have at most 1048576 bytes',
    );
  });
});
