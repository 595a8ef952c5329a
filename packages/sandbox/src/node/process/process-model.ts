// What a simulated container does when it runs: its command and arguments
// (expanded with its environment as the kubelet expands them), read as the
// program would behave, on the node's clock. The model knows a shell's
// lists (`sh -c`, `bash -c`: see shell.ts) and a handful of programs:
// `echo`, `sleep`, `exit`, `true`, `false`, `:`, `printenv` and `env`,
// `date`, `hostname`, `cat` of a mounted file, `set -e`, and perl's
// `print bpi(N)` (the π of the Kubernetes docs' Job example). A container
// whose command it does not know (no command at all, a server binary, a
// pipe) is a long-running process, as every simulated container used to be.
import { piDigits } from './pi.js';
import {
  type ShellCommand,
  UnsupportedScript,
  expandKubernetesReferences,
  parseScript,
} from './shell.js';

/** What a container's process sees. */
export interface ProcessContext {
  /** The environment, in the order the container defines it. */
  env: ReadonlyMap<string, string>;
  /** The files its volumes mount, by absolute path. */
  files: ReadonlyMap<string, string>;
  /** The pod's hostname. */
  hostname: string;
  /** When the process starts (epoch ms), for `date`. */
  startedAt: number;
}

/** One line of output, written `at` ms after the process started. */
export interface OutputLine {
  at: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

/** What a process does: its output, and when and how it exits (never, without `exit`). */
export interface Program {
  lines: OutputLine[];
  exit?: { at: number; code: number };
}

// The time perl's bpi takes for N digits, roughly as a small node runs it.
const piTime = (digits: number): number => Math.max(50, Math.round((digits * digits) / 2_000));

/** Thrown inside the interpreter when the script ends (exit, or a failure under `set -e`). */
class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** `date` in a container's UTC: its default format, or a `+FORMAT` of the common directives. */
function formatDate(ms: number, format?: string): string | undefined {
  const d = new Date(ms);
  const fields: Record<string, string> = {
    a: days[d.getUTCDay()] ?? '',
    b: months[d.getUTCMonth()] ?? '',
    d: two(d.getUTCDate()),
    e: String(d.getUTCDate()).padStart(2, ' '),
    H: two(d.getUTCHours()),
    M: two(d.getUTCMinutes()),
    S: two(d.getUTCSeconds()),
    Y: String(d.getUTCFullYear()),
    m: two(d.getUTCMonth() + 1),
    s: String(Math.floor(ms / 1000)),
    Z: 'UTC',
    '%': '%',
  };
  fields.T = `${fields.H}:${fields.M}:${fields.S}`;
  fields.F = `${fields.Y}-${fields.m}-${fields.d}`;
  if (format === undefined)
    return `${fields.a} ${fields.b} ${fields.e} ${fields.T} UTC ${fields.Y}`;
  let out = '';
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') {
      out += format[i];
      continue;
    }
    const f = fields[format[++i] ?? ''];
    if (f === undefined) return undefined;
    out += f;
  }
  return out;
}

/** `sleep`'s arguments in ms: numbers with an optional s, m, h or d; Infinity for `infinity`. */
function sleepTime(args: string[]): number | string {
  let total = 0;
  for (const a of args) {
    if (a === 'infinity' || a === 'inf') return Infinity;
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
    if (!m) return `sleep: invalid time interval '${a}'`;
    const unit = { '': 1, s: 1, m: 60, h: 3_600, d: 86_400 }[m[2] ?? ''] ?? 1;
    total += Number(m[1]) * unit * 1000;
  }
  if (args.length === 0) return 'sleep: missing operand';
  return Math.round(total);
}

/** Runs the model of a process; throws UnsupportedScript for what it does not know. */
class Interpreter {
  readonly lines: OutputLine[] = [];
  time = 0;
  errexit = false;

  constructor(readonly ctx: ProcessContext) {}

  /** Where the running command's streams go, after its redirections. */
  output: ShellCommand['output'] = { stdout: 'stdout', stderr: 'stderr' };

  out(text: string, stream: OutputLine['stream'] = 'stdout'): void {
    const target = this.output[stream];
    if (target !== 'null') this.lines.push({ at: this.time, stream: target, text });
  }

