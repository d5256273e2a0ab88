import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";
/******/ var __webpack_modules__ = ({

/***/ 338:
/***/ ((module, __unused_webpack___webpack_exports__, __nccwpck_require__) => {

__nccwpck_require__.a(module, async (__webpack_handle_async_dependencies__, __webpack_async_result__) => { try {
/* harmony import */ var _target_run_round_scrape_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(825);

await (0,_target_run_round_scrape_js__WEBPACK_IMPORTED_MODULE_0__/* .runScrapeWorker */ .Yz)();

__webpack_async_result__();
} catch(e) { __webpack_async_result__(e); } }, 1);

/***/ }),

/***/ 825:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  Yz: () => (/* binding */ runScrapeWorker)
});

// UNUSED EXPORTS: bundledScrapeWorker, scrapeRound, startRoundScrape

;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");
;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");
;// CONCATENATED MODULE: external "node:worker_threads"
const external_node_worker_threads_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:worker_threads");
;// CONCATENATED MODULE: external "node:http"
const external_node_http_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:http");
var external_node_http_default = /*#__PURE__*/__nccwpck_require__.n(external_node_http_namespaceObject);
;// CONCATENATED MODULE: external "node:https"
const external_node_https_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:https");
var external_node_https_default = /*#__PURE__*/__nccwpck_require__.n(external_node_https_namespaceObject);
;// CONCATENATED MODULE: external "node:string_decoder"
const external_node_string_decoder_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:string_decoder");
;// CONCATENATED MODULE: ./src/engines/prometheus.ts
/** A sample's value; NaN for anything but a finite number (`+Inf`, `-Inf`, `NaN`, `1e400`, garbage). */
function parseValue(token) {
    const value = token === '' ? Number.NaN : Number(token);
    return Number.isFinite(value) ? value : Number.NaN;
}
/** Where the metric name of a sample line ends (`{` or whitespace), or -1 for comments and blanks. */
function nameEnd(line) {
    if (line === '' || line[0] === '#')
        return -1;
    for (let i = 0; i < line.length; i++) {
        const c = line.charCodeAt(i);
        if (c === 123 /* { */ || c === 32 || c === 9)
            return i;
    }
    return -1;
}
/** Parses `{a="x",b="y\"z"}` starting at `start` (the `{`); returns the labels and the index after `}`. */
function parseLabels(line, start) {
    const labels = {};
    let i = start + 1;
    while (i < line.length) {
        while (line[i] === ' ' || line[i] === ',')
            i++;
        if (line[i] === '}')
            return { labels, end: i + 1 };
        const eq = line.indexOf('=', i);
        if (eq < 0 || line[eq + 1] !== '"')
            return undefined;
        const key = line.slice(i, eq).trim();
        let value = '';
        let j = eq + 2;
        for (; j < line.length && line[j] !== '"'; j++) {
            if (line[j] === '\\' && j + 1 < line.length) {
                j++;
                value += line[j] === 'n' ? '\n' : line[j];
            }
            else
                value += line[j];
        }
        if (j >= line.length)
            return undefined;
        labels[key] = value;
        i = j + 1;
    }
    return undefined;
}
function parseLine(line, end) {
    const name = line.slice(0, end);
    let labels = {};
    let rest = end;
    if (line[end] === '{') {
        const parsed = parseLabels(line, end);
        if (!parsed)
            return undefined;
        labels = parsed.labels;
        rest = parsed.end;
    }
    // value, then an optional timestamp
    const token = line.slice(rest).trim().split(/\s+/)[0] ?? '';
    const value = parseValue(token);
    return Number.isNaN(value) ? undefined : { name, labels, value };
}
/**
 * Sums per metric name over label sets (engine ranks, model names), a line at a time. `names` keeps only those
 * metrics; absent ones stay absent rather than 0, and a name whose sum is not finite is absent too.
 */
