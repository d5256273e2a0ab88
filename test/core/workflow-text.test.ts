// Engine text on stdout never becomes a workflow command.
import { describe, expect, it } from 'vitest'
import { inert } from '../../src/core/workflow-text.js'
import { runnerCommands } from '../helpers/runner-commands.js'

const HOSTILE = [
  'b1\n::add-mask::x\n::warning title=pwned::owned',
  '  ::error::indented',
  'version ##[set-output name=verdict]pass',
  '::stop-commands::tok\n::add-mask::hidden\n::tok::\n::debug::after',
  '\t::add-mask::after a tab',
  '##[add-mask]x ##[warning]y',
]

describe('inert', () => {
  it('the runner parser this suite uses finds commands in the raw text', () => {
    // Guards the check below: a parser that found nothing would prove nothing.
    for (const text of HOSTILE) expect(runnerCommands(text).length, text).toBeGreaterThan(0)
  })

  it.each(HOSTILE)('%j carries no command once inert', (text) => {
    expect(runnerCommands(inert(text))).toEqual([])
  })

  it('keeps ordinary text and line breaks as they are', () => {
    expect(inert('ready at http://127.0.0.1:8000 (build b4321)\nsecond line')).toBe(
      'ready at http://127.0.0.1:8000 (build b4321)\nsecond line',
    )
  })

  it('reads the same to a person: only zero-width spaces are added', () => {
    const text = HOSTILE.join('\n')
    expect(inert(text).replaceAll('\u200b', '')).toBe(text)
  })
})
