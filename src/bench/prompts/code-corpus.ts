/**
 * The corpus `prompts: code` draws its passages from: short Python functions over everyday records (orders, sensor
 * readings, accounts …), generated here from function templates and each topic's names with a fixed seed, so it is
 * the same in every run and on every machine, and holds no downloaded or copied code. A passage is
 * FUNCTIONS_PER_PASSAGE functions of one topic, no template twice, separated by a blank line; a drafter meets code
 * as its users send it for review, explanation or tests: repeated identifiers, fixed syntax, indentation.
 */
import { mulberry32 } from '../../core/random.js'
import { corpusOf, type Corpus, type PromptTopic } from './text-corpus.js'

interface CodeTopic extends PromptTopic {
  /** One value per name: item, items, Item (the class), key, field. */
  names: Readonly<Record<'item' | 'items' | 'Item' | 'key' | 'field', string>>
}

const TOPICS: readonly CodeTopic[] = [
  topic('orders', ['order', 'orders', 'Order', 'customer', 'amount'], 'order records'),
  topic('sensor readings', ['reading', 'readings', 'Reading', 'sensor', 'celsius'], 'temperature readings'),
  topic('accounts', ['account', 'accounts', 'Account', 'owner', 'balance'], 'bank accounts'),
  topic('books', ['book', 'books', 'Book', 'author', 'pages'], 'a small library'),
  topic('trips', ['trip', 'trips', 'Trip', 'city', 'distance'], 'travel records'),
  topic('tasks', ['task', 'tasks', 'Task', 'project', 'hours'], 'project tasks'),
]

function topic(name: string, n: string[], about: string): CodeTopic {
  const [item, items, Item, key, field] = n
  return {
    name,
    about: [`${items}`, about, `${item} handling`, `the ${Item} class`, `${field} totals`],
    questions: [
      `what does the function return when there are no ${items}?`,
      `which field are the ${items} sorted by?`,
      `what happens to a ${item} whose ${field} is exactly the limit?`,
      `how are the ${items} grouped?`,
    ],
    names: { item, items, Item, key, field },
  }
}

/** Function templates: `{item}`, `{items}`, `{Item}`, `{key}`, `{field}` from the topic, `{n}` a number. */
const FUNCTIONS = [
  'def total_{field}({items}):\n    """Add up the {field} of every {item}."""\n    total = 0\n    for {item} in {items}:\n        total += {item}.{field}\n    return total',
  'def find_{item}({items}, {key}):\n    for {item} in {items}:\n        if {item}.{key} == {key}:\n            return {item}\n    return None',
  'def {items}_over_limit({items}, limit={n}):\n    return [{item} for {item} in {items} if {item}.{field} > limit]',
  'class {Item}:\n    def __init__(self, {key}, {field}):\n        self.{key} = {key}\n        self.{field} = {field}\n\n    def __repr__(self):\n        return "{Item}(%r, %r)" % (self.{key}, self.{field})',
  'def group_by_{key}({items}):\n    groups = dict()\n    for {item} in {items}:\n        groups.setdefault({item}.{key}, []).append({item})\n    return groups',
  'def average_{field}({items}):\n    if not {items}:\n        return 0.0\n    return sum({item}.{field} for {item} in {items}) / len({items})',
  'def sort_{items}({items}, reverse=False):\n    return sorted({items}, key=lambda {item}: {item}.{field}, reverse=reverse)',
  'def load_{items}(path):\n    {items} = []\n    with open(path) as handle:\n        for line in handle:\n            {key}, {field} = line.strip().split(",")\n            {items}.append({Item}({key}, float({field})))\n    return {items}',
  'def top_{items}({items}, count={n}):\n    ranked = sort_{items}({items}, reverse=True)\n    return ranked[:count]',
  'def check_{item}({item}):\n    if {item}.{field} < 0:\n        raise ValueError("negative {field} for %s" % {item}.{key})\n    return True',
]

export const CODE_PASSAGES_PER_TOPIC = 12
const FUNCTIONS_PER_PASSAGE = 3
const NUMBERS = ['10', '25', '50', '100', '250', '1000']
const SEED = 0xc0de

function passage(t: CodeTopic, random: () => number): string {
  const order = FUNCTIONS.map((_, i) => i)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  return order
    .slice(0, FUNCTIONS_PER_PASSAGE)
    .map((i) =>
      FUNCTIONS[i].replace(/\{(item|items|Item|key|field|n)\}/g, (_, slot: string) =>
        slot === 'n' ? NUMBERS[Math.floor(random() * NUMBERS.length)] : t.names[slot as keyof CodeTopic['names']],
      ),
    )
    .join('\n\n')
}

export const CODE_TOPICS: readonly PromptTopic[] = TOPICS

/** Instructions by task: `{about}` names the code's subject, `{question}` asks about it. */
export const CODE_TASKS = [
  'please explain what the following code about {about} does, step by step.',
  'please review this code about {about} and point out any bugs.',
  'please add short comments to the code below about {about}.',
  'please rewrite the following code about {about} so that it is easier to read.',
  'please answer the question using only the code below. Question: {question}',
  'please write unit tests for the code below about {about}.',
  'please list the functions in this code about {about} and say what each returns.',
  'please suggest how the code below about {about} could handle bad input.',
]

let built: Corpus | undefined

/** The code corpus, built on first use: the same text in every run. */
export function codeCorpus(): Corpus {
  built ??= buildCode()
  return built
}

function buildCode(): Corpus {
  const random = mulberry32(SEED)
  return corpusOf(TOPICS.map((t) => Array.from({ length: CODE_PASSAGES_PER_TOPIC }, () => passage(t, random))))
}
