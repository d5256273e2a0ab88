import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";
/******/ var __webpack_modules__ = ({

/***/ 87:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  x: () => (/* binding */ runWatchdog)
});

;// CONCATENATED MODULE: external "node:child_process"
const external_node_child_process_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:child_process");
;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");
;// CONCATENATED MODULE: external "node:fs/promises"
const promises_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs/promises");
;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");
;// CONCATENATED MODULE: ./src/io/safe-fs.ts
/**
 * Writing under the results directory without following symbolic links. The directory is inside the
 * checked-out workspace, so a pull request can commit a symlink there (`llm-bench-results/report.md →
 * ~/.bashrc`); every file we write is opened with O_NOFOLLOW and every directory on the way is checked with
 * lstat, so such a link is refused by name instead of written through.
 */



class UnsafePathError extends Error {
    path;
    constructor(path, reason) {
        super(`${path}: ${reason}; refusing to write through it`);
        this.path = path;
        this.name = 'UnsafePathError';
    }
}
/**
 * Creates `dir` and its missing parents below `base`, refusing any existing component that is a symlink or
 * not a directory.
 */
function safe_fs_ensureDir(dir, base = defaultBase(dir)) {
    const target = resolve(dir);
    const from = resolve(base);
    const steps = relative(from, target).split(sep).filter(Boolean);
    let current = from;
    for (const step of ['', ...steps]) {
        current = step ? resolve(current, step) : current;
        let stat;
        try {
            stat = lstatSync(current);
        }
        catch (error) {
            if (error.code !== 'ENOENT')
                throw error;
            mkdirSync(current);
            continue;
        }
        if (stat.isSymbolicLink())
            throw new UnsafePathError(current, 'is a symbolic link');
        if (!stat.isDirectory())
            throw new UnsafePathError(current, 'is not a directory');
    }
}
/** The working directory when `dir` is inside it, else the deepest ancestor of `dir` that exists already. */
function defaultBase(dir) {
    const target = resolve(dir);
    const rel = relative(process.cwd(), target);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel))
        return process.cwd();
    let base = target;
    while (!existsSync(base) && dirname(base) !== base)
        base = dirname(base);
    return base;
}
/** Opens a file for writing (`append` or truncate) without following a symlink at its name. */
function safe_fs_openNoFollow(path, mode) {
    const flags = external_node_fs_namespaceObject.constants.O_WRONLY |
        external_node_fs_namespaceObject.constants.O_CREAT |
        external_node_fs_namespaceObject.constants.O_NOFOLLOW |
        (mode === 'append' ? external_node_fs_namespaceObject.constants.O_APPEND : external_node_fs_namespaceObject.constants.O_TRUNC);
    try {
        return (0,external_node_fs_namespaceObject.openSync)(path, flags, 0o644);
    }
    catch (error) {
        if (error.code === 'ELOOP')
            throw new UnsafePathError(path, 'is a symbolic link');
        throw error;
    }
}
/** Writes a whole file inside a checked directory, never through a symlink. */
function writeFileNoFollow(path, data, base) {
    safe_fs_ensureDir(dirname(path), base);
    const fd = safe_fs_openNoFollow(path, 'truncate');
    try {
        const bytes = Buffer.from(data, 'utf8');
        for (let at = 0; at < bytes.length;)
            at += writeSync(fd, bytes, at);
    }
    finally {
        closeSync(fd);
    }
}
/** What a path is when it is not a regular file, for the messages that refuse it. */
function kindOf(stat) {
    if (stat.isFIFO())
        return 'a FIFO';
    if (stat.isSocket())
        return 'a socket';
    if (stat.isCharacterDevice() || stat.isBlockDevice())
        return 'a device';
    if (stat.isDirectory())
        return 'a directory';
    return 'not a regular file';
}
/** Files the run reads (results, baselines, matrix files, other tools' output) stay under this. */
const MAX_READ_BYTES = (/* unused pure expression or super */ null && (256 * 1024 * 1024));
/**
 * Reads a regular file as UTF-8 text, or refuses it naming why: a FIFO, device, socket or directory, or a
 * file past `maxBytes`. Opening a FIFO to read blocks until a writer comes, and SIGTERM does not end the
 * wait, so the path is opened non-blocking (open(2): O_NONBLOCK has no effect on a regular file) and checked
 * with fstat on that descriptor, with no window between the check and the read. A refusal is an error whose
 * `code` is EISDIR for a directory and ENOTREG otherwise.
 */
async function readRegularFile(path, maxBytes = MAX_READ_BYTES) {
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
        const stat = await handle.stat();
        if (!stat.isFile()) {
            const error = new Error(`${kindOf(stat)}, not a regular file`);
            error.code = stat.isDirectory() ? 'EISDIR' : 'ENOTREG';
            throw error;
        }
        if (stat.size > maxBytes) {
            const error = new Error(`${stat.size} bytes, over the limit of ${maxBytes}`);
            error.code = 'EFBIG';
            throw error;
        }
        return await handle.readFile('utf8');
    }
    finally {
        await handle.close();
    }
}

;// CONCATENATED MODULE: ./src/core/errors.ts
/**
 * The small error taxonomy: one class per failure a caller handles differently (a bad config stops
 * the run before launch, a start failure turns a target's cells into errors, a request error is
 * counted in its round). Messages name the thing that failed: `vllm-fp8: not ready after 20m`.
 */
