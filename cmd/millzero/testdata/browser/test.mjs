// Drives the page of `millzero play --web` in Debian's headless chromium:
// node test.mjs URL SCREENSHOT_PATH
// It waits for the board of nine, clicks d6 (a placement), waits for the
// model's reply, opens the search statistics, checks what the page shows,
// and saves a screenshot. Then it plays on by clicks, and checks that each
// tab plays its own game (the server holds two at most): a second tab
// starts afresh, a reload finds the tab's game again, and a third tab
// closes the game idle longest, whose tab says so and starts another. It
// prints one JSON line of what it saw, and exits 1 with the reason on
// stderr when the page is wrong.
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [url, shot] = process.argv.slice(2);
if (!url || !shot) {
  console.error("usage: node test.mjs URL SCREENSHOT_PATH");
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
  await page.waitForSelector('#board g[data-point="d6"]');
  const points = await page.locator("#board g.pt").count();
  if (points !== 24) throw new Error(`the board of nine has ${points} points drawn, want 24`);
  const status0 = await page.textContent("#status");
  if (!/Your turn/.test(status0)) throw new Error(`status before the first move: ${status0}`);

  // A placement: click the empty point d6.
  await page.locator('#board g[data-point="d6"] circle.hit').click();
  // The model answers in the same request: two actions, our turn again.
  await page.waitForFunction(() => document.getElementById("board").dataset.actions === "2");
  await page.waitForFunction(() => /Your turn/.test(document.getElementById("status").textContent));
  const owner = await page.getAttribute('#board g[data-point="d6"]', "data-owner");
  if (owner !== "0") throw new Error(`d6 holds ${owner} after the click, want white (0)`);
  const black = await page.locator('#board g[data-owner="1"]').count();
  if (black !== 1) throw new Error(`${black} black pieces after the model's reply, want 1`);
  const history = await page.locator("#history li").allTextContents();
  const shown = await page.textContent("#last-move");
  if (shown !== `Model played: black ${history[1]}`) throw new Error(`the model's move is shown as ${JSON.stringify(shown)}`);

  // The search statistics, on request.
  await page.click("#stats-btn");
  await page.waitForSelector("#stats table");
  const stats = await page.textContent("#stats");
  if (!/visits/.test(stats) || !history[1] || !stats.includes(history[1])) {
    throw new Error(`the stats do not show the model's search of ${history[1]}: ${stats}`);
  }

  // A click that is no action says so and changes nothing.
  await page.locator('#board g[data-point="d6"] circle.hit').click();
  const msg = await page.textContent("#message");
  if (!msg) throw new Error("clicking an occupied point said nothing");

  await page.screenshot({ path: shot, fullPage: true });

  // Play on by clicks alone: a removal when one is due, else a placement,
  // else a piece and then where it goes; each click must get an action
  // and the model's reply.
  const kinds = { place: 1, move: 0, remove: 0 };
  for (let i = 0; i < 60; i++) {
    if (/Game over/.test(await page.textContent("#status"))) break;
    const before = await page.getAttribute("#board", "data-actions");
    const removable = page.locator("#board g.removable circle.hit");
    const targets = page.locator("#board g.target circle.hit");
    if (await removable.count()) {
      await removable.first().click();
      kinds.remove++;
    } else if (await targets.count()) {
      await targets.first().click();
      kinds.place++;
    } else {
      const movable = page.locator("#board g.movable circle.hit");
      if (!(await movable.count())) throw new Error("our turn, but no piece can be clicked");
      await movable.first().click();
      await page.locator("#board g.selected").waitFor();
      await page.locator("#board g.target circle.hit").first().click();
      kinds.move++;
    }
    await page.waitForFunction((n) => document.getElementById("board").dataset.actions !== n &&
      !document.getElementById("status").classList.contains("thinking"), before);
  }
  // Our actions (white's) by kind must be what we clicked.
  const ours = await page.locator("#history li.by0").allTextContents();
  const got = { place: 0, move: 0, remove: 0 };
  for (const a of ours) got[a.startsWith("x") ? "remove" : a.includes("-") ? "move" : "place"]++;
  if (JSON.stringify(got) !== JSON.stringify(kinds)) {
    throw new Error(`clicked ${JSON.stringify(kinds)}, but white played ${JSON.stringify(got)}: ${ours.join(" ")}`);
  }
  const played = await page.locator("#history li").allTextContents();
  if (errors.length) throw new Error(errors.join("; "));

  // A second tab plays a game of its own.
  const actions = (p) => p.getAttribute("#board", "data-actions");
  const idle = (p, n) => p.waitForFunction((n) => document.getElementById("board").dataset.actions === n &&
    !document.getElementById("status").classList.contains("thinking"), n);
  const before2 = await actions(page);
  const second = await context.newPage();
  second.on("pageerror", (e) => errors.push("second tab: page error: " + e.message));
  await second.goto(url);
  await second.waitForSelector('#board g[data-point="d6"]');
  await idle(second, "0");
  await second.locator('#board g[data-point="d6"] circle.hit').click();
  await idle(second, "2");
  await page.reload();
  await page.waitForSelector('#board g[data-point="d6"]');
  await idle(page, before2);
  const reloaded = await page.locator("#history li").allTextContents();
  if (JSON.stringify(reloaded) !== JSON.stringify(played)) {
    throw new Error(`the first tab, reloaded after the second tab played, shows ${reloaded.join(" ")}, want its own game ${played.join(" ")}`);
  }

  // A third tab: the server closes the second tab's game (idle longest).
  const third = await context.newPage();
  third.on("pageerror", (e) => errors.push("third tab: page error: " + e.message));
  await third.goto(url);
  await idle(third, "0");
  await second.locator("#board g.target circle.hit").first().click();
  await second.waitForFunction(() => /closed/.test(document.getElementById("status").textContent));
  const goneMessage = await second.textContent("#message");
  if (!/no longer held/.test(goneMessage)) throw new Error(`the second tab, its game closed, says ${JSON.stringify(goneMessage)}`);
  if (await second.locator("#board g.target").count()) throw new Error("the closed game's board still offers actions");
  await second.click("#new-form button[type=submit]");
  await idle(second, "0");
  await second.waitForFunction(() => /Your turn/.test(document.getElementById("status").textContent));
  if (errors.length) throw new Error(errors.join("; "));
  const tabs = { reloaded: reloaded.length, second: "d6", gone: goneMessage };
  console.log(JSON.stringify({ points, history, message: msg, screenshot: shot, clicks: kinds, played, tabs }));
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
