// Bundles the web view into dist/: one script (and its worker's), one
// style sheet and the page, which the herd binary embeds (go:embed). Nothing is fetched at run
// time from anywhere but herd itself.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const out = 'dist';
mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: ['src/main.js'],
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  target: ['chrome110', 'firefox110', 'safari16'],
  outfile: `${out}/app.js`,
  logLevel: 'warning',
});

// The worker that reads lists of the past off the page's main thread
// (src/lister.js): a script of its own, as a worker must be.
await esbuild.build({
  entryPoints: ['src/lister.js'],
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'iife',
  target: ['chrome110', 'firefox110', 'safari16'],
  outfile: `${out}/lister.js`,
  logLevel: 'warning',
});

const css = readFileSync('src/style.css', 'utf8');
const minified = await esbuild.transform(css, { loader: 'css', minify: true });
writeFileSync(`${out}/app.css`, minified.code);
copyFileSync('src/index.html', `${out}/index.html`);
copyFileSync('src/favicon.svg', `${out}/favicon.svg`);
