import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The API process serves the built files at /console/ (same origin as /api), so every call is a
// relative /api/... URL. `vite` (the dev server) proxies /api, WebSocket included, to a local
// `npm start` on port 3000, so the console can be worked on with hot reload against a real API.
export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The CSP is `script-src 'self'; style-src 'self'`: every script and stylesheet is a file.
    assetsInlineLimit: 0,
    sourcemap: false,
    rolldownOptions: {
      // The build runs at install and start-up: a warning about slow plugins (a slow disk, a busy
      // CI machine) tells whoever reads that output nothing they can act on.
      checks: { bundlerTimings: false },
      output: {
        // Libraries change less often than the console: separate files stay cached across releases.
        // The sign-in form needs only the entry, `react` and `vendor` (and small files the entry shares
        // with the pages): react-router comes with the signed-in console (router.tsx), markdown-it
        // with the pages that render Markdown, and a library that only some pages use (`$initial`
        // keeps it out of `vendor`) with those pages.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            { name: "react-router", test: /node_modules[\\/](react-router|cookie|set-cookie-parser)[\\/]/ },
            { name: "markdown", test: /node_modules[\\/](markdown-it|entities|linkify-it|mdurl|uc\.micro|punycode\.js)[\\/]/ },
            { name: "vendor", test: /node_modules[\\/]/, tags: ["$initial"] },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      "/api": { target: "http://127.0.0.1:3000", ws: true, changeOrigin: false },
    },
  },
});
