import { runScrapeWorker } from './target-run/round-scrape.js'

await runScrapeWorker()
