// Every bad input fails before anything launches, with the field's path and what is wrong.
import { resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadPlan, type LoadOptions } from '../../src/config/index.js'
import { ENGINE_NAMES } from '../../src/engines/registry.js'
import { ConfigError } from '../../src/core/errors.js'
import { TEST_ENGINES } from './engines.js'
import { baseConfig, tempDir } from './write.js'

const dir = tempDir()
afterAll(() => dir.remove())

type Config = ReturnType<typeof baseConfig>

async function problemsOf(file: string, options: LoadOptions = {}): Promise<string[]> {
  try {
    await loadPlan(file, { cwd: dir.path, engines: TEST_ENGINES, ...options })
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected a ConfigError, got a plan')
}

let counter = 0
/** Base config changed by `edit`, written as YAML. */
function variant(edit: (c: Config) => void): string {
  const config = baseConfig()
  edit(config)
  return dir.write(`case-${++counter}.yml`, config)
}
const target = (c: Config) => c.targets['vllm-fp8']
/** Sets `key` as an own key even when it is `__proto__` (plain assignment would set the prototype). */
const own = (object: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true })
const chat = (c: Config) => c.scenarios['chat-1k']

interface Case {
  name: string
  file: () => string
  options?: LoadOptions
  /** The problem line must start with `path: ` and contain `says`. */
  path: string
  says: string
}

