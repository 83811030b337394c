// Lighthouse (npm, pinned by package-lock.json) over a list of pages in one Chromium, for
// tests/browser/test_lighthouse.py. Reads {"chrome": path, "runs": [{"url", "form"}]} as JSON
// on stdin; writes one JSON summary per run, in order, as a JSON list on stdout.
// One browser for every run: starting Chromium anew each time would double the tier's time.
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";

const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

async function read(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf-8"));
}

function summary(lhr) {
  const scores = {};
  for (const [id, category] of Object.entries(lhr.categories)) scores[id] = category.score;
  // What cost a category its points: every scored audit below 1 in any category.
  const failing = [];
  for (const category of Object.values(lhr.categories)) {
    for (const ref of category.auditRefs) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
        failing.push(`${category.id}/${ref.id}: ${audit.score} ${audit.displayValue || ""}`.trim());
      }
    }
  }
  return {
    url: lhr.finalDisplayedUrl,
    scores,
    cls: lhr.audits["cumulative-layout-shift"].numericValue,
    tbt: lhr.audits["total-blocking-time"].numericValue,
    failing,
    error: lhr.runtimeError ? lhr.runtimeError.message : null,
  };
}

const spec = await read(process.stdin);
const chrome = await chromeLauncher.launch({
  chromePath: spec.chrome,
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"],
});
const results = [];
try {
  for (const run of spec.runs) {
    const flags = { port: chrome.port, output: "json", logLevel: "error", onlyCategories: CATEGORIES };
    const config = run.form === "desktop" ? desktopConfig : undefined;
    const done = await lighthouse(run.url, flags, config);
    results.push({ form: run.form, ...summary(done.lhr) });
  }
} finally {
  await chrome.kill();
}
process.stdout.write(JSON.stringify(results));