  /** Runs one command; its exit status. */
  run(words: string[]): number {
    const [command = '', ...args] = words;
    const name = basename(command);
    switch (name) {
      case 'sh':
      case 'bash':
      case 'ash':
      case 'dash': {
        const script =
          args[0] === '-c' || args[0] === '-ec' || args[0] === '-ce' ? args[1] : undefined;
        if (script === undefined) throw new UnsupportedScript(`${name} without -c`);
        if (args[0] !== '-c') this.errexit = true;
        return this.script(script);
      }
      case 'echo': {
        let rest = args;
        let escapes = false;
        while (rest[0] === '-n' || rest[0] === '-e' || rest[0] === '-ne' || rest[0] === '-en') {
          if (rest[0].includes('e')) escapes = true;
          rest = rest.slice(1);
        }
        const text = rest.join(' ');
        for (const line of (escapes
          ? text.replace(/\\n/g, '\n').replace(/\\t/g, '\t')
          : text
        ).split('\n')) {
          this.out(line);
        }
        return 0;
      }
      case 'sleep': {
        const ms = sleepTime(args);
        if (typeof ms === 'string') {
          this.out(ms, 'stderr');
          return 1;
        }
        this.time += ms;
        return 0;
      }
      case 'exit': {
        const code = args.length === 0 ? 0 : Number(args[0]);
        throw new Exit(Number.isInteger(code) ? ((code % 256) + 256) % 256 : 2);
      }
      case 'true':
      case ':':
        return 0;
      case 'false':
        return 1;
      case 'set':
        for (const a of args) {
          if (!/^[-+][eux]+$/.test(a)) throw new UnsupportedScript(`set ${a}`);
          if (a.includes('e')) this.errexit = a.startsWith('-');
        }
        return 0;
      case 'printenv':
      case 'env': {
        if (name === 'env' && args.length > 0) throw new UnsupportedScript('env with arguments');
        if (args.length === 0) {
          for (const [k, v] of this.ctx.env) this.out(`${k}=${v}`);
          return 0;
        }
        let status = 0;
        for (const a of args) {
          const v = this.ctx.env.get(a);
          if (v === undefined) status = 1;
          else this.out(v);
        }
        return status;
      }
      case 'hostname':
        if (args.length > 0) throw new UnsupportedScript('hostname with arguments');
        this.out(this.ctx.hostname);
        return 0;
      case 'date': {
        const format = args.filter((a) => a !== '-u' && a !== '--utc');
        if (format.length > 1 || (format[0] !== undefined && !format[0].startsWith('+'))) {
          throw new UnsupportedScript('date with arguments');
        }
        const text = formatDate(this.ctx.startedAt + this.time, format[0]?.slice(1));
        if (text === undefined) throw new UnsupportedScript('date format');
        this.out(text);
        return 0;
      }
      case 'cat': {
        if (args.length === 0 || args.some((a) => a.startsWith('-'))) {
          throw new UnsupportedScript('cat of its input');
        }
        let status = 0;
        for (const path of args) {
          const content = this.ctx.files.get(path);
          if (content === undefined) {
            this.out(`cat: ${path}: No such file or directory`, 'stderr');
            status = 1;
            continue;
          }
          const lines = content.split('\n');
          if (lines.at(-1) === '') lines.pop();
          for (const line of lines) this.out(line);
        }
        return status;
      }
      case 'perl': {
        const joined = args.join(' ');
        const m = /^-Mbignum=bpi -wle print bpi\((\d+)\);?$/.exec(joined);
        if (!m) throw new UnsupportedScript('perl');
        const digits = Number(m[1]);
        if (digits < 1 || digits > 100_000) throw new UnsupportedScript('bpi digits');
        this.time += piTime(digits);
        this.out(piDigits(digits));
        return 0;
      }
      default:
        throw new UnsupportedScript(`unknown command ${command}`);
    }
  }

  /** Runs a script's commands in turn, as `;`, `&&` and `||` join them. */
  script(script: string): number {
    let status = 0;
    for (const c of parseScript(script, this.ctx.env)) {
      if (c.connector === '&&' && status !== 0) continue;
      if (c.connector === '||' && status === 0) continue;
      const outer = this.output;
      // A redirection of a nested shell applies within the outer one's.
      this.output = {
        stdout: c.output.stdout === 'null' ? 'null' : outer[c.output.stdout],
        stderr: c.output.stderr === 'null' ? 'null' : outer[c.output.stderr],
      };
      try {
        status = this.run(c.words);
      } finally {
        this.output = outer;
      }
      if (this.errexit && status !== 0 && c.connector === ';') throw new Exit(status);
    }
    return status;
  }
}

/**
 * What the process of a container with `command` (its command and args
 * together, as the runtime runs them) does; undefined when the model does
 * not know the program, which then runs until it is stopped.
 */
export function containerProgram(
  command: readonly string[],
  ctx: ProcessContext,
): Program | undefined {
  if (command.length === 0) return undefined;
  const words = command.map((w) => expandKubernetesReferences(w, ctx.env));
  const interpreter = new Interpreter(ctx);
  let code: number;
  try {
    code = interpreter.run(words);
  } catch (err) {
    if (err instanceof Exit) code = err.code;
    else if (err instanceof UnsupportedScript) return undefined;
    else throw err;
  }
  if (!Number.isFinite(interpreter.time)) return { lines: interpreter.lines };
  return { lines: interpreter.lines, exit: { at: interpreter.time, code } };
}
