// Package webui serves herd's web view: the static page, script and
// style sheet that the Makefile builds from src/ with the machine's Node
// (esbuild, pinned by package-lock.json; the charts are its own SVG) into
// dist/, embedded into the herd binary at build time.
//
// The page holds no data of its own: it reads and acts through herd's HTTP
// API with the signed-in user's token, so the API's authentication and
// roles decide what a user sees and may do. The assets themselves carry
// nothing secret and are served to anyone, as a login page is.
//
// webui imports nothing of herd: the HTTP API mounts its handler.
package webui
