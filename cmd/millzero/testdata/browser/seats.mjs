// Drives the page of `millzero play --web --variant moulin-rouge-4 --seat 1,3`
// in Debian's headless chromium: node seats.mjs URL SCREENSHOT_PATH
// Seat 1 places a piece, the model answers for seat 2, seat 3 places a
// piece, the model answers for seat 4, and the page must say whose turn it
// is and which seats are people's all along. It prints one JSON line of
// what it saw, and exits 1 with the reason on stderr when the page is wrong.
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [url, shot] = process.argv.slice(2);
if (!url || !shot) {
  console.error("usage: node seats.mjs URL SCREENSHOT_PATH");
  process.exit(2);
}

const profile = mkdtempSync(join(tmpdir(), "millzero-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1100, height: 760 },
});

const errors = [];
let failed = null;
try {
  const page = context.pages()[0] || (await context.newPage());
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push("console: " + m.text()); });
  page.setDefaultTimeout(15000);

  await page.goto(url);
  await page.waitForSelector("#board g.target circle.hit");
  const status = [await page.textContent("#status")];
  const seats = await page.locator("#seats div").allTextContents();
  const you = seats.filter((s) => s.includes("(you)")).length;
  if (seats.length !== 4 || you !== 2) throw new Error(`seats shown: ${JSON.stringify(seats)}: want 4, two of them yours`);
  if (!/seat 1: your turn/i.test(status[0])) throw new Error(`status at the start: ${status[0]}`);
  const selected = await page.$eval("#new-seat", (s) => s.value);
  if (selected !== "1,3") throw new Error(`the new-game seat menu shows ${selected}, want 1,3`);

  for (const [k, want] of [[0, /seat 3: your turn/i], [1, /seat 1: your turn/i]]) {
    const before = await page.getAttribute("#board", "data-actions");
    await page.locator("#board g.target circle.hit").first().click();
    await page.waitForFunction((n) => document.getElementById("board").dataset.actions !== n &&
      !document.getElementById("status").classList.contains("thinking"), before);
    status.push(await page.textContent("#status"));
    if (!want.test(status[k + 1])) throw new Error(`status after the people's action ${k + 1}: ${status[k + 1]}`);
  }
  const history = await page.locator("#history li").allTextContents();
  const by = await page.$$eval("#history li", (ls) => ls.map((l) => l.className));
  if (JSON.stringify(by) !== JSON.stringify(["by0", "by1", "by2", "by3"])) {
    throw new Error(`actions by ${JSON.stringify(by)}: want seats 1, 2 (model), 3, 4 (model)`);
  }
  await page.screenshot({ path: shot, fullPage: true });
  if (errors.length) throw new Error(errors.join("; "));
  console.log(JSON.stringify({ seats, status, history }));
} catch (e) {
  failed = e;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
if (failed) {
  console.error("browser test: " + (failed.stack || failed));
  process.exit(1);
}
