// The process model of the simulated containers: what a command does (its
// output, when and how it exits), for the shells and programs the model
// knows, and `undefined` (a process that runs until stopped) for the rest.
import { describe, expect, it } from 'vitest';
import { piDigits } from '../src/node/process/pi.js';
import { containerProgram, type ProcessContext } from '../src/node/process/process-model.js';
import { expandKubernetesReferences, parseScript } from '../src/node/process/shell.js';

const ctx: ProcessContext = {
  env: new Map([
    ['GREETING', 'hello world'],
    ['JOB_COMPLETION_INDEX', '3'],
    ['EMPTY', ''],
  ]),
  files: new Map([
    ['/etc/config/mode', 'fast'],
    ['/etc/config/list', 'a\nb\n'],
  ]),
  hostname: 'pi-7x2kq',
  startedAt: Date.UTC(2026, 10, 28, 7, 50, 12),
};

const run = (...command: string[]) => containerProgram(command, ctx);
const out = (...command: string[]) => run(...command)?.lines.map((l) => l.text);

describe('containerProgram', () => {
  it('runs `sh -c` lists: output, sleeps on the clock, the exit code', () => {
    expect(run('sh', '-c', 'echo hello; sleep 5; exit 3')).toEqual({
      lines: [{ at: 0, stream: 'stdout', text: 'hello' }],
      exit: { at: 5_000, code: 3 },
    });
    expect(run('/bin/bash', '-c', 'sleep 1.5 && echo done')).toEqual({
      lines: [{ at: 1_500, stream: 'stdout', text: 'done' }],
      exit: { at: 1_500, code: 0 },
    });
    expect(
      run('sh', '-c', 'false && echo no; echo status is kept || echo no')?.lines.map((l) => l.text),
    ).toEqual(['status is kept']);
    expect(run('sh', '-c', 'false')?.exit).toEqual({ at: 0, code: 1 });
    expect(run('sh', '-c', 'true; exit 300')?.exit?.code).toBe(44);
    expect(run('sh', '-ec', 'echo a; false; echo b')).toEqual({
      lines: [{ at: 0, stream: 'stdout', text: 'a' }],
      exit: { at: 0, code: 1 },
    });
    expect(run('sh', '-c', 'sleep 2m; echo late')?.lines[0]?.at).toBe(120_000);
  });

  it('prints π as the Kubernetes docs Job does, taking some time', () => {
    const pi = run('perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)');
    expect(pi?.lines).toHaveLength(1);
    expect(pi?.lines[0]?.text).toBe(piDigits(2000));
    expect(pi?.lines[0]?.text.startsWith('3.14159265358979323846264338327950288')).toBe(true);
    expect(pi?.exit?.code).toBe(0);
    expect(pi?.exit?.at).toBeGreaterThan(0);
  });

  it('expands variables: $VAR and ${VAR} in the shell, $(VAR) as the kubelet does', () => {
    expect(out('sh', '-c', 'echo "$GREETING" ${JOB_COMPLETION_INDEX} $UNSET.')).toEqual([
      'hello world 3 .',
    ]);
    // Unquoted, a value splits into words: echo joins them with one space.
    expect(out('sh', '-c', 'echo   $GREETING')).toEqual(['hello world']);
    expect(out('echo', 'index $(JOB_COMPLETION_INDEX) $(NOPE) $$(GREETING)')).toEqual([
      'index 3 $(NOPE) $(GREETING)',
    ]);
    expect(expandKubernetesReferences('$(EMPTY)x', ctx.env)).toBe('x');
  });

  it('knows printenv, hostname, date and cat of mounted files', () => {
    expect(out('printenv', 'GREETING')).toEqual(['hello world']);
    expect(run('printenv', 'MISSING')?.exit?.code).toBe(1);
    expect(out('printenv')).toEqual(['GREETING=hello world', 'JOB_COMPLETION_INDEX=3', 'EMPTY=']);
    expect(out('hostname')).toEqual(['pi-7x2kq']);
    expect(out('date')).toEqual(['Sat Nov 28 07:50:12 UTC 2026']);
    expect(out('sh', '-c', 'sleep 60; date -u +%Y-%m-%dT%H:%M:%SZ')).toEqual([
      '2026-11-28T07:51:12Z',
    ]);
    expect(out('cat', '/etc/config/mode', '/etc/config/list')).toEqual(['fast', 'a', 'b']);
    expect(run('cat', '/etc/nope')).toEqual({
      lines: [{ at: 0, stream: 'stderr', text: 'cat: /etc/nope: No such file or directory' }],
      exit: { at: 0, code: 1 },
    });
  });

  it('sends output where its redirections say', () => {
    expect(
      run('sh', '-c', 'echo out; echo err >&2; cat /etc/nope 2>/dev/null; echo gone > /dev/null'),
    ).toEqual({
      lines: [
        { at: 0, stream: 'stdout', text: 'out' },
        { at: 0, stream: 'stderr', text: 'err' },
      ],
      exit: { at: 0, code: 0 },
    });
    // Redirections of a nested shell compose with the outer command's.
    expect(run('sh', '-c', "sh -c 'echo inner' >&2")?.lines).toEqual([
      { at: 0, stream: 'stderr', text: 'inner' },
    ]);
  });

  it('runs forever on `sleep infinity`', () => {
    expect(run('sh', '-c', 'echo up; sleep infinity')).toEqual({
      lines: [{ at: 0, stream: 'stdout', text: 'up' }],
    });
  });

  it('does not know servers, pipes, substitutions, assignments or other programs', () => {
    for (const command of [
      [],
      ['nginx', '-g', 'daemon off;'],
      ['sh'],
      ['sh', '-c', 'echo a | wc -l'],
      ['sh', '-c', 'echo $(date)'],
      ['sh', '-c', 'X=1 echo $X'],
      ['sh', '-c', 'sleep 1 &'],
      ['sh', '-c', 'echo > /tmp/x'],
      ['perl', '-e', 'print 1'],
      ['python3', '-c', 'print(1)'],
    ]) {
      expect(containerProgram(command, ctx), JSON.stringify(command)).toBeUndefined();
    }
  });

  it('reports a bad sleep as the program does', () => {
    expect(run('sleep', 'soon')).toEqual({
      lines: [{ at: 0, stream: 'stderr', text: "sleep: invalid time interval 'soon'" }],
      exit: { at: 0, code: 1 },
    });
  });
});

