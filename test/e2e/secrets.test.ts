/**
 * Hostile input stays harmless, through the bundled action against the GitHub API stand-in: a launch script
 * that dumps its environment and prints tokens before it fails. The engine sees none of the action's
 * credentials (only what `pass-env` names), and no comment, summary, results file, page or log under
 * results-dir holds any secret, while the comment still says why the target failed.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAction, type ActionRun } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { runnerCommands } from '../helpers/runner-commands.js'

const PR = 12
const SECRETS = {
  githubToken: 'ghs_' + 'Tk9'.repeat(12),
  runtime: 'actions-runtime-' + 'r7'.repeat(16),
  oidc: 'oidc-request-' + 'o5'.repeat(16),
  hf: 'hf_' + 'Hx'.repeat(17),
  wandb: 'wandb-' + 'w3'.repeat(14),
}
const ALL = Object.values(SECRETS)

let github: FakeGitHub
let cwd: string
let run: ActionRun

/** The runner's own `::add-mask::` lines carry the secret to it on purpose; everything else must not. */
const withoutMasks = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n')

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

beforeAll(async () => {
  github = await startFakeGitHub()
  cwd = await mkdtemp(join(tmpdir(), 'lbg-secrets-'))
  // The script an engine's launch runs: it shows everything it can see, then fails.
  await writeFile(
    join(cwd, 'leaky.sh'),
    [
      '#!/usr/bin/env bash',
      'env | sort > "$DUMP"',
      'echo "starting with Authorization: Bearer $HF_TOKEN"',
      `echo "token in my config: ${SECRETS.githubToken}"`,
      `echo "wrapped: ${SECRETS.runtime.slice(0, 10)}"`,
      `echo "${SECRETS.runtime.slice(10)} (end)"`,
      'env | grep -i token',
      'echo "fatal: cannot load model" >&2',
      'exit 3',
      '',
    ].join('\n'),
  )
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'defaults: { rounds: 1, discard: 0, ready-timeout: 10s, request-timeout: 10s }',
      'scenarios:',
      '  short: { input-tokens: 16, output-tokens: 8 }',
      'targets:',
      '  plain:',
      '    engine: openai',
      '    launch: bash leaky.sh --port {port}',
      `    env: { DUMP: ${join(cwd, 'env-plain.txt')} }`,
      '  gated-model:',
      '    engine: openai',
      '    launch: bash leaky.sh --port {port}',
      '    pass-env: [HF_TOKEN]',
      `    env: { DUMP: ${join(cwd, 'env-gated.txt')} }`,
      '',
    ].join('\n'),
  )
  const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
  run = await runAction({
    cwd,
    inputs: { config: 'bench.yml', 'github-token': SECRETS.githubToken, hardware: 'loopback-hw', 'results-dir': 'out' },
    env: {
      GITHUB_API_URL: github.url,
      GITHUB_REPOSITORY: 'octo-org/octo-repo',
      GITHUB_TOKEN: SECRETS.githubToken,
      ACTIONS_RUNTIME_TOKEN: SECRETS.runtime,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: SECRETS.oidc,
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.example/oidc',
      HF_TOKEN: SECRETS.hf,
      WANDB_API_KEY: SECRETS.wandb,
    },
    event: {
      name: 'pull_request',
      ref: `refs/pull/${PR}/merge`,
      payload: { pull_request: { number: PR }, repository },
    },
  })
}, 120_000)

afterAll(async () => {
  await github?.close()
})

describe('secrets through the bundled action', () => {
  it('fails the step on the broken targets, with results written', () => {
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.outputs.verdict).toBe('error')
  })

  it('the engine saw none of the action’s credentials or inputs', async () => {
    const env = await readFile(join(cwd, 'env-plain.txt'), 'utf8')
    expect(env).toMatch(/^PATH=/m)
    expect(env).not.toMatch(/^(INPUT_|ACTIONS_|GITHUB_TOKEN=|GH_TOKEN=)/m)
    for (const secret of ALL) expect(env).not.toContain(secret)
  })

  it('a target whose pass-env lists HF_TOKEN sees it, and only it', async () => {
    const env = await readFile(join(cwd, 'env-gated.txt'), 'utf8')
    expect(env).toContain(`HF_TOKEN=${SECRETS.hf}`)
    for (const secret of ALL.filter((s) => s !== SECRETS.hf)) expect(env).not.toContain(secret)
  })

  it('no file under results-dir, no comment, no summary and no log line holds a secret', async () => {
    const files = await filesUnder(join(cwd, 'out'))
    expect(files.map((f) => f.slice(cwd.length))).toEqual(
      expect.arrayContaining(['/out/results.json', '/out/report.md', '/out/logs/plain.log']),
    )
    const texts = await Promise.all(files.map((f) => readFile(f, 'utf8')))
    const comments = github.state.commentsOn(PR).map((c) => c.body)
    expect(comments).toHaveLength(1)
    for (const [where, text] of [
      ...files.map((f, i) => [f, texts[i]]),
      ['comment', comments[0]],
      ['summary', run.summary],
      ['stdout', withoutMasks(run.stdout)],
    ]) {
      for (const secret of ALL) expect(text.includes(secret), `${secret} in ${where}`).toBe(false)
    }
  })

  it('the comment still says why the target failed, with *** in place of the secret', () => {
    const comment = github.state.commentsOn(PR)[0].body
    expect(comment).toMatch(/plain: .*exited with code 3/)
    expect(comment).toContain('fatal: cannot load model')
    expect(comment).toContain('token in my config: ***')
    expect(comment).toMatch(/HF_TOKEN, WANDB_API_KEY were not passed to the engine \(add them to pass-env/)
    // The launch command as it ran, port filled in.
    expect(comment).toMatch(/bash leaky\.sh --port \d+/)
    expect(comment).not.toContain('{port}')
  })

  it('the token is registered with the runner’s masking', () => {
    expect(
      runnerCommands(run.stdout)
        .filter((c) => c.name === 'add-mask')
        .map((c) => c.data),
    ).toContain(SECRETS.githubToken)
  })
})
