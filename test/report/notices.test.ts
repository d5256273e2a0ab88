/** The notices of runs that measured nothing carry config paths, problems and errors escaped like the rest of the report. */
import { describe, expect, it } from 'vitest'
import { configErrorNotice, couldNotRunNotice, dryRunNotice } from '../../src/report/index.js'

describe('notices', () => {
  it('lists every config problem as one escaped list item', () => {
    const md = configErrorNotice('.github/llm-bench.yml', [
      'targets.t.engine: unknown engine "vlm"',
      'targets.<b>|x</b>.launch: `{gpu}` @team',
    ])
    expect(md).toBe(
      '## llm-bench-gate: configuration error\n\n`.github/llm-bench.yml` could not be used:\n\n' +
        '- targets.t.engine: unknown engine "vlm"\n' +
        '- targets.&lt;b&gt;\\|x&lt;/b&gt;.launch: \\`{gpu}\\` @&#8203;team\n',
    )
  })

  it('escapes a config path that is not a plain path instead of quoting it', () => {
    expect(configErrorNotice('my `odd` file.yml', [])).toContain('my \\`odd\\` file.yml could not be used')
  })

  it('fences the dry-run plan and the could-not-run error with a fence no backtick run inside can close', () => {
    const plan = 'targets:\n  t: launch ```echo```\n'
    expect(dryRunNotice('compare', plan)).toBe(
      '## llm-bench-gate: dry run\n\nMode `compare`; nothing was launched.\n\n````\ntargets:\n  t: launch ```echo```\n````\n',
    )
    expect(couldNotRunNotice('input mode: "gate"\n````x')).toBe(
      '## llm-bench-gate could not run\n\n`````\ninput mode: "gate"\n````x\n`````\n',
    )
  })
})
