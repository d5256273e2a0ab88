import { describe, expect, it } from 'vitest'
import {
  DEFAULT_QUALITY_GATE,
  type CellQuality,
  type DegenerateTally,
  type ProbeResult,
} from '../../src/core/quality.js'
import { qualityVerdict } from '../../src/quality/index.js'

const probe = (accuracy: number, extra: Partial<ProbeResult> = {}): ProbeResult => ({
  seed: 1,
  questions: 40,
  correct: Math.round(accuracy * 40),
  accuracy,
  greedy: [],
  ...extra,
})

function degenerate(
  share: number,
  kinds: Partial<DegenerateTally['kinds']> = { repeat: share * 20 },
  example?: string,
): DegenerateTally {
  return {
    judged: 20,
    degenerate: share * 20,
    share,
    kinds: { repeat: 0, compression: 0, vocabulary: 0, ...kinds },
    ...(example !== undefined && { example }),
  }
}

const HEALTHY: CellQuality = { probe: probe(0.95), agreement: { mean: 1, prompts: 12 }, degenerate: degenerate(0) }
const WORST = `"List the first five prime numbers." shares 3 of 41 tokens, then baseline "7", now "'s"`

describe('qualityVerdict', () => {
  it.each<{
    name: string
    current: CellQuality
    baseline?: CellQuality
    gate?: Partial<typeof DEFAULT_QUALITY_GATE>
    reasons: string[]
    warnings?: string[]
  }>([
    { name: 'unchanged', current: HEALTHY, baseline: HEALTHY, reasons: [] },
    { name: 'no baseline', current: { probe: probe(0.1), degenerate: degenerate(1) }, reasons: [] },
    { name: 'accuracy drop within the limit', current: { probe: probe(0.9) }, baseline: HEALTHY, reasons: [] },
    {
      name: 'accuracy drop past the limit',
      current: { probe: probe(0.12) },
      baseline: HEALTHY,
      reasons: ['accuracy 12% (baseline 95%): dropped 83 points, limit 5'],
    },
    { name: 'accuracy rise', current: { probe: probe(1) }, baseline: { probe: probe(0.5) }, reasons: [] },
    {
      name: 'probe requests that failed twice: said on the verdict',
      current: { probe: probe(0.925, { failed: 2 }) },
      baseline: HEALTHY,
      reasons: [],
      warnings: ['2 quality probe requests failed twice: counted as wrong answers, left out of agreement'],
    },
    {
      name: 'a model that never answers right, unchanged: passes, saying the probe cannot see',
      current: { probe: probe(0) },
      baseline: { probe: probe(0) },
      reasons: [],
      warnings: ['accuracy 0% (baseline 0%): too few right answers for the probe to see wrong ones'],
    },
    {
      name: 'replies cut at max-tokens on both sides: the warning says what to raise',
      current: { probe: probe(0.1, { cut: 38 }) },
      baseline: { probe: probe(0.125, { cut: 37 }) },
      reasons: [],
      warnings: [
        'accuracy 10% (baseline 12.5%): too few right answers for the probe to see wrong ones; 38 of 40 replies reached max-tokens: a model that reasons before answering needs a larger quality.max-tokens',
      ],
    },
    {
      name: 'half right on one side is enough to see a drop',
      current: { probe: probe(0.475) },
      baseline: { probe: probe(0.5) },
      reasons: [],
    },
    {
      name: 'different probe questions',
      current: { probe: probe(0.1, { seed: 2 }) },
      baseline: HEALTHY,
      reasons: [],
      warnings: [
        "probe questions differ from the baseline's (seed 2, 40 questions; baseline seed 1, 40): accuracy not compared",
      ],
    },
    {
      name: 'more questions, the first ones as right as before',
      // 60 asked now, 40 before: on questions 1–40 both missed question 7 only; the new questions 41–60 are not compared.
      current: {
        probe: probe(0.7, { questions: 60, correct: 42, missed: [7, ...Array.from({ length: 17 }, (_, i) => 41 + i)] }),
      },
      baseline: { probe: probe(0.975, { missed: [7] }) },
      reasons: [],
      warnings: [
        'probe question counts differ (60; baseline 40): accuracy compared on the first 40 questions both asked',
      ],
    },
    {
      name: 'fewer questions, most of them now wrong',
      current: {
        probe: probe(0.25, { questions: 20, correct: 5, missed: Array.from({ length: 15 }, (_, i) => i + 1) }),
      },
      baseline: { probe: probe(1, { missed: [] }) },
      reasons: ['accuracy 25% (baseline 100%) on the first 20 questions both asked: dropped 75 points, limit 5'],
    },
    {
      name: 'different question counts, a baseline from before the missed list',
      current: { probe: probe(1, { questions: 60, correct: 60, missed: [] }) },
      baseline: HEALTHY,
      reasons: [],
      warnings: [
        "probe questions differ from the baseline's (seed 1, 60 questions; baseline seed 1, 40): accuracy not compared",
      ],
    },
    { name: 'agreement at the minimum', current: { agreement: { mean: 0.8, prompts: 12, worst: WORST } }, reasons: [] },
    {
      name: 'agreement under the minimum',
      current: { agreement: { mean: 0.41, prompts: 12, worst: WORST } },
      reasons: [`agreement 0.41 with the baseline's greedy outputs (min 0.8); worst prompt: ${WORST}`],
    },
    {
      name: 'agreement just under, floored',
      current: { agreement: { mean: 0.7999, prompts: 12 } },
      reasons: ["agreement 0.79 with the baseline's greedy outputs (min 0.8)"],
    },
    {
      name: 'a change to garbage',
      current: { degenerate: degenerate(1, { repeat: 20 }, "'s") },
      baseline: HEALTHY,
      reasons: [`output degenerate: 100% of responses repeat one fragment ("'s"); baseline 0%`],
    },
    {
      name: 'garbage of several kinds',
      current: { degenerate: degenerate(0.75, { repeat: 10, compression: 5 }) },
      baseline: HEALTHY,
      reasons: [
        'output degenerate: 75% of responses (50% repeat one fragment, 25% loop a longer passage); baseline 0%',
      ],
    },
    {
      name: 'a model that always rambles',
      current: { degenerate: degenerate(1) },
      baseline: { degenerate: degenerate(1) },
      reasons: [],
    },
    {
      name: 'a rise within the tolerance',
      current: { degenerate: degenerate(0.5) },
      baseline: { degenerate: degenerate(0.3) },
      reasons: [],
    },
    {
      name: 'a rise past the tolerance',
      current: { degenerate: degenerate(0.6, { vocabulary: 12 }) },
      baseline: { degenerate: degenerate(0.3) },
      reasons: ['output degenerate: 60% of responses collapse to a handful of words; baseline 30%'],
    },
    {
      name: 'degenerate: warn',
      current: { degenerate: degenerate(1, { repeat: 20 }, '+') },
      baseline: HEALTHY,
      gate: { degenerate: 'warn' },
      reasons: [],
      warnings: ['output degenerate: 100% of responses repeat one fragment ("+"); baseline 0%'],
    },
    {
      name: 'degenerate: off',
      current: { degenerate: degenerate(1) },
      baseline: HEALTHY,
      gate: { degenerate: 'off' },
      reasons: [],
    },
    {
      name: 'nothing judged',
      current: { degenerate: { ...degenerate(0), judged: 0, share: null } },
      baseline: HEALTHY,
      reasons: [],
    },
    {
      name: 'everything broken at once',
      current: {
        probe: probe(0),
        agreement: { mean: 0, prompts: 12, worst: WORST },
        degenerate: degenerate(1, { repeat: 20 }, "'s"),
      },
      baseline: HEALTHY,
      gate: { maxAccuracyDrop: 0.1, minAgreement: 0.9 },
      reasons: [
        'accuracy 0% (baseline 95%): dropped 95 points, limit 10',
        `agreement 0.00 with the baseline's greedy outputs (min 0.9); worst prompt: ${WORST}`,
        `output degenerate: 100% of responses repeat one fragment ("'s"); baseline 0%`,
      ],
    },
  ])('$name', ({ current, baseline, gate, reasons, warnings = [] }) => {
    const verdict = qualityVerdict(current, baseline, { ...DEFAULT_QUALITY_GATE, ...gate })
    expect(verdict).toEqual({ status: reasons.length > 0 ? 'regression' : 'pass', reasons, warnings })
  })
})
