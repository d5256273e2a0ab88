import { runScrapeWorker } from './target/round-scrape.js'

await runScrapeWorker()