/** Bad matrix file or inputs: every problem, each as `path: what is wrong`. */
class ConfigError extends Error {
    problems;
    constructor(problems) {
        super(problems.length === 1
            ? problems[0]
            : `${problems.length} problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
        this.problems = problems;
        this.name = 'ConfigError';
    }
}
/** The matrix file itself cannot be read (a mistyped path): the run writes nothing, not even its results folder. */
class UnreadableConfigError extends ConfigError {
    constructor(problem) {
        super([problem]);
        this.name = 'UnreadableConfigError';
    }
}
/** A target could not be brought up: it exited, timed out or was aborted before it was ready. */
class StartError extends Error {
    target;
    kind;
    exitCode;
    logTail;
    launch;
    constructor(target, kind, message, exitCode = null, logTail = '', 
    /** The launch command as run (port filled), once it was. */
    launch) {
        super(`${target}: ${message}`);
        this.target = target;
        this.kind = kind;
        this.exitCode = exitCode;
        this.logTail = logTail;
        this.launch = launch;
        this.name = 'StartError';
    }
}
/** One request failed: HTTP status, in-band error event, malformed stream, cut connection, timeout. */
class RequestError extends Error {
    kind;
    status;
    constructor(message, kind, status) {
        super(message);
        this.kind = kind;
        this.status = status;
        this.name = 'RequestError';
    }
}
function errorMessage(error) {
    return error instanceof Error ? error.message : String(error);
}

;// CONCATENATED MODULE: ./src/core/redact.ts
/**
 * Redaction of secrets from everything we write or post: the comment, the job summary, the results file, the
 * HTML pages, log lines and the engine logs under the results directory. The runner masks secrets registered
 * with it in its own log, but not in a comment body posted through the API, an uploaded artifact or a Pages
 * site, so we replace them ourselves with `***`, before any escaping (escaping could split a secret apart).
 *
 * What counts as a secret: every value registered with `registerSecret` (the `github-token` input, the
 * runner's `ACTIONS_*` tokens, values of variables whose names look secret) and well-known token shapes
 * (GitHub's `ghp_`/`gho_`/`ghs_`/`ghu_`/`ghr_`/`github_pat_`, Hugging Face `hf_`, OpenAI-style `sk-`, and the
 * credential after `Bearer `). A registered value may be broken across lines (a wrapped log line): it
 * is found with a line break between any two of its characters.
 */
/** Names of environment variables whose values are treated as secrets (`HF_TOKEN`, `DB_PASSWORD`, `API_KEY`). */
function looksSecret(name) {
    const upper = name.toUpperCase();
    return /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/.test(upper) || /(^|_)KEY$/.test(upper);
}
/** The workflow's own credentials and plumbing: never passed to an engine, whatever `pass-env` says. */
function isActionCredential(name) {
    const upper = name.toUpperCase();
    return upper.startsWith('INPUT_') || upper.startsWith('ACTIONS_') || upper === 'GITHUB_TOKEN' || upper === 'GH_TOKEN';
}
/** Values shorter than this are not redacted by value: `true`, `1` or a port would blank out half a report. */
const MIN_SECRET_LENGTH = 8;
const MASK = '***';
const SHAPES = [
    /\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}/g,
    /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
    /\bhf_[A-Za-z0-9]{20,}/g,
    /\bsk-[A-Za-z0-9_-]{20,}/g,
];
// The credential after `Bearer` (RFC 6750 b64token), however it is shaped; the scheme word stays readable.
const BEARER = /\b(Bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
/** `text` as a RegExp source that matches it literally. */
function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
class Redactor {
    secrets = new Set();
    pattern;
    /** Adds a value to redact; short or empty values are ignored. */
    add(value) {
        const trimmed = value?.trim();
        if (!trimmed || trimmed.length < MIN_SECRET_LENGTH || this.secrets.has(trimmed))
            return;
        this.secrets.add(trimmed);
        this.pattern = undefined;
    }
    /** Every secret-looking variable of an environment (name rule above, or `ACTIONS_*` tokens). */
    addFromEnv(env) {
        for (const [name, value] of Object.entries(env))
            if (looksSecret(name))
                this.add(value);
    }
    get size() {
        return this.secrets.size;
    }
    redact(text) {
        if (!text)
            return text;
        let out = text;
        const pattern = this.compiled();
        if (pattern)
            out = out.replace(pattern, MASK);
        for (const shape of SHAPES)
            out = out.replace(shape, MASK);
        return out.replace(BEARER, (_whole, scheme, space) => `${scheme}${space}${MASK}`);
    }
    /** A deep copy with every string redacted (results files, engine facts). */
    redactDeep(value) {
        return walk(value, (s) => this.redact(s));
    }
    compiled() {
        if (this.pattern || this.secrets.size === 0)
            return this.pattern;
        // Longest first, so a secret that contains another is masked whole.
        const sorted = [...this.secrets].sort((a, b) => b.length - a.length);
        const split = (secret) => [...secret].map(escapeRegExp).join('(?:\\r?\\n)?');
        this.pattern = new RegExp(sorted.map(split).join('|'), 'g');
        return this.pattern;
    }
}
function walk(value, redact) {
    if (typeof value === 'string')
        return redact(value);
    if (Array.isArray(value))
        return value.map((v) => walk(v, redact));
    if (value !== null && typeof value === 'object') {
        const out = {};
        for (const [k, v] of Object.entries(value))
            out[k] = walk(v, redact);
        return out;
    }
    return value;
}
/** The process-wide redactor every writer goes through; the runner and the CLI fill it at start. */
const secrets = new Redactor();
function redact_redact(text) {
    return secrets.redact(text);
}
/**
 * A tool's message for a report or an error, on one line: control characters as spaces, the user and password of
 * a URL (`https://user:token@host`, RFC 3986 §3.2.1 userinfo) masked, known secrets masked, at most `maxChars`.
 */
function redact_redactLine(text, maxChars) {
    const clean = redact_redact(text
        // eslint-disable-next-line no-control-regex
        .replace(/[\u0000-\u001f\u007f]/g, ' ')
        .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, `$1${MASK}@`)
        .trim());
    return clean.length > maxChars ? `${clean.slice(0, maxChars - 1)}…` : clean;
}
/** A copy of `value` with every known secret masked, marked as such. */
function redacted(value) {
    return secrets.redactDeep(value);
}

;// CONCATENATED MODULE: ./src/server/env.ts
/**
 * The environment a launched engine (or stop command, or container) starts with: least privilege. Engines are
 * third-party programs; some print their environment when they crash and launch scripts often run `set -x`,
 * so nothing that lets a process act as this workflow reaches them. We start from the runner's environment and
 * remove the action's own inputs (`INPUT_*`, the `github-token` among them), the runner's plumbing and tokens
 * (`ACTIONS_*`: runtime, results, cache, OIDC request token and URL), `GITHUB_TOKEN`/`GH_TOKEN`, any variable
 * whose value is a registered secret, and every variable whose name looks secret unless the target lists it in
 * `pass-env` (e.g. `HF_TOKEN` for gated model downloads). The target's own `env` is added last.
 */

function engineEnv(base, passEnv, extra, known = secrets) {
    const pass = new Set(passEnv);
    const env = {};
    const withheld = [];
    for (const [name, value] of Object.entries(base)) {
        if (value === undefined || isActionCredential(name))
            continue;
        if ((looksSecret(name) || known.redact(value) !== value) && !pass.has(name)) {
            withheld.push(name);
            continue;
        }
        env[name] = value;
    }
    return { env: { ...env, ...extra }, withheld: withheld.sort() };
}
/** The hint a failed launch carries when it ran without secret-looking variables the runner had. */
function withheldHint(withheld) {
    if (withheld.length === 0)
        return '';
    const names = withheld.length > 3 ? `${withheld.slice(0, 3).join(', ')} and ${withheld.length - 3} more` : withheld.join(', ');
    return `; ${names} ${withheld.length === 1 ? 'was' : 'were'} not passed to the engine (add ${withheld.length === 1 ? 'it' : 'them'} to pass-env if it needs ${withheld.length === 1 ? 'it' : 'them'})`;
}
/** The run's id in every launch and `stop:` command's environment, as `{run}` is in their text. */
const RUN_ID_VARIABLE = 'LLM_BENCH_RUN_ID';

;// CONCATENATED MODULE: external "node:crypto"
const external_node_crypto_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:crypto");
;// CONCATENATED MODULE: ./src/core/units.ts
/**
 * Durations, sizes and percents as written in the matrix file. Parsers return undefined for
 * malformed text so the schema can word the error with the field's path.
 */
const NUM = String.raw `(\d+(?:\.\d+)?)`;
// Units in descending order, each at most once: `1h30m`, `90s`, `500ms`. `m(?!s)` keeps `5ms` from reading as 5 minutes.
const DURATION_PATTERN = `^(?:${NUM}h)?(?:${NUM}m(?!s))?(?:${NUM}s)?(?:${NUM}ms)?$`;
const DURATION_RE = new RegExp(DURATION_PATTERN);
const DURATION_FACTORS = (/* unused pure expression or super */ null && ([3_600_000, 60_000, 1000, 1]));
/** Milliseconds, or undefined when the text is not a duration like `500ms`, `90s`, `20m`, `1h30m`. */
function parseDuration(text) {
    const trimmed = text.trim();
    const match = DURATION_RE.exec(trimmed);
    if (!trimmed || !match)
        return undefined;
    return DURATION_FACTORS.reduce((total, factor, i) => total + (match[i + 1] ? Number(match[i + 1]) * factor : 0), 0);
}
const units_SIZE_FACTORS = {
    B: 1,
    KB: 1e3,
    MB: 1e6,
    GB: 1e9,
    TB: 1e12,
    KiB: 2 ** 10,
    MiB: 2 ** 20,
    GiB: 2 ** 30,
    TiB: 2 ** 40,
};
const SIZE = `${NUM}\\s*(${Object.keys(units_SIZE_FACTORS).join('|')})`;
const SIZE_RE = new RegExp(`^${SIZE}$`);
/** Bytes, or undefined when the text is not a size like `4GiB`, `512MiB`, `4GB`. */
function parseSize(text) {
    const match = SIZE_RE.exec(text.trim());
    return match ? Math.round(Number(match[1]) * units_SIZE_FACTORS[match[2]]) : undefined;
}
const PERCENT = `${NUM}\\s*%`;
const PERCENT_RE = new RegExp(`^${PERCENT}$`);
/** For the JSON Schema, so editors flag a malformed value as it is typed. */
const PERCENT_PATTERN = (/* unused pure expression or super */ null && (`^${PERCENT}$`));
const SIZE_OR_PERCENT_PATTERN = (/* unused pure expression or super */ null && (`^(?:${SIZE}|${PERCENT})$`));
/** A fraction (`5%` → 0.05), or undefined when the text is not a percent. */
function parsePercent(text) {
    const match = PERCENT_RE.exec(text.trim());
    return match ? Number(match[1]) / 100 : undefined;
}

;// CONCATENATED MODULE: ./src/core/format.ts
/** How numbers, durations and sizes read wherever we print them: reports, verdict reasons, log lines, the plan. */

/** A real minus sign reads better than a hyphen in tables. */
const MINUS = '\u2212';
const EMPTY = '—';
/** Precision that suits the magnitude: 12,345 · 523 · 52.3 · 5.23 · 0.0523. */
function formatNumber(value) {
    if (typeof value !== 'number' || !Number.isFinite(value))
        return EMPTY;
    const size = Math.abs(value);
    const text = size >= 1000
        ? Math.round(size).toLocaleString('en-US')
        : size >= 100
            ? size.toFixed(0)
            : size >= 10
                ? size.toFixed(1)
                : size >= 1
                    ? size.toFixed(2)
                    : size === 0
                        ? '0'
                        : size.toPrecision(3);
    return value < 0 ? MINUS + text : text;
}
/** A fraction as a percentage without trailing zeros: 0.05 → `5%`, 0.123 → `12.3%`. */
function formatPercent(fraction) {
    if (!Number.isFinite(fraction))
        return EMPTY;
    const text = (fraction * 100).toFixed(1).replace(/\.0$/, '');
    return `${text.replace('-', MINUS)}%`;
}
/** A fraction as percentage points with at most one decimal, no sign or unit: 0.83 → `83`, 0.125 → `12.5`. */
function formatPoints(fraction) {
    return String(Math.round(fraction * 1000) / 10);
}
/** A signed change of a share in percentage points: 0.94 − 1 → `−6 points`, `+0.5 pt` with `unit: 'pt'`, `0 points`. */
function formatPointsDelta(diff, unit = 'points') {
    const size = formatPoints(Math.abs(diff));
    const sign = size === '0' ? '' : diff < 0 ? MINUS : '+';
    return `${sign}${size} ${unit}`;
}
/** A signed relative change with one decimal: `+4.0%`, `−12.3%`, `0.0%`. */
function formatDelta(fraction) {
    if (typeof fraction !== 'number' || !Number.isFinite(fraction))
        return EMPTY;
    const text = Math.abs(fraction * 100).toFixed(1);
    if (Number(text) === 0)
        return '0.0%';
    return `${fraction < 0 ? MINUS : '+'}${text}%`;
}
/**
 * A signed absolute change with its unit: `+31 ms`, `−4.20 tok/s`. With `scale` (the size of the values
 * compared) the change is rounded to the precision those values are shown at, three significant digits of
 * `scale`: a 0.000671 ms change between two TTFTs of 220 ms reads `0 ms`, not `−0.000671 ms`.
 */
function formatSigned(value, unit, scale) {
    const text = scale === undefined || !(Math.abs(scale) > 0) || !Number.isFinite(scale)
        ? formatNumber(Math.abs(value))
        : atPrecisionOf(Math.abs(value), Math.abs(scale));
    const sign = /^[0.,]+$/.test(text) ? '' : value < 0 ? MINUS : '+';
    return `${sign}${/^[0.,]+$/.test(text) ? '0' : text} ${unit}`;
}
function atPrecisionOf(size, scale) {
    const exponent = Math.floor(Math.log10(scale)) - 2;
    const decimals = Math.max(0, -exponent);
    const quantum = 10 ** exponent;
    const rounded = Math.round(size / quantum) * quantum;
    return rounded >= 1000 ? Math.round(rounded).toLocaleString('en-US') : rounded.toFixed(decimals);
}
/** Counts with a noun: `1 cell`, `400 cells`. */
function plural(count, noun, many = `${noun}s`) {
    return `${count.toLocaleString('en-US')} ${count === 1 ? noun : many}`;
}
/** Keeps at most two decimals and drops trailing zeros. */
function round2(value) {
    return Math.round(value * 100) / 100;
}
/** `500ms`, `1.5s`, `45s`, `1m30s`, `20m`, `1h5m`: the inverse of the matrix file's duration syntax. */
function format_formatDuration(ms) {
    if (!Number.isFinite(ms))
        return EMPTY;
    // Below a second, whole milliseconds: `497ms`, not `497.43ms`.
    if (ms < 1000)
        return `${Math.round(ms)}ms`;
    if (ms < 60_000)
        return `${round2(ms / 1000)}s`;
    const h = Math.floor(ms / 3_600_000);
    const m = Math.floor((ms % 3_600_000) / 60_000);
    const s = round2((ms % 60_000) / 1000);
    return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}
const BINARY_UNITS = (/* unused pure expression or super */ null && (['TiB', 'GiB', 'MiB', 'KiB']));
/** `4GiB`, `1.5GiB`, `512MiB`, `100B`: binary units, as the matrix file writes memory sizes. */
function formatBytes(bytes) {
    for (const unit of BINARY_UNITS) {
        const factor = SIZE_FACTORS[unit];
        if (bytes >= factor)
            return `${round2(bytes / factor)}${unit}`;
    }
    return `${bytes}B`;
}

;// CONCATENATED MODULE: ./src/server/container.ts
/**
 * `container:` targets: the `run` command the action composes, the runtime it picks, and the
 * stop, removal and label cleanup that reach the container itself. The `run` client runs in the
 * foreground as the launch's process group, but the container's processes are children of the
 * runtime's shim (`conmon`, `containerd-shim`) in a session of their own: killing the group never
 * reaches them, so every path that ends a container goes through the runtime, by name or by label.
 */





/** The label every container of a run carries; its value is the run id. */
const RUN_LABEL = 'llm-bench-gate.run';
const DETECT_TIMEOUT_MS = 3000;
const COMMAND_TIMEOUT_MS = 30_000;
/** Container names and label values take `[A-Za-z0-9_.-]`; anything else becomes `-`. */
function sanitize(text) {
    return text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
}
/** A run id unique per run: the workflow run and attempt when there is one, plus random hex so two runs of one job differ. */
function makeRunId(env = process.env) {
    const run = env.GITHUB_RUN_ID ? `${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT ?? '1'}` : 'local';
    return sanitize(`${run}-${randomBytes(4).toString('hex')}`);
}
function containerName(runId, targetId) {
    return sanitize(`llm-bench-${runId}-${targetId}`);
}
/** A list is passed word for word; a string is split by the shell like a launch command. */
function shellWords(value) {
    if (value === undefined)
        return [];
    return typeof value === 'string' ? [value] : value.map(shellQuote);
}
/**
 * The `run` command as a `bash -c` line (exec, so the group leader is the client itself). The target's
 * `pass-env` names go in as `-e NAME` without a value: docker and podman then take the value from their own
 * environment (docs.docker.com, `docker run --env`: "If the variable isn't set in the local environment, the
 * variable won't be set in the container"), so a passed secret reaches the container without appearing in the
 * command line or the log.
 */
function runCommand(runtime, c, at) {
    // `--pull=never`: a missing image is pulled before the launch (`pullImage`), so the run never pulls inside startup.
    const label = `${RUN_LABEL}=${at.runId}`;
    const fixed = ['run', '--init', '--network', 'host', '--name', at.name, '--label', label, '--pull=never'];
    if (c.gpus === 'all')
        fixed.push(...(runtime === 'podman' ? ['--device', 'nvidia.com/gpu=all'] : ['--gpus', 'all']));
    if (c.shmSize)
        fixed.push('--shm-size', c.shmSize);
    for (const [name, value] of Object.entries({ PORT: String(at.port), ...c.env }))
        fixed.push('-e', `${name}=${value}`);
    for (const name of at.passEnv ?? [])
        if (!(name in c.env))
            fixed.push('-e', name);
    for (const volume of c.volumes)
        fixed.push('-v', volume);
    const words = [
        runtime,
        ...fixed.map(shellQuote),
        ...shellWords(c.runArgs),
        shellQuote(c.image),
        ...shellWords(c.command),
    ];
    return `exec ${words.join(' ')}`;
}
/** After the timeout's SIGTERM, what a runtime CLI gets before SIGKILL: one that ignores SIGTERM must not block teardown. */
const KILL_AFTER_MS = 2_000;
/** What is kept of a runtime CLI's output (ids, one inspect value, an error line). */
const OUTPUT_CHARS = 1024 * 1024;
/**
 * Runs the runtime's CLI without a shell; never throws (a missing binary is code null). At `timeoutMs`, or when
 * `signal` aborts, it gets SIGTERM and, KILL_AFTER_MS later, SIGKILL; its output is kept up to OUTPUT_CHARS.
 */
function runtimeExec(runtime, args, timeoutMs = COMMAND_TIMEOUT_MS, signal) {
    return new Promise((resolve) => {
        const child = (0,external_node_child_process_namespaceObject.spawn)(runtime, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        const out = { stdout: '', stderr: '' };
        for (const name of ['stdout', 'stderr']) {
            child[name].setEncoding('utf8');
            child[name].on('data', (text) => {
                if (out[name].length < OUTPUT_CHARS)
                    out[name] += text.slice(0, OUTPUT_CHARS - out[name].length);
            });
        }
        let ended;
        let kill;
        const end = (why) => {
            if (ended)
                return;
            ended = why;
            child.kill('SIGTERM');
            kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
        };
        const timer = setTimeout(() => end('timed out'), timeoutMs);
        const onAbort = () => end('aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted)
            onAbort();
        let settled = false;
        const finish = (ran) => {
            if (settled)
                return;
            settled = true;
            clearTimeout(timer);
            clearTimeout(kill);
            signal?.removeEventListener('abort', onAbort);
            resolve(ran);
        };
        child.once('error', (error) => finish({ code: null, ...out, ...(error.code === 'ENOENT' && { failure: 'not found' }) }));
        const exited = (code) => finish({ code: ended ? null : code, ...out, ...(ended && { failure: ended }) });
        // A helper the CLI left holding its output must not hold the call: past a second after the exit, stop waiting.
        child.once('exit', (code) => setTimeout(() => exited(code), 1000).unref());
        child.once('close', exited);
    });
}
let detected;
function lastLine(text) {
    return text.trim().split('\n').pop()?.slice(0, 200) ?? '';
}
/** docker when a docker daemon answers (a docker CLI without a daemon does not count), else podman. */
function detectRuntime() {
    detected ??= runtimeExec('docker', ['version', '--format', '{{.Server.Version}}'], DETECT_TIMEOUT_MS).then((r) => {
        const version = r.stdout.trim();
        if (r.code === 0 && version)
            return { runtime: 'docker', why: `the docker daemon answers (${lastLine(version)})` };
        if (r.failure === 'not found')
            return { runtime: 'podman', why: 'no docker command' };
        if (r.failure === 'timed out')
            return { runtime: 'podman', why: `\`docker version\` did not answer within ${DETECT_TIMEOUT_MS / 1000}s` };
        return { runtime: 'podman', why: `the docker daemon did not answer (${lastLine(r.stderr) || `exit ${r.code}`})` };
    });
    return detected;
}
/** True while the container runs; undefined when the runtime cannot say (no such container, runtime gone). */
async function containerRunning(runtime, name) {
    const r = await runtimeExec(runtime, ['inspect', '--format', '{{.State.Running}}', name], 10_000);
    return r.code === 0 ? r.stdout.trim() === 'true' : undefined;
}
/** The container's first process as the host numbers it (`.State.Pid`; 0 once stopped): the engine descends from it. */
async function containerPid(runtime, name) {
    const r = await runtimeExec(runtime, ['inspect', '--format', '{{.State.Pid}}', name], 10_000);
    const pid = r.code === 0 ? Number(r.stdout.trim()) : NaN;
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
async function containerExitCode(runtime, name) {
    const r = await runtimeExec(runtime, ['inspect', '--format', '{{.State.ExitCode}}', name], 10_000);
    const code = Number(r.stdout.trim());
    return r.code === 0 && Number.isInteger(code) ? code : null;
}
/** `stop -t <grace>` then `rm -f`, by name; what the runtime said when it failed. */
async function removeContainer(runtime, name, graceMs) {
    const stop = await runtimeExec(runtime, ['stop', '-t', String(Math.max(0, Math.ceil(graceMs / 1000))), name], graceMs + COMMAND_TIMEOUT_MS);
    const rm = await runtimeExec(runtime, ['rm', '-f', name]);
    if (rm.code === 0)
        return undefined;
    return `${runtime} rm -f ${name}: ${(rm.stderr || stop.stderr).trim().split('\n').pop() || `exit ${rm.code}`}`;
}
/**
 * Removes every container carrying this run's label, running or not (a SIGINT during creation can
 * leave one `Created`). Containers without the label, or with another run's, are never touched.
 * Returns the ids removed (podman) or found (docker).
 */
async function removeByLabel(runtime, runId) {
    const filter = `label=${RUN_LABEL}=${runId}`;
    const listed = await runtimeExec(runtime, ['ps', '-aq', '--filter', filter]);
    const ids = listed.code === 0
        ? listed.stdout
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean)
        : [];
    if (runtime === 'podman') {
        // `-t 0`: without it podman waits 10 s per container before killing it.
        await runtimeExec('podman', ['rm', '-f', '-t', '0', '--filter', filter]);
    }
    else if (ids.length) {
        // docker's `rm` takes no filter: list by label, remove by id.
        await runtimeExec('docker', ['rm', '-f', ...ids]);
    }
    return ids;
}
/** The image the container runs: podman's tag and manifest digest; docker's image id and the image's first repo digest. */
async function containerIdentity(runtime, name, image) {
    if (runtime === 'podman') {
        const r = await runtimeExec('podman', ['inspect', '--format', '{{.ImageName}}|{{.ImageDigest}}', name], 10_000);
        const [tag, digest] = r.code === 0 ? r.stdout.trim().split('|') : [];
        return { runtime, image: tag || image, ...(digest ? { digest } : {}) };
    }
    const id = (await runtimeExec('docker', ['inspect', '--format', '{{.Image}}', name], 10_000)).stdout.trim();
    const repo = id
        ? (await runtimeExec('docker', ['image', 'inspect', '--format', '{{join .RepoDigests " "}}', id], 10_000)).stdout.trim()
        : '';
    const digest = repo.split(' ')[0]?.split('@')[1] || id;
    return { runtime, image, ...(digest ? { digest } : {}) };
}
/** What an error quotes of the runtime's stderr: its last lines, newest first kept (podman prints retries, then the error). */
const STDERR_LINES = 3;
const STDERR_CHARS = 600;
/** The last STDERR_LINES lines that fit in STDERR_CHARS (the last one always, clipped), on one line, redacted. */
function stderrTail(ran) {
    const lines = ran.stderr
        .split(/\r?\n|\r/)
        .map((line) => redactLine(line, STDERR_CHARS))
        .filter(Boolean);
    const kept = [];
    for (const line of lines.slice(-STDERR_LINES).reverse()) {
        if (kept.length && [line, ...kept].join(' | ').length > STDERR_CHARS)
            break;
        kept.unshift(line);
    }
    return kept.join(' | ') || 'no message';
}
/** Why a runtime call gave no answer: the binary is missing, it hung past its bound, or the run was cancelled. */
function noAnswer(runtime, call, ran, timeoutMs) {
    if (ran.failure === 'not found')
        return `no \`${runtime}\` command on PATH`;
    if (ran.failure === 'timed out')
        return `\`${runtime} ${call}\` did not finish within ${formatDuration(timeoutMs)}`;
    if (ran.failure === 'aborted')
        return `cancelled during \`${runtime} ${call}\``;
    return undefined;
}
/**
 * Whether the runtime has the image locally, asking no registry. podman: `image exists` exits 0 when it does, 1
 * when it does not, 125 on an error (podman-image-exists(1)). docker: `image inspect` exits 0, or 1 with "No such
 * image" on stderr (docs.docker.com, `docker image inspect`). Any other answer throws: the runtime cannot say.
 */
async function imagePresent(runtime, image, signal) {
    const args = runtime === 'podman' ? ['image', 'exists', image] : ['image', 'inspect', '--format', '{{.Id}}', image];
    const ran = await runtimeExec(runtime, args, COMMAND_TIMEOUT_MS, signal);
    const failed = noAnswer(runtime, args.slice(0, 2).join(' '), ran, COMMAND_TIMEOUT_MS);
    if (failed)
        throw new Error(`cannot tell whether image ${image} is present: ${failed}`);
    if (ran.code === 0)
        return true;
    if (ran.code === 1 && (runtime === 'podman' || /no such (image|object)/i.test(ran.stderr)))
        return false;
    throw new Error(`cannot tell whether image ${image} is present: \`${runtime} ${args.slice(0, 2).join(' ')}\` exited with code ${ran.code}: ${stderrTail(ran)}`);
}
/** `pull <image>`, bounded by `timeoutMs` and `signal`; throws naming the image with the runtime's last stderr lines. */
async function pullImage(runtime, image, timeoutMs, signal) {
    const ran = await runtimeExec(runtime, ['pull', image], timeoutMs, signal);
    const failed = noAnswer(runtime, `pull ${image}`, ran, timeoutMs) ??
        (ran.code === 0 ? undefined : `\`${runtime} pull ${image}\` exited with code ${ran.code}: ${stderrTail(ran)}`);
    if (failed)
        throw new Error(`image ${image} is not present locally and could not be pulled: ${failed}`);
}

;// CONCATENATED MODULE: ./src/io/proc-stat.ts
/**
 * `/proc/<pid>/stat`, one line of space-separated fields (proc_pid_stat(5),
 * https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html). Field 2, `comm`, is the thread's
 * name in parentheses, and a process may name itself anything (prctl(PR_SET_NAME), up to 15
 * bytes), spaces and parentheses included: the fields are counted from after the last `)`.
 */

const COUNT = /^\d+$/;
/** The fields this project reads, or undefined for a line that is not a stat line. */
function parseProcStat(text) {
    const close = text.lastIndexOf(')');
    if (close < 0 || text[close + 1] !== ' ')
        return undefined;
    // fields[0] is field 3.
    const fields = text
        .slice(close + 2)
        .trimEnd()
        .split(' ');
    const [state, , pgrp] = fields;
    const startTime = fields[19];
    if (!/^[A-Za-z]$/.test(state ?? '') || !COUNT.test(pgrp ?? '') || !COUNT.test(startTime ?? ''))
        return undefined;
    const stat = { state, pgrp: Number(pgrp), startTime: Number(startTime) };
    return Number.isSafeInteger(stat.pgrp) && Number.isSafeInteger(stat.startTime) ? stat : undefined;
}
/** `/proc/<pid>/stat` read and parsed; undefined where the process or /proc is not there. */
function readProcStat(pid) {
    try {
        return parseProcStat((0,external_node_fs_namespaceObject.readFileSync)(`/proc/${pid}/stat`, 'utf8'));
    }
    catch {
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/server/group-identity.ts
/**
 * Whether a saved process group id still names the group this run launched. A pid is reused once
 * its process is gone; the leader's pid together with its start time (field 22 of
 * /proc/<pid>/stat, clock ticks after boot) is not, so the guard records both when it spawns the
 * group, and the watchdog and the post step check them before they signal `-pgid`.
 *
 * The rule, for a group whose leader is the `bash` we spawned detached (setsid(2): pgid = sid = its
 * pid; a session leader can neither join another group nor start one, setpgid(2) and setsid(2) EPERM):
 *
 * - `/proc/<pgid>` holds a process with the recorded start time (running, or a zombie not yet
 *   reaped): our leader, so `-pgid` is our group. (Start times count clock ticks; a later holder
 *   of the pid starts a whole round of the pid counter later, never within the same tick.)
 * - It holds a process with another start time: the pid was reused, so our group has ended. No
 *   pid is handed out that equals the id of a group still alive ("the child process ID also shall
 *   not match any active process group ID", POSIX fork(),
 *   https://pubs.opengroup.org/onlinepubs/9699919799/functions/fork.html; on Linux every member
 *   holds the group's `struct pid`, and its number is freed only with the last, kernel/pid.c).
 *   `-pgid` now reaches that process's group, if any: never signalled.
 * - No process holds the pid, yet `kill(-pgid, 0)` finds the group: members outlived the leader.
 *   They are our orphans, or, after our group ended, the pid went to a process that made a group
 *   of it (setsid(2) and setpgid(2) name a new group after its creator) and exited before its
 *   members. /proc cannot tell the two apart (a member's start time only says it began after our
 *   leader, true of both), so it is not signalled either. Such members are the run's own
 *   teardown's to kill: it follows the leader's exit at once.
 * - `kill(-pgid, 0)` says ESRCH: gone.
 *
 * Without /proc (macOS) nothing can be checked: the group is signalled while `kill(-pgid, 0)` finds
 * it, as before, since never signalling would leave every engine of a dead main process running.
 * The groups left by then are only those whose teardown never saw them gone (it forgets the
 * others): ones the main process left running when it died or ended a moment ago.
 */

const CHECK_TEXT = {
    gone: 'is gone',
    reused: "is not ours: another process holds its leader's pid (the id was reused)",
    leaderless: 'outlived its leader; not signalled, since /proc cannot tell our processes from a reused id',
    unrecorded: 'has no recorded leader start time; not signalled',
};
let procAvailable;
/** True where /proc/self/stat can be read (Linux); cached. */
function hasProc() {
    procAvailable ??= readProcStat('self') !== undefined;
    return procAvailable;
}
/** The process's start time, clock ticks after boot; undefined where it or /proc is not there. */
function group_identity_startTimeOf(pid) {
    return readProcStat(pid)?.startTime;
}
function groupExists(pgid) {
    try {
        process.kill(-pgid, 0);
        return true;
    }
    catch (error) {
        return error.code === 'EPERM';
    }
}
/** The rule above. */
function checkGroup(group) {
    if (!hasProc())
        return groupExists(group.pgid) ? 'unchecked' : 'gone';
    if (group.start === undefined)
        return groupExists(group.pgid) ? 'unrecorded' : 'gone';
    const leader = readProcStat(group.pgid);
    if (leader && leader.startTime !== group.start)
        return 'reused';
    if (leader && leader.pgrp === group.pgid)
        return 'ours';
    return groupExists(group.pgid) ? 'leaderless' : 'gone';
}

;// CONCATENATED MODULE: ./src/server/process-group.ts
/**
 * Process groups: a launch runs as the leader of its own group (pgid = pid), so one signal
 * to `-pgid` reaches every process the launch script started, grandchildren included.
 */



/** SIGTERM → SIGKILL grace. Teardown stays well inside the runner's 7.5 s SIGINT → SIGTERM window. */
const DEFAULT_GRACE_MS = 4500;
/** How long to wait for the group to vanish after SIGKILL (a GPU process may take a moment to exit). */
const KILL_WAIT_MS = 1000;
const POLL_MS = 50;
/** Our own process group: never a target of these signals. */
function ownProcessGroup() {
    return readProcStat('self')?.pgrp;
}
/** Pids of the group's members that are not zombies (a zombie is dead, merely not reaped yet). */
function liveMembers(pgid) {
    const pids = [];
    if (!hasProc())
        return pids;
    for (const entry of (0,external_node_fs_namespaceObject.readdirSync)('/proc')) {
        if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57)
            continue;
        const stat = readProcStat(entry);
        if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X')
            pids.push(Number(entry));
    }
    return pids;
}
/**
 * True while a process of the group runs. Zombies do not count: where the container's
 * init does not reap orphans, a killed grandchild stays a zombie for good.
 */
function groupAlive(pgid) {
    try {
        process.kill(-pgid, 0);
    }
    catch (error) {
        return error.code === 'EPERM';
    }
    return hasProc() ? liveMembers(pgid).length > 0 : true;
}
function signalGroup(pgid, signal) {
    try {
        process.kill(-pgid, signal);
    }
    catch (error) {
        if (error.code !== 'ESRCH')
            throw error;
    }
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls until every group is gone or the time is up; returns the groups still alive. */
async function waitGroupsGone(pgids, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    let alive = pgids.filter(groupAlive);
    while (alive.length && Date.now() < deadline) {
        await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
        alive = alive.filter(groupAlive);
    }
    return alive;
}
/** SIGTERM the group, SIGKILL it after `graceMs`; says how it ended. */
async function terminateGroup(pgid, graceMs = DEFAULT_GRACE_MS) {
    if (!groupAlive(pgid))
        return 'gone';
    signalGroup(pgid, 'SIGTERM');
    // A stopped (SIGSTOP'd) process only sees SIGTERM once continued.
    signalGroup(pgid, 'SIGCONT');
    if ((await waitGroupsGone([pgid], graceMs)).length === 0)
        return 'terminated';
    signalGroup(pgid, 'SIGKILL');
    return (await waitGroupsGone([pgid], KILL_WAIT_MS)).length === 0 ? 'killed' : 'stuck';
}
/**
 * Post-step and watchdog safety net: SIGTERM every saved group that is still ours and alive, SIGKILL those
 * left after `graceMs`. Returns the groups it had to kill. A group that is gone or no longer ours
 * (group-identity.ts) is never signalled: `passed` hears of it, and the caller forgets it. Ids that cannot
 * be a launched group (<= 1, our own group) are ignored.
 */
async function killProcessGroups(groups, graceMs = DEFAULT_GRACE_MS, passed = () => undefined) {
    const own = ownProcessGroup();
    const unique = new Map(groups.map((g) => [`${g.pgid}/${g.start}`, g]));
    const valid = [...unique.values()].filter(({ pgid }) => Number.isInteger(pgid) && pgid > 1 && pgid !== own && pgid !== process.pid);
    const ours = valid.filter((group) => {
        const check = checkGroup(group);
        if (check === 'ours' || check === 'unchecked')
            return true;
        passed(group.pgid, check);
        return false;
    });
    // Checked and signalled one synchronous step apart. From then on a group found at every 50 ms poll is still
    // ours, leader or not: its id is not reused while it exists (group-identity.ts), so a reuse would need it to
    // end and the pid counter to come round again between two polls. A poll that misses it drops it.
    const alive = [...new Set(ours.map((g) => g.pgid))].filter(groupAlive);
    for (const pgid of alive) {
        signalGroup(pgid, 'SIGTERM');
        signalGroup(pgid, 'SIGCONT');
    }
    const left = await waitGroupsGone(alive, graceMs);
    for (const pgid of left)
        signalGroup(pgid, 'SIGKILL');
    await waitGroupsGone(left, KILL_WAIT_MS);
    return alive;
}

;// CONCATENATED MODULE: external "node:string_decoder"
const external_node_string_decoder_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:string_decoder");
;// CONCATENATED MODULE: ./src/server/log-file.ts
/**
 * An engine's stdout+stderr on disk, bounded: the first `headBytes` (the launch, the load,
 * usually the reason it failed) are kept, then only a window of the latest output. When the
 * part after the head grows past twice the window it is rewritten as a marker plus the last
 * `tailBytes`, so a runaway engine costs at most head + 2 × tail on disk.
 */






const DEFAULT_HEAD_BYTES = (/* unused pure expression or super */ null && (1024 * 1024));
const DEFAULT_TAIL_BYTES = (/* unused pure expression or super */ null && (256 * 1024));
/** A line longer than this is written before its end arrives (engines print progress bars without newlines). */
const PARTIAL_LINE_CHARS = (/* unused pure expression or super */ null && (64 * 1024));
/** Most lines kept that say where the engine listens (log-lines.ts); later ones only repeat. */
const MAX_LISTENING_LINES = 8;
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
class log_file_BoundedLog {
    path;
    fd;
    base;
    headBytes;
    tailBytes;
    head = 0;
    afterHead = 0;
    inFile = 0;
    recent = [];
    recentBytes = 0;
    decoder = new StringDecoder('utf8');
    partial = '';
    heard = [];
    constructor(path, options = {}) {
        this.path = path;
        this.headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES;
        this.tailBytes = options.tailBytes ?? DEFAULT_TAIL_BYTES;
        ensureDir(dirname(path));
        this.fd = openNoFollow(path, 'append');
        // Appending to an earlier run's log: the bound applies to what this run adds.
        this.base = fstatSync(this.fd).size;
    }
    /** Bytes written by the engine that are no longer in the file. */
    get droppedBytes() {
        return this.afterHead - Math.min(this.afterHead, this.inFile);
    }
    /**
     * Engine output: goes to the file and to the tail, redacted of secrets a line at a time (a partial line
     * waits for its end, up to PARTIAL_LINE_CHARS); `close` redacts the whole file once more, for secrets a
     * line break split.
     */
    write(data) {
        const text = this.partial + (typeof data === 'string' ? data : this.decoder.write(data));
        const cut = text.lastIndexOf('\n') + 1;
        const ready = cut > 0 ? text.slice(0, cut) : text.length > PARTIAL_LINE_CHARS ? text : '';
        this.partial = text.slice(ready.length);
        if (ready) {
            const clean = redact(ready);
            this.listen(clean);
            this.append(Buffer.from(clean), true);
        }
    }
    /** The lines, as the log has them, in which the engine said where it listens (at most MAX_LISTENING_LINES, cut). */
    listening() {
        return this.heard;
    }
    listen(text) {
        if (this.heard.length >= MAX_LISTENING_LINES || !text.includes('http'))
            return;
        for (const line of text.replace(ANSI, '').split(/\r\n|\r|\n/)) {
            if (this.heard.length < MAX_LISTENING_LINES && listeningPort(line) !== undefined)
                this.heard.push(cut(line.trim()));
        }
    }
    /** Our own lines (the command, the exit): in the file, not in the engine's tail. */
    note(text) {
        this.flushPartial();
        this.append(Buffer.from(redact(text)), false);
    }
    flushPartial() {
        const rest = this.partial + this.decoder.end();
        this.partial = '';
        if (rest)
            this.append(Buffer.from(redact(rest)), true);
    }
    append(chunk, remember) {
        if (chunk.length === 0)
            return;
        if (remember)
            this.remember(chunk);
        if (this.fd === undefined)
            return;
        let rest = chunk;
        if (this.head < this.headBytes) {
            const part = rest.subarray(0, this.headBytes - this.head);
            writeSync(this.fd, part);
            this.head += part.length;
            rest = rest.subarray(part.length);
        }
        if (rest.length === 0)
            return;
        writeSync(this.fd, rest);
        this.afterHead += rest.length;
        this.inFile += rest.length;
        if (this.inFile > 2 * this.tailBytes)
            this.rotate();
    }
    remember(chunk) {
        this.recent.push(chunk);
        this.recentBytes += chunk.length;
        while (this.recent.length > 1 && this.recentBytes - this.recent[0].length >= this.tailBytes) {
            this.recentBytes -= this.recent.shift().length;
        }
    }
    latest() {
        const all = Buffer.concat(this.recent);
        return all.length > this.tailBytes ? all.subarray(all.length - this.tailBytes) : all;
    }
    rotate() {
        const fd = this.fd;
        // Notes written after the head are not in the ring; losing them with the rest is fine.
        const kept = this.latest();
        const dropped = this.afterHead - kept.length;
        ftruncateSync(fd, this.base + this.head);
        const marker = Buffer.from(`\n[llm-bench-gate: ${dropped} bytes of engine output dropped to bound the log size]\n`);
        writeSync(fd, marker);
        writeSync(fd, kept);
        this.inFile = kept.length;
    }
    /** The last `lines` lines (ANSI colours stripped, `\r` progress bars split), newest last; redacted. */
    tail(lines = 40) {
        const text = redact((this.latest().toString('utf8') + this.partial).replace(ANSI, ''));
        const all = text.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '');
        return all.slice(-lines).join('\n');
    }
    lastLine() {
        return this.tail(1) || undefined;
    }
    close() {
        if (this.fd === undefined)
            return;
        this.flushPartial();
        const fd = this.fd;
        this.fd = undefined;
        try {
            this.redactWritten(fd);
        }
        finally {
            closeSync(fd);
        }
    }
    /** What this run wrote, redacted as a whole (the file is bounded to head + 2 × tail bytes). */
    redactWritten(fd) {
        const all = readFileSync(this.path);
        const mine = all.subarray(this.base).toString('utf8');
        const clean = redact(mine);
        if (clean === mine)
            return;
        ftruncateSync(fd, this.base);
        writeSync(fd, Buffer.from(clean));
    }
}

;// CONCATENATED MODULE: ./src/server/readiness.ts
/**
 * Waiting for an engine: poll its health endpoint fast, classify each answer with the
 * adapter, print a progress line now and then, and stop early when the process exits or the
 * caller aborts. Loading is not death: before the first ready answer, a 503, any other
 * non-200 or a refused connection means "still loading" for every engine while its process
 * lives (llama.cpp answers refused, then 503 "Loading model", then 200; engines behind a
 * proxy answer 503 while loading). The exit or `ready-timeout` ends the wait, and so does a log that says the engine
 * listens on another port while ours still refuses connections ELSEWHERE_GRACE_MS later (a launch that starts its
 * engine first and a proxy on our port once the engine is up gets that long for the proxy).
 */


const readiness_POLL_MS = 200;
const PROGRESS_MS = 15_000;
const PROBE_TIMEOUT_MS = 2000;
const ELSEWHERE_GRACE_MS = 10_000;
/** `connection refused`, `HTTP 503: Loading model` — one short line for progress and errors. */
function describeAnswer(answer) {
    if (!answer)
        return 'no answer yet';
    if (answer.status === 0)
        return answer.body || 'no connection';
    const body = answer.body.replace(/\s+/g, ' ').trim().slice(0, 120);
    return body ? `HTTP ${answer.status}: ${body}` : `HTTP ${answer.status}`;
}
/** An AbortSignal that fires when the process exits, with the ExitInfo as its reason. */
function readiness_exitSignal(exit) {
    const controller = new AbortController();
    void exit.then((info) => controller.abort(info));
    return controller.signal;
}
/**
 * Settles with whichever comes first of `promise`, the process exit, the abort or `ms`.
 * The timer and both listeners are released either way (this runs every poll for minutes).
 */
function race(promise, ms, exit, signal) {
    return new Promise((resolve) => {
        let done = false;
        const finish = (outcome) => {
            if (done)
                return;
            done = true;
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            exit?.removeEventListener('abort', onExit);
            resolve(outcome);
        };
        const onAbort = () => finish({ aborted: true });
        const onExit = () => finish({ exit: exit.reason });
        const timer = setTimeout(() => finish({ timeout: true }), Math.max(0, ms));
        if (exit?.aborted)
            return onExit();
        if (signal?.aborted)
            return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        exit?.addEventListener('abort', onExit, { once: true });
        promise.then((value) => finish({ value }), (error) => finish({ error }));
    });
}
async function waitReady(options) {
    const { adapter, http, log, exit, signal } = options;
    const url = joinUrl(options.baseUrl, adapter.healthPath);
    const pollMs = options.pollMs ?? readiness_POLL_MS;
    const progressMs = options.progressIntervalMs ?? PROGRESS_MS;
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    let last;
    let nextProgress = progressMs;
    const elsewhere = elsewhereWatch(options);
    for (;;) {
        const remaining = options.timeoutMs - elapsed();
        if (remaining <= 0)
            return { kind: 'timeout', last, elapsedMs: elapsed() };
        const probe = await race(http.get(url, Math.min(PROBE_TIMEOUT_MS, Math.max(100, remaining))), remaining, exit, signal);
        if ('aborted' in probe)
            return { kind: 'aborted', elapsedMs: elapsed() };
        if ('exit' in probe)
            return { kind: 'exit', exit: probe.exit, elapsedMs: elapsed() };
        if ('timeout' in probe)
            return { kind: 'timeout', last, elapsedMs: elapsed() };
        last = 'value' in probe ? probe.value : { status: 0, body: String(probe.error) };
        if (adapter.readiness(last) === 'ready')
            return { kind: 'ready', elapsedMs: elapsed() };
        const moved = elsewhere(last);
        if (moved)
            return { kind: 'elsewhere', ...moved, elapsedMs: elapsed() };
        if (elapsed() >= nextProgress) {
            nextProgress += progressMs;
            const line = options.lastLogLine?.();
            log.info(`${options.id}: waiting for ${adapter.name} to be ready (${formatDuration(Math.round(elapsed() / 100) * 100)} of ${formatDuration(options.timeoutMs)}, ` +
                `GET ${adapter.healthPath}: ${describeAnswer(last)})${line ? `; last log line: ${line.slice(0, 200)}` : ''}`);
        }
        const pause = await race(new Promise(() => undefined), Math.min(pollMs, options.timeoutMs - elapsed()), exit, signal);
        if ('aborted' in pause)
            return { kind: 'aborted', elapsedMs: elapsed() };
        if ('exit' in pause)
            return { kind: 'exit', exit: pause.exit, elapsedMs: elapsed() };
    }
}
/**
 * Watches for the engine listening elsewhere: the log line once our port has refused connections for the grace
 * since the line was first seen (an answer of any kind on our port means something serves there).
 */
function elsewhereWatch(options) {
    const graceMs = options.elsewhereGraceMs ?? ELSEWHERE_GRACE_MS;
    let since;
    return (last) => {
        const line = last.status === 0 ? options.elsewhere?.() : undefined;
        if (line === undefined) {
            since = undefined;
            return undefined;
        }
        since ??= Date.now();
        const refusedMs = Date.now() - since;
        return refusedMs >= graceMs ? { line, refusedMs } : undefined;
    };
}

;// CONCATENATED MODULE: ./src/server/launch.ts
/**
 * Runs a launch command under `bash -c` as the leader of a new process group, with its
 * output going to a bounded log file. Output goes through us (not straight to a file
 * descriptor) so the file stays bounded and the last lines are at hand for errors.
 */




function stamp() {
    return new Date().toISOString();
}
/** Spawns the command; throws the spawn error (no bash, bad cwd) synchronously or on the first tick. */
async function launchGroup(spec) {
    const log = new BoundedLog(spec.logPath, spec.logOptions);
    log.note(`[llm-bench-gate ${stamp()}] $ ${spec.command}\n`);
    let child;
    try {
        child = spawn('bash', ['-c', spec.command], {
            detached: true,
            stdio: ['ignore', 'pipe', 'pipe'],
            // The whole environment, as the caller built it (least privilege: server/env.ts); nothing is inherited.
            env: spec.env,
            cwd: spec.cwd,
        });
    }
    catch (error) {
        log.close();
        throw error;
    }
    // Read before this tick ends: the child is reaped (and its pid freed) only from the event loop, so the
    // pid still names it here, running or a zombie.
    const start = child.pid === undefined ? undefined : startTimeOf(child.pid);
    const spawned = new Promise((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
    });
    try {
        await spawned;
    }
    catch (error) {
        log.close();
        throw error;
    }
    child.stdout.on('data', (chunk) => log.write(chunk));
    child.stderr.on('data', (chunk) => log.write(chunk));
    let info;
    const exit = new Promise((resolve) => {
        child.once('exit', (code, signal) => {
            info = { code, signal };
            log.note(`[llm-bench-gate ${stamp()}] launch process exited (${signal ? `signal ${signal}` : `code ${code}`})\n`);
            resolve(info);
        });
    });
    const drained = new Promise((resolve) => child.once('close', () => resolve()));
    return { pgid: child.pid, start, child, log, exit, exitSignal: exitSignal(exit), exitInfo: () => info, drained };
}
/** The group's cleanup task: what the guard records, and forgets once a teardown saw the group gone. */
function groupTask(group) {
    return { kind: 'group', pgid: group.pgid, start: group.start };
}

;// CONCATENATED MODULE: ./src/server/git.ts
/**
 * `git`, bounded: no shell (an argument list), no prompt for credentials (`GIT_TERMINAL_PROMPT=0`, git(1)
 * ENVIRONMENT), messages in English (they end up in a report), a time limit past which its whole process
 * group is killed (a fetch runs `git-remote-*` and `upload-pack` children), and a cap on what its output
 * may hold. Never throws: a failure comes back with git's most telling error line.
 *
 * The time limit is this process's timer: when this process dies (a SIGKILLed step), nothing of it is left.
 * So git runs as the leader of its own process group, registered with the run's guard like an engine's, and
 * the watchdog or the post step kills what is left of it; a network command also gets git's own stall limit.
 */






const GIT_TIMEOUT_MS = 30_000;
/** What one stream of git's output may hold; the rest is counted and dropped. */
const GIT_OUTPUT_BYTES = 256 * 1024;
/**
 * Put before a network command (`fetch`): an HTTP transfer slower than 1000 bytes/s for 30 s is aborted
 * (git-config(1) `http.lowSpeedLimit`, `http.lowSpeedTime`; curl's CURLOPT_LOW_SPEED_LIMIT/TIME), so a remote
 * that accepts the connection and never answers ends the command by itself, even once the process that started it is gone.
 */
const STALLED_TRANSFER_ENDS = (/* unused pure expression or super */ null && (['-c', 'http.lowSpeedLimit=1000', '-c', 'http.lowSpeedTime=30']));
/** What a reason quotes of git's message. */
const REASON_CHARS = 200;
/**
 * One line of git's stderr for a report: the first `fatal:`/`error:` line (git prints the specific cause first
 * and generic advice after it: "does not appear to be a git repository", then "Could not read from remote
 * repository"), else the last line; control characters and URL credentials removed, redacted, bounded.
 */
function gitReason(stderr) {
    const lines = stderr
        .split(/\r?\n|\r/)
        .map((l) => l.trim())
        .filter(Boolean);
    const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines.at(-1) ?? 'no message';
    return redact_redactLine(line.replace(/^(fatal|error):\s*/i, ''), REASON_CHARS);
}
/** Keeps the first GIT_OUTPUT_BYTES of a stream. */
function collector() {
    const parts = [];
    let kept = 0;
    return {
        add(chunk) {
            const room = GIT_OUTPUT_BYTES - kept;
            if (room <= 0)
                return;
            const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
            parts.push(part);
            kept += part.length;
        },
        text: () => Buffer.concat(parts).toString('utf8'),
    };
}
/** Runs `git -C <cwd> <args>`. */
function git_runGit(args, options) {
    const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
    if (options.signal?.aborted)
        return Promise.resolve({ ok: false, reason: 'cancelled' });
    return new Promise((resolve) => {
        const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
        const child = (0,external_node_child_process_namespaceObject.spawn)('git', ['-C', options.cwd, ...args], {
            detached: true,
            env,
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        // The leader's start time is read in the tick it was spawned, before it can be reaped (group-identity.ts).
        const task = child.pid === undefined ? undefined : groupTask({ pgid: child.pid, start: group_identity_startTimeOf(child.pid) });
        if (task)
            options.guard?.register(task);
        const stdout = collector();
        const stderr = collector();
        child.stdout.on('data', stdout.add);
        child.stderr.on('data', stderr.add);
        let stopped;
        const stop = (why) => {
            stopped ??= why;
            if (child.pid)
                signalGroup(child.pid, 'SIGKILL');
        };
        const limit = timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`;
        const timer = setTimeout(() => stop(`timed out after ${limit}`), timeoutMs);
        const onAbort = () => stop('cancelled');
        options.signal?.addEventListener('abort', onAbort, { once: true });
        const settle = (result) => {
            clearTimeout(timer);
            options.signal?.removeEventListener('abort', onAbort);
            // Settled on 'close': every process holding git's output is gone, so its group id may be reused.
            if (task)
                options.guard?.forget(task);
            resolve(result);
        };
        child.once('error', (error) => settle({ ok: false, reason: `git could not start: ${errorMessage(error)}` }));
        child.once('close', (code, signal) => {
            if (stopped)
                return settle({ ok: false, reason: stopped });
            if (code === 0)
                return settle({ ok: true, stdout: stdout.text() });
            const text = stderr.text();
            settle({ ok: false, reason: text.trim() ? gitReason(text) : `git exited with ${signal ?? `code ${code}`}` });
        });
    });
}

;// CONCATENATED MODULE: ./src/server/worktree.ts
/**
 * A temporary git worktree of another commit (git-worktree(1)), and its removal by whoever ends the run:
 * the owner, the post step or the watchdog. The folder we create is `<temp>/llm-bench-gate-base-XXXXXX`,
 * holding a marker file that names the repository and the worktree itself in `tree/` (git refuses to add a
 * worktree into a folder that is not empty, so the marker sits beside it). Removal touches a folder only
 * when both its name and its marker say it is ours: a saved path that points anywhere else is left alone.
 */




const WORKTREE_PREFIX = 'llm-bench-gate-base-';
const WORKTREE_MARKER = 'llm-bench-gate-worktree.json';
/** The worktree's folder inside ours. */
const WORKTREE_TREE = 'tree';
/** Checking out a commit writes its every file: more time than a plain git command. */
const WORKTREE_ADD_TIMEOUT_MS = (/* unused pure expression or super */ null && (5 * 60_000));
/** Creates our folder under `tempDir`, marker written, nothing checked out yet. */
async function makeWorktreeFolder(repo, tempDir) {
    const path = await mkdtemp(join(resolve(tempDir), WORKTREE_PREFIX));
    const marker = { 'llm-bench-gate': 'base-worktree', repo };
    await writeFile(join(path, WORKTREE_MARKER), `${JSON.stringify(marker)}\n`, { flag: 'wx' });
    return { repo, path };
}
/** `git worktree add --detach <path>/tree <commit>`: a checkout of that commit, on no branch. */
function addWorktree(ref, commit, options = {}) {
    return runGit(['worktree', 'add', '--detach', join(ref.path, WORKTREE_TREE), commit], {
        cwd: ref.repo,
        timeoutMs: WORKTREE_ADD_TIMEOUT_MS,
        ...options,
    });
}
/** Why `ref.path` is not a folder we made, or undefined when it is; `gone` when there is nothing there. */
async function notOurs(ref) {
    const { path } = ref;
    if (!(0,external_node_path_namespaceObject.isAbsolute)(path) || (0,external_node_path_namespaceObject.resolve)(path) !== path)
        return `${path} is not an absolute, normalised path`;
    if (!(0,external_node_path_namespaceObject.basename)(path).startsWith(WORKTREE_PREFIX))
        return `${path} is not named ${WORKTREE_PREFIX}*`;
    const stat = await (0,promises_namespaceObject.lstat)(path).catch((error) => error);
    if (stat instanceof Error)
        return stat.code === 'ENOENT' ? 'gone' : `${path}: ${errorMessage(stat)}`;
    if (!stat.isDirectory())
        return `${path} is not a folder`;
    const markerPath = (0,external_node_path_namespaceObject.join)(path, WORKTREE_MARKER);
    const markerStat = await (0,promises_namespaceObject.lstat)(markerPath).catch(() => undefined);
    if (!markerStat?.isFile())
        return `${path} has no ${WORKTREE_MARKER}`;
    try {
        const marker = JSON.parse(await (0,promises_namespaceObject.readFile)(markerPath, 'utf8'));
        if (marker['llm-bench-gate'] === 'base-worktree' && marker.repo === ref.repo)
            return undefined;
    }
    catch {
        // An unreadable marker proves nothing.
    }
    return `${path}: its ${WORKTREE_MARKER} does not name the repository ${ref.repo}`;
}
/**
 * Removes a worktree we made: `git worktree remove --force`, the folder if still there, then `git worktree
 * prune` for git's own record of it. Safe to run twice (`removed: false` once it is gone); never throws.
 */
async function removeWorktree(ref) {
    const check = await notOurs(ref);
    if (check === 'gone') {
        await git_runGit(['worktree', 'prune'], { cwd: ref.repo });
        return { removed: false };
    }
    if (check)
        return { refused: check };
    // Failures here are fine while the folder goes: the repository may be gone, or git may never have added it.
    await git_runGit(['worktree', 'remove', '--force', (0,external_node_path_namespaceObject.join)(ref.path, WORKTREE_TREE)], { cwd: ref.repo });
    try {
        await (0,promises_namespaceObject.rm)(ref.path, { recursive: true, force: true, maxRetries: 2 });
    }
    catch (error) {
        return { problem: `${ref.path} could not be removed: ${errorMessage(error)}` };
    }
    await git_runGit(['worktree', 'prune'], { cwd: ref.repo });
    return { removed: true };
}

;// CONCATENATED MODULE: ./src/server/cleanup.ts
/**
 * What must be undone when a run ends, whoever ends it: the target's own teardown, the post step,
 * or the watchdog when the main process died. Tasks are plain data (they travel through the
 * runner's saved state and the watchdog's pipe) and every one is safe to run twice.
 */










/** A `stop:` command is bounded: past this it is killed. */
const STOP_TIMEOUT_MS = 60_000;
/** What one `stop:` command's output may add to its target's log; the rest is counted and dropped. */
const STOP_OUTPUT_BYTES = 1024 * 1024;
/** Appends to a target's log, redacted, without following a symlink; a log that cannot be opened drops the text. */
function appendToLog(path) {
    return (text) => {
        try {
            const fd = safe_fs_openNoFollow(path, 'append');
            try {
                (0,external_node_fs_namespaceObject.writeSync)(fd, redact_redact(text));
            }
            finally {
                (0,external_node_fs_namespaceObject.closeSync)(fd);
            }
        }
        catch {
            // The log is for reading later; cleanup goes on without it.
        }
    };
}
/**
 * Runs a `stop:` command under `bash -c` in its own group, output to `write` (its first STOP_OUTPUT_BYTES; the
 * rest is read and dropped, so a flooding command neither blocks nor fills the disk); killed after `timeoutMs`.
 * Returns a problem, if any.
 */
function runStop(task, write, timeoutMs = STOP_TIMEOUT_MS) {
    const { env } = engineEnv(process.env, task.passEnv, task.env);
    write(`[llm-bench-gate ${new Date().toISOString()}] stop: $ ${task.command}\n`);
    return new Promise((resolve) => {
        // Once the worktree is gone (the post step after the watchdog), the command runs where the run did.
        const cwd = task.cwd && (0,external_node_fs_namespaceObject.existsSync)(task.cwd) ? task.cwd : undefined;
        const child = (0,external_node_child_process_namespaceObject.spawn)('bash', ['-c', task.command], { detached: true, env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
        let kept = 0;
        let dropped = 0;
        const output = (chunk) => {
            const room = Math.max(0, STOP_OUTPUT_BYTES - kept);
            const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
            kept += part.length;
            dropped += chunk.length - part.length;
            if (part.length)
                write(part.toString('utf8'));
        };
        child.stdout.on('data', output);
        child.stderr.on('data', output);
        let timedOut = false;
        const timer = setTimeout(() => {
            timedOut = true;
            signalGroup(child.pid, 'SIGKILL');
        }, timeoutMs);
        child.once('error', (error) => {
            clearTimeout(timer);
            resolve(`stop command could not start: ${errorMessage(error)}`);
        });
        child.once('exit', (code, signal) => {
            clearTimeout(timer);
            const how = timedOut
                ? `killed after ${Math.round(timeoutMs / 1000)} s`
                : signal
                    ? `killed by ${signal}`
                    : `code ${code}`;
            const cut = dropped ? `; ${dropped} bytes of its output dropped past ${STOP_OUTPUT_BYTES}` : '';
            write(`[llm-bench-gate ${new Date().toISOString()}] stop command exited (${how})${cut}\n`);
            resolve(timedOut || code !== 0 ? `stop command ${how}` : undefined);
        });
    });
}
/** Removes each worktree task's folder once; a folder that is not ours is left, and said so. */
async function removeWorktrees(tasks, report) {
    const worktrees = new Map(tasks.flatMap((t) => (t.kind === 'worktree' ? [[t.path, t]] : [])));
    for (const task of worktrees.values()) {
        const outcome = await removeWorktree(task);
        if ('refused' in outcome)
            report.problems.push(`worktree left in place: ${outcome.refused}`);
        else if ('problem' in outcome)
            report.problems.push(`worktree: ${outcome.problem}`);
        else if (outcome.removed)
            report.worktrees.push(task.path);
    }
}
/**
 * Runs every task: groups killed, the run's containers removed by label, then the stop commands (each once),
 * then the worktrees, last since an engine or a stop command may run from one.
 */
async function runCleanup(tasks, graceMs) {
    const report = {
        containers: [],
        groups: [],
        notOurs: [],
        leftAlone: [],
        stops: 0,
        worktrees: [],
        problems: [],
    };
    const groups = tasks.flatMap((t) => (t.kind === 'group' ? [{ pgid: t.pgid, start: t.start }] : []));
    const passed = (pgid, check) => (check === 'gone' || check === 'reused' ? report.notOurs : report.leftAlone).push(`process group ${pgid} ${CHECK_TEXT[check]}`);
    const labels = new Map(tasks.flatMap((t) => (t.kind === 'containers' ? [[`${t.runtime} ${t.runId}`, t]] : [])));
    // Groups and containers at once: a dead main process leaves both, and the container is what holds the memory.
    const [killed, ...removed] = await Promise.all([
        groups.length ? killProcessGroups(groups, graceMs, passed) : Promise.resolve([]),
        ...[...labels.values()].map((task) => removeByLabel(task.runtime, task.runId)),
    ]);
    report.groups = killed;
    report.containers = removed.flat();
    const stops = new Map(tasks.flatMap((t) => (t.kind === 'stop' ? [[`${t.target}\n${t.command}`, t]] : [])));
    for (const task of stops.values()) {
        const problem = await runStop(task, appendToLog(task.logPath));
        report.stops++;
        if (problem)
            report.problems.push(`${task.target}: ${problem}`);
    }
    await removeWorktrees(tasks, report);
    return report;
}

;// CONCATENATED MODULE: ./src/server/watchdog-process.ts
/**
 * The watchdog process (see guard.ts): reads cleanup tasks, one JSON line each, from its stdin —
 * a pipe from the main process — until it closes. A `{"done":true}` line first means the main
 * process ended normally and cleaned up itself: exit. Otherwise it died: run the cleanup, exit. A
 * `{"forget":task}` line takes a task back (a process group its teardown saw gone); the groups left
 * are signalled only while their leader is still the process the run started (group-identity.ts).
 */

/** SIGTERM → SIGKILL grace for the groups left behind: short, since their owner is already gone. */
const GRACE_MS = 1000;
function runWatchdog(input = process.stdin) {
    // Detached in a session of its own; still, a signal meant for the job must not stop the cleanup.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
        process.on(signal, () => undefined);
    const tasks = [];
    let done = false;
    let buffered = '';
    input.setEncoding('utf8');
    input.on('data', (chunk) => {
        buffered += chunk;
        let newline;
        while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            try {
                const message = JSON.parse(line);
                if (message.task)
                    tasks.push(message.task);
                // A teardown saw it gone (guard.ts): its id may be someone else's by the time this runs.
                if (message.forget) {
                    const at = tasks.findIndex((t) => JSON.stringify(t) === JSON.stringify(message.forget));
                    if (at >= 0)
                        tasks.splice(at, 1);
                }
                if (message.done)
                    done = true;
            }
            catch {
                // Only the main process writes here; a torn last line is what its death left.
            }
        }
    });
    return new Promise((resolve) => {
        input.once('close', () => {
            if (done || tasks.length === 0)
                return resolve();
            void runCleanup(tasks, GRACE_MS).finally(resolve);
        });
    });
}


/***/ }),

/***/ 724:
/***/ ((module, __unused_webpack___webpack_exports__, __nccwpck_require__) => {

__nccwpck_require__.a(module, async (__webpack_handle_async_dependencies__, __webpack_async_result__) => { try {
/* harmony import */ var _server_watchdog_process_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(87);

await (0,_server_watchdog_process_js__WEBPACK_IMPORTED_MODULE_0__/* .runWatchdog */ .x)();
process.exit(0);

__webpack_async_result__();
} catch(e) { __webpack_async_result__(e); } }, 1);

/***/ })

/******/ });
/************************************************************************/
/******/ // The module cache
/******/ var __webpack_module_cache__ = {};
/******/ 
/******/ // The require function
/******/ function __nccwpck_require__(moduleId) {
/******/ 	// Check if module is in cache
/******/ 	var cachedModule = __webpack_module_cache__[moduleId];
/******/ 	if (cachedModule !== undefined) {
/******/ 		return cachedModule.exports;
/******/ 	}
/******/ 	// Create a new module (and put it into the cache)
/******/ 	var module = __webpack_module_cache__[moduleId] = {
/******/ 		// no module.id needed
/******/ 		// no module.loaded needed
/******/ 		exports: {}
/******/ 	};
/******/ 
/******/ 	// Execute the module function
/******/ 	var threw = true;
/******/ 	try {
/******/ 		__webpack_modules__[moduleId](module, module.exports, __nccwpck_require__);
/******/ 		threw = false;
/******/ 	} finally {
/******/ 		if(threw) delete __webpack_module_cache__[moduleId];
/******/ 	}
/******/ 
/******/ 	// Return the exports of the module
/******/ 	return module.exports;
/******/ }
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/asset-relocator-loader */
/******/ if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = decodeURIComponent(new URL('.', import.meta.url).pathname).slice(import.meta.url.match(/^file:\/\/\/\w:/) ? 1 : 0, -1) + "/";
/******/ 
/******/ /* webpack/runtime/async module */
/******/ (() => {
/******/ 	var webpackQueues = typeof Symbol === "function" ? Symbol("webpack queues") : "__webpack_queues__";
/******/ 	var webpackExports = typeof Symbol === "function" ? Symbol("webpack exports") : "__webpack_exports__";
/******/ 	var webpackError = typeof Symbol === "function" ? Symbol("webpack error") : "__webpack_error__";
/******/ 	var resolveQueue = (queue) => {
/******/ 		if(queue && queue.d < 1) {
/******/ 			queue.d = 1;
/******/ 			queue.forEach((fn) => (fn.r--));
/******/ 			queue.forEach((fn) => (fn.r-- ? fn.r++ : fn()));
/******/ 		}
/******/ 	}
/******/ 	var wrapDeps = (deps) => (deps.map((dep) => {
/******/ 		if(dep !== null && typeof dep === "object") {
/******/ 			if(dep[webpackQueues]) return dep;
/******/ 			if(dep.then) {
/******/ 				var queue = [];
/******/ 				queue.d = 0;
/******/ 				dep.then((r) => {
/******/ 					obj[webpackExports] = r;
/******/ 					resolveQueue(queue);
/******/ 				}, (e) => {
/******/ 					obj[webpackError] = e;
/******/ 					resolveQueue(queue);
/******/ 				});
/******/ 				var obj = {};
/******/ 				obj[webpackQueues] = (fn) => (fn(queue));
/******/ 				return obj;
/******/ 			}
/******/ 		}
/******/ 		var ret = {};
/******/ 		ret[webpackQueues] = x => {};
/******/ 		ret[webpackExports] = dep;
/******/ 		return ret;
/******/ 	}));
/******/ 	__nccwpck_require__.a = (module, body, hasAwait) => {
/******/ 		var queue;
/******/ 		hasAwait && ((queue = []).d = -1);
/******/ 		var depQueues = new Set();
/******/ 		var exports = module.exports;
/******/ 		var currentDeps;
/******/ 		var outerResolve;
/******/ 		var reject;
/******/ 		var promise = new Promise((resolve, rej) => {
/******/ 			reject = rej;
/******/ 			outerResolve = resolve;
/******/ 		});
/******/ 		promise[webpackExports] = exports;
/******/ 		promise[webpackQueues] = (fn) => (queue && fn(queue), depQueues.forEach(fn), promise["catch"](x => {}));
/******/ 		module.exports = promise;
/******/ 		body((deps) => {
/******/ 			currentDeps = wrapDeps(deps);
/******/ 			var fn;
/******/ 			var getResult = () => (currentDeps.map((d) => {
/******/ 				if(d[webpackError]) throw d[webpackError];
/******/ 				return d[webpackExports];
/******/ 			}))
/******/ 			var promise = new Promise((resolve) => {
/******/ 				fn = () => (resolve(getResult));
/******/ 				fn.r = 0;
/******/ 				var fnQueue = (q) => (q !== queue && !depQueues.has(q) && (depQueues.add(q), q && !q.d && (fn.r++, q.push(fn))));
/******/ 				currentDeps.map((dep) => (dep[webpackQueues](fnQueue)));
/******/ 			});
/******/ 			return fn.r ? promise : getResult();
/******/ 		}, (err) => ((err ? reject(promise[webpackError] = err) : outerResolve(exports)), resolveQueue(queue)));
/******/ 		queue && queue.d < 0 && (queue.d = 0);
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/************************************************************************/
/******/ 
/******/ // startup
/******/ // Load entry module and return exports
/******/ // This entry module used 'module' so it can't be inlined
/******/ var __webpack_exports__ = __nccwpck_require__(724);
/******/ __webpack_exports__ = await __webpack_exports__;
/******/ 
