/**
 * Realistic streamed outputs, about as long as the detector's sample, for the degenerate-output
 * tables: healthy ones of every shape a benchmark may stream, and the garbage engines streamed
 * in public bug reports.
 */
import { mulberry32 } from '../../src/core/random.js'

const PROSE = `The history of the lighthouse is, in a sense, the history of coastal trade itself. Long before
electric lamps and Fresnel lenses, sailors relied on fires lit on headlands to warn them of rocks
and to guide them into harbour after dark. The Pharos of Alexandria, finished around 280 BC, stood
well over a hundred metres tall and was counted among the wonders of the ancient world; travellers
described a mirror at its summit that reflected sunlight by day and firelight by night.

For many centuries afterwards, most lights were modest affairs: a brazier of coal or wood on a
tower, tended by a keeper who might also be the local priest or customs officer. Coal fires were
bright but smoky, and in wet weather they were hard to keep burning. Candles and oil lamps replaced
them in many places during the eighteenth century, yet a bare flame throws its light in every
direction, and most of it was wasted on the sky and the land behind the tower.

The decisive change came in 1822, when Augustin Fresnel presented a lens built from concentric
rings of glass prisms. Each ring bent the light a little more than the one inside it, so that the
whole assembly gathered the glow of a single lamp into a narrow, powerful beam. A lens of this
kind weighed far less than a solid lens of the same size, and it could be rotated on a bed of
mercury so that the beam swept the horizon and each station showed its own pattern of flashes.

Keepers' lives changed more slowly than their equipment. They trimmed wicks, polished brass,
wound the clockwork that turned the lens every few hours, and logged the weather in careful hand.
Some stations were so remote that supplies arrived only a few times a year, and families raised
children on rocks where the nearest neighbour was a day's sail away. Automation in the twentieth
century ended that way of life: by the 1990s almost every light in Europe and North America was
run by sensors and timers, and the keepers' cottages had become museums, holiday lets or ruins.

Today satellite navigation tells a ship its position to within a few metres, and some argue that
the great lights are no longer needed. Yet mariners still value a signal that works when
electronics fail, and many coastal communities regard their lighthouse as part of who they are.`

const JSON_TEXT = JSON.stringify(
  {
    orders: [
      {
        id: 'ord_7f3a21',
        customer: { name: 'Ana Ribeiro', email: 'ana.ribeiro@example.com' },
        items: [
          { sku: 'KB-104', qty: 1, price: 89.9 },
          { sku: 'MS-220', qty: 2, price: 24.5 },
        ],
        status: 'shipped',
        created: '2024-03-02T10:14:00Z',
      },
      {
        id: 'ord_7f3a22',
        customer: { name: 'Hiro Tanaka', email: 'h.tanaka@example.org' },
        items: [{ sku: 'MN-270', qty: 1, price: 249 }],
        status: 'processing',
        created: '2024-03-02T11:02:41Z',
      },
      {
        id: 'ord_7f3a23',
        customer: { name: 'Chidi Okafor', email: 'chidi@example.net' },
        items: [
          { sku: 'HD-011', qty: 3, price: 12.75 },
          { sku: 'CB-USB-C', qty: 4, price: 9.99 },
        ],
        status: 'delivered',
        created: '2024-03-03T08:45:10Z',
      },
      {
        id: 'ord_7f3a24',
        customer: { name: 'Marta Nowak', email: 'marta.nowak@example.com' },
        items: [{ sku: 'LT-900', qty: 1, price: 1299 }],
        status: 'cancelled',
        created: '2024-03-03T16:30:55Z',
      },
      {
        id: 'ord_7f3a25',
        customer: { name: 'Ravi Menon', email: 'ravi.m@example.in' },
        items: [
          { sku: 'SP-050', qty: 2, price: 45 },
          { sku: 'KB-104', qty: 1, price: 89.9 },
        ],
        status: 'shipped',
        created: '2024-03-04T09:12:03Z',
      },
      {
        id: 'ord_7f3a26',
        customer: { name: 'Elin Berg', email: 'elin.berg@example.se' },
        items: [{ sku: 'WC-310', qty: 1, price: 64.2 }],
        status: 'processing',
        created: '2024-03-04T13:48:27Z',
      },
    ],
    page: { number: 1, size: 6, total: 42 },
  },
  null,
  2,
)

const PYTHON = `import argparse
import csv
import statistics
from collections import defaultdict
from pathlib import Path


def read_latencies(path: Path) -> dict[str, list[float]]:
    """Group request latencies (milliseconds) by endpoint."""
    by_endpoint: dict[str, list[float]] = defaultdict(list)
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            try:
                by_endpoint[row["endpoint"]].append(float(row["latency_ms"]))
            except (KeyError, ValueError):
                continue
    return by_endpoint


def percentile(values: list[float], q: float) -> float:
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    index = (len(ordered) - 1) * q
    low, high = int(index), min(int(index) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (index - low)


def summarise(by_endpoint: dict[str, list[float]]) -> list[tuple[str, int, float, float]]:
    rows = []
    for endpoint, values in sorted(by_endpoint.items()):
        rows.append((endpoint, len(values), statistics.fmean(values), percentile(values, 0.99)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="Summarise latencies per endpoint.")
    parser.add_argument("csv", type=Path)
    parser.add_argument("--slowest", type=int, default=5)
    args = parser.parse_args()
    rows = summarise(read_latencies(args.csv))
    rows.sort(key=lambda r: r[3], reverse=True)
    print(f"{'endpoint':<32} {'n':>6} {'mean':>9} {'p99':>9}")
    for endpoint, n, mean, p99 in rows[: args.slowest]:
        print(f"{endpoint:<32} {n:>6} {mean:>9.1f} {p99:>9.1f}")


if __name__ == "__main__":
    main()
`