const cases: Case[] = [
  // engines and keys
  {
    name: 'unknown key at the top',
    file: () => variant((c) => (c.targetz = {})),
    path: 'targetz',
    says: 'unknown key',
  },
  {
    name: 'unknown key in defaults, with the likely one',
    file: () => variant((c) => (c.defaults = { ready_timeout: '4s' })),
    path: 'defaults.ready_timeout',
    says: 'did you mean ready-timeout?',
  },
  {
    name: 'unknown key in a scenario',
    file: () => variant((c) => (chat(c).users = 4)),
    path: 'scenarios.chat-1k.users',
    says: 'unknown key',
  },
  {
    name: 'unknown key in a target',
    file: () => variant((c) => (target(c).modle = 'x')),
    path: 'targets.vllm-fp8.modle',
    says: 'did you mean model?',
  },
  {
    name: 'unknown key in a gate metric',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': '5%', limit: 1 } })),
    path: 'gate.decode.limit',
    says: 'unknown key',
  },
  {
    name: 'unknown gate metric',
    file: () => variant((c) => (c.gate = { latency: { 'max-regression': '5%' } })),
    path: 'gate.latency',
    says: 'unknown key',
  },
  {
    name: 'engine option on an engine that does not declare it',
    file: () => variant((c) => (target(c).profile = 'spark')),
    path: 'targets.vllm-fp8.profile',
    says: 'not an option of engine vllm (profile is for sim)',
  },
  { name: 'missing version', file: () => variant((c) => delete c.version), path: 'version', says: 'required' },
  { name: 'wrong version', file: () => variant((c) => (c.version = 2)), path: 'version', says: 'must be 1 (got 2)' },
  {
    name: 'missing engine',
    file: () => variant((c) => delete target(c).engine),
    path: 'targets.vllm-fp8.engine',
    says: 'required',
  },
  {
    name: "an adapter's own option problem",
    file: () => variant((c) => (c.targets.s = { engine: 'sim' })),
    path: 'targets.s.profile',
    says: 'engine sim needs a profile',
  },
  {
    name: 'a default launch that cannot be built',
    file: () => variant((c) => (c.targets.s = { engine: 'sim', profile: 'no-bundle' })),
    path: 'targets.s',
    says: 'engine sim cannot build its launch command: cannot find dist/cli/index.js',
  },
  {
    name: 'neither launch nor url',
    file: () => variant((c) => delete target(c).launch),
    path: 'targets.vllm-fp8',
    says: 'needs launch',
  },
  { name: 'no targets', file: () => variant((c) => (c.targets = {})), path: 'targets', says: 'at least one target' },
  {
    name: 'no scenarios',
    file: () => variant((c) => (c.scenarios = {})),
    path: 'scenarios',
    says: 'at least one scenario',
  },
  {
    name: 'bad hardware key',
    file: () => variant((c) => (c.hardware = 'gb10 box')),
    path: 'hardware',
    says: 'must be a key like nvidia-gb10',
  },
  // placeholders and expansion
  {
    name: 'unknown placeholder',
    file: () => variant((c) => (target(c).launch = 'serve --gpu {gpu}')),
    path: 'targets.vllm-fp8.launch',
    says: 'unknown placeholder {gpu}',
  },
  {
    name: 'unknown placeholder in env',
    file: () => variant((c) => (target(c).env = { X: '{nope}' })),
    path: 'targets.vllm-fp8.env.X',
    says: 'unknown placeholder {nope}',
  },
  {
    name: 'placeholder with no value',
    file: () => variant((c) => (target(c).launch = 'serve --quant {quant}')),
    path: 'targets.vllm-fp8.launch',
    says: 'placeholder {quant} has no value',
  },
  {
    name: 'port in a target name',
    file: () => variant((c) => (c.targets['t-{port}'] = { engine: 'vllm', launch: 'x' })),
    path: 'targets.t-{port}',
    says: '{port} is only known at launch',
  },
  {
    name: 'unknown scenario reference',
    file: () => variant((c) => (target(c).scenarios = ['chat-1k', 'chat-2k'])),
    path: 'targets.vllm-fp8.scenarios[1]',
    says: 'unknown scenario "chat-2k" (defined: chat-1k, long-8k)',
  },
  {
    name: 'scenario listed twice',
    file: () => variant((c) => (target(c).scenarios = ['chat-1k', 'chat-1k'])),
    path: 'targets.vllm-fp8.scenarios[1]',
    says: 'listed twice',
  },
  {
    name: 'duplicate ids after expansion name both sources',
    file: () =>
      variant((c) => {
        c.targets['m-{quant}'] = { engine: 'vllm', matrix: { quant: ['fp8', 'nvfp4'] }, launch: 'x' }
        c.targets['m-fp8'] = { engine: 'vllm', launch: 'y' }
      }),
    path: 'targets.m-fp8',
    says: 'target id "m-fp8" is produced twice: by targets.m-{quant} (quant=fp8) and by targets.m-fp8',
  },
  {
    name: 'matrix value listed twice',
    file: () => variant((c) => Object.assign(target(c), { matrix: { tp: [1, 1] } })),
    path: 'targets.vllm-fp8.matrix.tp[1]',
    says: 'listed twice',
  },
  {
    name: 'matrix key the action sets',
    file: () => variant((c) => (target(c).matrix = { port: [1, 2] })),
    path: 'targets.vllm-fp8.matrix.port',
    says: 'set by the action',
  },
  {
    name: 'matrix that explodes',
    file: () => variant((c) => (target(c).matrix = { a: range(20), b: range(20) })),
    path: 'targets.vllm-fp8.matrix',
    says: 'expands to 400 combinations',
  },
  {
    name: 'id that is not an id after expansion',
    file: () => variant((c) => (c.targets['t-{m}'] = { engine: 'vllm', matrix: { m: ['a/b'] }, launch: 'x' })),
    path: 'targets.t-{m}',
    says: 'target id "t-a/b" must use letters',
  },
  {
    name: 'bad env name',
    file: () => variant((c) => (target(c).env = { 'MY-VAR': '1' })),
    path: 'targets.vllm-fp8.env.MY-VAR',
    says: 'environment variable names',
  },
  {
    name: 'url that is not a URL',
    file: () => variant((c) => (target(c).url = 'localhost:8000')),
    path: 'targets.vllm-fp8.url',
    says: 'is not an http(s) URL',
  },
  {
    name: 'url with /v1',
    file: () => variant((c) => (target(c).url = 'http://127.0.0.1:{port}/v1')),
    path: 'targets.vllm-fp8.url',
    says: 'without /v1',
  },
  {
    name: 'external url waiting for a port',
    file: () => variant((c) => (c.targets.ext = { engine: 'openai', url: 'http://127.0.0.1:{port}' })),
    path: 'targets.ext.url',
    says: '{port} has no value',
  },
  // reserved names: copied into an object they would set its prototype and vanish
  {
    name: 'a target named __proto__',
    file: () => variant((c) => own(c.targets, '__proto__', { engine: 'vllm', launch: 'x' })),
    path: 'targets.__proto__',
    says: '"__proto__" is a reserved name',
  },
  {
    name: 'a scenario named __proto__',
    file: () => variant((c) => own(c.scenarios, '__proto__', { 'input-tokens': 8, 'output-tokens': 8 })),
    path: 'scenarios.__proto__',
    says: 'reserved name',
  },
  {
    name: 'a matrix key named constructor',
    file: () => variant((c) => (target(c).matrix = own({}, 'constructor', ['a']))),
    path: 'targets.vllm-fp8.matrix.constructor',
    says: 'reserved name',
  },
  {
    name: 'an env variable named __proto__',
    file: () => variant((c) => (target(c).env = own({}, '__proto__', 'x'))),
    path: 'targets.vllm-fp8.env.__proto__',
    says: 'reserved name',
  },
  // upper bounds: past them a value exhausts memory, sockets or timers before anything is measured
  {
    name: 'a billion input tokens',
    file: () => variant((c) => (chat(c)['input-tokens'] = 1e9)),
    path: 'scenarios.chat-1k.input-tokens',
    says: 'from 1 to 1048576 (got 1000000000)',
  },
  {
    name: 'too many output tokens',
    file: () => variant((c) => (chat(c)['output-tokens'] = 200_000)),
    path: 'scenarios.chat-1k.output-tokens',
    says: 'from 1 to 131072',
  },
  {
    name: 'concurrency past the socket budget',
    file: () => variant((c) => (chat(c).concurrency = 25_000)),
    path: 'scenarios.chat-1k.concurrency',
    says: 'from 1 to 4096 (got 25000)',
  },
  {
    name: 'a billion requests',
    file: () =>
      variant((c) => (c.scenarios.open = { 'input-tokens': 1, 'output-tokens': 2, rate: 1000, requests: 1e9 })),
    path: 'scenarios.open.requests',
    says: 'from 1 to 100000',
  },
  {
    name: 'a rate past 10,000/s',
    file: () =>
      variant((c) => (c.scenarios.open = { 'input-tokens': 1, 'output-tokens': 2, rate: 50_000, requests: 10 })),
    path: 'scenarios.open.rate',
    says: 'from 0 to 10000 (got 50000)',
  },
  {
    name: 'a timeout a timer cannot hold',
    file: () => variant((c) => (c.defaults = { 'request-timeout': '700h' })),
    path: 'defaults.request-timeout',
    says: 'must be at most 24h (got "700h")',
  },
  {
    name: 'a target timeout past a day',
    file: () => variant((c) => (target(c)['ready-timeout'] = '25h')),
    path: 'targets.vllm-fp8.ready-timeout',
    says: 'at most 24h',
  },
  {
    name: 'a thousand rounds',
    file: () => variant((c) => (target(c).rounds = 1000)),
    path: 'targets.vllm-fp8.rounds',
    says: 'from 1 to 100',
  },
  {
    name: 'max-rounds below rounds',
    file: () => variant((c) => (target(c)['max-rounds'] = 2)),
    path: 'targets.vllm-fp8.max-rounds',
    says: '2 is less than rounds 3',
  },
  {
    name: "rounds above the file's max-rounds",
    file: () => variant((c) => ((c.defaults = { 'max-rounds': 4 }), (target(c).rounds = 5))),
    path: 'targets.vllm-fp8.rounds',
    says: '4 is less than rounds 5',
  },
  {
    name: 'max-rounds past the rounds limit',
    file: () => variant((c) => (c.defaults = { 'max-rounds': 500 })),
    path: 'defaults.max-rounds',
    says: 'from 1 to 100',
  },
  {
    name: 'noise-floor past 50%',
    file: () => variant((c) => (c.defaults = { 'noise-floor': '60%' })),
    path: 'defaults.noise-floor',
    says: 'must be from 0% to 50% (got 60%)',
  },
  {
    name: 'noise-floor as a whole number',
    file: () => variant((c) => (target(c)['noise-floor'] = 2)),
    path: 'targets.vllm-fp8.noise-floor',
    says: 'write "2%" for a percent',
  },
  {
    name: 'confirm-fresh not a boolean',
    file: () => variant((c) => (c.defaults = { 'confirm-fresh': 'yes' })),
    path: 'defaults.confirm-fresh',
    says: 'must be true or false',
  },
  {
    name: 'confirm past 10',
    file: () => variant((c) => (c.defaults = { confirm: 50 })),
    path: 'defaults.confirm',
    says: 'from 0 to 10',
  },
  // same-box A/B
  {
    name: 'ab not one of the modes',
    file: () => variant((c) => (c.defaults = { ab: 'sometimes' })),
    path: 'defaults.ab',
    says: 'must be one of off, confirm, always (got "sometimes")',
  },
  {
    name: 'ab as a boolean on a target',
    file: () => variant((c) => (target(c).ab = true)),
    path: 'targets.vllm-fp8.ab',
    says: 'must be one of off, confirm, always (got true)',
  },
  {
    name: 'zero ab-launches on a target',
    file: () => variant((c) => (target(c)['ab-launches'] = 0)),
    path: 'targets.vllm-fp8.ab-launches',
    says: 'must be a whole number from 1 to 20 (got 0)',
  },
  {
    name: 'ab-launches past 20',
    file: () => variant((c) => (c.defaults = { 'ab-launches': 21 })),
    path: 'defaults.ab-launches',
    says: 'must be a whole number from 1 to 20 (got 21)',
  },
  {
    name: 'a creep-window too short to hold a level',
    file: () => variant((c) => (c.defaults = { 'creep-window': 2 })),
    path: 'defaults.creep-window',
    says: 'must be a whole number from 3 to 100 (got 2)',
  },
  {
    name: 'a bisect value that is not a mode',
    file: () => variant((c) => (c.defaults = { bisect: 'on' })),
    path: 'defaults.bisect',
    says: 'must be one of off, auto',
  },
  {
    name: 'a bisect-budget without a unit',
    file: () => variant((c) => (c.defaults = { 'bisect-budget': 4 })),
    path: 'defaults.bisect-budget',
    says: 'needs a unit, e.g. "4s"',
  },
  {
    name: 'fractional ab-launches',
    file: () => variant((c) => (c.defaults = { 'ab-launches': 2.5 })),
    path: 'defaults.ab-launches',
    says: 'must be a whole number from 1 to 20 (got 2.5)',
  },
  {
    name: 'ab-budget without a unit',
    file: () => variant((c) => (target(c)['ab-budget'] = 3600)),
    path: 'targets.vllm-fp8.ab-budget',
    says: 'needs a unit, e.g. "3600s"',
  },
  {
    name: 'ab-budget not a duration',
    file: () => variant((c) => (c.defaults = { 'ab-budget': 'an hour' })),
    path: 'defaults.ab-budget',
    says: '"an hour" is not a duration like 500ms, 90s, 20m or 1h30m',
  },
  {
    name: 'a zero ab-budget (ab: off says that)',
    file: () => variant((c) => (target(c)['ab-budget'] = '0s')),
    path: 'targets.vllm-fp8.ab-budget',
    says: 'must be positive (got "0s")',
  },
  // pass-env
  {
    name: "pass-env naming the action's token",
    file: () => variant((c) => (c.defaults = { 'pass-env': ['HF_TOKEN', 'GITHUB_TOKEN'] })),
    path: 'defaults.pass-env[1]',
    says: "the action's own credential",
  },
  {
    name: 'pass-env naming an input',
    file: () => variant((c) => (target(c)['pass-env'] = ['INPUT_GITHUB_TOKEN'])),
    path: 'targets.vllm-fp8.pass-env[0]',
    says: "the action's own credential",
  },
  {
    name: 'pass-env with a bad name',
    file: () => variant((c) => (target(c)['pass-env'] = ['HF TOKEN'])),
    path: 'targets.vllm-fp8.pass-env[0]',
    says: 'must be a variable name',
  },
  // request-body
  {
    name: 'request-body overriding the greedy temperature',
    file: () =>
      variant(
        (c) => (target(c)['request-body'] = { chat_template_kwargs: { enable_thinking: false }, temperature: 0.7 }),
      ),
    path: 'targets.vllm-fp8.request-body.temperature',
    says: 'is set by the gate for every request',
  },
  {
    name: 'request-body as a list',
    file: () => variant((c) => (c.defaults = { 'request-body': ['top_k: 1'] })),
    path: 'defaults.request-body',
    says: 'must be a mapping of request fields',
  },
  {
    name: 'request-body past 16 KiB',
    file: () => variant((c) => (target(c)['request-body'] = { stop: ['x'.repeat(17_000)] })),
    path: 'targets.vllm-fp8.request-body',
    says: 'at most 16384',
  },
  // allow-gpu-processes
  {
    name: 'allow-gpu-processes as one string',
    file: () => variant((c) => (c.defaults = { 'allow-gpu-processes': 'ollama' })),
    path: 'defaults.allow-gpu-processes',
    says: 'must be a list of process names or globs',
  },
  {
    name: 'allow-gpu-processes with an empty name',
    file: () => variant((c) => (target(c)['allow-gpu-processes'] = ['ollama', ''])),
    path: 'targets.vllm-fp8.allow-gpu-processes[1]',
    says: 'must not be empty',
  },
  {
    name: 'allow-gpu-processes past 64 entries',
    file: () => variant((c) => (target(c)['allow-gpu-processes'] = Array.from({ length: 65 }, (_, i) => `p${i}`))),
    path: 'targets.vllm-fp8.allow-gpu-processes',
    says: 'must list at most 64 processes',
  },
  // numbers
  {
    name: 'zero rounds',
    file: () => variant((c) => (c.defaults = { rounds: 0 })),
    path: 'defaults.rounds',
    says: 'must be a whole number from 1 to 100 (got 0)',
  },
  {
    name: 'fractional rounds on a target',
    file: () => variant((c) => (target(c).rounds = 2.5)),
    path: 'targets.vllm-fp8.rounds',
    says: 'whole number',
  },
  {
    name: 'discard leaves no rounds',
    file: () => variant((c) => (target(c).rounds = 1)),
    path: 'targets.vllm-fp8.rounds',
    says: 'discard 1 leaves no steady rounds out of rounds 1',
  },
  {
    name: 'negative input tokens',
    file: () => variant((c) => (chat(c)['input-tokens'] = -1)),
    path: 'scenarios.chat-1k.input-tokens',
    says: '(got -1)',
  },
  {
    name: 'zero concurrency',
    file: () => variant((c) => (chat(c).concurrency = 0)),
    path: 'scenarios.chat-1k.concurrency',
    says: '(got 0)',
  },
  {
    name: 'zero rate',
    file: () => variant((c) => (c.scenarios.open = { 'input-tokens': 1, 'output-tokens': 2, rate: 0, requests: 4 })),
    path: 'scenarios.open.rate',
    says: 'must be a number of requests/s from 0 to 10000 (got 0)',
  },
  {
    name: 'port out of range',
    file: () => variant((c) => (target(c).port = 70000)),
    path: 'targets.vllm-fp8.port',
    says: 'from 1 to 65535 (got 70000)',
  },
  {
    name: 'zero max-regression',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': '0%' } })),
    path: 'gate.decode.max-regression',
    says: 'must be > 0',
  },
  {
    name: 'max-regression as a whole number',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': 5 } })),
    path: 'gate.decode.max-regression',
    says: 'write "5%" for a percent',
  },
  {
    name: 'zero min-delta',
    file: () => variant((c) => (c.gate = { ttft: { 'max-regression': '5%', 'min-delta': '0ms' } })),
    path: 'gate.ttft.min-delta',
    says: 'must be positive',
  },
  {
    name: 'duration min-delta on a throughput metric',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': '5%', 'min-delta': '50ms' } })),
    path: 'gate.decode.min-delta',
    says: 'tok/s',
  },
  {
    name: 'unknown gate stat',
    file: () => variant((c) => (c.gate = { ttft: { 'max-regression': '5%', stat: 'median' } })),
    path: 'gate.ttft.stat',
    says: 'must be one of mean, p50, p90, p99',
  },
  {
    name: 'target gate metric without max-regression anywhere',
    file: () => variant((c) => (target(c).gate = { tpot: { stat: 'p90' } })),
    path: 'targets.vllm-fp8.gate.tpot.max-regression',
    says: 'not in the top-level gate',
  },
  {
    name: 'error share over 100%',
    file: () => variant((c) => (c.defaults = { 'max-error-share': '150%' })),
    path: 'defaults.max-error-share',
    says: 'at most 100%',
  },
  // quality
  {
    name: 'negative probe questions',
    file: () => variant((c) => (target(c).quality = { questions: -1 })),
    path: 'targets.vllm-fp8.quality.questions',
    says: 'from 1 to 200 (got -1)',
  },
  {
    name: 'more probe questions than the probe has',
    file: () => variant((c) => (c.defaults = { quality: { questions: 500 } })),
    path: 'defaults.quality.questions',
    says: 'from 1 to 200',
  },
  {
    name: 'negative greedy prompts',
    file: () => variant((c) => (target(c).quality = { prompts: -2 })),
    path: 'targets.vllm-fp8.quality.prompts',
    says: 'from 0 to 12 (got -2)',
  },
  {
    name: 'probe max-tokens past 1024',
    file: () => variant((c) => (target(c).quality = { 'max-tokens': 4096 })),
    path: 'targets.vllm-fp8.quality.max-tokens',
    says: 'from 1 to 1024',
  },
  {
    name: 'probe concurrency 0',
    file: () => variant((c) => (target(c).quality = { concurrency: 0 })),
    path: 'targets.vllm-fp8.quality.concurrency',
    says: 'from 1 to 64 (got 0)',
  },
  {
    name: 'probe api unknown',
    file: () => variant((c) => (target(c).quality = { api: 'grpc' })),
    path: 'targets.vllm-fp8.quality.api',
    says: 'must be completions or chat',
  },
  {
    name: 'unknown probe key',
    file: () => variant((c) => (target(c).quality = { question: 10 })),
    path: 'targets.vllm-fp8.quality.question',
    says: 'did you mean questions?',
  },
  {
    name: 'quality true',
    file: () => variant((c) => (target(c).quality = true)),
    path: 'targets.vllm-fp8.quality',
    says: 'or false',
  },
  {
    name: 'min-agreement above 1',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': '5%' }, quality: { 'min-agreement': 1.5 } })),
    path: 'gate.quality.min-agreement',
    says: 'from 0 to 1 (got 1.5)',
  },
  {
    name: 'negative min-agreement on a target',
    file: () => variant((c) => (target(c).gate = { quality: { 'min-agreement': -0.1 } })),
    path: 'targets.vllm-fp8.gate.quality.min-agreement',
    says: 'from 0 to 1',
  },
  {
    name: 'negative accuracy drop',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': '5%' }, quality: { 'max-accuracy-drop': -5 } })),
    path: 'gate.quality.max-accuracy-drop',
    says: 'points from 0 to 100 (got -5)',
  },
  {
    name: 'unknown degenerate mode',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': '5%' }, quality: { degenerate: 'ignore' } })),
    path: 'gate.quality.degenerate',
    says: 'must be fail, warn or off',
  },
  // units
  {
    name: 'duration without a unit',
    file: () => variant((c) => (c.defaults = { 'ready-timeout': 20 })),
    path: 'defaults.ready-timeout',
    says: 'needs a unit',
  },
  {
    name: 'duration in words',
    file: () => variant((c) => (c.defaults = { 'ready-timeout': '20 minutes' })),
    path: 'defaults.ready-timeout',
    says: 'is not a duration',
  },
  {
    name: 'duration units out of order',
    file: () => variant((c) => (target(c)['request-timeout'] = '30m1h')),
    path: 'targets.vllm-fp8.request-timeout',
    says: 'is not a duration',
  },
  {
    name: 'zero duration',
    file: () => variant((c) => (target(c)['ready-timeout'] = '0s')),
    path: 'targets.vllm-fp8.ready-timeout',
    says: 'must be positive',
  },
  {
    name: 'size without a known unit',
    file: () => variant((c) => (c.defaults = { 'memory-floor': '4 gigs' })),
    path: 'defaults.memory-floor',
    says: 'is not a size',
  },
  {
    name: 'zero size',
    file: () => variant((c) => (c.defaults = { 'memory-floor': '0GiB' })),
    path: 'defaults.memory-floor',
    says: 'must be positive',
  },
  {
    name: 'memory share of 100%',
    file: () => variant((c) => (c.defaults = { 'memory-floor': '100%' })),
    path: 'defaults.memory-floor',
    says: 'between 0% and 100%',
  },
  {
    name: 'malformed percent',
    file: () => variant((c) => (c.gate = { decode: { 'max-regression': 'five%' } })),
    path: 'gate.decode.max-regression',
    says: 'is not a percent',
  },
  // workloads
  {
    name: 'rate and concurrency together',
    file: () => variant((c) => Object.assign(chat(c), { rate: 2, requests: 16 })),
    path: 'scenarios.chat-1k.rate',
    says: 'either rate (open loop) or concurrency (closed loop), not both',
  },
  {
    name: 'rate without requests',
    file: () => variant((c) => (c.scenarios.open = { 'input-tokens': 1, 'output-tokens': 2, rate: 2 })),
    path: 'scenarios.open.requests',
    says: 'required with rate',
  },
  {
    name: 'fewer requests than concurrency',
    file: () => variant((c) => (chat(c).requests = 4)),
    path: 'scenarios.chat-1k.requests',
    says: 'less than concurrency 8',
  },
  {
    name: 'a shared prefix as long as the prompt',
    file: () => variant((c) => (chat(c)['prefix-tokens'] = chat(c)['input-tokens'])),
    path: 'scenarios.chat-1k.prefix-tokens',
    says: 'is not less than input-tokens',
  },
  {
    name: 'a shared prefix with text prompts',
    file: () => variant((c) => Object.assign(chat(c), { 'prefix-tokens': 64, prompts: 'text' })),
    path: 'scenarios.chat-1k.prefix-tokens',
    says: 'goes with prompts: synthetic',
  },
  {
    name: 'a shared prefix of no tokens',
    file: () => variant((c) => (chat(c)['prefix-tokens'] = 0)),
    path: 'scenarios.chat-1k.prefix-tokens',
    says: 'whole number',
  },
  // latency targets (slo) and the goodput gate
  {
    name: 'an empty slo',
    file: () => variant((c) => (chat(c).slo = {})),
    path: 'scenarios.chat-1k.slo',
    says: 'must set at least one bound: ttft, tpot or e2e',
  },
  {
    name: 'an slo bound of 0',
    file: () => variant((c) => (chat(c).slo = { tpot: '0ms' })),
    path: 'scenarios.chat-1k.slo.tpot',
    says: 'must be positive (got "0ms")',
  },
  {
    name: 'a negative slo bound',
    file: () => variant((c) => (chat(c).slo = { ttft: '-2s' })),
    path: 'scenarios.chat-1k.slo.ttft',
    says: 'must be positive (got "-2s")',
  },
  {
    name: 'an slo bound without a unit',
    file: () => variant((c) => (chat(c).slo = { e2e: 30 })),
    path: 'scenarios.chat-1k.slo.e2e',
    says: 'needs a unit',
  },
  {
    name: 'an unknown slo key, with the likely one',
    file: () => variant((c) => (chat(c).slo = { ttfb: '2s' })),
    path: 'scenarios.chat-1k.slo.ttfb',
    says: 'unknown key (did you mean ttft?)',
  },
  {
    name: 'an slo that is not a mapping',
    file: () => variant((c) => (chat(c).slo = '2s')),
    path: 'scenarios.chat-1k.slo',
    says: 'must be a mapping of latency bounds',
  },
  {
    name: 'a tpot bound on one-token requests',
    file: () => variant((c) => (c.scenarios.one = { 'input-tokens': 8, 'output-tokens': 1, slo: { tpot: '20ms' } })),
    path: 'scenarios.one.slo.tpot',
    says: 'has no effect with output-tokens 1',
  },
  {
    name: 'max-drop as a percent',
    file: () => variant((c) => (c.gate = { goodput: { 'max-drop': '5%' } })),
    path: 'gate.goodput.max-drop',
    says: 'must be a number of points from 0 to 100',
  },
  {
    name: 'max-drop of 0',
    file: () => variant((c) => (c.gate = { goodput: { 'max-drop': 0 } })),
    path: 'gate.goodput.max-drop',
    says: 'must be a number of points from 0 to 100',
  },
  {
    name: 'goodput with the relative limit keys',
    file: () => variant((c) => (c.gate = { goodput: { 'max-regression': '5%' } })),
    path: 'gate.goodput.max-regression',
    says: 'unknown key',
  },
  // files
  {
    name: 'YAML syntax error',
    file: () =>
      dir.write('syntax.yml', 'version: 1\nscenarios:\n  chat: { input-tokens: 1, output-tokens: 2\ntargets: {}\n'),
    path: 'syntax.yml',
    says: 'line 4, column 1',
  },
  {
    name: 'YAML duplicate key',
    file: () => dir.write('dupe.yml', 'version: 1\nversion: 1\n'),
    path: 'dupe.yml',
    says: 'line 2, column 1',
  },
  {
    name: 'JSON syntax error',
    file: () =>
      dir.write('syntax.json', '{\n  "version": 1,\n  "scenarios": {\n    "chat": { "input-tokens": 1, }\n  }\n}\n'),
    path: 'syntax.json',
    says: 'line 4, column 34',
  },
  {
    name: 'empty file',
    file: () => dir.write('empty.yml', '# nothing yet\n'),
    path: 'empty.yml',
    says: 'the file is empty',
  },
  {
    name: 'missing file names the resolved path',
    file: () => 'nope/llm-bench.yml',
    path: 'config',
    says: `${resolve(dir.path, 'nope/llm-bench.yml')} does not exist`,
  },
  // inputs
  ...['0/2', '3/2', 'a/b', '1/0', '2'].map((shard) => ({
    name: `bad shard ${shard}`,
    file: () => variant(() => {}),
    options: { shard },
    path: 'shard',
    says: `"${shard}" is not i/n`,
  })),
  {
    name: 'only matching nothing lists the cells',
    file: () => variant(() => {}),
    options: { only: 'vllm-fp8/chat-1k,sglang-*' },
    path: 'only',
    says: '"sglang-*" matches no cell (cells: vllm-fp8/chat-1k, vllm-fp8/long-8k)',
  },
]

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i)
}