function seriesSums(names) {
    const wanted = names ? new Set(names) : undefined;
    const counters = {};
    const overflowed = new Set();
    return {
        add(raw) {
            const line = raw.trim();
            const end = nameEnd(line);
            if (end <= 0 || (wanted && !wanted.has(line.slice(0, end))))
                return;
            const sample = parseLine(line, end);
            if (!sample || overflowed.has(sample.name))
                return;
            const sum = (counters[sample.name] ?? 0) + sample.value;
            if (Number.isFinite(sum))
                counters[sample.name] = sum;
            else {
                overflowed.add(sample.name);
                delete counters[sample.name];
            }
        },
        sums: () => ({ ...counters }),
    };
}
/** `seriesSums` over a whole body. */
function sumByName(text, names) {
    const sums = seriesSums(names);
    let start = 0;
    while (start < text.length) {
        let stop = text.indexOf('\n', start);
        if (stop < 0)
            stop = text.length;
        sums.add(text.slice(start, stop));
        start = stop + 1;
    }
    return sums.sums();
}
const VLLM_DRAFT_COUNTERS = {
    drafts: 'vllm:spec_decode_num_drafts_total',
    draftTokens: 'vllm:spec_decode_num_draft_tokens_total',
    accepted: 'vllm:spec_decode_num_accepted_tokens_total',
};
/** Counters worth diffing around a cell on a vLLM-dialect server. */
const VLLM_COUNTER_NAMES = [
    ...Object.values(VLLM_DRAFT_COUNTERS),
    'vllm:prompt_tokens_total',
    'vllm:generation_tokens_total',
    'vllm:request_success_total',
];
function delta(before, after, name) {
    const end = after[name];
    if (end === undefined)
        return undefined;
    return end - (before?.[name] ?? 0);
}
/**
 * vLLM formulas: acceptance_rate = Δaccepted / Δdraft_tokens, acceptance_length = 1 + Δaccepted / Δdrafts.
 * Undefined when the server has no spec-decode counters or drafted nothing in the window.
 */
function vllmSpecDecode(before, after, source = 'vllm /metrics counter deltas') {
    if (!after)
        return undefined;
    const drafts = delta(before, after, VLLM_DRAFT_COUNTERS.drafts);
    const draftTokens = delta(before, after, VLLM_DRAFT_COUNTERS.draftTokens);
    const accepted = delta(before, after, VLLM_DRAFT_COUNTERS.accepted);
    if (drafts === undefined || draftTokens === undefined || accepted === undefined)
        return undefined;
    if (drafts <= 0 || draftTokens <= 0 || accepted < 0)
        return undefined;
    const acceptanceRate = accepted / draftTokens;
    const acceptanceLength = 1 + accepted / drafts;
    // Counters a restart reset, or that overflow when divided, give no figure rather than a wrong one.
    if (!Number.isFinite(acceptanceRate) || !Number.isFinite(acceptanceLength))
        return undefined;
    return {
        acceptanceRate: Math.min(1, acceptanceRate),
        acceptanceLength,
        draftTokens,
        acceptedTokens: accepted,
        source,
    };
}

;// CONCATENATED MODULE: ./src/engines/scrape.ts
/**
 * One bounded read of an engine's Prometheus endpoint that keeps only the named series: the body is read as it
 * streams in, a complete line at a time (`seriesSums`), and reading stops at `maxBytes`, closing the connection.
 * A busy engine's endpoint is mostly histogram buckets (vLLM exports several per engine rank and model, each with
 * a dozen or more `le` buckets), none of which an adapter names; nothing of them is kept beyond the line being read.
 * A line cut at the cap is dropped, not parsed: `12345` cut to `12` would be a wrong value, not a missing one.
 */




/**
 * What one scrape reads at most. vLLM's endpoint is a few hundred KiB for one engine rank and model; a data-parallel
 * server with several ranks is still well under this. Past it, the series after the cap are missing for that scrape.
 */
