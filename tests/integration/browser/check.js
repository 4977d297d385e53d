// Opens every page of the built manual (target/site, served on
// localhost: the theme's JS and highlight.js run as on a real host) in
// Debian's headless Chromium at 1280x900 and checks: no horizontal
// overflow, code highlighted, every page linked from the home page's
// navigation. Usage: node check.js SITE_DIR BASE_URL
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const [site, base] = process.argv.slice(2);

// Every built page: each index.html but the 404 page.
function pages(dir, rel = "") {
  let out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const sub = path.join(rel, entry.name);
    if (entry.isDirectory()) out = out.concat(pages(path.join(dir, entry.name), sub));
    else if (entry.name === "index.html") out.push(rel ? rel.split(path.sep).join("/") + "/" : "");
  }
  return out.sort();
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium" });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // The theme loads highlight.js from cdnjs: served here from the same
  // release on npm (@highlightjs/cdn-assets, the pinned 11.8.0), so the
  // test needs no network; any other outside request is refused.
  const cdn = "https://cdnjs.cloudflare.com/ajax/libs/highlight.js/11.8.0/";
  const assets = path.dirname(require.resolve("@highlightjs/cdn-assets/package.json"));
  await page.route(/^https?:/, (route) => {
    const url = route.request().url();
    if (url.startsWith(base)) return route.continue();
    // toml.min.js is absent there as on cdnjs (hljs 11 has toml in ini): 404.
    const file = url.startsWith(cdn) && path.join(assets, url.slice(cdn.length));
    if (file && fs.existsSync(file)) return route.fulfill({ path: file });
    if (file) return route.fulfill({ status: 404 });
    return route.abort();
  });
  const failures = [];
  const urls = pages(site);

  await page.goto(base, { waitUntil: "load" });
  // The sidebar holds every nav entry, collapsed ones included.
  const nav = new Set(
    await page.$$eval(".wy-menu a[href]", (links) => links.map((a) => new URL(a.href).pathname)),
  );
  for (const url of urls) {
    if (!nav.has("/" + url)) failures.push(`/${url}: not in the navigation`);
  }

  for (const url of urls) {
    await page.goto(base + url, { waitUntil: "load" });
    const problems = await page.evaluate(() => {
      const out = [];
      const root = document.documentElement;
      if (root.scrollWidth > innerWidth) out.push(`page ${root.scrollWidth} px wide`);
      // Wider than its own box, within the content: a table or block that
      // overflows or scrolls sideways. Code blocks scroll by design (pre).
      for (const el of document.querySelectorAll(".rst-content *")) {
        if (el.closest("pre") || el.clientWidth === 0) continue;
        const s = getComputedStyle(el);
        if (s.display === "inline") continue;
        if (el.scrollWidth > el.clientWidth + 1) {
          const name = el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ").join(".") : "");
          out.push(`${name} overflows (${el.scrollWidth} > ${el.clientWidth} px): ${el.textContent.trim().slice(0, 60)}`);
        }
      }
      for (const code of document.querySelectorAll("pre code")) {
        const lang = [...code.classList].find((c) => c.startsWith("language-"));
        if (!lang || /^language-(text|plain|plaintext|console|none)$/.test(lang)) continue;
        // A block with no token to colour (a plain command) has no span:
        // then highlight.js itself must give none for that language.
        const name = lang.slice("language-".length);
        const tokens = window.hljs && hljs.getLanguage(name) && /class="hljs-/.test(hljs.highlight(code.textContent, { language: name }).value);
        if (!code.classList.contains("hljs") || (tokens !== false && !code.querySelector("span[class^='hljs-']")))
          out.push(`${lang} block not highlighted: ${code.textContent.trim().slice(0, 60)}`);
      }
      return out;
    });
    for (const p of problems) failures.push(`/${url}: ${p}`);
  }
  await browser.close();
  for (const f of failures) console.error("docs browser: " + f);
  if (failures.length) process.exit(1);
  console.log(`docs browser: ${urls.length} pages at 1280 px, none overflows, code highlighted, all in the navigation`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