describe('bad matrix files', () => {
  it.each(cases)('$name → $path', async ({ file, options, path, says }) => {
    const problems = await problemsOf(file(), options)
    const hit = problems.find((p) => p.startsWith(`${path}: `) && p.includes(says))
    expect(hit, problems.join('\n')).toBeDefined()
  })

  it('lists the valid engines, taken from the registry, for an unknown one, and names the one a typo meant', async () => {
    const file = variant((c) => (target(c).engine = 'vlm'))
    const problems = await problemsOf(file, { engines: undefined })
    expect(problems).toContain(
      `targets.vllm-fp8.engine: unknown engine "vlm" (did you mean vllm? valid: ${ENGINE_NAMES.join(', ')}) (line 13)`,
    )
    // A README's spelling differs only in case.
    const cased = await problemsOf(
      variant((c) => (target(c).engine = 'vLLM')),
      { engines: undefined },
    )
    expect(cased.find((p) => p.startsWith('targets.vllm-fp8.engine: '))).toContain(
      'unknown engine "vLLM" (did you mean vllm? ',
    )
    // Nothing close: the list alone.
    const far = await problemsOf(
      variant((c) => (target(c).engine = 'tensorflow')),
      { engines: undefined },
    )
    expect(far).toContain(
      `targets.vllm-fp8.engine: unknown engine "tensorflow" (valid: ${ENGINE_NAMES.join(', ')}) (line 13)`,
    )
  })

  it("merges the registry's sim adapter's own checks into the list", async () => {
    const file = variant((c) => (c.targets['sim-a'] = { engine: 'sim', profile: 'no-such-profile' }))
    const problems = await problemsOf(file, { engines: undefined })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^targets\.sim-a\.profile: .*no-such-profile.* \(line \d+\)$/)
  })

  it('reports every problem of a file at once, in file order with lines', async () => {
    const file = dir.write(
      'many.yml',
      [
        'version: 1',
        'defaults:',
        '  rounds: 0',
        'scenarios:',
        '  chat: { input-tokens: 8, output-tokens: 8, concurrency: 2, rate: 1, requests: 2 }',
        'targets:',
        '  vllm-fp8:',
        '    engine: vllm',
        '    launch: serve {gpu} --port {port}',
        '    scenarios: [chat, long]',
      ].join('\n'),
    )
    expect(await problemsOf(file, { shard: '9/2' })).toEqual([
      'defaults.rounds: must be a whole number from 1 to 100 (got 0) (line 3)',
      'scenarios.chat.rate: give either rate (open loop) or concurrency (closed loop), not both (line 5)',
      'targets.vllm-fp8.launch: unknown placeholder {gpu} (known: {port}, {model}, {quant}, {target}, {run}) (line 9)',
      'targets.vllm-fp8.scenarios[1]: unknown scenario "long" (defined: chat) (line 10)',
      'shard: "9/2" is not i/n with 1 ≤ i ≤ n ≤ 256 (e.g. 1/2)',
    ])
  })

  it('throws one ConfigError whose message lists the problems', async () => {
    const file = variant((c) => {
      target(c).launch = 'serve {gpu}'
      chat(c).concurrency = 0
    })
    const error = await loadPlan(file, { cwd: dir.path, engines: TEST_ENGINES }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).message).toMatch(
      /^2 problems:\n {2}- scenarios\.chat-1k\.concurrency: .*\n {2}- targets\.vllm-fp8\.launch: unknown placeholder \{gpu\}/,
    )
  })
})