const SCRAPE_MAX_BYTES = (/* unused pure expression or super */ null && (2 * 1024 * 1024));
/** One scrape's deadline: a slow endpoint costs a sample, never the round. */
const SCRAPE_TIMEOUT_MS = 2000;
/** The named series at `url`, or undefined when it did not answer 200 in time or the connection failed mid-body. */
function scrapeSeries(url, names, limits) {
    let parsed;
    try {
        parsed = new URL(url);
    }
    catch {
        return Promise.resolve(undefined);
    }
    const client = parsed.protocol === 'https:' ? (external_node_https_default()) : (external_node_http_default());
    return new Promise((resolve) => {
        let settled = false;
        const headers = { connection: 'close', accept: 'text/plain' };
        const request = client.get(parsed, { headers, agent: false }, (res) => {
            if (res.statusCode !== 200)
                return finish(undefined);
            readBody(res, names, limits.maxBytes, finish);
        });
        const timer = setTimeout(() => finish(undefined), limits.timeoutMs);
        request.on('error', () => finish(undefined));
        function finish(scrape) {
            if (settled)
                return;
            settled = true;
            clearTimeout(timer);
            request.destroy();
            resolve(scrape);
        }
    });
}
function readBody(res, names, maxBytes, finish) {
    const sums = seriesSums(names);
    const decoder = new external_node_string_decoder_namespaceObject.StringDecoder('utf8');
    let pending = '';
    let bytes = 0;
    const feed = (text) => {
        const lines = (pending + text).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines)
            sums.add(line);
    };
    res.on('data', (chunk) => {
        const room = maxBytes - bytes;
        if (chunk.length <= room) {
            bytes += chunk.length;
            return feed(decoder.write(chunk));
        }
        bytes += room;
        feed(decoder.write(chunk.subarray(0, room)));
        // The line the cap cut through is dropped.
        finish({ values: sums.sums(), bytes, cut: true });
    });
    res.on('end', () => {
        feed(decoder.end());
        if (pending)
            sums.add(pending);
        finish({ values: sums.sums(), bytes, cut: false });
    });
    // Closed before its end (and not by us): what arrived is a partial body, so the scrape gave nothing.
    res.on('close', () => finish(undefined));
    res.on('error', () => finish(undefined));
}

;// CONCATENATED MODULE: ./src/target-run/round-scrape.ts
/**
 * The scrapes of one round, off the thread that times it: the engine's series read before the round, its gauges
 * sampled during it, and the series read after it.
 *
 * Why a worker thread rather than scraping only between rounds: the gauges (requests waiting and running, KV-cache
 * usage) say what happened under load, and a queue that builds during a round is gone after it, so they are sampled
 * during the round. But every scrape read and parsed on the event loop
 * that reads the SSE streams holds each token read behind it: a 7 MiB endpoint held that loop 50–110 ms a scrape and
 * turned a 20 ms inter-token schedule's p99 into 250 ms. So the whole round's scraping runs in a worker thread, with
 * its own event loop, sockets and timers (https://nodejs.org/api/worker_threads.html); the measuring thread starts it
 * before the round, posts `stop` after it, and gets back a few numbers per sample.
 *
 * The worker script is the bundle's `scrape-worker/index.js` next to the running bundle. Where there is none (the
 * sources run directly) or the worker cannot start, the same loop runs in this thread, still bounded by the cap.
 */




/** Starts the round's scrapes (in a worker running `script`, if given) once the reading before the round is done. */
function startRoundScrape(spec, script) {
    return script ? inWorker(spec, script) : scrapeRound(spec);
}
/** `dist/scrape-worker/index.js`, seen from the action (`dist/index.js`) or the CLI (`dist/cli/index.js`). */
function bundledScrapeWorker(entry = process.argv[1] ?? '') {
    // The CLI may be started through a bin symlink: look next to the file it points to.
    const dir = dirname(existsSync(entry) ? realpathSync(entry) : entry);
    return [join(dir, 'scrape-worker', 'index.js'), join(dir, '..', 'scrape-worker', 'index.js')].find((path) => existsSync(path));
}
/** The round's scrapes in this thread. */
async function scrapeRound(spec) {
    let cutAt;
    const read = async () => {
        const scrape = await scrapeSeries(spec.url, spec.names, spec);
        if (scrape?.cut)
            cutAt = Math.max(cutAt ?? 0, scrape.bytes);
        return scrape && Object.keys(scrape.values).length ? scrape.values : undefined;
    };
    const before = await read();
    const sampler = gaugeSampler(read, spec.sampleMs);
    return {
        async stop() {
            const samples = await sampler.stop();
            const after = await read();
            return { before, after, samples, ...(cutAt !== undefined && { cutAt }) };
        },
    };
}
/** One scrape after another, each `sampleMs` after the previous one began, until stopped; the samples taken. */
function gaugeSampler(read, sampleMs) {
    const samples = [];
    let stopped = false;
    let wake;
    const loop = (async () => {
        while (!stopped) {
            await new Promise((resolve) => {
                wake = resolve;
                setTimeout(resolve, sampleMs).unref();
            });
            if (stopped)
                return;
            const sample = await read();
            if (sample && !stopped)
                samples.push(sample);
        }
    })();
    return {
        async stop() {
            stopped = true;
            wake?.();
            await loop;
            return samples;
        },
    };
}
/**
 * The round's scrapes in a worker. It never keeps the process alive and is terminated once it answered; one that
 * does not start falls back to this thread, and one that does not answer `stop` within two scrapes' deadlines gives
 * the round no readings.
 */