const MODELS = [
  'Qwen3-8B',
  'Qwen3-14B',
  'Qwen3-32B',
  'Llama-3.1-8B',
  'Llama-3.3-70B',
  'Mistral-7B',
  'Gemma-2-9B',
  'Phi-4',
  'DeepSeek-V2-Lite',
  'Granite-3.1-8B',
]
const QUANTS = ['bf16', 'fp8', 'nvfp4', 'q4_k_m']
const TABLE = [
  '| model | quant | TTFT (ms) | TPOT (ms) | decode (tok/s) | memory (GiB) |',
  '|---|---|---:|---:|---:|---:|',
  ...Array.from({ length: 26 }, (_, i) => {
    const model = MODELS[i % MODELS.length]
    const quant = QUANTS[(i * 3) % QUANTS.length]
    return `| ${model} | ${quant} | ${(180 + ((i * 137) % 900)).toFixed(0)} | ${(8 + ((i * 7.3) % 40)).toFixed(1)} | ${(25 + ((i * 53.7) % 110)).toFixed(1)} | ${(9 + ((i * 11.1) % 70)).toFixed(1)} |`
  }),
].join('\n')

/** Measurements as a model lists them when asked for data: irregular values, commas, decimals. */
const NUMBERS = Array.from({ length: 300 }, (_, i) =>
  (Math.round(((Math.sin(i * 1.7) + 1.3) * 487.31 + i) * 100) / 100).toString(),
).join(', ')

/** Templated output: the most compressible healthy text seen, a list of links. */
const HTML_LIST = [
  '<ul>',
  ...Array.from(
    { length: 40 },
    (_, i) => `  <li class="item"><a href="/docs/page-${i + 1}.html">Page ${i + 1}</a></li>`,
  ),
  '</ul>',
].join('\n')

const RECORDS = JSON.stringify(
  Array.from({ length: 40 }, (_, i) => ({
    id: i + 1,
    name: `user${i + 1}`,
    active: i % 3 !== 0,
    role: ['admin', 'viewer', 'editor'][i % 3],
  })),
  null,
  2,
)

const PRIMES = (() => {
  const out: number[] = []
  for (let n = 2; out.length < 400; n++) if (out.every((p) => n % p !== 0)) out.push(n)
  return out.join(', ')
})()

export const HEALTHY: readonly { name: string; text: string }[] = [
  { name: 'prose', text: PROSE },
  { name: 'pretty-printed JSON', text: JSON_TEXT },
  { name: 'compact JSON', text: JSON.stringify(JSON.parse(JSON_TEXT)) },
  { name: 'Python code', text: PYTHON },
  { name: 'markdown table', text: TABLE },
  { name: 'templated HTML list', text: HTML_LIST },
  { name: 'JSON records', text: RECORDS },
  { name: 'list of measurements', text: NUMBERS },
  { name: 'list of primes', text: PRIMES },
  { name: 'a short answer', text: 'The answer is 5198.' },
]

const times = (fragment: string, n: number) => fragment.repeat(n)

export const DEGENERATE: readonly { name: string; text: string; kind: string }[] = [
  // NVIDIA dgx-spark-playbooks #76; vLLM #49886 and #47241 (NVFP4 on GB10 repeating).
  { name: "'s repeated", text: times("'s", 1024), kind: 'repeat' },
  // SGLang #24321.
  { name: '+ repeated', text: times('+', 2048), kind: 'repeat' },
  { name: 'one word repeated', text: times('the ', 512), kind: 'repeat' },
  {
    name: 'a sentence, then one fragment',
    text: `Sure, here is the summary you asked for:${times(" 's", 600)}`,
    kind: 'repeat',
  },
  { name: 'newlines only', text: times('\n', 300), kind: 'repeat' },
  { name: 'one CJK character', text: times('的', 800), kind: 'repeat' },
  { name: 'a phrase of 31 characters', text: times('and then the model said again, ', 66), kind: 'repeat' },
  {
    name: 'a sentence of 60 characters looping',
    text: times('I am sorry, but I cannot continue with this request today. ', 34),
    kind: 'compression',
  },
  {
    name: 'a passage of 150 characters looping',
    text: times(
      'The committee met on Tuesday to review the budget for the coming year, including the new library wing and the road repairs on the east side of town. ',
      14,
    ),
    kind: 'compression',
  },
  {
    name: 'a handful of words in any order',
    text: (() => {
      const rng = mulberry32(7)
      return Array.from({ length: 400 }, () => ['the', 'of', 'and', 'to', 'a'][Math.floor(rng() * 5)]).join(' ')
    })(),
    kind: 'vocabulary',
  },
]