describe('parseScript', () => {
  it('splits lists and keeps quoting', () => {
    const plain = { stdout: 'stdout', stderr: 'stderr' };
    expect(parseScript(`echo 'a;b' "c && d" e\\ f # comment\nexit 2`, new Map())).toEqual([
      { connector: ';', words: ['echo', 'a;b', 'c && d', 'e f'], output: plain },
      { connector: ';', words: ['exit', '2'], output: plain },
    ]);
    expect(parseScript('a && b || c', new Map()).map((c) => c.connector)).toEqual([
      ';',
      '&&',
      '||',
    ]);
    expect(parseScript(`echo ""`, new Map())).toEqual([
      { connector: ';', words: ['echo', ''], output: plain },
    ]);
  });

  it('reads the redirections that move or drop output', () => {
    const outputs = (script: string) => parseScript(script, new Map()).map((c) => c.output);
    expect(outputs('echo a >&2; echo b 2>&1; echo c >/dev/null 2>&1; echo d 2> /dev/null')).toEqual(
      [
        { stdout: 'stderr', stderr: 'stderr' },
        { stdout: 'stdout', stderr: 'stdout' },
        { stdout: 'null', stderr: 'null' },
        { stdout: 'stdout', stderr: 'null' },
      ],
    );
    // A digit that is part of a word is an argument, not a descriptor.
    expect(parseScript('echo a2>&2', new Map())[0]?.words).toEqual(['echo', 'a2']);
  });
});

describe('piDigits', () => {
  it('rounds to the digits asked for, as bpi(N) does', () => {
    expect(piDigits(1)).toBe('3');
    expect(piDigits(3)).toBe('3.14');
    expect(piDigits(5)).toBe('3.1416');
    expect(piDigits(10)).toBe('3.141592654');
    expect(piDigits(50)).toBe('3.1415926535897932384626433832795028841971693993751');
    expect(() => piDigits(0)).toThrow(RangeError);
  });
});