async function inWorker(spec, script) {
    let worker;
    try {
        worker = new Worker(script, { workerData: spec });
    }
    catch {
        return scrapeRound(spec);
    }
    worker.unref();
    const gone = new Promise((resolve) => {
        worker.on('error', () => resolve());
        worker.once('exit', () => resolve());
    });
    const heard = (type, ms) => new Promise((resolve) => {
        const done = (m) => {
            clearTimeout(timer);
            worker.off('message', listener);
            resolve(m);
        };
        const listener = (m) => m.type === type && done(m);
        const timer = setTimeout(done, ms);
        worker.on('message', listener);
        void gone.then(() => done());
    });
    // Starting a worker takes tens of milliseconds; the first scrape then has its own deadline.
    if (!(await heard('started', spec.timeoutMs + 10_000))) {
        await worker.terminate();
        return scrapeRound(spec);
    }
    return {
        async stop() {
            const answer = heard('readings', 2 * spec.timeoutMs + 1000);
            worker.postMessage('stop');
            const m = await answer;
            await worker.terminate();
            return m?.type === 'readings' ? m.readings : { samples: [] };
        },
    };
}
/** The worker's side: scrape from the start, and on `stop` answer with the readings. */
async function runScrapeWorker() {
    const port = external_node_worker_threads_namespaceObject.parentPort;
    if (!port)
        throw new Error('the scrape worker runs only as a worker thread');
    const scrape = await scrapeRound(external_node_worker_threads_namespaceObject.workerData);
    port.once('message', () => {
        void scrape.stop().then((readings) => {
            port.postMessage({ type: 'readings', readings });
            port.close();
        });
    });
    port.postMessage({ type: 'started' });
}


/***/ })

