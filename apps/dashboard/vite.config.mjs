// The dashboard's build: one HTML page, hashed assets under /ui/assets, everything bundled (no external requests).
// Type-only imports of @novelrag/contracts are erased, so no server code reaches the bundle.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
