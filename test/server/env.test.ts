// What a launched engine may see of the runner's environment.
import { describe, expect, it } from 'vitest'
import { Redactor } from '../../src/core/redact.js'
import { engineEnv, withheldHint } from '../../src/server/env.js'

const TOKEN = 'ghs_' + 'Q'.repeat(36)
const RUNNER: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  CUDA_HOME: '/usr/local/cuda',
  'INPUT_GITHUB-TOKEN': TOKEN,
  INPUT_CONFIG: '.github/llm-bench.yml',
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-value',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-token',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/oidc',
  ACTIONS_RESULTS_URL: 'https://results.example/',
  ACTIONS_CACHE_URL: 'https://cache.example/',
  GITHUB_TOKEN: TOKEN,
  GH_TOKEN: TOKEN,
  GITHUB_SHA: 'abc123',
  HF_TOKEN: 'hf_' + 'h'.repeat(34),
  WANDB_API_KEY: 'wandb-key-123456',
  COPY_OF_TOKEN: TOKEN,
}

describe('engine environment', () => {
  it('keeps ordinary variables and drops every credential and input of the action', () => {
    const known = new Redactor()
    known.add(TOKEN)
    const { env, withheld } = engineEnv(RUNNER, [], { PORT: '8000' }, known)
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/runner',
      CUDA_HOME: '/usr/local/cuda',
      GITHUB_SHA: 'abc123',
      PORT: '8000',
    })
    expect(withheld).toEqual(['COPY_OF_TOKEN', 'HF_TOKEN', 'WANDB_API_KEY'])
  })

  it('passes a secret-looking variable named in pass-env, never the action’s own', () => {
    const { env } = engineEnv(
      RUNNER,
      ['HF_TOKEN', 'GITHUB_TOKEN', 'INPUT_GITHUB-TOKEN', 'ACTIONS_RUNTIME_TOKEN'],
      {},
      new Redactor(),
    )
    expect(env.HF_TOKEN).toBe(RUNNER.HF_TOKEN)
    expect(env).not.toHaveProperty('GITHUB_TOKEN')
    expect(env).not.toHaveProperty('INPUT_GITHUB-TOKEN')
    expect(env).not.toHaveProperty('ACTIONS_RUNTIME_TOKEN')
    expect(env).not.toHaveProperty('WANDB_API_KEY')
  })

  it('lets the target’s own env win', () => {
    expect(engineEnv({ CUDA_HOME: '/a' }, [], { CUDA_HOME: '/b' }).env.CUDA_HOME).toBe('/b')
  })

  it('words the hint a failed launch carries', () => {
    expect(withheldHint([])).toBe('')
    expect(withheldHint(['HF_TOKEN'])).toBe(
      '; HF_TOKEN was not passed to the engine (add it to pass-env if it needs it)',
    )
    expect(withheldHint(['A_KEY', 'B_KEY', 'C_KEY', 'D_KEY'])).toBe(
      '; A_KEY, B_KEY, C_KEY and 1 more were not passed to the engine (add them to pass-env if it needs them)',
    )
  })
})