/******/ });
/************************************************************************/
/******/ // The module cache
/******/ var __webpack_module_cache__ = {};
/******/ 
/******/ // The require function
/******/ function __nccwpck_require__(moduleId) {
/******/ 	// Check if module is in cache
/******/ 	var cachedModule = __webpack_module_cache__[moduleId];
/******/ 	if (cachedModule !== undefined) {
/******/ 		return cachedModule.exports;
/******/ 	}
/******/ 	// Create a new module (and put it into the cache)
/******/ 	var module = __webpack_module_cache__[moduleId] = {
/******/ 		// no module.id needed
/******/ 		// no module.loaded needed
/******/ 		exports: {}
/******/ 	};
/******/ 
/******/ 	// Execute the module function
/******/ 	var threw = true;
/******/ 	try {
/******/ 		__webpack_modules__[moduleId](module, module.exports, __nccwpck_require__);
/******/ 		threw = false;
/******/ 	} finally {
/******/ 		if(threw) delete __webpack_module_cache__[moduleId];
/******/ 	}
/******/ 
/******/ 	// Return the exports of the module
/******/ 	return module.exports;
/******/ }
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/asset-relocator-loader */
/******/ if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = decodeURIComponent(new URL('.', import.meta.url).pathname).slice(import.meta.url.match(/^file:\/\/\/\w:/) ? 1 : 0, -1) + "/";
/******/ 
/******/ /* webpack/runtime/async module */
/******/ (() => {
/******/ 	var webpackQueues = typeof Symbol === "function" ? Symbol("webpack queues") : "__webpack_queues__";
/******/ 	var webpackExports = typeof Symbol === "function" ? Symbol("webpack exports") : "__webpack_exports__";
/******/ 	var webpackError = typeof Symbol === "function" ? Symbol("webpack error") : "__webpack_error__";
/******/ 	var resolveQueue = (queue) => {
/******/ 		if(queue && queue.d < 1) {
/******/ 			queue.d = 1;
/******/ 			queue.forEach((fn) => (fn.r--));
/******/ 			queue.forEach((fn) => (fn.r-- ? fn.r++ : fn()));
/******/ 		}
/******/ 	}
/******/ 	var wrapDeps = (deps) => (deps.map((dep) => {
/******/ 		if(dep !== null && typeof dep === "object") {
/******/ 			if(dep[webpackQueues]) return dep;
/******/ 			if(dep.then) {
/******/ 				var queue = [];
/******/ 				queue.d = 0;
/******/ 				dep.then((r) => {
/******/ 					obj[webpackExports] = r;
/******/ 					resolveQueue(queue);
/******/ 				}, (e) => {
/******/ 					obj[webpackError] = e;
/******/ 					resolveQueue(queue);
/******/ 				});
/******/ 				var obj = {};
/******/ 				obj[webpackQueues] = (fn) => (fn(queue));
/******/ 				return obj;
/******/ 			}
/******/ 		}
/******/ 		var ret = {};
/******/ 		ret[webpackQueues] = x => {};
/******/ 		ret[webpackExports] = dep;
/******/ 		return ret;
/******/ 	}));
/******/ 	__nccwpck_require__.a = (module, body, hasAwait) => {
/******/ 		var queue;
/******/ 		hasAwait && ((queue = []).d = -1);
/******/ 		var depQueues = new Set();
/******/ 		var exports = module.exports;
/******/ 		var currentDeps;
/******/ 		var outerResolve;
/******/ 		var reject;
/******/ 		var promise = new Promise((resolve, rej) => {
/******/ 			reject = rej;
/******/ 			outerResolve = resolve;
/******/ 		});
/******/ 		promise[webpackExports] = exports;
/******/ 		promise[webpackQueues] = (fn) => (queue && fn(queue), depQueues.forEach(fn), promise["catch"](x => {}));
/******/ 		module.exports = promise;
/******/ 		body((deps) => {
/******/ 			currentDeps = wrapDeps(deps);
/******/ 			var fn;
/******/ 			var getResult = () => (currentDeps.map((d) => {
/******/ 				if(d[webpackError]) throw d[webpackError];
/******/ 				return d[webpackExports];
/******/ 			}))
/******/ 			var promise = new Promise((resolve) => {
/******/ 				fn = () => (resolve(getResult));
/******/ 				fn.r = 0;
/******/ 				var fnQueue = (q) => (q !== queue && !depQueues.has(q) && (depQueues.add(q), q && !q.d && (fn.r++, q.push(fn))));
/******/ 				currentDeps.map((dep) => (dep[webpackQueues](fnQueue)));
/******/ 			});
/******/ 			return fn.r ? promise : getResult();
/******/ 		}, (err) => ((err ? reject(promise[webpackError] = err) : outerResolve(exports)), resolveQueue(queue)));
/******/ 		queue && queue.d < 0 && (queue.d = 0);
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/compat get default export */
/******/ (() => {
/******/ 	// getDefaultExport function for compatibility with non-harmony modules
/******/ 	__nccwpck_require__.n = (module) => {
/******/ 		var getter = module && module.__esModule ?
/******/ 			() => (module['default']) :
/******/ 			() => (module);
/******/ 		__nccwpck_require__.d(getter, { a: getter });
/******/ 		return getter;
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/************************************************************************/
/******/ 
/******/ // startup
/******/ // Load entry module and return exports
/******/ // This entry module used 'module' so it can't be inlined
/******/ var __webpack_exports__ = __nccwpck_require__(338);
/******/ __webpack_exports__ = await __webpack_exports__;
/******/ 
